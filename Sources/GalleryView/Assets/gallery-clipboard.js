// A gallery's clipboard. Ctrl+V: an image or URLs at the selection, or items cut or copied
// in another gallery page. Ctrl+X / Ctrl+C: the clipboard gets the items' URLs (for other
// programs) and a marker that a gallery page recognises; which items, in localStorage
// (shared by this server's pages). Written in the cut/copy event itself: no permission
// needed, nothing can fail.
import { toast } from './api.js';
import { linksIn } from './gallery-edits.js';

export function installClipboard(page) {
  const { state } = page;

  document.addEventListener('paste', async (event) => {
    // Text pasted into a field (the search) is the field's.
    if (event.target.closest?.('input, textarea')) return;
    const before = insertionAfterSelection();
    const data = event.clipboardData;
    const clip = JSON.parse(localStorage.getItem('gallery-clip') || 'null');
    const links = linksIn(data);
    const hasFiles = data.files && data.files.length > 0;
    // Items cut or copied in a gallery page: the clipboard holds their marker.
    const fresh = clip && Date.now() - clip.time < 30 * 60 * 1000;
    if (fresh && clip.document !== page.id && data.getData('text/plain') === clip.marker) {
      event.preventDefault();
      if (clip.cut) localStorage.removeItem('gallery-clip');
      await page.edit('transfer', { from: clip.document, ids: clip.ids, move: clip.cut, before });
      return;
    }
    if (hasFiles) { event.preventDefault(); return page.dropFiles(data.files, before); }
    if (links.length) { event.preventDefault(); return page.dropLinks(links, before); }
  });

  function insertionAfterSelection() {
    const ids = page.selectedIDs();
    if (!ids.length) return null;
    return state.items[page.indexOf(ids[ids.length - 1]) + 1]?.id ?? null;
  }

  function clip(event, cut) {
    const ids = page.selectedIDs();
    if (!ids.length || event.target.closest?.('input, textarea')) return;
    event.preventDefault();
    const marker = `gallery-items:${page.id}:${Date.now()}`;
    localStorage.setItem('gallery-clip', JSON.stringify({ document: page.id, ids, cut, marker, time: Date.now() }));
    const links = ids.map((itemID) => state.items[page.indexOf(itemID)].source).filter((source) => /^(https?|file):/.test(source));
    event.clipboardData.setData('text/plain', marker);
    if (links.length) event.clipboardData.setData('text/uri-list', links.join('\r\n'));
    toast(`${ids.length} item${ids.length === 1 ? '' : 's'} ${cut ? 'cut' : 'copied'}: paste in another gallery`);
  }
  document.addEventListener('cut', (event) => clip(event, true));
  document.addEventListener('copy', (event) => clip(event, false));
}
