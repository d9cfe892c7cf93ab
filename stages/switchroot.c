#define _GNU_SOURCE   /* O_PATH */
/* Switch root: move the API mounts into the new root, free the initramfs
 * (only once it is proven to be one), MS_MOVE the new root onto / and
 * chroot into it. Not chroot alone: a process whose root is not its mount
 * namespace's root cannot create user namespaces (EPERM). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "safepath.h"
#include "selinux_types.h"
#include "switchroot.h"


struct clean_state {
	dev_t dev;
	long removed, failed, visited;
};

static void clean_dir(int dirfd, struct clean_state *st, int depth)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *e;

	if (!dir) {
		close(dirfd);
		st->failed++;
		return;
	}
	while ((e = readdir(dir)) != NULL) {
		struct stat sb;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++st->visited > CLEAN_MAX_ENTRIES)
			break;
		if (fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
			st->failed++;
			continue;
		}
		/* Another device is a mount point (the new root, a tmpfs a
		 * test put there): never descend into it, never remove it. */
		if (sb.st_dev != st->dev)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			if (depth >= CLEAN_MAX_DEPTH) {
				st->failed++;
				continue;
			}
			int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				st->failed++;
				continue;
			}
			clean_dir(sub, st, depth + 1);
			if (unlinkat(dirfd, e->d_name, AT_REMOVEDIR) < 0) {
				st->failed++;
				continue;
			}
		} else if (unlinkat(dirfd, e->d_name, 0) < 0) {
			st->failed++;
			continue;
		}
		st->removed++;
	}
	closedir(dir);
}

long hi_initramfs_clean(const char *oldroot, long *failed, char *err, size_t errlen)
{
	struct statfs sfs;
	struct stat sb;
	struct clean_state st = { 0, 0, 0, 0 };

	if (statfs(oldroot, &sfs) < 0 || stat(oldroot, &sb) < 0) {
		snprintf(err, errlen, "cannot stat %s: %s", oldroot, strerror(errno));
		return -1;
	}
	if ((unsigned long)sfs.f_type != RAMFS_MAGIC && (unsigned long)sfs.f_type != TMPFS_MAGIC) {
		snprintf(err, errlen, "refusing to delete %s: it is not a ramfs or tmpfs (magic 0x%lx), so it is not an initramfs",
			 oldroot, (unsigned long)sfs.f_type);
		return -1;
	}
	int fd = open(oldroot, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", oldroot, strerror(errno));
		return -1;
	}
	st.dev = sb.st_dev;
	clean_dir(fd, &st, 0);
	if (failed)
		*failed = st.failed;
	return st.removed;
}

static int copy_fail(int in, int out, const char *dst, char *why, size_t whylen, const char *what,
		     const char *reason)
{
	snprintf(why, whylen, "%s%s", what, reason);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (dst)
		unlink(dst);
	return -1;
}

int hi_embedded_copy(const char *src, const char *dst, long max, char *why, size_t whylen)
{
	static char buf[1 << 16];
	long total = 0;

	int in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (in < 0)
		return errno == ENOENT ? 1 : copy_fail(-1, -1, NULL, why, whylen, "", strerror(errno));
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0)
		return copy_fail(in, -1, NULL, why, whylen, "cannot create it: ", strerror(errno));
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return copy_fail(in, out, dst, why, whylen, "read: ", strerror(errno));
		if (n == 0)
			break;
		if (total + n > max)
			return copy_fail(in, out, dst, why, whylen, "", "larger than the size limit");
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return copy_fail(in, out, dst, why, whylen, "write: ",
						 strerror(w < 0 ? errno : EIO));
			done += w;
		}
		total += n;
	}
	close(in);
	if (close(out) < 0)
		return copy_fail(-1, -1, dst, why, whylen, "write: ", strerror(errno));
	return 0;
}

/* Copy the embedded policy files (policy, type, file_contexts) to
 * RUN/hardinit/selinux, where the SELinux stage finds them after the
 * switch. They are one set: when one is not copied whole (a write error,
 * /run full, the size limit), all are removed and that is said, so no
 * partial policy is ever loaded as if it were whole. */
int hi_embedded_policy_keep(const char *from, const char *run_dir, long max, char *why, size_t whylen)
{
	static const char *const files[] = { "policy", "type", "file_contexts" };
	char dst[BOOT_PATH_MAX + 64], src[BOOT_PATH_MAX + 64], one[160];

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(src, sizeof src, "%s/%s", from, files[i]);
		if (access(src, F_OK) < 0)
			continue;
		snprintf(dst, sizeof dst, "%s", run_dir);
		if (hi_fs_mkdir_p(dst, 0700) < 0) {
			snprintf(why, whylen, "cannot create %s: %s", dst, strerror(errno));
			return -1;
		}
		snprintf(dst, sizeof dst, "%s/%s", run_dir, files[i]);
		if (hi_embedded_copy(src, dst, max, one, sizeof one) < 0) {
			snprintf(why, whylen, "%s: %s", files[i], one);
			for (size_t j = 0; j < sizeof files / sizeof files[0]; j++) {
				snprintf(dst, sizeof dst, "%s/%s", run_dir, files[j]);
				unlink(dst);
			}
			return -1;
		}
	}
	return 0;
}

static void keep_embedded_policy(struct boot *b)
{
	char dir[BOOT_PATH_MAX + 32], why[256];

	snprintf(dir, sizeof dir, "%s/%s", b->run, SELINUX_EMBED_RUN_DIR);
	if (hi_embedded_policy_keep(SELINUX_EMBED_DIR, dir, SELINUX_POLICY_MAX_BYTES, why, sizeof why) < 0) {
		log_warn("the embedded SELinux policy was not kept whole for after the switch (%s); what was "
			 "copied is removed, so the root's policy will be used", why);
		hi_report_add(&b->rep, "switchroot", "embedded_policy", "removed", "%s", why);
	}
}

/* MS_MOVE onto the directory open on fd: fchdir there and move onto ".",
 * which needs no /proc (itself one of the mounts being moved). */
static int move_onto_fd(const char *src, int fd)
{
	if (fchdir(fd) < 0)
		return -1;
	int rc = mount(src, ".", NULL, MS_MOVE, NULL);
	int e = errno;
	if (chdir("/") < 0 && rc == 0)
		return -1;
	errno = e;
	return rc;
}

/* The targets are the new root's own directories, which its owner
 * controls: resolved without links, so a /run that links to /etc cannot
 * get hardinit's tmpfs moved over /etc. The directory for PATH opened
 * (O_PATH), or -1 with errno ENOENT after the warning (the root lacks it:
 * the mount is dropped), or -1 with the boot's error. The dry run checks
 * the root's directories with it too. */
static int api_target(struct boot *b, const char *path)
{
	char target[BOOT_PATH_MAX * 2], link[BOOT_PATH_MAX * 2];

	int fd = hi_safe_open(b->newroot, path, O_PATH | O_DIRECTORY, 0);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT) {
		log_warn("the new root has no %s directory; %s is dropped there and the real init may fail", path, path);
		errno = ENOENT;
		return -1;
	}
	int e = errno;
	if (e == ELOOP && hi_safe_find_link(b->newroot, path, link, sizeof link))
		hi_boot_error(b, "the new root's %s is a symbolic link (%s); hardinit does not move %s "
			   "through it; make %s a directory in the root", path, link, path, path);
	else {
		snprintf(target, sizeof target, "%s%s", b->newroot, path);
		hi_boot_error(b, "cannot move %s to %s: %s", path, target,
			   e == ENOTDIR ? "not a directory" : strerror(e));
	}
	errno = 0;
	return -1;
}

static int move_api_mounts(struct boot *b)
{
	const char *paths[] = { b->dev, b->proc, b->sys, b->run };
	char target[BOOT_PATH_MAX * 2];

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		int fd = api_target(b, paths[i]);
		if (fd < 0 && errno == ENOENT) {
			umount2(paths[i], MNT_DETACH);
			continue;
		}
		if (fd < 0)
			return -1;
		int rc = move_onto_fd(paths[i], fd);
		int e = errno;
		close(fd);
		if (rc < 0) {
			snprintf(target, sizeof target, "%s%s", b->newroot, paths[i]);
			return hi_boot_error(b, "cannot move %s to %s: %s", paths[i], target, strerror(e));
		}
	}
	return 0;
}

/* The dry run: the root's directories the API mounts would move onto,
 * judged as the boot judges them (--root DIR is the root). */
static int check_api_targets(struct boot *b)
{
	const char *paths[] = { b->dev, b->proc, b->sys, b->run };

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		int fd = api_target(b, paths[i]);
		if (fd >= 0)
			close(fd);
		else if (errno != ENOENT)
			return -1;
	}
	return 0;
}

/* The checks the careful switch_root implementations make, before any
 * deletion: we are PID 1, / is a ramfs or tmpfs, the new root is another
 * device, and the running hardinit lives on /. */
static int proven_initramfs(struct boot *b, char *why, size_t whylen)
{
	struct stat root, newroot, self;
	char exe[BOOT_PATH_MAX + 16];

	snprintf(exe, sizeof exe, "%s/self/exe", b->proc);
	if (getpid() != 1)
		snprintf(why, whylen, "not PID 1");
	else if (stat("/", &root) < 0 || stat(b->newroot, &newroot) < 0 || stat(exe, &self) < 0)
		snprintf(why, whylen, "cannot stat /, %s or %s: %s", b->newroot, exe, strerror(errno));
	else if (root.st_dev == newroot.st_dev)
		snprintf(why, whylen, "%s is on the same device as /", b->newroot);
	else if (self.st_dev != root.st_dev)
		snprintf(why, whylen, "the running init is not on /");
	else
		return 1;
	return 0;
}

int hi_stage_switchroot(struct boot *b)
{
	char why[256];
	long failed = 0;

	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would move /dev /proc /sys /run into %s, free the initramfs and switch to it", b->newroot);
		return check_api_targets(b);
	}
	keep_embedded_policy(b);
	int proven = proven_initramfs(b, why, sizeof why);
	if (!proven && strstr(why, "same device"))
		return hi_boot_error(b, "cannot switch root: %s; root was not mounted", why);
	if (move_api_mounts(b) < 0)
		return -1;
	if (proven) {
		long removed = hi_initramfs_clean("/", &failed, why, sizeof why);
		if (removed < 0)
			log_warn("initramfs not freed: %s", why);
		else if (failed)
			log_warn("initramfs freed partly: %ld entries removed, %ld could not be", removed, failed);
		hi_report_add(&b->rep, "switchroot", "initramfs_freed", removed < 0 || failed ? "warn" : "ok", "%ld", removed);
	} else {
		log_warn("initramfs not freed: %s", why);
		hi_report_add(&b->rep, "switchroot", "initramfs_freed", "warn", "%s", why);
	}
	if (chdir(b->newroot) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0)
		return hi_boot_error(b, "cannot switch to the new root %s: %s", b->newroot, strerror(errno));
	snprintf(b->newroot, sizeof b->newroot, "/");
	b->switched = true;
	return 0;
}
