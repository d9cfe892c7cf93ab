#define _GNU_SOURCE   /* O_PATH */
/* Polyinstantiation: the instance parents pam_namespace needs for the
 * polydirs, prepared before any user process exists. Reads the root's
 * /etc/security/namespace.conf and the files of namespace.d (validated as
 * pam_namespace reads them), creates the parents of hardinit's configured
 * polydirs (mode 000, root, the policy's label), reports the rest, and
 * leaves parents on file systems mounted later to the real init (for
 * systemd, a tmpfiles.d drop-in). Run by stage_mounts (stages/mounts.c)
 * before it makes / shared.
 *
 * Policy on what the administrator configured: hardinit creates the
 * instance parents of the polydirs it is configured for (b->cfg.polydirs)
 * when they are missing; it never changes one that exists, and it only
 * reports the parents of other namespace.conf lines. A wrong parent fails
 * every pam_namespace session, so it is reported loudly, but a mode or an
 * owner the administrator chose is theirs to change. */
#include "mounts_polyinst.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "boot.h"
#include "fstab.h"
#include "mounts_mountinfo.h"
#include "selinux_label.h"
#include "log.h"
#include "report.h"
#include "safepath.h"

#define STAGE "mounts"

/* ---- instance parents ------------------------------------------------- */

const char *hi_poly_parent_state_name(enum parent_state s)
{
	static const char *const names[] = { "ok", "missing", "not a directory", "wrong mode",
					     "wrong owner", "unreadable", "a symbolic link" };
	return names[s];
}

enum parent_state hi_poly_parent_check_at(const char *root, const char *rel, char *why, size_t whylen)
{
	struct stat st;
	char link[CONFIG_PATH_MAX * 2];

	why[0] = '\0';
	int fd = hi_safe_open(root, rel, O_PATH, 0);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP) {
			if (hi_safe_find_link(root, rel, link, sizeof link))
				snprintf(why, whylen, "a symbolic link on the way (%s)", link);
			else
				snprintf(why, whylen, "a symbolic link on the way");
			return PARENT_LINK;
		}
		if (e == ENOTDIR) {
			snprintf(why, whylen, "not a directory on the way");
			return PARENT_NOT_DIR;
		}
		snprintf(why, whylen, "%s", strerror(e));
		return e == ENOENT ? PARENT_MISSING : PARENT_ERROR;
	}
	int r = fstat(fd, &st);
	int e = errno;
	close(fd);
	if (r < 0) {
		snprintf(why, whylen, "%s", strerror(e));
		return PARENT_ERROR;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s", hi_fs_kind_name(st.st_mode));
		return PARENT_NOT_DIR;
	}
	/* pam_namespace's check_inst_parent: owner root, no rwx bits at all. */
	if (st.st_uid != 0) {
		snprintf(why, whylen, "owned by uid %u, not root", (unsigned)st.st_uid);
		return PARENT_BAD_OWNER;
	}
	if (st.st_mode & 0777) {
		snprintf(why, whylen, "mode %04o, not 0000", (unsigned)(st.st_mode & 07777));
		return PARENT_BAD_MODE;
	}
	return PARENT_OK;
}

enum parent_state hi_poly_parent_check(const char *path, char *why, size_t whylen)
{
	return hi_poly_parent_check_at("/", path, why, whylen);
}

int hi_poly_parent_create_at(const char *root, const char *rel)
{
	struct stat st;

	int fd = hi_safe_mkdir(root, rel, 0);
	if (fd < 0)
		return -1;
	/* mkdir leaves the group of a setgid parent and its setgid bit; the
	 * fd names our directory whatever happens to the path. */
	if (fchown(fd, 0, 0) < 0 || fchmod(fd, 0) < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777)) {
		errno = EPERM;
		goto fail;
	}
	return fd;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

int hi_poly_parent_create(const char *path)
{
	int fd = hi_poly_parent_create_at("/", path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int hi_poly_parent_for(const struct ns_conf *c, const char *polydir,
		    const struct ns_entry **e, char *out, size_t outlen)
{
	*e = NULL;
	for (size_t i = 0; c && i < c->n; i++) {
		if (!c->entries[i].per_user && strcmp(c->entries[i].polydir, polydir) == 0) {
			*e = &c->entries[i];
			return hi_copy_str(out, outlen, c->entries[i].parent);
		}
	}
	int n = snprintf(out, outlen, "%s/%s", strcmp(polydir, "/") ? polydir : "",
			 POLY_DEFAULT_PARENT_NAME);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/* The longest mount point of fstab, other than /, that path lies under. */
bool hi_fstab_mount_point_for(const char *fstab, const char *path, char *best, size_t bestlen)
{
	struct fstab_line l;
	bool found = false;
	size_t best_len = 0;

	for (const char *c = fstab; hi_fstab_next(&c, &l);) {
		size_t fl = strlen(l.file);
		if (l.file[0] == '/' && strcmp(l.type, "swap") != 0 && strcmp(l.file, "/") != 0 &&
		    strncmp(path, l.file, fl) == 0 && (path[fl] == '/' || path[fl] == '\0') && fl > best_len &&
		    hi_copy_str(best, bestlen, l.file) == 0) {
			best_len = fl;
			found = true;
		}
	}
	return found;
}

int hi_poly_mounted_later(struct boot *b, const char *path, char *mnt, size_t mntlen)
{
	char fpath[BOOT_PATH_MAX * 2], point[BOOT_PATH_MAX * 2];
	char *fstab = malloc(FSTAB_MAX_BYTES);
	struct mountinfo_entry m;
	int rc = 0;

	mnt[0] = '\0';
	if (!fstab || !hi_boot_path(fpath, sizeof fpath, b->newroot, "/etc/fstab")) {
		free(fstab);
		return -1;
	}
	if (hi_fs_read(fpath, fstab, FSTAB_MAX_BYTES, NULL) < 0) {
		rc = errno == ENOENT ? 0 : -1;
		if (rc < 0)
			log_warn("%s: not read (%s); instance parents on file systems it lists are "
				 "treated as on the root", fpath, hi_fs_read_why(errno));
	} else if (hi_fstab_mount_point_for(fstab, path, mnt, mntlen)) {
		/* Listed; is it mounted already (by us, or by the kernel)? */
		if (!hi_boot_path(point, sizeof point, b->newroot, mnt))
			rc = -1;
		else
			rc = hi_mountinfo_find(b->proc, point, &m) == 1 ? 0 : 1;
	}
	free(fstab);
	return rc;
}

int hi_poly_tmpfiles_format(const char paths[][CONFIG_PATH_MAX], size_t n, char *out, size_t cap)
{
	size_t used = 0;
	int w = snprintf(out, cap,
			 "# Written by hardinit at boot: instance parents for pam_namespace that\n"
			 "# lie on a file system mounted after hardinit ran. Mode 0000, owned by\n"
			 "# root, as pam_namespace requires; no age, never cleaned.\n");

	if (w < 0 || (size_t)w >= cap)
		return -1;
	used = (size_t)w;
	for (size_t i = 0; i < n; i++) {
		/* tmpfiles.d separates fields by blanks: a path with one cannot
		 * be written unquoted, and we do not write quoted paths. */
		if (strpbrk(paths[i], " \t\n\\"))
			return -1;
		w = snprintf(out + used, cap - used, "d %s 0000 root root -\n", paths[i]);
		if (w < 0 || (size_t)w >= cap - used)
			return -1;
		used += (size_t)w;
	}
	return (int)used;
}

/* ---- polyinstantiation ------------------------------------------------ */

#define POLY_MAX_DEFERRED (CONFIG_MAX_POLYDIRS + NSCONF_MAX_ENTRIES)

struct poly_run {
	char deferred[POLY_MAX_DEFERRED][CONFIG_PATH_MAX];
	size_t n_deferred;
};

static bool root_init_is_systemd(struct boot *b)
{
	char path[BOOT_PATH_MAX * 2], target[256];

	if (b->cfg.init[0])
		return strstr(b->cfg.init, "systemd") != NULL;
	if (!hi_boot_path(path, sizeof path, b->newroot, "/sbin/init"))
		return false;
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strstr(target, "systemd") != NULL;
}

static void poly_defer(struct poly_run *run, const char *parent)
{
	for (size_t i = 0; i < run->n_deferred; i++)
		if (strcmp(run->deferred[i], parent) == 0)
			return;
	if (run->n_deferred < POLY_MAX_DEFERRED)
		hi_copy_str(run->deferred[run->n_deferred++], CONFIG_PATH_MAX, parent);
}

static void poly_missing(struct boot *b, const char *key, struct poly_run *run,
			 const char *parent, const char *fspath, bool configured)
{
	char mnt[CONFIG_PATH_MAX], label[256];
	int later = hi_poly_mounted_later(b, parent, mnt, sizeof mnt);

	if (later == 1) {
		log_info("%s: instance parent %s is on %s, which the real init mounts later; left to it",
			 key, parent, mnt);
		hi_report_add(&b->rep, STAGE, key, "deferred", "%s on %s (mounted later)", parent, mnt);
		if (configured)
			poly_defer(run, parent);
		return;
	}
	if (!configured) {
		log_warn("%s: instance parent %s is missing; pam_namespace fails that line's sessions; "
			 "create it: mkdir -m 000 %s (owner root)", key, parent, parent);
		hi_report_add(&b->rep, STAGE, key, "missing", "%s", parent);
		return;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would create %s mode 0000 root:root", fspath);
		return;
	}
	int fd = hi_poly_parent_create_at(b->newroot, parent);
	if (fd < 0) {
		int e = errno;
		if (e == EROFS) {
			log_info("%s: %s cannot be created on the read-only root; left to the real init",
				 key, parent);
			hi_report_add(&b->rep, STAGE, key, "deferred", "%s (read-only root)", parent);
			poly_defer(run, parent);
			return;
		}
		log_warn("%s: creating instance parent %s failed: %s%s", key, parent, strerror(e),
			 e == ENOENT ? " (the polydir does not exist)" : "");
		hi_report_add(&b->rep, STAGE, key, "failed", "%s: %s", parent, strerror(e));
		return;
	}
	hi_label_dir(b, fd, parent, true, label, sizeof label);
	close(fd);
	hi_report_add(&b->rep, STAGE, key, "created", "%s 0000 root:root %s", parent, label);
}

/* One instance parent: create it when missing and configured, report it
 * when missing otherwise or wrong. parent is as the root sees it. */
static void poly_prepare(struct boot *b, struct poly_run *run, const char *polydir,
			 const char *parent, bool configured)
{
	char key[REPORT_KEY_MAX], fspath[BOOT_PATH_MAX * 2], why[640], label[256];

	snprintf(key, sizeof key, "polydir %s", polydir);
	if (!hi_boot_path(fspath, sizeof fspath, b->newroot, parent)) {
		hi_report_add(&b->rep, STAGE, key, "failed", "path too long");
		return;
	}
	enum parent_state s = hi_poly_parent_check_at(b->newroot, parent, why, sizeof why);
	switch (s) {
	case PARENT_OK: {
		int fd = b->mode == MODE_DRY_RUN ? -1 : hi_safe_open(b->newroot, parent, O_RDONLY | O_DIRECTORY, 0);
		int r = fd < 0 ? 2 : hi_label_dir(b, fd, parent, configured, label, sizeof label);
		if (fd >= 0)
			close(fd);
		if (r == 1 || r < 0)
			log_warn("%s: instance parent %s has label %s", key, parent, label);
		hi_report_add(&b->rep, STAGE, key, r == 1 || r < 0 ? "warn" : "ok", "%s 0000 root %s",
			   parent, r == 2 ? "(selinux off)" : label);
		return;
	}
	case PARENT_MISSING:
		poly_missing(b, key, run, parent, fspath, configured);
		return;
	case PARENT_LINK:
		/* The usual fix (chown, chmod) would act on the link's target. */
		log_warn("%s: instance parent %s: %s; hardinit does not follow links in the root and "
			 "leaves it alone; replace the link with a real directory", key, parent, why);
		hi_report_add(&b->rep, STAGE, key, "refused", "%s: %s", parent, why);
		return;
	case PARENT_ERROR:
		/* Under a file system mounted later, even lstat can fail. */
		log_warn("%s: instance parent %s: %s", key, parent, why);
		hi_report_add(&b->rep, STAGE, key, "failed", "%s: %s", parent, why);
		return;
	default:
		log_warn("%s: instance parent %s is %s; pam_namespace refuses the sessions of this "
			 "polydir; fix it: chown root %s && chmod 000 %s", key, parent, why, parent, parent);
		hi_report_add(&b->rep, STAGE, key, "wrong", "%s: %s", parent, why);
		return;
	}
}

static void poly_write_tmpfiles(struct boot *b, struct poly_run *run)
{
	char path[BOOT_PATH_MAX * 2];
	char *text;

	if (run->n_deferred == 0)
		return;
	if (!root_init_is_systemd(b)) {
		for (size_t i = 0; i < run->n_deferred; i++)
			log_warn("instance parent %s must be created by the real init once its file "
				 "system is mounted: mkdir -m 000 %s (owner root)", run->deferred[i],
				 run->deferred[i]);
		return;
	}
	if (!hi_boot_path(path, sizeof path, b->run, POLY_TMPFILES_NAME) ||
	    !(text = malloc(TMPFILES_MAX_BYTES)))
		return;
	int n = hi_poly_tmpfiles_format((const char (*)[CONFIG_PATH_MAX])run->deferred,
				     run->n_deferred, text, TMPFILES_MAX_BYTES);
	/* The directory first, with the policy's label for /run/tmpfiles.d
	 * (systemd_tmpfiles_conf_t in refpolicy): the file then inherits it.
	 * The policy has no rule for the file itself, and a var_run_t one is
	 * denied to systemd-tmpfiles in enforcing mode. */
	char dir[BOOT_PATH_MAX * 2];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	if (n < 0) {
		log_warn("%s: the deferred parents do not fit or contain blanks; create them by hand", path);
	} else if (b->mode == MODE_DRY_RUN) {
		log_info("would write %s:\n%s", path, text);
	} else if (hi_fs_mkdir_p(dir, 0755) < 0 || hi_label_path_as(b, dir, dir, S_IFDIR) < 0 ||
		   hi_fs_write_new(path, text) < 0) {
		log_warn("writing %s failed: %s; the deferred instance parents will be missing",
			 path, strerror(errno));
		hi_report_add(&b->rep, STAGE, "tmpfiles.d", "failed", "%s", strerror(errno));
	} else {
		hi_report_add(&b->rep, STAGE, "tmpfiles.d", "applied", "%s: %zu entries", path,
			   run->n_deferred);
	}
	free(text);
}

static bool polydir_configured(const struct boot *b, const char *polydir)
{
	for (size_t i = 0; i < b->cfg.n_polydirs; i++) {
		char p[CONFIG_PATH_MAX];
		hi_copy_str(p, sizeof p, b->cfg.polydirs[i]);
		hi_strip_trailing_slashes(p);
		if (strcmp(p, polydir) == 0)
			return true;
	}
	return false;
}

int hi_mounts_prepare_polydirs(struct boot *b)
{
	struct ns_conf *c = calloc(1, sizeof *c);
	struct poly_run *run = calloc(1, sizeof *run);
	int rc = 0;

	if (!c || !run) {
		free(c);
		free(run);
		return hi_boot_error(b, "out of memory reading namespace.conf");
	}
	hi_nsconf_load(b, c);
	hi_nsconf_check_users(b, c);
	for (size_t i = 0; i < b->cfg.n_polydirs; i++) {
		char polydir[CONFIG_PATH_MAX], parent[CONFIG_PATH_MAX];
		const struct ns_entry *e;
		hi_copy_str(polydir, sizeof polydir, b->cfg.polydirs[i]);
		hi_strip_trailing_slashes(polydir);
		if (polydir[0] != '/' || strstr(polydir, "..") || strcmp(polydir, "/") == 0) {
			rc = hi_boot_error(b, "[mounts] polydir '%s' must be an absolute path other than /, "
					"without '..'", polydir);
			break;
		}
		if (hi_poly_parent_for(c, polydir, &e, parent, sizeof parent) < 0)
			continue;
		if (e && e->method == NS_TMPFS) {
			hi_report_add(&b->rep, STAGE, polydir, "ok", "tmpfs method: no instance parent");
			continue;
		}
		if (!e)
			log_info("namespace.conf has no line for %s: pam_namespace will not "
				 "polyinstantiate it; the line for hardinit's layout is "
				 "'%s %s/ user root'", polydir, polydir, parent);
		poly_prepare(b, run, polydir, parent, true);
	}
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		const struct ns_entry *e = &c->entries[i];
		if (e->per_user) {
			hi_report_add(&b->rep, STAGE, e->source, "skipped",
				   "%s: per-user ($HOME/$USER), made at login, not preparable at boot",
				   e->polydir);
			continue;
		}
		if (e->method == NS_TMPFS || polydir_configured(b, e->polydir))
			continue;
		poly_prepare(b, run, e->polydir, e->parent, false);
	}
	if (rc == 0)
		poly_write_tmpfiles(b, run);
	free(c);
	free(run);
	return rc;
}

