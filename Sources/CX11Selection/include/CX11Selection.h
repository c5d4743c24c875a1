#ifndef GALLERY_CX11SELECTION_H
#define GALLERY_CX11SELECTION_H
// Owns the X11 CLIPBOARD selection and serves it in several types at once, which xclip (one
// type per process) cannot: a file manager asks for x-special/gnome-copied-files, a browser
// for text/uri-list, an editor for UTF8_STRING. libX11 is loaded with dlopen on first use,
// so commands that never touch the clipboard do not pay for it at start-up.
#include <stddef.h>

/// Takes the selection on $DISPLAY and serves `count` types (names, bytes, lengths) until
/// another client takes it. Writes "ok\n" to `ready_fd` (and closes it) once the selection is
/// ours, or "error: ...\n" and returns 1 when it cannot be. Returns 0 when the selection is
/// lost.
int CX11Selection_serve(int count, const char *const *types, const unsigned char *const *data,
                        const size_t *lengths, int ready_fd);

#endif
