// A gallery's large view: the original, or a rendition of it the server converts when the
// browser cannot show its format (HEIC, TIFF, JPEG XL, JPEG 2000, PDF...), its thumbnail when
// neither can be read; previous and next, Escape to close; the grid follows it. It zooms
// (wheel or pinch around the pointer, double-click for 1:1 and back, + - 0) and pans (drag).
import { element } from './api.js';

// Formats the browser decodes itself; libvips' names for them.
const shownByBrowser = new Set(['jpeg', 'png', 'webp', 'gif', 'bmp']);
const maxScale = 16;

export function installViewer(page) {
  const { state, grid } = page;

  // Where the large view gets an item's image.
  page.largeURL = function largeURL(item) {
    if (item.display !== 'ready') return '/assets/broken.svg';
    if (shownByBrowser.has(item.format)) return `/api/documents/${page.id}/originals/${item.id}`;
    return `/api/documents/${page.id}/previews/${item.id}?short=1440&v=${encodeURIComponent((item.hash || '').slice(7, 31))}`;
  };

  page.openViewer = function openViewer(itemID) {
    const image = element('img', { id: 'large', alt: '', draggable: 'false' });
    const stage = element('div', { class: 'stage' }, image);
    const caption = element('p', { class: 'caption' });
    const overlay = element('div', { id: 'viewer', class: 'viewer', role: 'dialog', 'aria-modal': 'true', tabindex: '-1' },
      element('button', { type: 'button', class: 'previous', 'aria-label': 'Previous', text: '‹', onclick: () => go(-1) }),
      element('figure', {}, stage, caption),
      element('button', { type: 'button', class: 'next', 'aria-label': 'Next', text: '›', onclick: () => go(1) }),
      element('button', { type: 'button', class: 'close', 'aria-label': 'Close', text: '×', onclick: () => close() }));
    let current = itemID;
    // The zoom: the image fitted in the stage, scaled by `scale` around its centre and moved by
    // (x, y) CSS pixels.
    const view = { scale: 1, x: 0, y: 0 };

    function apply() {
      image.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.scale})`;
      overlay.classList.toggle('zoomed', view.scale > 1);
    }
    function reset() { Object.assign(view, { scale: 1, x: 0, y: 0 }); apply(); }
    // Scales by `factor` keeping the image point under (clientX, clientY) where it is.
    function zoom(factor, clientX, clientY) {
      const scale = Math.min(maxScale, Math.max(1, view.scale * factor));
      const box = stage.getBoundingClientRect();
      const px = (clientX ?? box.left + box.width / 2) - (box.left + box.width / 2);
      const py = (clientY ?? box.top + box.height / 2) - (box.top + box.height / 2);
      view.x = px - (px - view.x) * (scale / view.scale);
      view.y = py - (py - view.y) * (scale / view.scale);
      view.scale = scale;
      if (scale === 1) { view.x = 0; view.y = 0; }
      apply();
    }
    // One image pixel to one screen pixel.
    function actualSize() {
      const fitted = image.getBoundingClientRect().width / view.scale;
      return fitted ? image.naturalWidth / (fitted * devicePixelRatio) : 1;
    }

    function show() {
      const item = state.items[page.indexOf(current)];
      if (!item) return close();
      reset();
      image.onerror = () => { image.onerror = null; image.src = page.thumbnailURL(item); };
      image.src = page.largeURL(item);
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

    // Wheel and touchpad pinch (Ctrl+wheel in Chromium) zoom around the pointer.
    stage.addEventListener('wheel', (event) => {
      event.preventDefault();
      zoom(Math.exp(-event.deltaY / (event.ctrlKey ? 100 : 400)), event.clientX, event.clientY);
    }, { passive: false });
    stage.addEventListener('dblclick', (event) => {
      if (view.scale > 1) reset();
      else zoom(Math.max(2, actualSize()), event.clientX, event.clientY);
    });
    // A drag pans a zoomed image.
    let drag = null;
    stage.addEventListener('pointerdown', (event) => {
      if (view.scale === 1) return;
      drag = { x: event.clientX - view.x, y: event.clientY - view.y };
      stage.setPointerCapture(event.pointerId);
    });
    stage.addEventListener('pointermove', (event) => {
      if (!drag) return;
      view.x = event.clientX - drag.x;
      view.y = event.clientY - drag.y;
      apply();
    });
    stage.addEventListener('pointerup', () => { drag = null; });
    overlay.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowRight') go(1);
      else if (event.key === 'ArrowLeft') go(-1);
      else if (event.key === 'Escape') close();
      else if (event.key === '+' || event.key === '=') zoom(1.5);
      else if (event.key === '-') zoom(1 / 1.5);
      else if (event.key === '0') reset();
    });
    document.body.append(overlay);
    state.viewer = { refresh: show };
    show();
    overlay.focus();
  };
}
