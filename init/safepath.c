#define _GNU_SOURCE   /* O_PATH */
#include "safepath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SAFE_PATH_MAX 1024

static bool force_fallback;

void hi_safe_force_fallback(bool on)
{
	force_fallback = on;
}

static void close_keep_errno(int fd)
{
	int saved = errno;
	close(fd);
	errno = saved;
}

/* An O_PATH|O_NOFOLLOW open of a trailing link succeeds and returns the
 * link itself (openat2(2)); hardinit never wants one. */
static int refuse_link_fd(int fd)
{
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
		close(fd);
		errno = ELOOP;
		return -1;
	}
	return fd;
}

/* musl has no wrapper; the syscall number is in both libcs' headers. */
static int openat2_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
#ifdef SYS_openat2
	struct open_how how;

	memset(&how, 0, sizeof how);
	how.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC);
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Kernels before 5.6: one component at a time, each checked with
 * fstatat(AT_SYMLINK_NOFOLLOW) before it is opened with O_NOFOLLOW. At
 * boot nothing else runs, so nothing swaps a component in between. */
static int walk_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	char buf[SAFE_PATH_MAX];
	char *save = NULL;

	if (strlen(rel) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, rel, strlen(rel) + 1);
	int cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *part = strtok_r(buf, "/", &save);
	while (cur >= 0 && part) {
		char *next = strtok_r(NULL, "/", &save);
		struct stat st;
		int fd;
		if (strcmp(part, ".") == 0) {
			part = next;
			if (part)
				continue;
			fd = openat(cur, ".", flags | O_CLOEXEC, mode);
		} else if (strcmp(part, "..") == 0) {
			errno = EXDEV;
			fd = -1;
		} else if (next && fstatat(cur, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			fd = -1;
		} else if (next) {
			fd = openat(cur, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		} else {
			fd = openat(cur, part, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		}
		close_keep_errno(cur);
		cur = fd;
		if (!next)
			return cur;
		part = next;
	}
	if (cur >= 0 && !part) {
		/* rel had no component at all: root itself. */
		int fd = openat(cur, ".", flags | O_CLOEXEC, mode);
		close_keep_errno(cur);
		return fd;
	}
	return cur;
}

static int find_link_at(int dirfd, const char *rel, char *out, size_t outlen);

/* O_DIRECTORY|O_NOFOLLOW on a trailing link fails with ENOTDIR: say ELOOP,
 * so every caller sees a link as a link. */
static int link_as_eloop(int fd, int dirfd, const char *rel)
{
	if (fd < 0 && errno == ENOTDIR && find_link_at(dirfd, rel, NULL, 0))
		errno = ELOOP;
	return fd;
}

int hi_safe_openat(int dirfd, const char *rel, int flags, mode_t mode)
{
	while (*rel == '/')
		rel++;
	if (*rel == '\0')
		rel = ".";
	if (!force_fallback) {
		int fd = openat2_beneath(dirfd, rel, flags, mode);
		if (fd >= 0 || (errno != ENOSYS && errno != EINVAL && errno != E2BIG))
			return link_as_eloop(refuse_link_fd(fd), dirfd, rel);
	}
	return link_as_eloop(refuse_link_fd(walk_beneath(dirfd, rel, flags, mode)), dirfd, rel);
}

int hi_safe_open(const char *root, const char *rel, int flags, mode_t mode)
{
	int rootfd = open(root[0] ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (rootfd < 0)
		return -1;
	int fd = hi_safe_openat(rootfd, rel, flags, mode);
	close_keep_errno(rootfd);
	return fd;
}

/* Split rel into its parent and last component (in buf). */
static int split_last(const char *rel, char *buf, size_t cap, const char **parent, const char **name)
{
	while (*rel == '/')
		rel++;
	size_t n = strlen(rel);
	while (n > 0 && rel[n - 1] == '/')
		n--;
	if (n == 0 || n >= cap) {
		errno = n ? ENAMETOOLONG : EEXIST;
		return -1;
	}
	memcpy(buf, rel, n);
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash) {
		*slash = '\0';
		*parent = buf;
		*name = slash + 1;
	} else {
		*parent = "";
		*name = buf;
	}
	if (strcmp(*name, "..") == 0 || strcmp(*name, ".") == 0) {
		errno = EXDEV;
		return -1;
	}
	return 0;
}

int hi_safe_mkdir(const char *root, const char *rel, mode_t mode)
{
	char buf[SAFE_PATH_MAX];
	const char *parent, *name;

	if (split_last(rel, buf, sizeof buf, &parent, &name) < 0)
		return -1;
	int pfd = hi_safe_open(root, parent, O_PATH | O_DIRECTORY, 0);
	if (pfd < 0)
		return -1;
	int fd = -1;
	if (mkdirat(pfd, name, mode) == 0)
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close_keep_errno(pfd);
	return fd;
}

/* The first component of rel below dirfd that is a symbolic link. */
static int find_link_at(int dirfd, const char *rel, char *out, size_t outlen)
{
	char buf[SAFE_PATH_MAX], target[SAFE_PATH_MAX];
	size_t done = 0;

	while (*rel == '/')
		rel++;
	if (strlen(rel) >= sizeof buf)
		return 0;
	memcpy(buf, rel, strlen(rel) + 1);
	int cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (char *part = buf; cur >= 0 && *part;) {
		char *slash = strchr(part, '/');
		if (slash)
			*slash = '\0';
		struct stat st;
		done += strlen(part) + 1;
		if (fstatat(cur, part, &st, AT_SYMLINK_NOFOLLOW) < 0)
			break;
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlinkat(cur, part, target, sizeof target - 1);
			target[n > 0 ? n : 0] = '\0';
			if (out)
				snprintf(out, outlen, "/%.*s -> %s", (int)(done - 1), rel, target);
			close(cur);
			return 1;
		}
		int next = openat(cur, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next;
		if (!slash)
			break;
		part = slash + 1;
	}
	if (cur >= 0)
		close(cur);
	return 0;
}

int hi_safe_find_link(const char *root, const char *rel, char *out, size_t outlen)
{
	int rootfd = open(root[0] ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (rootfd < 0)
		return 0;
	int r = find_link_at(rootfd, rel, out, outlen);
	close(rootfd);
	return r;
}

char *hi_safe_fd_path(char *out, size_t outlen, const char *proc, int fd)
{
	int n = snprintf(out, outlen, "%s/self/fd/%d", proc, fd);

	return n < 0 || (size_t)n >= outlen ? NULL : out;
}
