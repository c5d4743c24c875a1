#ifndef GALLERY_CGALLERYSYSTEM_H
#define GALLERY_CGALLERYSYSTEM_H
// libc calls that Swift cannot make directly: variadic (syscall, fcntl, ioctl) or behind
// _GNU_SOURCE (renameat2, pidfd, posix_spawn extensions). They are defined in shim.c: this
// header includes no system header, since one compiled with _GNU_SOURCE would disagree with
// other modules' view of the same structures (fd_set), which Clang refuses.

/// rename(2) that fails with EEXIST instead of replacing `to` (renameat2 RENAME_NOREPLACE).
int CGallerySystem_rename_noreplace(const char *from, const char *to);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no exec inherits.
int CGallerySystem_pipe_cloexec(int fds[2]);

/// O_PATH (behind _GNU_SOURCE): a descriptor that names a file without opening it.
extern const int CGallerySystem_O_PATH;

/// sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE): starts writing those bytes to
/// the disk and returns without waiting for them.
int CGallerySystem_start_writeback(int fd, long long offset, long long count);

/// Clears O_NONBLOCK on `fd` (fcntl F_GETFL / F_SETFL).
int CGallerySystem_clear_nonblock(int fd);

/// Whether a descriptor of the regular file open on `fd` (read-only) is open for writing
/// anywhere: 1 yes, 0 no, -1 when it cannot be told (a file of another user, a filesystem
/// without leases). A read lease (F_SETLEASE F_RDLCK) is refused with EAGAIN exactly then;
/// when granted it is released at once. A break of it while held signals SIGURG, whose
/// default action is to ignore it (SIGIO's would end the process).
int CGallerySystem_open_for_writing(int fd);

/// The width of the terminal on `fd` in columns, or 0 when it is not one.
int CGallerySystem_terminal_columns(int fd);

/// Waits for child `pid` to end, at most `milliseconds` (-1: no limit), and reaps it: 1 with
/// its wait status in `status`, 0 when it still runs at the deadline, -1 with errno set.
/// A pidfd makes the wait one poll(2) rather than a sleep loop (Linux 5.3).
int CGallerySystem_wait_child(int pid, int milliseconds, int *status);

/// posix_spawn of `path` with `argv` and `envp`, standard input, output and error dup'ed from
/// `in`, `out` and `err`, every other descriptor closed, no signal blocked or ignored
/// (whatever the spawning thread had: Dispatch's and the test runner's threads block them
/// all), in `directory` when not NULL, in a session of its own when `new_session` is set.
/// 0 and the child's pid in `pid`, or an errno.
int CGallerySystem_spawn(
    const char *path, char *const argv[], char *const envp[], int in, int out, int err,
    const char *directory, int new_session, int *pid);

/// Confines this process for decoding hostile images: address space of `memory_bytes`,
/// `cpu_seconds` of CPU (then SIGXCPU), files at most `output_bytes` long (its output goes
/// to descriptors it has), no file opened for writing or changed (seccomp, and Landlock
/// where the kernel has it: `file_system_layer` says 1 then), no core dump, no new
/// privileges, and no network, exec or signal to another process (EPERM). Irreversible.
/// 0, or an errno.
int CGallerySystem_enter_decoder_sandbox(unsigned long long memory_bytes, int cpu_seconds,
                                        unsigned long long output_bytes, int *file_system_layer);

#endif
