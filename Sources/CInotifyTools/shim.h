#ifndef GALLERY_CINOTIFYTOOLS_SHIM_H
#define GALLERY_CINOTIFYTOOLS_SHIM_H
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

// inotify_event.name is a flexible array member, which Swift does not import.
static inline const char *CInotifyTools_event_name(const struct inotify_event *event) {
  return event->len > 0 ? event->name : "";
}
#endif
