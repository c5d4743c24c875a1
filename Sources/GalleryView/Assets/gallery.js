// A gallery's page: the classic app's collection view. Justified rows at the items' aspect
// ratios, only the tiles on screen in the DOM, drag and drop in, out, within and between
// pages, a trash, a large view, and every drag's keyboard equivalent.
//
// One `page` object holds the state and the elements; each module adds its part to it
// (its functions as `page.name`, its event listeners) and calls the others through it.
import { coalescedLoader, element, events, toast } from './api.js';
import { installRender, minSize, maxSize } from './gallery-render.js';
import { installSelection } from './gallery-selection.js';
import { installEdits } from './gallery-edits.js';
import { installDrag } from './gallery-drag.js';
import { installTrash } from './gallery-trash.js';
import { installClipboard } from './gallery-clipboard.js';
import { installKeyboard } from './gallery-keyboard.js';
import { installViewer } from './gallery-viewer.js';

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
    },
  };
  const { state } = page;

  // ----- Frame -----
  page.title = element('h1', { id: 'title', text: '' });
  page.count = element('span', { id: 'count', class: 'counts' });
  page.slider = element('input', { id: 'size', type: 'range', min: minSize, max: maxSize, value: state.size, 'aria-label': 'Tile size' });
  page.trashButton = element('button', { id: 'trash', type: 'button', class: 'trash', 'aria-label': 'Trash', text: 'Trash' });
  page.tools = element('div', { class: 'tools' }, page.slider, page.trashButton);
  const back = element('a', { href: '/', class: 'back', text: '‹ Galleries' });
  document.getElementById('bar').replaceChildren(back, page.title, page.count, page.tools);
  page.grid = element('div', { id: 'grid', class: 'grid', role: 'listbox', 'aria-multiselectable': 'true', tabindex: '0', 'aria-label': 'Images' });
  page.marker = element('div', { id: 'marker', class: 'marker', hidden: true });
  page.trashView = element('section', { id: 'trash-view', class: 'trash-view', hidden: true });
  page.main = document.getElementById('main');
  page.main.replaceChildren(page.grid, page.trashView);
  page.grid.append(page.marker);

  for (const install of [installRender, installSelection, installEdits, installDrag, installTrash, installClipboard, installKeyboard, installViewer]) {
    install(page);
  }

  // ----- Model -----
  function apply(doc) {
    if (!state.doc) {
      const remembered = Number(localStorage.getItem(`size:${doc.key}`));
      if (remembered) { state.size = remembered; page.slider.value = remembered; }
    }
    state.doc = doc;
    state.items = doc.items;
    const present = new Set(doc.items.map((item) => item.id));
    for (const selected of [...state.selected]) if (!present.has(selected)) state.selected.delete(selected);
    document.title = doc.title;
    page.title.textContent = doc.title;
    const pending = doc.items.filter((item) => item.display === 'pending').length;
    const stale = doc.items.filter((item) => item.display === 'stale').length;
    page.count.textContent = `${doc.items.length} item${doc.items.length === 1 ? '' : 's'}${pending ? ` · ${pending} loading` : ''}${stale ? ` · ${stale} not loaded` : ''}`;
    page.trashButton.textContent = doc.trash.length ? `Trash (${doc.trash.length})` : 'Trash';
    page.relayout();
    page.showRetry();
    if (!page.trashView.hidden) page.showTrash();
    if (state.viewer) state.viewer.refresh();
  }

  // ----- Live -----
  const load = coalescedLoader(`/api/documents/${id}`, (doc) => apply(doc));
  events({
    document: (change) => { if (change.id === id) load(); },
    reconnected: load,
    failure: (failure) => { if (failure.document === id) toast(`not dropped: ${failure.source}: ${failure.reason}`, 'error'); },
  });
  load();
}
