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
  const list = element('ul', { id: 'documents', class: 'documents' });
  main.replaceChildren(list);

  const load = coalescedLoader('/api/documents', (listing) => {
    list.replaceChildren(...listing.documents.map(card));
    if (listing.documents.length === 0) list.append(element('li', { class: 'empty', text: 'No galleries yet.' }));
  });

  function card(doc) {
    const counts = [`${doc.items} item${doc.items === 1 ? '' : 's'}`];
    if (doc.pending) counts.push(`${doc.pending} loading`);
    if (doc.failed) counts.push(`${doc.failed} failed`);
    if (doc.problem) counts.push(doc.problem);
    const name = element('input', { type: 'text', class: 'rename-field', value: doc.name.replace(/\.gallery$/, ''), 'aria-label': 'New name', hidden: true });
    const item = element('li', { class: 'document', dataset: { id: doc.id } },
      element('a', { href: `/d/${doc.id}`, class: 'open' },
        element('img', { class: 'cover', src: `/api/documents/${doc.id}/cover?m=${encodeURIComponent(doc.modified || '')}`, alt: '', loading: 'lazy' }),
        element('span', { class: 'title', text: doc.title ?? doc.name })),
      element('span', { class: 'counts', text: counts.join(' · ') }),
      element('span', { class: 'path', text: `${doc.folder}/${doc.name}` }),
      element('span', { class: 'actions' },
        name,
        element('button', { type: 'button', class: 'rename', text: 'Rename', onclick: async () => {
          if (name.hidden) { name.hidden = false; name.focus(); return; }
          try { await post(`/api/documents/${doc.id}/rename`, { name: name.value }); load(); } catch (error) { toast(error.message, 'error'); }
        } }),
        element('button', { type: 'button', class: 'duplicate', text: 'Duplicate', onclick: async () => {
          try { await post(`/api/documents/${doc.id}/duplicate`, {}); load(); } catch (error) { toast(error.message, 'error'); }
        } }),
        element('button', { type: 'button', class: 'delete', text: 'Move to Trash', onclick: async () => {
          try { await post(`/api/documents/${doc.id}/delete`, {}); load(); } catch (error) { toast(error.message, 'error'); }
        } })));
    name.addEventListener('keydown', (event) => { if (event.key === 'Enter') item.querySelector('.rename').click(); });
    return item;
  }

  events({ documents: load, document: load, reconnected: load, failure: (f) => toast(`${f.source}: ${f.reason}`, 'error') });
  load();
}
