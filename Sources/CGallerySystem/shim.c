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

int CGallerySystem_start_writeback(int fd, long long offset, long long count) {
  return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

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

// --- The decoder sandbox ------------------------------------------------------------------

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#else
#error "the decoder sandbox knows the system calls of x86_64 and aarch64 only"
#endif

// Takes away what a decoder never needs: every write to the file system (Landlock, where
// the kernel has it), and by a seccomp filter the network, running programs, changing files
// and signalling other processes. Reading stays allowed: libvips' modules, fonts and
// configuration are read as the decoder starts, and a loader may read more lazily.
static int restrict_file_system(void) {
  struct landlock_ruleset_attr attributes = {
      .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                           LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                           LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                           LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM,
  };
  // No rule grants any of these anywhere.
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
  if (ruleset < 0) return errno == ENOSYS || errno == EOPNOTSUPP ? 0 : -1;
  int result = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
  close(ruleset);
  return result < 0 ? -1 : 1;
}

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
#define LOW_ARG(n) (offsetof(struct seccomp_data, args) + 8 * (n))
// Refuses `nr` when its argument `flags` asks to write or create.
#define DENY_WRITE_OPEN(nr, flags)                                                                \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 3), BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW_ARG(flags)), \
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0, 1),    \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
// Allows `nr` only when its first argument is this process: a signal to itself (abort).
#define ONLY_SELF(nr, self)                                                                       \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 3), BPF_STMT(BPF_LD | BPF_W | BPF_ABS, LOW_ARG(0)), \
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (self), 1, 0), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
#define RELOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

static int install_filter(void) {
  unsigned self = (unsigned)getpid();
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      RELOAD_NR,
      // The network, other programs, other processes' memory.
      DENY(__NR_socket), DENY(__NR_socketpair), DENY(__NR_connect), DENY(__NR_bind), DENY(__NR_listen),
      DENY(__NR_accept), DENY(__NR_accept4), DENY(__NR_execve), DENY(__NR_execveat), DENY(__NR_ptrace),
      DENY(__NR_process_vm_readv), DENY(__NR_process_vm_writev), DENY(__NR_pidfd_open), DENY(__NR_pidfd_getfd),
      DENY(__NR_tkill), DENY(__NR_io_uring_setup),
      // Changes to the file system (Landlock says the same where the kernel has it).
      DENY(__NR_mkdirat), DENY(__NR_unlinkat), DENY(__NR_renameat2), DENY(__NR_linkat), DENY(__NR_symlinkat),
      DENY(__NR_fchmodat), DENY(__NR_fchownat), DENY(__NR_truncate), DENY(__NR_mknodat), DENY(__NR_mount),
      DENY(__NR_umount2), DENY(__NR_chroot), DENY(__NR_pivot_root), DENY(__NR_setxattr), DENY(__NR_lsetxattr),
      DENY(__NR_fsetxattr), DENY(__NR_openat2),
#if defined(__x86_64__)
      DENY(__NR_mkdir), DENY(__NR_rmdir), DENY(__NR_unlink), DENY(__NR_rename), DENY(__NR_renameat), DENY(__NR_link),
      DENY(__NR_symlink), DENY(__NR_chmod), DENY(__NR_chown), DENY(__NR_lchown), DENY(__NR_mknod), DENY(__NR_creat),
      DENY_WRITE_OPEN(__NR_open, 1), RELOAD_NR,
#endif
      DENY_WRITE_OPEN(__NR_openat, 2), RELOAD_NR,
      ONLY_SELF(__NR_kill, self), RELOAD_NR, ONLY_SELF(__NR_tgkill, self), RELOAD_NR,
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {.len = sizeof filter / sizeof *filter, .filter = filter};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 ? 0 : -1;
}

int CGallerySystem_enter_decoder_sandbox(unsigned long long memory_bytes, int cpu_seconds,
                                        unsigned long long output_bytes, int *file_system_layer) {
  struct rlimit memory = {memory_bytes, memory_bytes}, cpu = {(rlim_t)cpu_seconds, (rlim_t)cpu_seconds + 1},
                output = {output_bytes, output_bytes}, nothing = {0, 0};
  if (setrlimit(RLIMIT_AS, &memory) || setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_FSIZE, &output) ||
      setrlimit(RLIMIT_CORE, &nothing))
    return errno;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return errno;
  int layer = restrict_file_system();
  if (layer < 0) return errno;
  *file_system_layer = layer;
  if (install_filter()) return errno;
  return 0;
}
