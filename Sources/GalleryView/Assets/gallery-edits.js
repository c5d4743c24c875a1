// A gallery's edits through the server's API; a refusal is shown as a toast.
import { call, post, toast, uploadFrames } from './api.js';

export function installEdits(page) {
  page.edit = async function edit(action, body) {
    try { return await post(`/api/documents/${page.id}/${action}`, body); } catch (error) { toast(error.message, 'error'); return null; }
  };

  page.moveSelection = async function moveSelection(ids, before) {
    if (ids.length) await page.edit('move', { ids, before });
  };

  // A caption, note, stars, label or tags for items (`describe`), as the commands give them.
  page.describe = async function describe(ids, change) {
    return ids.length ? page.edit('describe', { ids, ...change }) : null;
  };

  page.trashSelection = async function trashSelection(ids) {
    if (!ids.length) return;
    await page.edit('trash', { ids });
    toast(`${ids.length} item${ids.length === 1 ? '' : 's'} moved to the trash`);
  };

  page.dropFiles = async function dropFiles(files, before) {
    const images = [...files];
    if (!images.length) return;
    const query = before ? `?before=${encodeURIComponent(before)}` : '';
    try {
      await call('POST', `/api/documents/${page.id}/drop${query}`, uploadFrames(images), { 'Content-Type': 'application/x-gallery-upload' });
    } catch (error) { toast(error.message, 'error'); }
  };

  page.dropLinks = async function dropLinks(uris, before) {
    if (!uris.length) return;
    const query = before ? `?before=${encodeURIComponent(before)}` : '';
    try { await post(`/api/documents/${page.id}/drop${query}`, { uris }); } catch (error) { toast(error.message, 'error'); }
  };
}

// URLs a drag or a paste carries: a uri-list, an <img src> or links in HTML, or text lines
// that are URLs. The server cleans image-search links and refuses anything else.
export function linksIn(transfer) {
  const list = transfer.getData('text/uri-list');
  if (list) return list.split(/\r?\n/).map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const html = transfer.getData('text/html');
  if (html) {
    const parsed = new DOMParser().parseFromString(html, 'text/html');
    const images = [...parsed.querySelectorAll('img[src]')].map((img) => img.getAttribute('src'));
    const anchors = [...parsed.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
    const found = (images.length ? images : anchors).filter((url) => /^(https?:|data:image\/)/i.test(url));
    if (found.length) return found;
  }
  const text = transfer.getData('text/plain');
  return (text || '').split(/\s+/).filter((word) => /^https?:\/\/\S+$/i.test(word));
}
