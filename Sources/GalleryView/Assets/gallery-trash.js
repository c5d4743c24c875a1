// A gallery's trash (its items, restore, empty) and the retry of stale placeholders and
// failed items (the tile's button, its context menu, "Retry failed").
import { element } from './api.js';

export function installTrash(page) {
  const { state, grid, trashView, trashButton } = page;

  function setOpen(open) {
    trashView.hidden = !open;
    trashButton.setAttribute('aria-pressed', open);
    if (open) page.showTrash();
  }
  trashButton.setAttribute('aria-pressed', false);
  trashButton.addEventListener('click', () => setOpen(trashView.hidden));

  page.showTrash = function showTrash() {
    const trashed = state.doc?.trash ?? [];
    const list = element('ul', { class: 'trashed' }, ...trashed.map(({ item }) => element('li', { dataset: { id: item.id } },
      item.display === 'ready'
        ? element('img', { class: 'trashed-tile', src: page.thumbnailURL(item), alt: item.source, title: item.source, dataset: { id: item.id } })
        : element('span', { class: `trashed-tile${item.display === 'note' ? ' note' : ''}`, text: item.display === 'note' ? item.note : item.source }),
      element('button', { type: 'button', class: 'restore', text: 'Restore', onclick: () => page.edit('restore', { ids: [item.id] }) }))));
    trashView.replaceChildren(
      element('header', {},
        element('h2', { text: trashed.length ? `Trash (${trashed.length})` : 'The trash is empty' }),
        element('button', { type: 'button', class: 'close-trash', 'aria-label': 'Close the trash', text: '×', onclick: () => setOpen(false) })),
      list,
      trashed.length ? element('button', { type: 'button', class: 'restore-all', text: 'Restore all', onclick: () => page.edit('restore', { ids: trashed.map((t) => t.item.id) }) }) : null,
      trashed.length ? element('button', { type: 'button', class: 'empty-trash', text: 'Empty trash', onclick: () => page.edit('empty-trash', {}) }) : null);
  };

  grid.addEventListener('contextmenu', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile || !['stale', 'failed'].includes(tile.dataset.state)) return;
    event.preventDefault();
    page.edit('retry', { ids: [tile.dataset.id] });
  });
  const retryAll = element('button', { id: 'retry', type: 'button', text: 'Retry failed', hidden: true, onclick: () => page.edit('retry', {}) });
  page.tools.prepend(retryAll);
  page.showRetry = () => { retryAll.hidden = !state.items.some((item) => item.display === 'stale' || item.display === 'failed'); };
}
