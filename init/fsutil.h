/* Bounded file and sysctl access. Every read has a size limit; a file that
 * does not fit is an error (E2BIG), never silently truncated. */
#ifndef HARDINIT_FSUTIL_H
#define HARDINIT_FSUTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What fs_read sets errno to for a path that is not a regular file (a
 * FIFO, socket, device or directory): ENXIO, as the kernel itself answers
 * a non-blocking open of a FIFO nobody writes. Say it with fs_read_why. */
#define FS_ENOTREG ENXIO

/* Read at most cap-1 bytes of path into buf, NUL-terminated; *len gets the
 * length (may be NULL). Returns 0, or -1 with errno (E2BIG: larger). */
int hi_fs_read(const char *path, char *buf, size_t cap, size_t *len);

/* The same for NAME (no '/') in the directory DIR_FD, one of the kernel's
 * (sysfs): no path walk from the root and no lstat per file, for a
 * directory read file by file; a link is not followed, and a file that
 * is not regular is refused (FS_ENOTREG) before any read. */
int hi_fs_read_at(int dir_fd, const char *name, char *buf, size_t cap);

/* The reason for a failed fs_read, for a message: names a non-regular
 * file, a link and the size limit, else strerror. */
const char *hi_fs_read_why(int e);

/* "a FIFO", "a symbolic link", ... for st_mode. */
const char *hi_fs_kind_name(unsigned mode);

/* 0 when path is a regular file or absent; -1 with why ("PATH is a FIFO,
 * not a regular file") and errno (ELOOP for a link, else FS_ENOTREG)
 * otherwise. Never opens it. */
int hi_fs_check_regular(const char *path, char *why, size_t whylen);

/* Read the first cap-1 bytes of path at most (a prefix is all the caller
 * needs: /proc/cpuinfo's first CPU), NUL-terminated. Returns 0 or -1. */
int hi_fs_read_prefix(const char *path, char *buf, size_t cap, size_t *len);

/* Write s to an existing file (sysfs, procfs) in one write(2). Returns 0 or
 * -1 with errno. */
int hi_fs_write(const char *path, const char *s);
/* The same for len bytes of data (selinuxfs load takes a whole policy in
 * one write at offset 0). */
int hi_fs_write_once(const char *path, const void *data, size_t len);

/* Create or replace path with s, mode 0644, creating parent directories
 * (mode 0755). Returns 0 or -1 with errno. */
int hi_fs_write_new(const char *path, const char *s);

/* mount(2), and under hardinit.debug one line with the target, the
 * result and the time it took (finding the mounts that make the kernel
 * wait). Returns what mount(2) returns, errno kept. */
int hi_fs_mount(const char *source, const char *target, const char *fstype,
	     unsigned long flags, const void *data);

/* mkdir -p, mode for every directory created. Returns 0 or -1 with errno. */
int hi_fs_mkdir_p(const char *path, unsigned mode);

/* "kernel.kptr_restrict" or "kernel/kptr_restrict" -> PROC/sys/kernel/kptr_restrict.
 * Returns 0, or -1 when the key is malformed ("..", empty parts) or too long. */
int hi_sysctl_path(char *out, size_t outlen, const char *proc, const char *key);

/* Read a sysctl's value, trailing newline removed; whitespace runs (as in
 * multi-value sysctls) collapsed to one space. Returns 0 or -1 with errno
 * (ENOENT: this kernel has no such sysctl). */
int hi_sysctl_read(const char *proc, const char *key, char *buf, size_t cap);

/* Write a sysctl. Returns 0 or -1 with errno. */
int hi_sysctl_write(const char *proc, const char *key, const char *value);

/* Write a sysctl and read it back through one open file: half the opens
 * (each a walk down /proc/sys) of hi_sysctl_write and hi_sysctl_read, with
 * the same outcome. Returns 0 with the value read back in buf, or with
 * errno SYSCTL_WR_WRITE (the write failed: nothing was read) or
 * SYSCTL_WR_READ (written, but not readable). */
#define SYSCTL_WR_WRITE (-1)
#define SYSCTL_WR_READ  (-2)
int hi_sysctl_write_read(const char *proc, const char *key, const char *value, char *buf, size_t cap);

/* The same, relative to a directory fd of proc ("/proc"): it stays valid
 * while the mounts move (the early sysctl writer runs across the switch). */
int hi_sysctl_read_at(int proc_fd, const char *key, char *buf, size_t cap);
int hi_sysctl_write_at(int proc_fd, const char *key, const char *value);

/* Read exactly LEN bytes at offset OFF of FD (a block device, for the
 * superblock, LUKS2 and LVM2 readers), retrying short reads and EINTR.
 * Returns 0, or -1 on an error or end of device before LEN bytes. */
int hi_fs_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* Waiting for a disk by asking again rather than by sleeping: on one CPU
 * a PID 1 that sleeps for a disk hands the CPU to whatever kernel thread is
 * runnable (the crypto self-tests still run then), which gives it back only
 * at its next preemption point, milliseconds after the data came. The
 * asking is bounded: after FS_SPIN_NS a read sleeps as before. */
#define FS_SPIN_NS (20 * 1000000ull)

/* hi_fs_pread_all, each wait for the device by asking again (RWF_NOWAIT)
 * for up to spin_ns in all, then by a sleeping read. Only for a device
 * whose reads end without a thread of its own (hi_fs_dev_spins): asking
 * at nice -20 would take the CPU from that thread. */
int hi_fs_pread_spin(int fd, void *buf, size_t len, uint64_t off, uint64_t spin_ns);

/* The whole disk partition NAME is on, from its sysfs link under
 * sys_dir (.../block/vda/vda1): 1 with out set, 0 when NAME is no
 * partition or the link cannot be read. */
int hi_fs_sys_whole_disk(const char *sys_dir, const char *name, char *out, size_t cap);

/* Whether the reads of block device NAME (a /sys/class/block name) end
 * without a kernel thread of the device's own, so that asking again does
 * not starve them: not dm (dm-crypt decrypts on one), loop (its worker)
 * or md. */
bool hi_fs_dev_spins(const char *name);

/* Compare two sysctl values ignoring whitespace differences. */
int hi_sysctl_value_equal(const char *a, const char *b);

/* Join a context directory and a relative path into out (bounded). Returns
 * out, or NULL when the result would not fit. */
char *hi_boot_path(char *out, size_t outlen, const char *dir, const char *rel);

#endif
