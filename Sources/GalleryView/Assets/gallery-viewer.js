// A gallery's large view: the original (its thumbnail when the original cannot be shown),
// previous and next, Escape to close; the grid follows it.
import { element } from './api.js';

export function installViewer(page) {
  const { state, grid } = page;

  page.openViewer = function openViewer(itemID) {
    const image = element('img', { id: 'large', alt: '' });
    const caption = element('p', { class: 'caption' });
    const overlay = element('div', { id: 'viewer', class: 'viewer', role: 'dialog', 'aria-modal': 'true', tabindex: '-1' },
      element('button', { type: 'button', class: 'previous', 'aria-label': 'Previous', text: '‹', onclick: () => go(-1) }),
      element('figure', {}, image, caption),
      element('button', { type: 'button', class: 'next', 'aria-label': 'Next', text: '›', onclick: () => go(1) }),
      element('button', { type: 'button', class: 'close', 'aria-label': 'Close', text: '×', onclick: () => close() }));
    let current = itemID;
    function show() {
      const item = state.items[page.indexOf(current)];
      if (!item) return close();
      image.onerror = () => { image.onerror = null; image.src = page.thumbnailURL(item); };
      image.src = item.display === 'ready' ? `/api/documents/${page.id}/originals/${item.id}` : '/assets/broken.svg';
      image.alt = item.source;
      image.dataset.id = item.id;
      caption.textContent = item.source;
      page.select(item.id);
      page.scrollToIndex(page.indexOf(item.id));
    }
    function go(step) {
      const index = page.indexOf(current) + step;
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
  };
}
