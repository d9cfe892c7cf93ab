/* `hardinit private-tmp [--dir POLYDIR] USER COMMAND [ARGS...]`: run one
 * command as USER with its own instance of POLYDIR (default /tmp), the
 * way pam_namespace's "user" method does, for systems without PAM:
 *
 *   1. the instance parent POLYDIR/tmp-inst must be mode 000, root-owned
 *      (the mounts stage creates it at boot; created here if missing);
 *   2. unshare a mount namespace and make / rslave: mounts the
 *      administrator makes later still arrive, ours never leave;
 *   3. create POLYDIR/tmp-inst/USER (0700, USER's) if missing, and bind
 *      it over POLYDIR through an O_PATH descriptor, so no symlink in a
 *      user-writable place can redirect the mount;
 *   4. drop to USER (groups, gid, uid; checked), exec COMMAND.
 *
 * The parent's mode 000 keeps other users out of every instance; USER
 * reaches only the one mounted over POLYDIR. */
#define _GNU_SOURCE
#include "polytmp.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mounts.h"

static int fail(const char *what, int e)
{
	fprintf(stderr, "hardinit private-tmp: %s: %s\n", what, strerror(e));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: hardinit private-tmp [--dir POLYDIR] USER COMMAND [ARGS...]\n"
		"  runs COMMAND as USER with POLYDIR (default /tmp) replaced by USER's own\n"
		"  instance POLYDIR/%s/USER; needs root\n", POLY_DEFAULT_PARENT_NAME);
	return 2;
}

/* The parent: ours to create (root:root 000) when missing, else it must
 * already be exactly that. */
static int parent_ready(const char *parent)
{
	char why[128];
	enum parent_state s = hi_poly_parent_check(parent, why, sizeof why);

	if (s == PARENT_MISSING && hi_poly_parent_create(parent) == 0)
		return 0;
	if (s == PARENT_OK)
		return 0;
	fprintf(stderr, "hardinit private-tmp: instance parent %s is %s; it must be a directory, "
		"mode 000, owned by root: chown root %s && chmod 000 %s\n", parent,
		s == PARENT_MISSING ? "missing and cannot be created" : why, parent, parent);
	return -1;
}

/* The instance: created for the user, or an existing directory of
 * theirs, never a symlink. Returns an O_PATH fd to it, or -1. */
static int instance_open(int pfd, const struct passwd *pw)
{
	struct stat st;

	if (mkdirat(pfd, pw->pw_name, 0700) == 0) {
		if (fchownat(pfd, pw->pw_name, pw->pw_uid, pw->pw_gid, AT_SYMLINK_NOFOLLOW) < 0)
			return -1;
	} else if (errno != EEXIST) {
		return -1;
	}
	int fd = openat(pfd, pw->pw_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != pw->pw_uid) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static int drop_to(const struct passwd *pw)
{
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0)
		return -1;
	/* A uid change that can be undone was not a drop. */
	if (pw->pw_uid != 0 && setuid(0) == 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int hi_polytmp_main(int argc, char **argv)
{
	const char *polydir = "/tmp";
	char parent[CONFIG_PATH_MAX], src[64];
	int i = 1;

	if (i < argc && strcmp(argv[i], "private-tmp") == 0)
		i++;
	if (i + 1 < argc && strcmp(argv[i], "--dir") == 0) {
		polydir = argv[i + 1];
		i += 2;
	}
	if (argc - i < 2 || polydir[0] != '/' || strstr(polydir, ".."))
		return usage();
	if (getpid() == 1 || geteuid() != 0) {
		fprintf(stderr, "hardinit private-tmp: needs root, and is not for PID 1\n");
		return 1;
	}
	struct passwd *pw = getpwnam(argv[i]);
	if (!pw)
		return fail(argv[i], errno ? errno : ENOENT);
	const struct ns_entry *entry;
	if (hi_poly_parent_for(NULL, polydir, &entry, parent, sizeof parent) < 0)
		return fail(polydir, ENAMETOOLONG);
	if (parent_ready(parent) < 0)
		return 1;
	if (unshare(CLONE_NEWNS) < 0)
		return fail("unshare(CLONE_NEWNS)", errno);
	if (mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return fail("making / rslave", errno);
	int pfd = open(parent, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return fail(parent, errno);
	int ifd = instance_open(pfd, pw);
	if (ifd < 0)
		return fail("the user's instance directory", errno);
	snprintf(src, sizeof src, "/proc/self/fd/%d", ifd);
	if (mount(src, polydir, NULL, MS_BIND, NULL) < 0)
		return fail(polydir, errno);
	close(ifd);
	close(pfd);
	if (drop_to(pw) < 0)
		return fail("dropping to the user", errno);
	if (chdir(polydir) < 0 && chdir("/") < 0)
		return fail("chdir", errno);
	execvp(argv[i + 1], argv + i + 1);
	return fail(argv[i + 1], errno);
}
