// The server's API: JSON in and out, errors as exceptions carrying the server's message.
export async function call(method, path, body, headers = {}) {
  const options = { method, headers: { ...headers }, credentials: 'same-origin', cache: 'no-store' };
  if (body instanceof Blob) {
    options.body = body;
  } else if (body !== undefined) {
    options.body = JSON.stringify(body);
    options.headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let value = {};
  try { value = text ? JSON.parse(text) : {}; } catch { value = { error: text }; }
  if (!response.ok) throw new Error(value.error || `${response.status} ${response.statusText}`);
  return value;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body);

// Files in the upload frame the server reads (UploadFrames): for each file, the length of
// its name (4 bytes, big-endian), the name, the length of its bytes, the bytes.
export function uploadFrames(files) {
  const parts = [];
  const encoder = new TextEncoder();
  for (const file of files) {
    const name = encoder.encode(file.name || 'image');
    const header = new DataView(new ArrayBuffer(4));
    header.setUint32(0, name.length);
    const size = new DataView(new ArrayBuffer(4));
    size.setUint32(0, file.size);
    parts.push(header, name, size, file);
  }
  return new Blob(parts, { type: 'application/x-gallery-upload' });
}

// A loader that reads `path` and hands the value to `apply`, one read at a time: a call while
// a read is under way asks for one more read after it (changes come in bursts).
export function coalescedLoader(path, apply) {
  let loading = false;
  let again = false;
  return async function load() {
    if (loading) { again = true; return; }
    loading = true;
    try {
      apply(await get(path));
    } catch (error) {
      toast(error.message, 'error');
    } finally {
      loading = false;
      if (again) { again = false; load(); }
    }
  };
}

// The server's change stream, shared by the page's parts.
export function events(handlers) {
  const source = new EventSource('/api/events');
  // After a lost connection, events may have been missed: the page reads everything again.
  let connected = false;
  let warned = false;
  source.addEventListener('open', () => {
    if (connected && handlers.reconnected) handlers.reconnected();
    connected = true;
    warned = false;
  });
  source.addEventListener('error', () => {
    if (connected && !warned) toast('Lost the connection to the gallery server; trying again…', 'error');
    warned = true;
  });
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => handler(event.data ? JSON.parse(event.data) : {}));
  }
  return source;
}

// Text for the DOM: every document string goes through textContent or an attribute, never
// innerHTML; this makes an element with text in one call.
export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// A passing message; with an `action` ({ label, run }), a button that runs it once (an Undo).
export function toast(message, kind = 'info', action = null) {
  const box = document.getElementById('toasts');
  const note = element('div', { class: `toast ${kind}`, role: 'status', text: message });
  if (action) {
    note.append(element('button', { type: 'button', class: 'toast-action', text: action.label, onclick: () => { note.remove(); action.run(); } }));
  }
  box.append(note);
  setTimeout(() => note.remove(), kind === 'error' || action ? 8000 : 4000);
}
