#ifndef GALLERY_CGALLERYSYSTEM_SHIM_H
#define GALLERY_CGALLERYSYSTEM_SHIM_H
// libc calls that Swift cannot make directly: variadic (syscall, fcntl, ioctl) or behind
// _GNU_SOURCE.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
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

/// Waits for child `pid` to end, at most `milliseconds`, and reaps it: 1 with its wait
/// status in `status`, 0 when it is still running at the deadline, -1 with errno on error.
/// A pidfd makes the wait one poll(2) rather than a sleep loop (Linux 5.3).
static inline int CGallerySystem_wait_child(pid_t pid, int milliseconds, int *status) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return -1;
  struct pollfd ready = {.fd = fd, .events = POLLIN};
  int polled;
  do { polled = poll(&ready, 1, milliseconds); } while (polled < 0 && errno == EINTR);
  close(fd);
  if (polled < 0) return -1;
  if (polled == 0) return 0;
  pid_t reaped;
  do { reaped = waitpid(pid, status, 0); } while (reaped < 0 && errno == EINTR);
  return reaped == pid ? 1 : -1;
}

// posix_spawn extensions of glibc (2.29, 2.34), declared here since a module may have
// included spawn.h without _GNU_SOURCE.
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80
#endif

/// Spawn attributes for a child that starts clean: no signal blocked or ignored, whatever
/// the spawning thread had (Dispatch's and the test runner's threads block them all), and
/// in a session of its own when `new_session` is set.
static inline int CGallerySystem_spawnattr_clean(posix_spawnattr_t *attributes, int new_session) {
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(attributes, &none);
  posix_spawnattr_setsigdefault(attributes, &all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (new_session) flags |= POSIX_SPAWN_SETSID;
  return posix_spawnattr_setflags(attributes, flags);
}

/// The child starts in `path`.
static inline int CGallerySystem_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np(actions, path);
}

/// The child gets no descriptor from `from` up: nothing we hold leaks into it.
static inline int CGallerySystem_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif
