#include "CX11Selection.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The libX11 functions used, looked up once.
static struct {
  Display *(*XOpenDisplay)(const char *);
  int (*XCloseDisplay)(Display *);
  Window (*XDefaultRootWindow)(Display *);
  Window (*XCreateSimpleWindow)(Display *, Window, int, int, unsigned, unsigned, unsigned,
                                unsigned long, unsigned long);
  Atom (*XInternAtom)(Display *, const char *, Bool);
  int (*XSetSelectionOwner)(Display *, Atom, Window, Time);
  Window (*XGetSelectionOwner)(Display *, Atom);
  int (*XNextEvent)(Display *, XEvent *);
  int (*XChangeProperty)(Display *, Window, Atom, Atom, int, int, const unsigned char *, int);
  Status (*XSendEvent)(Display *, Window, Bool, long, XEvent *);
  int (*XFlush)(Display *);
  long (*XMaxRequestSize)(Display *);
  long (*XExtendedMaxRequestSize)(Display *);
} x;

static const char *load(void) {
  void *library = dlopen("libX11.so.6", RTLD_LAZY);
  if (!library) return "cannot load libX11.so.6 (install libx11-6)";
#define LOOKUP(name)                                                                         \
  if (!(x.name = (__typeof__(x.name))dlsym(library, #name))) return "libX11 lacks " #name;
  LOOKUP(XOpenDisplay) LOOKUP(XCloseDisplay) LOOKUP(XDefaultRootWindow)
  LOOKUP(XCreateSimpleWindow) LOOKUP(XInternAtom) LOOKUP(XSetSelectionOwner)
  LOOKUP(XGetSelectionOwner) LOOKUP(XNextEvent) LOOKUP(XChangeProperty) LOOKUP(XSendEvent)
  LOOKUP(XFlush) LOOKUP(XMaxRequestSize) LOOKUP(XExtendedMaxRequestSize)
#undef LOOKUP
  return NULL;
}

static void report(int fd, const char *text) {
  if (fd < 0) return;
  ssize_t ignored = write(fd, text, strlen(text));
  (void)ignored;
  close(fd);
}

int CX11Selection_serve(int count, const char *const *types, const unsigned char *const *data,
                        const size_t *lengths, int ready_fd) {
  char message[256];
  const char *failure = load();
  if (failure) {
    snprintf(message, sizeof message, "error: %s\n", failure);
    report(ready_fd, message);
    return 1;
  }
  Display *display = x.XOpenDisplay(NULL);
  if (!display) {
    const char *name = getenv("DISPLAY");
    snprintf(message, sizeof message, "error: cannot open display '%s'\n", name ? name : "");
    report(ready_fd, message);
    return 1;
  }
  Window window = x.XCreateSimpleWindow(display, x.XDefaultRootWindow(display), 0, 0, 1, 1, 0, 0, 0);
  Atom clipboard = x.XInternAtom(display, "CLIPBOARD", False);
  Atom targets = x.XInternAtom(display, "TARGETS", False);
  Atom *atoms = calloc((size_t)count + 1, sizeof(Atom));
  atoms[0] = targets;
  for (int i = 0; i < count; i++) atoms[i + 1] = x.XInternAtom(display, types[i], False);
  // Larger properties would need the INCR protocol; such a type is refused instead.
  long extended = x.XExtendedMaxRequestSize(display);
  size_t largest = (size_t)(extended > 0 ? extended : x.XMaxRequestSize(display)) * 4 - 1024;

  x.XSetSelectionOwner(display, clipboard, window, CurrentTime);
  if (x.XGetSelectionOwner(display, clipboard) != window) {
    report(ready_fd, "error: another client kept the clipboard\n");
    x.XCloseDisplay(display);
    free(atoms);
    return 1;
  }
  report(ready_fd, "ok\n");

  for (;;) {
    XEvent event;
    x.XNextEvent(display, &event);
    if (event.type == SelectionClear) break;
    if (event.type != SelectionRequest) continue;
    XSelectionRequestEvent *request = &event.xselectionrequest;
    // Obsolete clients send no property: the target names it (ICCCM 2.2).
    Atom property = request->property != None ? request->property : request->target;
    Atom answered = None;
    if (request->target == targets) {
      x.XChangeProperty(display, request->requestor, property, XA_ATOM, 32, PropModeReplace,
                        (const unsigned char *)atoms, count + 1);
      answered = property;
    } else {
      for (int i = 0; i < count; i++) {
        if (request->target == atoms[i + 1] && lengths[i] <= largest) {
          x.XChangeProperty(display, request->requestor, property, atoms[i + 1], 8, PropModeReplace,
                            data[i], (int)lengths[i]);
          answered = property;
          break;
        }
      }
    }
    XEvent reply;
    memset(&reply, 0, sizeof reply);
    reply.xselection.type = SelectionNotify;
    reply.xselection.display = display;
    reply.xselection.requestor = request->requestor;
    reply.xselection.selection = request->selection;
    reply.xselection.target = request->target;
    reply.xselection.property = answered;
    reply.xselection.time = request->time;
    x.XSendEvent(display, request->requestor, False, 0, &reply);
    x.XFlush(display);
  }
  x.XCloseDisplay(display);
  free(atoms);
  return 0;
}
