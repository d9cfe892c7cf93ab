#include "fsutil.h"
#include "log.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/fs.h>   /* RWF_NOWAIT */

/* Fill buf from fd until cap-1 bytes or end of file. */
static int read_upto(int fd, char *buf, size_t cap, size_t *used)
{
	*used = 0;
	while (*used < cap - 1) {
		ssize_t n = read(fd, buf + *used, cap - 1 - *used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		*used += (size_t)n;
	}
	buf[*used] = '\0';
	return 0;
}

const char *hi_fs_kind_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFLNK: return "a symbolic link";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	default: return "not a regular file";
	}
}

const char *hi_fs_read_why(int e)
{
	if (e == FS_ENOTREG)
		return "not a regular file (a FIFO, socket or device would block or act; not read)";
	if (e == ELOOP)
		return "a symbolic link (not followed)";
	if (e == E2BIG)
		return "larger than the limit";
	return strerror(e);
}

int hi_fs_check_regular(const char *path, char *why, size_t whylen)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(why, whylen, "%s is %s, not a regular file", path, hi_fs_kind_name(st.st_mode));
	errno = S_ISLNK(st.st_mode) ? ELOOP : FS_ENOTREG;
	return -1;
}

/* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (and a
 * read of it cannot wait either); O_NOFOLLOW: a link is not taken; fstat
 * then refuses everything that is not a regular file, before any read. A
 * root that puts a FIFO where a config should be must not stall PID 1. */
static int open_regular(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : FS_ENOTREG;
		return -1;
	}
	/* openat, not open, here and in the writers below: musl's open()
	 * follows every O_CLOEXEC open with fcntl(F_SETFD) for kernels older
	 * than 2.6.23, and its openat() does not. One system call less per
	 * file, a boot reads and writes a few hundred (sysctls, /sys), and in
	 * a Xen PV guest each call is a trap through the hypervisor. */
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = FS_ENOTREG;
		return -1;
	}
	return fd;
}

static void log_took(const char *what, const char *path, int rc, int err, uint64_t start)
{
	char ms[CLOCK_MS_MAX];

	if (!hi_log_debug_on())
		return;
	log_debug("%s %s: %s, %s ms", what, path, rc == 0 ? "ok" : strerror(err),
		  hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - start));
}

static int read_file_quiet(const char *path, char *buf, size_t cap, size_t *len, int whole)
{
	size_t used;
	int fd = open_regular(path);

	if (fd < 0)
		return -1;
	int rc = read_upto(fd, buf, cap, &used);
	if (rc == 0 && whole && used == cap - 1) {
		/* Full buffer: only an error if there is more to read. */
		char extra;
		if (read(fd, &extra, 1) > 0) {
			errno = E2BIG;
			rc = -1;
		}
	}
	int saved = errno;
	close(fd);
	errno = saved;
	if (rc == 0 && len)
		*len = used;
	return rc;
}

/* Under hardinit.debug every file read but the sysctls (which have their
 * own line per write) says how long it took: a read from the new root's
 * disk waits for the device. */
static int read_file(const char *path, char *buf, size_t cap, size_t *len, int whole)
{
	uint64_t start = hi_boottime_ns();
	int rc = read_file_quiet(path, buf, cap, len, whole);
	int err = errno;
	log_took("read", path, rc, err, start);
	errno = err;
	return rc;
}

int hi_fs_read(const char *path, char *buf, size_t cap, size_t *len)
{
	return read_file(path, buf, cap, len, 1);
}

int hi_fs_read_at(int dir_fd, const char *name, char *buf, size_t cap)
{
	struct stat st;
	size_t used;

	if (strchr(name, '/')) {
		errno = EINVAL;
		return -1;
	}
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	int rc = -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		errno = FS_ENOTREG;
	else
		rc = read_upto(fd, buf, cap, &used);
	char extra;
	if (rc == 0 && used == cap - 1 && read(fd, &extra, 1) > 0) {
		errno = E2BIG;
		rc = -1;
	}
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int hi_fs_mount(const char *source, const char *target, const char *fstype,
	     unsigned long flags, const void *data)
{
	uint64_t start = hi_boottime_ns();
	int rc = mount(source, target, fstype, flags, data);
	int err = errno;
	char what[64];
	snprintf(what, sizeof what, "mount %s (flags 0x%lx) on", fstype ? fstype : "-", flags);
	log_took(what, target, rc, err, start);
	errno = err;
	return rc;
}

int hi_fs_read_prefix(const char *path, char *buf, size_t cap, size_t *len)
{
	return read_file(path, buf, cap, len, 0);
}

int hi_fs_write(const char *path, const char *s)
{
	return hi_fs_write_once(path, s, strlen(s));
}

/* procfs and sysfs take a value in one write; a short write is a refusal,
 * not something to retry. Closes fd. */
static int write_once_fd(int fd, const void *s, size_t len)
{
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, len);
	int saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int hi_fs_write_once(const char *path, const void *s, size_t len)
{
	return write_once_fd(openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC | O_NOCTTY), s, len);
}

int hi_fs_mkdir_p(const char *path, unsigned mode)
{
	char buf[512];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int hi_fs_write_new(const char *path, const char *s)
{
	char dir[512];
	const char *slash = strrchr(path, '/');

	if (slash && slash != path) {
		size_t dlen = (size_t)(slash - path);
		if (dlen >= sizeof dir) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
		if (hi_fs_mkdir_p(dir, 0755) < 0)
			return -1;
	}
	int fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	size_t len = strlen(s), done = 0;
	while (done < len) {
		ssize_t n = write(fd, s + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int saved = n < 0 ? errno : EIO;
			close(fd);
			errno = saved;
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}

int hi_sysctl_path(char *out, size_t outlen, const char *proc, const char *key)
{
	int n = snprintf(out, outlen, "%s/sys/", proc);
	if (n < 0 || (size_t)n >= outlen)
		return -1;
	size_t pos = (size_t)n;
	/* sysctl.d(5): the first separator decides. With dots, a '/' inside
	 * a part stands for a literal dot ("net.ipv4.conf.eth0/100.rp_filter");
	 * with slashes, dots are literal ("net/ipv4/conf/eth0.100/rp_filter"). */
	size_t first = strcspn(key, "./");
	char sep = key[first] == '/' ? '/' : '.';
	char literal_dot = sep == '.' ? '/' : '.';
	const char *part = key;

	/* Each part must be a plain name: no empty parts, no "." or "..", so a
	 * key can never leave /proc/sys. */
	for (const char *p = key;; p++) {
		if (*p != sep && *p != '\0')
			continue;
		size_t plen = (size_t)(p - part);
		if (plen == 0 || (plen == 1 && (part[0] == '.' || part[0] == '/')) ||
		    (plen == 2 && (part[0] == '.' || part[0] == '/') && (part[1] == '.' || part[1] == '/')))
			return -1;
		if (pos + plen + 1 >= outlen)
			return -1;
		for (size_t i = 0; i < plen; i++)
			out[pos++] = part[i] == literal_dot ? '.' : part[i];
		if (*p == '\0')
			break;
		out[pos++] = '/';
		part = p + 1;
	}
	out[pos] = '\0';
	return 0;
}

/* Collapse whitespace runs to one space and trim both ends, in place. */
static void squeeze_spaces(char *s)
{
	char *w = s;
	int in_space = 1;

	for (char *r = s; *r; r++) {
		if (*r == ' ' || *r == '\t' || *r == '\n') {
			if (!in_space)
				*w++ = ' ';
			in_space = 1;
		} else {
			*w++ = *r;
			in_space = 0;
		}
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* A sysctl file's whole value from its open fd (at its start), spaces
 * squeezed; E2BIG when it does not fit. Leaves fd open. One read: procfs
 * runs a sysctl's handler once per read and gives all of the value that
 * fits (proc_sys_call_handler), so a read short of the buffer is the
 * end; a second read to see end of file would be a system call per
 * sysctl for nothing. A full buffer is asked again, for E2BIG. */
static int sysctl_read_fd(int fd, char *buf, size_t cap)
{
	ssize_t n;

	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	char extra;
	if ((size_t)n == cap - 1 && read(fd, &extra, 1) > 0) {
		errno = E2BIG;
		return -1;
	}
	squeeze_spaces(buf);
	return 0;
}

/* The flags of every sysctl open: O_NONBLOCK and O_NOFOLLOW keep a FIFO or
 * a link where a sysctl should be (a test tree, `hardinit audit --proc`)
 * from stalling or leading the read elsewhere. No lstat or fstat beside
 * them: /proc/sys holds only the kernel's regular files, and a boot opens
 * them by the dozen (a path walk and a system call each). */
#define SYSCTL_OPEN_FLAGS (O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)

int hi_sysctl_read(const char *proc, const char *key, char *buf, size_t cap)
{
	char path[512];

	if (hi_sysctl_path(path, sizeof path, proc, key) < 0) {
		errno = EINVAL;
		return -1;
	}
	int fd = openat(AT_FDCWD, path, O_RDONLY | SYSCTL_OPEN_FLAGS);
	if (fd < 0)
		return -1;
	int rc = sysctl_read_fd(fd, buf, cap);
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int hi_sysctl_write_read(const char *proc, const char *key, const char *value, char *buf, size_t cap)
{
	char path[512];
	size_t len = strlen(value);

	if (hi_sysctl_path(path, sizeof path, proc, key) < 0) {
		errno = EINVAL;
		return SYSCTL_WR_WRITE;
	}
	int fd = openat(AT_FDCWD, path, O_RDWR | SYSCTL_OPEN_FLAGS);
	if (fd < 0 && errno == EACCES) {
		/* Write-only or read-only (mode 0200, 0444): each step opens
		 * its own file and gets its own refusal. */
		if (hi_sysctl_write(proc, key, value) < 0)
			return SYSCTL_WR_WRITE;
		return hi_sysctl_read(proc, key, buf, cap) < 0 ? SYSCTL_WR_READ : 0;
	}
	if (fd < 0)
		return SYSCTL_WR_WRITE;
	/* At offset 0, leaving the file's position at its start for the read
	 * back; one write, as procfs takes a value (a short one is refused). */
	ssize_t n = pwrite(fd, value, len, 0);
	int rc = n < 0 ? SYSCTL_WR_WRITE : (size_t)n != len ? (errno = EIO, SYSCTL_WR_WRITE) : 0;
	if (rc == 0 && sysctl_read_fd(fd, buf, cap) < 0)
		rc = SYSCTL_WR_READ;
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int hi_sysctl_write(const char *proc, const char *key, const char *value)
{
	char path[512];

	if (hi_sysctl_path(path, sizeof path, proc, key) < 0) {
		errno = EINVAL;
		return -1;
	}
	return hi_fs_write(path, value);
}

int hi_sysctl_read_at(int proc_fd, const char *key, char *buf, size_t cap)
{
	char path[512];

	if (hi_sysctl_path(path, sizeof path, ".", key) < 0) {
		errno = EINVAL;
		return -1;
	}
	int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	int rc = sysctl_read_fd(fd, buf, cap);
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int hi_sysctl_write_at(int proc_fd, const char *key, const char *value)
{
	char path[512];
	size_t len = strlen(value);

	if (hi_sysctl_path(path, sizeof path, ".", key) < 0) {
		errno = EINVAL;
		return -1;
	}
	return write_once_fd(openat(proc_fd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY), value, len);
}

int hi_sysctl_value_equal(const char *a, const char *b)
{
	char x[256], y[256];

	if (strlen(a) >= sizeof x || strlen(b) >= sizeof y)
		return strcmp(a, b) == 0;
	strcpy(x, a);
	strcpy(y, b);
	squeeze_spaces(x);
	squeeze_spaces(y);
	return strcmp(x, y) == 0;
}

int hi_fs_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int hi_fs_pread_spin(int fd, void *buf, size_t len, uint64_t off, uint64_t spin_ns)
{
	uint64_t deadline = hi_boottime_ns() + spin_ns;
	size_t done = 0;

	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		long n = syscall(SYS_preadv2, fd, &iov, 1, (long)(off + done), 0L, RWF_NOWAIT);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0)
			return -1;   /* past the end */
		if (errno == EINTR || (errno == EAGAIN && hi_boottime_ns() < deadline))
			continue;
		/* Not cached in time, or no RWF_NOWAIT for this device or kernel. */
		return hi_fs_pread_all(fd, (char *)buf + done, len - done, off + done);
	}
	return 0;
}

int hi_fs_sys_whole_disk(const char *sys_dir, const char *name, char *out, size_t cap)
{
	char path[512], link[512];

	if ((size_t)snprintf(path, sizeof path, "%s/class/block/%s/partition", sys_dir, name) >= sizeof path ||
	    access(path, F_OK) != 0)
		return 0;
	/* /sys/class/block/vda1 -> ../../devices/.../vda/vda1: the parent is the disk. */
	snprintf(path, sizeof path, "%s/class/block/%s", sys_dir, name);
	ssize_t n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	char *last = strrchr(link, '/');
	if (!last)
		return 0;
	*last = '\0';
	const char *disk = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	return disk[0] && (size_t)snprintf(out, cap, "%s", disk) < cap;
}

bool hi_fs_dev_spins(const char *name)
{
	return strncmp(name, "dm-", 3) != 0 && strncmp(name, "loop", 4) != 0 && strncmp(name, "md", 2) != 0;
}

char *hi_boot_path(char *out, size_t outlen, const char *dir, const char *rel)
{
	size_t dlen = strlen(dir);

	/* "/" + "/etc" must give "/etc", not "//etc". */
	while (dlen > 0 && dir[dlen - 1] == '/')
		dlen--;
	while (*rel == '/')
		rel++;
	int n = snprintf(out, outlen, "%.*s/%s", (int)dlen, dir, rel);
	if (n < 0 || (size_t)n >= outlen)
		return NULL;
	return out;
}
