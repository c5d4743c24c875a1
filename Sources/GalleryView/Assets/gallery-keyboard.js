// A gallery's keyboard: arrows move the focus (Shift extends the selection), Alt+arrows move
// the selection as a drag would, Delete trashes, Enter opens the large view, Ctrl+A selects
// all, Escape selects none, Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo, the digits 0-5
// give the selection stars (0 none), t tags it, n writes a note card.
import { element, toast } from './api.js';

export function installKeyboard(page) {
  const { state, grid } = page;

  // Tags for the selection, typed in one line: `beach, holiday/italy, -sea` (a leading -
  // takes a tag away).
  function askForTags(ids) {
    const field = element('input', {
      id: 'tagger', type: 'text', 'aria-label': 'Tags for the selection', spellcheck: 'false',
      placeholder: `Tags for ${ids.length} item${ids.length === 1 ? '' : 's'}: beach, -sea`,
    });
    page.tools.prepend(field);
    field.focus();
    // Removing a focused field blurs it: whichever comes first ends it, once.
    let ended = false;
    const end = () => { if (!ended) { ended = true; field.remove(); } };
    const done = () => { end(); grid.focus(); };
    field.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Escape') return done();
      if (event.key !== 'Enter') return;
      const words = field.value.split(',').map((word) => word.trim()).filter((word) => word && word !== '-');
      const addTags = words.filter((word) => !word.startsWith('-'));
      const removeTags = words.filter((word) => word.startsWith('-')).map((word) => word.slice(1).trim());
      done();
      if (words.length) page.describe(ids, { addTags, removeTags });
    });
    field.addEventListener('blur', end);
  }

  grid.addEventListener('keydown', async (event) => {
    const ids = page.selectedIDs();
    const focusIndex = state.focus ? page.indexOf(state.focus) : -1;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -page.columnsAt(focusIndex), ArrowDown: page.columnsAt(focusIndex) }[event.key];
    if (step !== undefined && event.altKey && ids.length) {
      event.preventDefault();
      const first = page.indexOf(ids[0]);
      const last = page.indexOf(ids[ids.length - 1]);
      const target = step < 0 ? Math.max(0, first + step) : last + step + 1;
      const rest = state.items.filter((item) => !state.selected.has(item.id));
      const anchorItem = state.items[target];
      const before = anchorItem && !state.selected.has(anchorItem.id) ? anchorItem.id : (step < 0 ? rest[0]?.id ?? null : null);
      return page.moveSelection(ids, before);
    }
    if (step !== undefined) {
      event.preventDefault();
      if (!state.items.length) return;
      const next = Math.min(state.items.length - 1, Math.max(0, (focusIndex < 0 ? 0 : focusIndex + step)));
      page.select(state.items[next].id, { extend: event.shiftKey });
      page.scrollToIndex(next);
      return;
    }
    if (event.key === 'Delete' || event.key === 'Backspace') { event.preventDefault(); return page.trashSelection(ids); }
    // The document's history, as `gallery undo` and `gallery redo` use it.
    const key = event.key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && (key === 'z' || key === 'y')) {
      event.preventDefault();
      const outcome = await page.edit(key === 'y' || event.shiftKey ? 'redo' : 'undo', {});
      if (outcome) toast(outcome.skipped.length ? `${outcome.summary}; not done: ${outcome.skipped.join('; ')}` : outcome.summary);
      return;
    }
    if (event.key === 'Enter' && state.focus) { event.preventDefault(); return page.openViewer(state.focus); }
    if (event.key === 'a' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      state.selected = new Set(state.items.map((item) => item.id));
      return page.render();
    }
    if (event.key === 'Escape') { state.selected.clear(); page.render(); }
    if (/^[0-5]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey && ids.length) {
      event.preventDefault();
      return page.describe(ids, { rating: Number(event.key) });
    }
    if (event.key === 'n' && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      return page.composeNote();
    }
    if (event.key === 't' && !event.ctrlKey && !event.metaKey && ids.length) {
      event.preventDefault();
      return askForTags(ids);
    }
  });
}
