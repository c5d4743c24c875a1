// A gallery's tiles: placed in justified rows (layout.js), only those near the screen in the
// DOM; captions and retry buttons on the tiles that are not ready; note cards as text; the
// tile size (slider, Ctrl+wheel, touchpad pinch).
import { element } from './api.js';
import { firstVisible, place } from './layout.js';

export const spacing = 8;
export const minSize = 60;
export const maxSize = 480;
// The short edges the server makes previews at (PreviewCache in Swift), and their bound.
export const previewShortEdges = [360, 720, 1440];
const maxPreviewLongEdge = 4096;
const drawingFormats = new Set(['svg', 'pdf']);

export function installRender(page) {
  const { state, grid, main, slider } = page;

  page.relayout = function relayout() {
    const width = Math.max(100, grid.clientWidth);
    state.placed = place(state.items.map((item) => item.aspectRatio), width, spacing, state.size);
    grid.style.height = `${state.placed.height}px`;
    page.render();
  };

  let frame = 0;
  function scheduleRender() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; page.render(); });
  }

  page.render = function render() {
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
      // A card's text follows its size, as paper notes on a board.
      if (item.display === 'note') tile.style.fontSize = `${Math.max(10, Math.min(22, box.height / 11))}px`;
      // The image's width as drawn, before the crop of a capped panorama or strip.
      const sizes = `${Math.ceil(Math.max(box.width, box.height * item.aspectRatio))}px`;
      if (tile.sizes !== sizes) tile.sizes = sizes;
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
    placeBadges(keep);
  };

  // A tile that is not ready says where it comes from (a placeholder) or why it failed, and
  // a stale placeholder (its loader stopped) or a failed item gets a retry button.
  const retryButtons = new Map();
  const captions = new Map();
  function placeRetryButtons(visible) {
    for (const [key, caption] of captions) {
      const tile = state.tiles.get(key);
      if (!visible.has(key) || !tile || ['ready', 'note'].includes(tile.dataset.state)) { caption.remove(); captions.delete(key); }
    }
    for (const key of visible) {
      const tile = state.tiles.get(key);
      if (['ready', 'note'].includes(tile.dataset.state)) continue;
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
        button.addEventListener('click', (event) => { event.stopPropagation(); page.edit('retry', { ids: [key] }); });
        retryButtons.set(key, button);
        grid.append(button);
      }
      button.style.transform = tile.style.transform;
    }
  }

  // A rated or labelled item shows its stars and its colour on its tile.
  const badges = new Map();
  function placeBadges(visible) {
    const itemOf = (key) => state.items[Number(state.tiles.get(key)?.dataset.index)];
    for (const [key, badge] of badges) {
      const item = visible.has(key) ? itemOf(key) : null;
      if (!item || item.id !== key || (!item.rating && !item.label)) { badge.remove(); badges.delete(key); }
    }
    for (const key of visible) {
      const item = itemOf(key);
      if (!item || item.id !== key || (!item.rating && !item.label)) continue;
      let badge = badges.get(key);
      if (!badge) {
        badge = element('span', { class: 'tile-badge', dataset: { for: key } });
        badges.set(key, badge);
        grid.append(badge);
      }
      badge.textContent = '★'.repeat(item.rating || 0);
      badge.dataset.label = item.label || '';
      badge.title = [item.rating ? `${item.rating} star${item.rating === 1 ? '' : 's'}` : '', item.label || ''].filter(Boolean).join(', ');
      badge.style.transform = state.tiles.get(key).style.transform;
    }
  }

  page.thumbnailURL = function thumbnailURL(item) {
    return `/api/documents/${page.id}/thumbnails/${item.id}?v=${encodeURIComponent((item.hash || '').slice(7, 31))}`;
  };

  // Sharp at any tile size and screen: the thumbnail, then previews of the original at
  // growing short edges, each with its width, so that the browser takes the smallest that
  // covers the tile's device pixels. The thumbnail shows first; the set is given once it
  // has loaded, and the tile keeps it until the preview has.
  page.sourceSet = function sourceSet(item) {
    const { width, height } = item;
    if (!width || !height) return '';
    const long = Math.max(width, height);
    const short = Math.min(width, height);
    // A bitmap is never enlarged; a drawing is drawn at the size asked.
    const widthAt = (longest) => Math.max(1, Math.round(width * (drawingFormats.has(item.format) ? longest / long : Math.min(1, longest / long))));
    const version = encodeURIComponent((item.hash || '').slice(7, 31));
    let last = widthAt(state.doc?.thumbnailSize || 256);
    const candidates = [`${page.thumbnailURL(item)} ${last}w`];
    for (const edge of previewShortEdges) {
      const next = widthAt(Math.min(maxPreviewLongEdge, Math.round(long * edge / short)));
      if (next <= last) break;
      candidates.push(`/api/documents/${page.id}/previews/${item.id}?short=${edge}&v=${version} ${next}w`);
      last = next;
    }
    return candidates.join(', ');
  };

  // A note card: its text, as text (never markup), on a card of its own.
  function cardFor(item) {
    let tile = state.tiles.get(item.id);
    if (tile && tile.dataset.state === 'note') {
      if (tile.textContent !== item.note) tile.textContent = item.note;
      return tile;
    }
    if (tile) tile.remove();
    tile = element('div', {
      class: 'tile note', text: item.note, title: item.note, draggable: 'true', role: 'option',
      'aria-label': `Note: ${item.note}`, dataset: { id: item.id, state: 'note' },
    });
    state.tiles.set(item.id, tile);
    return tile;
  }

  function tileFor(item) {
    if (item.display === 'note') return cardFor(item);
    let tile = state.tiles.get(item.id);
    const source = item.display === 'ready' ? page.thumbnailURL(item) : `/assets/${item.display === 'pending' ? 'spinner' : 'broken'}.svg`;
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
    if (item.display === 'ready') {
      tile.addEventListener('load', () => { tile.srcset = page.sourceSet(item); }, { once: true });
    }
    state.tiles.set(item.id, tile);
    return tile;
  }

  main.addEventListener('scroll', scheduleRender, { passive: true });
  new ResizeObserver(() => page.relayout()).observe(grid);

  function resize(size) {
    const anchorIndex = firstVisible(state.placed.tiles, main.scrollTop - grid.offsetTop);
    state.size = Math.round(Math.min(maxSize, Math.max(minSize, size)));
    slider.value = state.size;
    if (state.doc) localStorage.setItem(`size:${state.doc.key}`, state.size);
    page.relayout();
    // The first tile on screen stays on screen.
    const tile = state.placed.tiles[anchorIndex];
    if (tile) main.scrollTop = tile.y + grid.offsetTop;
  }
  slider.addEventListener('input', () => resize(Number(slider.value)));
  // Touchpad pinch arrives as Ctrl+wheel in Chromium.
  main.addEventListener('wheel', (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    resize(state.size * Math.exp(-event.deltaY / 200));
  }, { passive: false });

  page.columnsAt = function columnsAt(index) {
    const tiles = state.placed.tiles;
    if (index < 0 || !tiles[index]) return 1;
    return tiles.filter((tile) => tile.row === tiles[index].row).length;
  };

  page.scrollToIndex = function scrollToIndex(index) {
    const tile = state.placed.tiles[index];
    if (!tile) return;
    const top = tile.y + grid.offsetTop;
    if (top < main.scrollTop) main.scrollTop = top - spacing;
    else if (top + tile.height > main.scrollTop + main.clientHeight) main.scrollTop = top + tile.height - main.clientHeight + spacing;
  };
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
