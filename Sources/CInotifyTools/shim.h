#ifndef GALLERY_CINOTIFYTOOLS_SHIM_H
#define GALLERY_CINOTIFYTOOLS_SHIM_H
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

// inotify_event.name is a flexible array member, which Swift does not import.
static inline const char *CInotifyTools_event_name(const struct inotify_event *event) {
  return event->len > 0 ? event->name : "";
}

// Event masks, exported as values (some are macros built from others).
static const unsigned int CInotifyTools_IN_CREATE = IN_CREATE;
static const unsigned int CInotifyTools_IN_CLOSE_WRITE = IN_CLOSE_WRITE;
static const unsigned int CInotifyTools_IN_MOVED_TO = IN_MOVED_TO;
static const unsigned int CInotifyTools_IN_MOVED_FROM = IN_MOVED_FROM;
static const unsigned int CInotifyTools_IN_DELETE = IN_DELETE;
static const unsigned int CInotifyTools_IN_DELETE_SELF = IN_DELETE_SELF;
static const unsigned int CInotifyTools_IN_MOVE_SELF = IN_MOVE_SELF;
static const unsigned int CInotifyTools_IN_UNMOUNT = IN_UNMOUNT;
static const unsigned int CInotifyTools_IN_Q_OVERFLOW = IN_Q_OVERFLOW;
static const unsigned int CInotifyTools_IN_IGNORED = IN_IGNORED;
static const unsigned int CInotifyTools_IN_ISDIR = IN_ISDIR;
#endif
