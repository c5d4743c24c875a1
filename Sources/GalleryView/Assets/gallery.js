// A gallery's page: the classic app's collection view. Justified rows at the items' aspect
// ratios, only the tiles on screen in the DOM, drag and drop in, out, within and between
// pages, a trash, a large view, note cards, and every drag's keyboard equivalent.
//
// One `page` object holds the state and the elements; each module adds its part to it
// (its functions as `page.name`, its event listeners) and calls the others through it.
import { coalescedLoader, element, events, get, toast } from './api.js';
import { installRender, minSize, maxSize } from './gallery-render.js';
import { installSelection } from './gallery-selection.js';
import { installEdits } from './gallery-edits.js';
import { installDrag } from './gallery-drag.js';
import { installTrash } from './gallery-trash.js';
import { installClipboard } from './gallery-clipboard.js';
import { installKeyboard } from './gallery-keyboard.js';
import { installViewer } from './gallery-viewer.js';
import { installNotes } from './gallery-notes.js';

export function showGallery(id) {
  const page = {
    id,
    state: {
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
      // The search: its text, and the ids it matched (null: every item shows).
      query: '',
      matched: null,
    },
  };
  const { state } = page;

  // ----- Frame -----
  page.title = element('h1', { id: 'title', text: '' });
  page.count = element('span', { id: 'count', class: 'counts' });
  page.slider = element('input', { id: 'size', type: 'range', min: minSize, max: maxSize, value: state.size, 'aria-label': 'Tile size' });
  page.trashButton = element('button', { id: 'trash', type: 'button', class: 'trash', 'aria-label': 'Trash', text: 'Trash' });
  page.search = element('input', { id: 'search', type: 'search', placeholder: 'Search: beach tag:holiday rating>=4', 'aria-label': 'Search this gallery', spellcheck: 'false' });
  // Sorting reorders the gallery itself (one edit, undoable), as `gallery sort` does.
  page.sortMenu = element('select', { id: 'sort', 'aria-label': 'Sort the gallery' },
    element('option', { value: '', text: 'Sort…' }),
    ...[['taken', 'by date taken'], ['added', 'by date added'], ['name', 'by name'], ['rating', 'by stars, most first'], ['size', 'by size, largest first']]
      .map(([value, text]) => element('option', { value, text })));
  page.sortMenu.addEventListener('change', async () => {
    const by = page.sortMenu.value;
    page.sortMenu.value = '';
    if (by) await page.edit('sort', { by, reverse: by === 'rating' || by === 'size' });
  });
  page.tools = element('div', { class: 'tools' }, page.search, page.sortMenu, page.slider, page.trashButton);
  const back = element('a', { href: '/', class: 'back', text: '‹ Galleries' });
  document.getElementById('bar').replaceChildren(back, page.title, page.count, page.tools);
  page.grid = element('div', { id: 'grid', class: 'grid', role: 'listbox', 'aria-multiselectable': 'true', tabindex: '0', 'aria-label': 'Images' });
  page.marker = element('div', { id: 'marker', class: 'marker', hidden: true });
  page.trashView = element('section', { id: 'trash-view', class: 'trash-view', hidden: true });
  page.main = document.getElementById('main');
  page.main.replaceChildren(page.grid, page.trashView);
  page.grid.append(page.marker);

  for (const install of [installRender, installSelection, installEdits, installDrag, installTrash, installClipboard, installKeyboard, installViewer, installNotes]) {
    install(page);
  }

  // ----- Model -----
  function apply(doc) {
    if (!state.doc) {
      const remembered = Number(localStorage.getItem(`size:${doc.key}`));
      if (remembered) { state.size = remembered; page.slider.value = remembered; }
    }
    state.doc = doc;
    state.items = state.matched ? doc.items.filter((item) => state.matched.has(item.id)) : doc.items;
    const present = new Set(doc.items.map((item) => item.id));
    for (const selected of [...state.selected]) if (!present.has(selected)) state.selected.delete(selected);
    document.title = doc.title;
    page.title.textContent = doc.title;
    const pending = doc.items.filter((item) => item.display === 'pending').length;
    const stale = doc.items.filter((item) => item.display === 'stale').length;
    const shown = state.matched ? `${state.items.length} of ` : '';
    page.count.textContent = `${shown}${doc.items.length} item${doc.items.length === 1 ? '' : 's'}${pending ? ` · ${pending} loading` : ''}${stale ? ` · ${stale} not loaded` : ''}`;
    page.trashButton.textContent = doc.trash.length ? `Trash (${doc.trash.length})` : 'Trash';
    page.relayout();
    page.showRetry();
    if (!page.trashView.hidden) page.showTrash();
    if (state.viewer) state.viewer.refresh();
  }

  // ----- Search -----
  // The query language of `gallery find`, run by the server on every change of the field
  // (after a pause in typing) and of the document; the grid shows what it matches.
  let searchTimer = 0;
  let searchRun = 0;
  async function runSearch() {
    const query = page.search.value.trim();
    const run = ++searchRun;
    if (!query) {
      state.query = '';
      state.matched = null;
      page.search.setCustomValidity('');
      page.search.title = '';
    } else {
      try {
        const { ids } = await get(`/api/documents/${id}/search?q=${encodeURIComponent(query)}`);
        if (run !== searchRun) return;
        state.query = query;
        state.matched = new Set(ids);
        page.search.setCustomValidity('');
        page.search.title = '';
      } catch (error) {
        if (run !== searchRun) return;
        page.search.setCustomValidity(error.message);
        page.search.title = error.message;
        return;
      }
    }
    if (state.doc) apply(state.doc);
  }
  // Searches for `query` at once (a tag chip clicked).
  page.searchFor = function searchFor(query) {
    page.search.value = query;
    clearTimeout(searchTimer);
    runSearch();
  };
  page.search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 120);
  });
  page.search.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') { page.search.value = ''; runSearch(); page.grid.focus(); }
    event.stopPropagation();
  });

  // ----- Live -----
  const load = coalescedLoader(`/api/documents/${id}`, (doc) => {
    apply(doc);
    if (state.query) runSearch();
  });
  events({
    document: (change) => { if (change.id === id) load(); },
    reconnected: load,
    failure: (failure) => { if (failure.document === id) toast(`not dropped: ${failure.source}: ${failure.reason}`, 'error'); },
    'stand-in': (standIn) => {
      if (standIn.document === id) toast(`the download failed, the cached copy stands in: ${standIn.source}: ${standIn.reason}`, 'info');
    },
  });
  load();
}
