import { showBrowser } from './browser.js';
import { showGallery } from './gallery.js';

const match = location.pathname.match(/^\/d\/([a-z0-9]+)$/);
if (match) showGallery(match[1]);
else showBrowser();
