#ifndef GALLERY_CGOBJECT_SHIM_H
#define GALLERY_CGOBJECT_SHIM_H
// GLib and GObject, which libvips' headers and handles are made of. Linked at start-up:
// they are small, unlike libvips and its hundred dependencies, which load on first use.
#include <glib-object.h>
#endif
