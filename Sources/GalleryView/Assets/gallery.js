// A gallery's page: the classic app's collection view. Justified rows at the items' aspect
// ratios, only the tiles on screen in the DOM, drag and drop in, out, within and between
// pages, a trash, a large view, and every drag's keyboard equivalent.
import { call, coalescedLoader, element, events, post, toast, uploadFrames } from './api.js';
import { firstVisible, gapAt, place } from './layout.js';

const spacing = 8;
const itemsType = 'application/x-gallery-items';
const minSize = 60;
const maxSize = 480;

export function showGallery(id) {
  const state = {
    id,
    doc: null,
    items: [],
    placed: { tiles: [], height: 0 },
    selected: new Set(),
    anchor: null,
    focus: null,
    size: 180,
    dragging: null,
    tiles: new Map(),
    viewer: null,
  };

  // ----- Frame -----
  const title = element('h1', { id: 'title', text: '' });
  const count = element('span', { id: 'count', class: 'counts' });
  const slider = element('input', { id: 'size', type: 'range', min: minSize, max: maxSize, value: state.size, 'aria-label': 'Tile size' });
  const trashButton = element('button', { id: 'trash', type: 'button', class: 'trash', 'aria-label': 'Trash', text: 'Trash' });
  const back = element('a', { href: '/', class: 'back', text: '‹ Galleries' });
  document.getElementById('bar').replaceChildren(back, title, count, element('div', { class: 'tools' }, slider, trashButton));
  const grid = element('div', { id: 'grid', class: 'grid', role: 'listbox', 'aria-multiselectable': 'true', tabindex: '0', 'aria-label': 'Images' });
  const marker = element('div', { id: 'marker', class: 'marker', hidden: true });
  const trashView = element('section', { id: 'trash-view', class: 'trash-view', hidden: true });
  const main = document.getElementById('main');
  main.replaceChildren(grid, trashView);
  grid.append(marker);

  // ----- Model -----
  const load = coalescedLoader(`/api/documents/${id}`, (doc) => apply(doc));

  function apply(doc) {
    if (!state.doc) {
      const remembered = Number(localStorage.getItem(`size:${doc.key}`));
      if (remembered) { state.size = remembered; slider.value = remembered; }
    }
    state.doc = doc;
    state.items = doc.items;
    const present = new Set(doc.items.map((item) => item.id));
    for (const selected of [...state.selected]) if (!present.has(selected)) state.selected.delete(selected);
    document.title = doc.title;
    title.textContent = doc.title;
    const pending = doc.items.filter((item) => item.display === 'pending').length;
    count.textContent = `${doc.items.length} item${doc.items.length === 1 ? '' : 's'}${pending ? ` · ${pending} loading` : ''}`;
    trashButton.textContent = doc.trash.length ? `Trash (${doc.trash.length})` : 'Trash';
    relayout();
    showRetry();
    if (!trashView.hidden) showTrash();
    if (state.viewer) state.viewer.refresh();
  }

  // ----- Layout and rendering -----
  function relayout() {
    const width = Math.max(100, grid.clientWidth);
    state.placed = place(state.items.map((item) => item.aspectRatio), width, spacing, state.size);
    grid.style.height = `${state.placed.height}px`;
    render();
  }

  let frame = 0;
  function scheduleRender() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; render(); });
  }

  function render() {
    const { tiles } = state.placed;
    const top = main.scrollTop - grid.offsetTop;
    const height = main.clientHeight;
    const first = firstVisible(tiles, top - height);
    const keep = new Set();
    for (let index = first; index < tiles.length && tiles[index].y < top + 2 * height; index++) {
      const item = state.items[index];
      keep.add(item.id);
      const tile = tileFor(item);
      const box = tiles[index];
      tile.style.transform = `translate(${box.x}px, ${box.y}px)`;
      tile.style.width = `${box.width}px`;
      tile.style.height = `${box.height}px`;
      tile.dataset.index = index;
      tile.classList.toggle('selected', state.selected.has(item.id));
      tile.setAttribute('aria-selected', state.selected.has(item.id));
      tile.classList.toggle('focused', state.focus === item.id);
      if (!tile.isConnected) grid.append(tile);
    }
    for (const [key, tile] of state.tiles) {
      if (!keep.has(key)) { tile.remove(); state.tiles.delete(key); }
    }
    placeRetryButtons(keep);
  }

  // A tile that is not ready says where it comes from (a placeholder) or why it failed, and
  // a stale placeholder (its loader stopped) or a failed item gets a retry button.
  const retryButtons = new Map();
  const captions = new Map();
  function placeRetryButtons(visible) {
    for (const [key, caption] of captions) {
      const tile = state.tiles.get(key);
      if (!visible.has(key) || !tile || tile.dataset.state === 'ready') { caption.remove(); captions.delete(key); }
    }
    for (const key of visible) {
      const tile = state.tiles.get(key);
      if (tile.dataset.state === 'ready') continue;
      const item = state.items[Number(tile.dataset.index)];
      const text = item.display === 'failed' ? (item.failure || 'cannot be loaded') : origin(item.placeholder?.from || item.source);
      let caption = captions.get(key);
      if (!caption) {
        caption = element('span');
        captions.set(key, caption);
        grid.append(caption);
      }
      caption.className = `tile-caption ${item.display}`;
      caption.textContent = text;
      caption.style.transform = tile.style.transform;
      caption.style.width = tile.style.width;
      caption.style.height = tile.style.height;
    }
    for (const [key, button] of retryButtons) {
      const tile = state.tiles.get(key);
      if (!visible.has(key) || !tile || !['stale', 'failed'].includes(tile.dataset.state)) { button.remove(); retryButtons.delete(key); }
    }
    for (const key of visible) {
      const tile = state.tiles.get(key);
      if (!['stale', 'failed'].includes(tile.dataset.state)) continue;
      let button = retryButtons.get(key);
      if (!button) {
        button = element('button', { type: 'button', class: 'retry-tile', 'aria-label': 'Retry', title: 'Retry', text: '↻', dataset: { for: key } });
        button.addEventListener('click', (event) => { event.stopPropagation(); edit('retry', { ids: [key] }); });
        retryButtons.set(key, button);
        grid.append(button);
      }
      button.style.transform = tile.style.transform;
    }
  }

  function thumbnailURL(item) {
    return `/api/documents/${id}/thumbnails/${item.id}?v=${encodeURIComponent((item.hash || '').slice(7, 31))}`;
  }

  function tileFor(item) {
    let tile = state.tiles.get(item.id);
    const source = item.display === 'ready' ? thumbnailURL(item) : `/assets/${item.display === 'pending' ? 'spinner' : 'broken'}.svg`;
    if (tile && tile.dataset.state === item.display && tile.dataset.src === source) return tile;
    if (tile) tile.remove();
    const label = item.display === 'ready' ? item.source
      : item.display === 'pending' ? `Loading ${item.placeholder?.from || item.source}`
      : item.display === 'stale' ? `Not loaded (its loader stopped): ${item.source}`
      : `Failed: ${item.failure || 'cannot be loaded'} (${item.source})`;
    tile = element('img', {
      class: `tile ${item.display}`, src: source, alt: label, title: label, draggable: 'true', role: 'option',
      loading: 'lazy', decoding: 'async', dataset: { id: item.id, state: item.display, src: source },
    });
    state.tiles.set(item.id, tile);
    return tile;
  }

  main.addEventListener('scroll', scheduleRender, { passive: true });
  new ResizeObserver(() => relayout()).observe(grid);

  // ----- Size: slider, Ctrl+wheel and touchpad pinch (which Chromium sends as Ctrl+wheel) -----
  function resize(size) {
    const anchorIndex = firstVisible(state.placed.tiles, main.scrollTop - grid.offsetTop);
    state.size = Math.round(Math.min(maxSize, Math.max(minSize, size)));
    slider.value = state.size;
    if (state.doc) localStorage.setItem(`size:${state.doc.key}`, state.size);
    relayout();
    // The first tile on screen stays on screen.
    const tile = state.placed.tiles[anchorIndex];
    if (tile) main.scrollTop = tile.y + grid.offsetTop;
  }
  slider.addEventListener('input', () => resize(Number(slider.value)));
  main.addEventListener('wheel', (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    resize(state.size * Math.exp(-event.deltaY / 200));
  }, { passive: false });

  // ----- Selection -----
  function indexOf(itemID) { return state.items.findIndex((item) => item.id === itemID); }

  function select(itemID, { extend = false, toggle = false } = {}) {
    if (extend && state.anchor) {
      const [a, b] = [indexOf(state.anchor), indexOf(itemID)].sort((x, y) => x - y);
      if (!toggle) state.selected.clear();
      for (let index = a; index <= b; index++) state.selected.add(state.items[index].id);
    } else if (toggle) {
      if (state.selected.has(itemID)) state.selected.delete(itemID); else state.selected.add(itemID);
      state.anchor = itemID;
    } else {
      state.selected = new Set([itemID]);
      state.anchor = itemID;
    }
    state.focus = itemID;
    render();
  }

  function selectedIDs() {
    return state.items.filter((item) => state.selected.has(item.id)).map((item) => item.id);
  }

  grid.addEventListener('click', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile) { state.selected.clear(); render(); return; }
    select(tile.dataset.id, { extend: event.shiftKey, toggle: event.ctrlKey || event.metaKey });
  });
  grid.addEventListener('dblclick', (event) => {
    const tile = event.target.closest('.tile');
    if (tile) openViewer(tile.dataset.id);
  });

  // ----- Edits -----
  async function edit(action, body) {
    try { return await post(`/api/documents/${id}/${action}`, body); } catch (error) { toast(error.message, 'error'); return null; }
  }

  async function moveSelection(ids, before) {
    if (ids.length) await edit('move', { ids, before });
  }

  async function trashSelection(ids) {
    if (!ids.length) return;
    await edit('trash', { ids });
    toast(`${ids.length} item${ids.length === 1 ? '' : 's'} moved to the trash`);
  }

  async function dropFiles(files, before) {
    const images = [...files];
    if (!images.length) return;
    const query = before ? `?before=${encodeURIComponent(before)}` : '';
    try {
      await call('POST', `/api/documents/${id}/drop${query}`, uploadFrames(images), { 'Content-Type': 'application/x-gallery-upload' });
    } catch (error) { toast(error.message, 'error'); }
  }

  async function dropLinks(uris, before) {
    if (!uris.length) return;
    const query = before ? `?before=${encodeURIComponent(before)}` : '';
    try { await post(`/api/documents/${id}/drop${query}`, { uris }); } catch (error) { toast(error.message, 'error'); }
  }

  // ----- Drag out -----
  grid.addEventListener('dragstart', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile) return;
    if (!state.selected.has(tile.dataset.id)) select(tile.dataset.id);
    const ids = selectedIDs();
    state.dragging = { ids };
    const items = ids.map((itemID) => state.items[indexOf(itemID)]);
    const transfer = event.dataTransfer;
    transfer.effectAllowed = 'copyMove';
    transfer.setData(itemsType, JSON.stringify({ document: id, ids, origin: location.origin }));
    const links = items.map((item) => item.source).filter((source) => /^(https?|file):/.test(source));
    if (links.length) {
      transfer.setData('text/uri-list', links.join('\r\n'));
      transfer.setData('text/plain', links.join('\n'));
    }
    const first = items[0];
    if (first && first.display === 'ready') {
      // Chromium saves this file when the tile is dropped on a desktop or a file manager.
      // The format is a validated name; checked again, as a ':' would move the URL's start.
      const format = /^[a-z0-9]{1,8}$/.test(first.format || '') ? first.format : 'jpg';
      const name = `${first.id}.${format}`;
      transfer.setData('DownloadURL', `${mimeOf(first.format)}:${name}:${location.origin}/api/documents/${id}/originals/${first.id}`);
    }
  });
  grid.addEventListener('dragend', () => { state.dragging = null; hideMarker(); });

  // ----- Drop in -----
  // The proposal, as the classic app's UIDropProposal: from this page a move, from
  // elsewhere a copy (Shift: a move, for another gallery's items), else forbidden.
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
      return moveSelection(ids, before);
    }
    const carried = transfer.getData(itemsType);
    if (carried) {
      const payload = JSON.parse(carried);
      if (payload.origin === location.origin && payload.document !== id) {
        await edit('transfer', { from: payload.document, ids: payload.ids, move: operation === 'move', before });
        return;
      }
    }
    if (transfer.files && transfer.files.length) return dropFiles(transfer.files, before);
    return dropLinks(linksIn(transfer), before);
  });

  // ----- Trash -----
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
    trashSelection(ids);
  });
  trashButton.addEventListener('click', () => {
    trashView.hidden = !trashView.hidden;
    if (!trashView.hidden) showTrash();
  });

  function showTrash() {
    const trashed = state.doc?.trash ?? [];
    const list = element('ul', { class: 'trashed' }, ...trashed.map(({ item }) => element('li', { dataset: { id: item.id } },
      item.display === 'ready'
        ? element('img', { class: 'trashed-tile', src: thumbnailURL(item), alt: item.source, title: item.source, dataset: { id: item.id } })
        : element('span', { class: 'trashed-tile', text: item.source }),
      element('button', { type: 'button', class: 'restore', text: 'Restore', onclick: () => edit('restore', { ids: [item.id] }) }))));
    trashView.replaceChildren(
      element('h2', { text: trashed.length ? 'Trash' : 'The trash is empty' }),
      list,
      trashed.length ? element('button', { type: 'button', class: 'restore-all', text: 'Restore all', onclick: () => edit('restore', { ids: trashed.map((t) => t.item.id) }) }) : null,
      trashed.length ? element('button', { type: 'button', class: 'empty-trash', text: 'Empty trash', onclick: () => edit('empty-trash', {}) }) : null);
  }

  // ----- Retry of stale placeholders and failed items -----
  grid.addEventListener('contextmenu', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile || !['stale', 'failed'].includes(tile.dataset.state)) return;
    event.preventDefault();
    edit('retry', { ids: [tile.dataset.id] });
  });
  const retryAll = element('button', { id: 'retry', type: 'button', text: 'Retry failed', hidden: true, onclick: () => edit('retry', {}) });
  document.querySelector('#bar .tools').prepend(retryAll);
  const showRetry = () => { retryAll.hidden = !state.items.some((item) => item.display === 'stale' || item.display === 'failed'); };

  // ----- Paste (Ctrl+V): an image or URLs at the selection; a cut or copied set of items -----
  document.addEventListener('paste', async (event) => {
    const before = insertionAfterSelection();
    const data = event.clipboardData;
    const clip = JSON.parse(localStorage.getItem('gallery-clip') || 'null');
    const links = linksIn(data);
    const hasFiles = data.files && data.files.length > 0;
    // Items cut or copied in a gallery page: the clipboard holds their marker.
    const fresh = clip && Date.now() - clip.time < 30 * 60 * 1000;
    if (fresh && clip.document !== id && data.getData('text/plain') === clip.marker) {
      event.preventDefault();
      if (clip.cut) localStorage.removeItem('gallery-clip');
      await edit('transfer', { from: clip.document, ids: clip.ids, move: clip.cut, before });
      return;
    }
    if (hasFiles) { event.preventDefault(); return dropFiles(data.files, before); }
    if (links.length) { event.preventDefault(); return dropLinks(links, before); }
  });
  function insertionAfterSelection() {
    const ids = selectedIDs();
    if (!ids.length) return null;
    return state.items[indexOf(ids[ids.length - 1]) + 1]?.id ?? null;
  }
  // Ctrl+X / Ctrl+C: the clipboard gets the items' URLs (for other programs) and a marker
  // that a gallery page recognises; which items, in localStorage (shared by this server's
  // pages). Written in the cut/copy event itself: no permission needed, nothing can fail.
  function clip(event, cut) {
    const ids = selectedIDs();
    if (!ids.length || event.target.closest?.('input, textarea')) return;
    event.preventDefault();
    const marker = `gallery-items:${id}:${Date.now()}`;
    localStorage.setItem('gallery-clip', JSON.stringify({ document: id, ids, cut, marker, time: Date.now() }));
    const links = ids.map((itemID) => state.items[indexOf(itemID)].source).filter((source) => /^(https?|file):/.test(source));
    event.clipboardData.setData('text/plain', marker);
    if (links.length) event.clipboardData.setData('text/uri-list', links.join('\r\n'));
    toast(`${ids.length} item${ids.length === 1 ? '' : 's'} ${cut ? 'cut' : 'copied'}: paste in another gallery`);
  }
  document.addEventListener('cut', (event) => clip(event, true));
  document.addEventListener('copy', (event) => clip(event, false));

  // ----- Keyboard -----
  grid.addEventListener('keydown', async (event) => {
    const ids = selectedIDs();
    const focusIndex = state.focus ? indexOf(state.focus) : -1;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columnsAt(focusIndex), ArrowDown: columnsAt(focusIndex) }[event.key];
    if (step !== undefined && event.altKey && ids.length) {
      // Alt+arrows move the selection, as a drag would.
      event.preventDefault();
      const first = indexOf(ids[0]);
      const last = indexOf(ids[ids.length - 1]);
      const target = step < 0 ? Math.max(0, first + step) : last + step + 1;
      const rest = state.items.filter((item) => !state.selected.has(item.id));
      const anchorItem = step < 0 ? state.items[target] : state.items[target];
      const before = anchorItem && !state.selected.has(anchorItem.id) ? anchorItem.id : (step < 0 ? rest[0]?.id ?? null : null);
      return moveSelection(ids, before);
    }
    if (step !== undefined) {
      event.preventDefault();
      if (!state.items.length) return;
      const next = Math.min(state.items.length - 1, Math.max(0, (focusIndex < 0 ? 0 : focusIndex + step)));
      select(state.items[next].id, { extend: event.shiftKey });
      scrollToIndex(next);
      return;
    }
    if (event.key === 'Delete' || event.key === 'Backspace') { event.preventDefault(); return trashSelection(ids); }
    // The document's history: Ctrl+Z takes the last operation back, Ctrl+Shift+Z (or Ctrl+Y)
    // brings it back, as `gallery undo` and `gallery redo` do.
    const key = event.key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && (key === 'z' || key === 'y')) {
      event.preventDefault();
      const outcome = await edit(key === 'y' || event.shiftKey ? 'redo' : 'undo', {});
      if (outcome) toast(outcome.skipped.length ? `${outcome.summary}; not done: ${outcome.skipped.join('; ')}` : outcome.summary);
      return;
    }
    if (event.key === 'Enter' && state.focus) { event.preventDefault(); return openViewer(state.focus); }
    if (event.key === 'a' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      state.selected = new Set(state.items.map((item) => item.id));
      return render();
    }
    if (event.key === 'Escape') { state.selected.clear(); render(); }
  });

  function columnsAt(index) {
    const tiles = state.placed.tiles;
    if (index < 0 || !tiles[index]) return 1;
    return tiles.filter((tile) => tile.row === tiles[index].row).length;
  }

  function scrollToIndex(index) {
    const tile = state.placed.tiles[index];
    if (!tile) return;
    const top = tile.y + grid.offsetTop;
    if (top < main.scrollTop) main.scrollTop = top - spacing;
    else if (top + tile.height > main.scrollTop + main.clientHeight) main.scrollTop = top + tile.height - main.clientHeight + spacing;
  }

  // ----- Large view -----
  function openViewer(itemID) {
    const image = element('img', { id: 'large', alt: '' });
    const caption = element('p', { class: 'caption' });
    const overlay = element('div', { id: 'viewer', class: 'viewer', role: 'dialog', 'aria-modal': 'true', tabindex: '-1' },
      element('button', { type: 'button', class: 'previous', 'aria-label': 'Previous', text: '‹', onclick: () => go(-1) }),
      element('figure', {}, image, caption),
      element('button', { type: 'button', class: 'next', 'aria-label': 'Next', text: '›', onclick: () => go(1) }),
      element('button', { type: 'button', class: 'close', 'aria-label': 'Close', text: '×', onclick: () => close() }));
    let current = itemID;
    function show() {
      const item = state.items[indexOf(current)];
      if (!item) return close();
      image.onerror = () => { image.onerror = null; image.src = thumbnailURL(item); };
      image.src = item.display === 'ready' ? `/api/documents/${id}/originals/${item.id}` : '/assets/broken.svg';
      image.alt = item.source;
      image.dataset.id = item.id;
      caption.textContent = item.source;
      select(item.id);
      scrollToIndex(indexOf(item.id));
    }
    function go(step) {
      const index = indexOf(current) + step;
      if (index < 0 || index >= state.items.length) return;
      current = state.items[index].id;
      show();
    }
    function close() {
      overlay.remove();
      state.viewer = null;
      grid.focus();
    }
    overlay.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowRight') go(1);
      else if (event.key === 'ArrowLeft') go(-1);
      else if (event.key === 'Escape') close();
    });
    document.body.append(overlay);
    state.viewer = { refresh: show };
    show();
    overlay.focus();
  }

  // ----- Live -----
  events({
    document: (change) => { if (change.id === id) load(); },
    reconnected: load,
    failure: (failure) => { if (failure.document === id) toast(`not dropped: ${failure.source}: ${failure.reason}`, 'error'); },
  });
  load();
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
    const found = (images.length ? images : anchors).filter((url) => /^https?:/i.test(url));
    if (found.length) return found;
  }
  const text = transfer.getData('text/plain');
  return (text || '').split(/\s+/).filter((word) => /^https?:\/\/\S+$/i.test(word));
}

// Where a source is: a web host and file name, or a file's name.
function origin(source) {
  try {
    const url = new URL(source);
    const name = decodeURIComponent(url.pathname.split('/').pop() || '');
    if (url.protocol === 'file:') return name;
    if (url.protocol === 'urn:') return 'dropped image';
    return `${url.host}${name ? ' · ' + name : ''}`;
  } catch {
    return source;
  }
}

function mimeOf(format) {
  return { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif' }[format] || 'application/octet-stream';
}
