// A gallery's note cards: text a person writes, laid out among the images (the board app's
// cards). "+ Note" or n writes one after the focused item (or at the end), in a box where
// Enter starts a new line and Ctrl+Enter adds the card; plain text dropped on the grid
// becomes a card too. A card's text is edited in the large view's info panel (its note).
import { element, toast } from './api.js';

export function installNotes(page) {
  const { state, grid } = page;

  page.addNote = async function addNote(text, before) {
    if (!text.trim()) return null;
    const answer = await page.edit('add-note', { note: text, before: before ?? null });
    if (answer?.ids?.length) toast('note card added');
    return answer;
  };

  page.composeNote = function composeNote() {
    document.getElementById('composer')?.remove();
    // After the focused item: before the one that follows it.
    const focusIndex = state.focus ? page.indexOf(state.focus) : -1;
    const before = focusIndex >= 0 ? state.items[focusIndex + 1]?.id ?? null : null;
    const text = element('textarea', { id: 'composer-text', rows: '4', placeholder: 'A note card (Ctrl+Enter adds it)', 'aria-label': 'Note card text' });
    const add = element('button', { type: 'submit', text: 'Add' });
    const cancel = element('button', { type: 'button', text: 'Cancel' });
    const composer = element('form', { id: 'composer', class: 'composer', 'aria-label': 'New note card' },
      text, element('div', { class: 'buttons' }, cancel, add));
    const done = () => { composer.remove(); grid.focus(); };
    composer.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = text.value;
      done();
      page.addNote(value, before);
    });
    cancel.addEventListener('click', done);
    text.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Escape') done();
      else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) composer.requestSubmit();
    });
    document.body.append(composer);
    text.focus();
  };

  page.noteButton = element('button', { id: 'new-note', type: 'button', text: '+ Note', title: 'New note card (n)', onclick: () => page.composeNote() });
  page.tools.prepend(page.noteButton);
}
