#define _GNU_SOURCE
#include "CGallerySystem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

int CGallerySystem_rename_noreplace(const char *from, const char *to) {
  // Through syscall(2): older C libraries do not declare renameat2.
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int CGallerySystem_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

const int CGallerySystem_O_PATH = O_PATH;

int CGallerySystem_clear_nonblock(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return -1;
  return fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

int CGallerySystem_terminal_columns(int fd) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

int CGallerySystem_wait_child(int pid, int milliseconds, int *status) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return -1;
  struct pollfd ready = {.fd = fd, .events = POLLIN};
  int polled;
  do {
    polled = poll(&ready, 1, milliseconds);
  } while (polled < 0 && errno == EINTR);
  close(fd);
  if (polled < 0) return -1;
  if (polled == 0) return 0;
  pid_t reaped;
  do {
    reaped = waitpid(pid, status, 0);
  } while (reaped < 0 && errno == EINTR);
  return reaped == pid ? 1 : -1;
}

int CGallerySystem_spawn(
    const char *path, char *const argv[], char *const envp[], int in, int out, int err,
    const char *directory, int new_session, int *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  if (directory) posix_spawn_file_actions_addchdir_np(&actions, directory);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (new_session) flags |= POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&attributes, flags);
  pid_t child = 0;
  int result = posix_spawn(&child, path, &actions, &attributes, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (result == 0) *pid = child;
  return result;
}

int CGallerySystem_open_for_writing(int fd) {
  if (fcntl(fd, F_SETSIG, SIGURG) != 0) return -1;
  if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
    fcntl(fd, F_SETLEASE, F_UNLCK);
    return 0;
  }
  return errno == EAGAIN ? 1 : -1;
}
