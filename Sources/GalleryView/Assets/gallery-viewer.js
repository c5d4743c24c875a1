// A gallery's large view: the original, or a rendition of it the server converts when the
// browser cannot show its format (HEIC, TIFF, JPEG XL, JPEG 2000, PDF...), its thumbnail when
// neither can be read; previous and next, Escape to close; the grid follows it. It zooms
// (wheel or pinch around the pointer, double-click for 1:1 and back, + - 0) and pans (drag).
// Its info panel (i) shows the photo's facts and edits what a person writes about it:
// caption, note, stars (also the digits 1-5), colour label, tags. A note card shows its text,
// which the panel's note field edits.
import { element } from './api.js';

const labels = ['red', 'orange', 'yellow', 'green', 'blue', 'purple', 'grey'];

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
    // A note card shows its text instead of an image.
    const card = element('div', { id: 'large-note', class: 'large-note', hidden: true });
    const stage = element('div', { class: 'stage' }, image, card);
    const caption = element('p', { class: 'caption' });
    const info = infoPanel(page, () => current);
    const overlay = element('div', { id: 'viewer', class: 'viewer', role: 'dialog', 'aria-modal': 'true', tabindex: '-1' },
      element('button', { type: 'button', class: 'previous', 'aria-label': 'Previous', text: '‹', onclick: () => go(-1) }),
      element('figure', {}, stage, caption),
      element('button', { type: 'button', class: 'next', 'aria-label': 'Next', text: '›', onclick: () => go(1) }),
      info.panel,
      element('button', { type: 'button', class: 'info-toggle', 'aria-label': 'Info', title: 'Info (i)', text: 'i', onclick: () => toggleInfo() }),
      element('button', { type: 'button', class: 'close', 'aria-label': 'Close', text: '×', onclick: () => close() }));
    let current = itemID;
    let shownSource = null;
    function toggleInfo(open = info.panel.hidden) {
      info.panel.hidden = !open;
      overlay.classList.toggle('with-info', open);
      localStorage.setItem('viewer:info', open ? '1' : '');
    }
    toggleInfo(localStorage.getItem('viewer:info') === '1');
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

    // Shows the current item; when only its words changed (an edit here or elsewhere), the
    // image and its zoom stay as they are.
    function show() {
      const item = state.items[page.indexOf(current)];
      if (!item) return close();
      info.show(item);
      const isCard = item.display === 'note';
      image.hidden = isCard;
      card.hidden = !isCard;
      if (isCard) {
        card.textContent = item.note;
        caption.textContent = item.caption || '';
        shownSource = null;
        image.removeAttribute('src');
        image.dataset.id = '';
        page.select(item.id);
        page.scrollToIndex(page.indexOf(item.id));
        return;
      }
      caption.textContent = item.caption || item.source;
      image.alt = item.caption || item.source;
      const source = page.largeURL(item);
      if (image.dataset.id === item.id && shownSource === source) return;
      shownSource = source;
      reset();
      image.onerror = () => { image.onerror = null; image.src = page.thumbnailURL(item); };
      image.src = source;
      image.dataset.id = item.id;
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
      // Keys typed into the info panel's fields are text, but Escape leaves the field.
      if (event.target.closest?.('input, textarea, select')) {
        if (event.key === 'Escape') { event.stopPropagation(); overlay.focus(); }
        return;
      }
      // 1-5 give stars (the same number again takes them away); 0 is the zoom's.
      if (/^[1-5]$/.test(event.key)) info.rate(Number(event.key));
      else if (event.key === 'i') toggleInfo();
      else if (event.key === 'ArrowRight') go(1);
      else if (event.key === 'ArrowLeft') go(-1);
      else if (event.key === 'Escape') close();
      else if (event.key === '+' || event.key === '=') zoom(1.5);
      else if (event.key === '-') zoom(1 / 1.5);
      else if (event.key === '0') reset();
    });
    document.body.append(overlay);
    state.viewer = { refresh: show, close };
    show();
    overlay.focus();
  };
}

// The info panel: the facts of the item the viewer shows and its fields, each saved when
// it changes (a field keeps what is being typed into it when the document changes).
function infoPanel(page, currentID) {
  const title = element('h2');
  const facts = element('dl', { class: 'facts' });
  const caption = element('input', { id: 'info-caption', type: 'text', placeholder: 'Caption', 'aria-label': 'Caption', maxlength: '1024' });
  const note = element('textarea', { id: 'info-note', rows: '4', placeholder: 'Note', 'aria-label': 'Note' });
  const stars = element('div', { class: 'stars', role: 'group', 'aria-label': 'Stars' });
  for (let count = 1; count <= 5; count++) {
    stars.append(element('button', { type: 'button', class: 'star', text: '★', 'aria-label': `${count} star${count === 1 ? '' : 's'}`, dataset: { stars: count } }));
  }
  const label = element('select', { id: 'info-label', 'aria-label': 'Colour label' },
    element('option', { value: 'none', text: 'No label' }), ...labels.map((name) => element('option', { value: name, text: name })));
  const chips = element('div', { class: 'chips', 'aria-label': 'Tags' });
  const addTag = element('input', { id: 'info-tags', type: 'text', placeholder: 'Add tags (comma between)', 'aria-label': 'Add tags' });
  const panel = element('aside', { id: 'info', class: 'info', hidden: true, 'aria-label': 'About this item' },
    title, facts, caption, note, stars, label, chips, addTag);
  let shown = null;

  const describe = (change) => page.describe([currentID()], change);
  caption.addEventListener('change', () => describe({ caption: caption.value.trim() }));
  caption.addEventListener('keydown', (event) => { if (event.key === 'Enter') caption.blur(); });
  note.addEventListener('change', () => describe({ note: note.value }));
  const rate = (count) => describe({ rating: shown?.rating === count ? 0 : count });
  stars.addEventListener('click', (event) => {
    const count = Number(event.target.dataset?.stars);
    if (count) rate(count);
  });
  label.addEventListener('change', () => describe({ label: label.value }));
  addTag.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    const tags = addTag.value.split(',').map((tag) => tag.trim()).filter(Boolean);
    addTag.value = '';
    if (tags.length) describe({ addTags: tags });
  });

  function fact(name, value) {
    if (value) facts.append(element('dt', { text: name }), element('dd', { text: String(value) }));
  }
  function show(item) {
    const changed = shown?.id !== item.id;
    shown = item;
    title.textContent = item.display === 'note' ? 'Note card'
      : decodeURIComponent((item.source.split('/').pop() || item.source).split('?')[0]);
    facts.replaceChildren();
    fact('Format', item.format && item.format.toUpperCase() + (item.pages ? `, ${item.pages} pages` : ''));
    fact('Size', item.width && `${item.width} × ${item.height}`);
    fact('File', item.bytes && `${(item.bytes / 1048576).toFixed(item.bytes < 1048576 ? 2 : 1)} MB`);
    fact('Camera', item.camera);
    fact('Lens', item.lens);
    fact('Exposure', item.exposure);
    fact('Taken', item.taken && item.taken.replace('T', ' '));
    if (item.location) {
      const { latitude, longitude } = item.location;
      const map = `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=14/${latitude}/${longitude}`;
      facts.append(element('dt', { text: 'Place' }), element('dd', {},
        element('a', { href: map, target: '_blank', rel: 'noopener noreferrer', text: `${latitude.toFixed(5)}, ${longitude.toFixed(5)}` })));
    }
    fact('Added', item.added && item.added.slice(0, 10));
    fact('Source', item.display !== 'note' && item.source);
    // A field being typed into keeps its text; the others show the item as it is now.
    for (const [field, value] of [[caption, item.caption || ''], [note, item.note || '']]) {
      if (changed || document.activeElement !== field) field.value = value;
    }
    label.value = item.label || 'none';
    for (const star of stars.children) star.setAttribute('aria-pressed', String(Number(star.dataset.stars) <= (item.rating || 0)));
    chips.replaceChildren(...(item.tags || []).map((tag) => element('span', { class: 'chip' },
      element('button', { type: 'button', class: 'chip-tag', text: tag, title: `Find tag:${tag}`, onclick: () => { page.state.viewer?.close(); page.searchFor(`tag:"${tag.replaceAll('"', '')}"`); } }),
      element('button', { type: 'button', class: 'chip-remove', text: '×', 'aria-label': `Remove tag ${tag}`, onclick: () => describe({ removeTags: [tag] }) }))));
  }
  return { panel, show, rate };
}
