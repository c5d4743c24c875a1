// The document browser: the galleries of the served folders and the recent ones, with
// covers, titles, counts and pending placeholders; create, rename, duplicate, delete.
import { coalescedLoader, element, events, post, toast } from './api.js';

export function showBrowser() {
  document.title = 'Galleries';
  const bar = document.getElementById('bar');
  const main = document.getElementById('main');
  const title = element('input', { id: 'new-title', type: 'text', placeholder: 'New gallery title', 'aria-label': 'New gallery title' });
  const create = element('button', { id: 'new-document', type: 'button', text: 'New gallery' });
  create.addEventListener('click', async () => {
    try {
      const made = await post('/api/documents', { title: title.value });
      location.href = `/d/${made.id}`;
    } catch (error) { toast(error.message, 'error'); }
  });
  bar.replaceChildren(element('h1', { text: 'Galleries' }), element('div', { class: 'tools' }, title, create));
  const list = element('div', { id: 'documents' });
  main.replaceChildren(list);

  // A library: a section per served folder, then the recent documents from elsewhere.
  const load = coalescedLoader('/api/documents', (listing) => {
    const served = listing.folders || [];
    const sections = served.map((folder) => ({ heading: folder, docs: listing.documents.filter((doc) => doc.folder === folder) }));
    sections.push({ heading: served.length ? 'Recent, elsewhere' : 'Recent', docs: listing.documents.filter((doc) => !served.includes(doc.folder)) });
    list.replaceChildren(...sections.filter((section, index) => section.docs.length || index < served.length).map((section) =>
      element('section', { class: 'library' },
        element('h2', { text: section.heading }),
        section.docs.length
          ? element('ul', { class: 'documents' }, ...section.docs.map(card))
          : element('p', { class: 'empty', text: 'No galleries here yet.' }))));
    if (listing.documents.length === 0 && served.length === 0) list.append(element('p', { class: 'empty', text: 'No galleries yet.' }));
  });

  function card(doc) {
    const counts = [`${doc.items} item${doc.items === 1 ? '' : 's'}`];
    if (doc.pending) counts.push(`${doc.pending} loading`);
    if (doc.stale) counts.push(`${doc.stale} not loaded`);
    if (doc.failed) counts.push(`${doc.failed} failed`);
    if (doc.problem) counts.push(doc.problem);
    const name = element('input', { type: 'text', class: 'rename-field', value: doc.name.replace(/\.gallery$/, ''), 'aria-label': 'New name', hidden: true });
    const menu = element('div', { class: 'menu', role: 'menu', hidden: true },
      element('button', { type: 'button', role: 'menuitem', class: 'rename', text: 'Rename…', onclick: async () => {
        if (name.hidden) { name.hidden = false; menu.hidden = true; name.focus(); name.select(); return; }
        try { await post(`/api/documents/${doc.id}/rename`, { name: name.value }); load(); } catch (error) { toast(error.message, 'error'); }
      } }),
      element('button', { type: 'button', role: 'menuitem', class: 'duplicate', text: 'Duplicate', onclick: async () => {
        menu.hidden = true;
        try { await post(`/api/documents/${doc.id}/duplicate`, {}); load(); } catch (error) { toast(error.message, 'error'); }
      } }),
      element('button', { type: 'button', role: 'menuitem', class: 'delete', text: 'Move to Trash', onclick: async () => {
        menu.hidden = true;
        try {
          const { token } = await post(`/api/documents/${doc.id}/delete`, {});
          load();
          toast(`“${doc.title ?? doc.name}” moved to the Trash`, 'info', { label: 'Undo', run: async () => {
            try { await post('/api/documents/untrash', { token }); load(); } catch (error) { toast(error.message, 'error'); }
          } });
        } catch (error) { toast(error.message, 'error'); }
      } }));
    const more = element('button', { type: 'button', class: 'more', 'aria-label': `Actions for ${doc.title ?? doc.name}`, 'aria-haspopup': 'menu', text: '⋯',
      onclick: (event) => { event.stopPropagation(); menu.hidden = !menu.hidden; } });
    const item = element('li', { class: 'document', dataset: { id: doc.id } },
      element('a', { href: `/d/${doc.id}`, class: 'open' },
        element('img', {
          class: 'cover', alt: '', loading: 'lazy', sizes: '300px', src: `/api/documents/${doc.id}/cover?m=${encodeURIComponent(doc.modified || '')}`,
          // Sharp on large cards and HiDPI screens: covers made at the size asked.
          srcset: [256, 512, 768].map((size) => `/api/documents/${doc.id}/cover?${size === 256 ? '' : `size=${size}&`}m=${encodeURIComponent(doc.modified || '')} ${size}w`).join(', '),
        }),
        element('span', { class: 'title', text: doc.title ?? doc.name })),
      element('div', { class: 'about' },
        element('span', { class: 'counts', text: counts.join(' · ') }),
        element('span', { class: 'actions' }, more, menu)),
      name,
      element('span', { class: 'path', text: `${doc.folder}/${doc.name}` }));
    name.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') item.querySelector('.rename').click();
      else if (event.key === 'Escape') name.hidden = true;
    });
    return item;
  }
  document.addEventListener('click', (event) => {
    for (const menu of document.querySelectorAll('.document .menu')) if (!menu.parentElement.contains(event.target)) menu.hidden = true;
  });

  events({ documents: load, document: load, reconnected: load, failure: (f) => toast(`${f.source}: ${f.reason}`, 'error') });
  load();
}
