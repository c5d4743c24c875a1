// A gallery's drags: out (to another page, a file manager, the desktop), in (files, links,
// another gallery's items, text as a note card) at the gap under the pointer, within (a
// move), and onto the trash. The proposal is the classic app's UIDropProposal: from this
// page a move, from elsewhere a copy (Shift: a move, for another gallery's items), else
// forbidden.
import { gapAt } from './layout.js';
import { linksIn } from './gallery-edits.js';
import { spacing } from './gallery-render.js';

export const itemsType = 'application/x-gallery-items';

export function installDrag(page) {
  const { state, grid, main, marker, trashButton } = page;

  // ----- Drag out -----
  grid.addEventListener('dragstart', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile) return;
    if (!state.selected.has(tile.dataset.id)) page.select(tile.dataset.id);
    const ids = page.selectedIDs();
    state.dragging = { ids };
    document.body.classList.add('dragging-tiles');
    const items = ids.map((itemID) => state.items[page.indexOf(itemID)]);
    const transfer = event.dataTransfer;
    transfer.effectAllowed = 'copyMove';
    transfer.setData(itemsType, JSON.stringify({ document: page.id, ids, origin: location.origin }));
    const links = items.map((item) => item.source).filter((source) => /^(https?|file):/.test(source));
    if (links.length) {
      transfer.setData('text/uri-list', links.join('\r\n'));
      transfer.setData('text/plain', links.join('\n'));
    } else if (items.some((item) => item.display === 'note')) {
      // Cards dragged to a text editor give their text.
      transfer.setData('text/plain', items.filter((item) => item.display === 'note').map((item) => item.note).join('\n\n'));
    }
    const first = items[0];
    if (first && first.display === 'ready') {
      // Chromium saves this file when the tile is dropped on a desktop or a file manager.
      // The format is a validated name; checked again, as a ':' would move the URL's start.
      const format = /^[a-z0-9]{1,8}$/.test(first.format || '') ? first.format : 'jpg';
      const name = fileName(first, format);
      transfer.setData('DownloadURL', `${mimeOf(first.format)}:${name}:${location.origin}/api/documents/${page.id}/originals/${first.id}`);
    }
  });
  grid.addEventListener('dragend', () => {
    state.dragging = null;
    document.body.classList.remove('dragging-tiles');
    hideMarker();
  });

  // ----- Drop in -----
  function proposal(event) {
    const types = [...event.dataTransfer.types];
    if (state.dragging) return 'move';
    if (types.includes(itemsType)) return event.shiftKey ? 'move' : 'copy';
    if (types.includes('Files') || types.includes('text/uri-list') || types.includes('text/html') || types.includes('text/plain')) return 'copy';
    return 'none';
  }

  function gapFor(event) {
    const box = grid.getBoundingClientRect();
    return gapAt(state.placed.tiles, event.clientX - box.left, event.clientY - box.top, spacing);
  }

  function showMarker(gap) {
    const { tiles } = state.placed;
    let x;
    let y;
    let height;
    if (tiles.length === 0) { x = 0; y = 0; height = state.size; }
    else if (gap < tiles.length) { const t = tiles[gap]; x = t.x - spacing / 2; y = t.y; height = t.height; }
    else { const t = tiles[tiles.length - 1]; x = t.x + t.width + spacing / 2; y = t.y; height = t.height; }
    marker.style.transform = `translate(${x - 2}px, ${y}px)`;
    marker.style.height = `${height}px`;
    marker.hidden = false;
  }
  function hideMarker() { marker.hidden = true; grid.classList.remove('drop-copy', 'drop-move'); }

  main.addEventListener('dragover', (event) => {
    const operation = proposal(event);
    if (operation === 'none') { event.dataTransfer.dropEffect = 'none'; hideMarker(); return; }
    // Without preventDefault, the drop never fires.
    event.preventDefault();
    event.dataTransfer.dropEffect = operation;
    grid.classList.toggle('drop-copy', operation === 'copy');
    grid.classList.toggle('drop-move', operation === 'move');
    showMarker(gapFor(event));
  });
  main.addEventListener('dragleave', (event) => { if (!main.contains(event.relatedTarget)) hideMarker(); });
  main.addEventListener('drop', async (event) => {
    const operation = proposal(event);
    if (operation === 'none') return;
    event.preventDefault();
    hideMarker();
    const gap = gapFor(event);
    const before = state.items[gap]?.id ?? null;
    const transfer = event.dataTransfer;
    if (state.dragging) {
      const ids = state.dragging.ids;
      state.dragging = null;
      return page.moveSelection(ids, before);
    }
    const carried = transfer.getData(itemsType);
    if (carried) {
      const payload = JSON.parse(carried);
      if (payload.origin === location.origin && payload.document !== page.id) {
        await page.edit('transfer', { from: payload.document, ids: payload.ids, move: operation === 'move', before });
        return;
      }
    }
    if (transfer.files && transfer.files.length) return page.dropFiles(transfer.files, before);
    const links = linksIn(transfer);
    // Text that names no image becomes a note card.
    const text = transfer.getData('text/plain');
    if (!links.length && text.trim() && !transfer.getData('text/uri-list')) return page.addNote(text, before);
    return page.dropLinks(links, before);
  });

  // ----- Onto the trash -----
  trashButton.addEventListener('dragover', (event) => {
    // Only this gallery's own items go to its trash, as in the classic app.
    if (!state.dragging) { event.dataTransfer.dropEffect = 'none'; return; }
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = 'move';
    trashButton.classList.add('target');
    hideMarker();
  });
  trashButton.addEventListener('dragleave', () => trashButton.classList.remove('target'));
  trashButton.addEventListener('drop', (event) => {
    event.preventDefault();
    event.stopPropagation();
    trashButton.classList.remove('target');
    if (!state.dragging) return;
    const ids = state.dragging.ids;
    state.dragging = null;
    page.trashSelection(ids);
  });
}

function mimeOf(format) {
  return { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif', bmp: 'image/bmp' }[format] || 'application/octet-stream';
}

// The item's own file name (its source's last segment), made safe for a DownloadURL: no
// ':' (it would move the URL's start), no path separator or control character; else its id.
function fileName(item, format) {
  let name = '';
  try { name = decodeURIComponent(new URL(item.source).pathname.split('/').pop() || ''); } catch { name = ''; }
  name = name.replace(/[:/\\\u0000-\u001f\u007f]/g, '_').slice(-120);
  return name && !/^\.*$/.test(name) ? name : `${item.id}.${format}`;
}
