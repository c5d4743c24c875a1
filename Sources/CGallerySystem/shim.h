#ifndef GALLERY_CGALLERYSYSTEM_SHIM_H
#define GALLERY_CGALLERYSYSTEM_SHIM_H
// libc calls that Swift cannot make directly: variadic (syscall, fcntl, ioctl) or behind
// _GNU_SOURCE.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/// rename(2) that fails with EEXIST instead of replacing `to`: renameat2 with
/// RENAME_NOREPLACE, through syscall(2) since older C libraries do not declare it.
static inline int CGallerySystem_rename_noreplace(const char *from, const char *to) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

/// fcntl(F_GETFL / F_SETFL) without O_NONBLOCK: fcntl is variadic.
static inline int CGallerySystem_clear_nonblock(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return -1;
  return fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

/// The width of the terminal on `fd` in columns, or 0 when it is not one.
static inline int CGallerySystem_terminal_columns(int fd) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

#endif
