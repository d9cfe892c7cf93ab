/* Relabel what exists before the policy, and check the real init's
 * transition.
 *
 * Files created on devtmpfs and tmpfs before the load (the kernel's device
 * nodes, the root of /run, what hardinit wrote there) carry no
 * security.selinux xattr, so after the load they get the file system's
 * default label (event_device_t on devtmpfs, tmpfs_t for /run with Debian's
 * refpolicy) until someone relabels them. systemd
 * does this for /dev, /dev/shm and /run after its own load; here it is
 * done for any real init. Only objects whose label differs are written. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <selinux/label.h>
#include <selinux/selinux.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "selinux_relabel.h"
#include "selinux_types.h"

#define RELABEL_ROOTS 3

/* ---- the walk (pure: no SELinux) -------------------------------------- */

struct walk {
	dev_t dev;
	size_t limit;
	selinux_visit_fn visit;
	void *ctx;
	struct selinux_walk_stats *st;
	char path[PATH_MAX];
};

/* 1: stop the whole walk (limit), 0: go on. */
static int walk_one(struct walk *w, const struct stat *sb)
{
	if (w->st->seen >= w->limit) {
		w->st->limit_hit = true;
		return 1;
	}
	w->st->seen++;
	if (w->visit(w->ctx, w->path, sb->st_mode) < 0)
		w->st->failed++;
	return 0;
}

static int walk_dir(struct walk *w, size_t len, int depth)
{
	DIR *dir;
	struct dirent *de;
	int stop = 0;

	if (depth >= SELINUX_RELABEL_MAX_DEPTH) {
		w->st->depth_hit = true;
		return 0;
	}
	dir = opendir(w->path);
	if (!dir) {
		w->st->failed++;
		return 0;
	}
	while (!stop && (de = readdir(dir))) {
		struct stat sb;
		const char *name = de->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		int n = snprintf(w->path + len, sizeof w->path - len, "%s%s",
				 len && w->path[len - 1] == '/' ? "" : "/", name);
		if (n < 0 || (size_t)n >= sizeof w->path - len) {
			w->st->failed++;
			continue;
		}
		if (lstat(w->path, &sb) < 0) {
			w->st->failed++;
			continue;
		}
		/* A mount point of another file system (devpts, mqueue, a
		 * separate /dev/shm): its own walk, or not ours. */
		if (sb.st_dev != w->dev) {
			w->st->other_fs++;
			continue;
		}
		stop = walk_one(w, &sb);
		if (!stop && S_ISDIR(sb.st_mode))
			stop = walk_dir(w, len + (size_t)n, depth + 1);
	}
	closedir(dir);
	w->path[len] = '\0';
	return stop;
}

int hi_selinux_walk(const char *root, size_t limit, selinux_visit_fn visit, void *ctx,
		 struct selinux_walk_stats *st)
{
	struct walk w = { .limit = limit, .visit = visit, .ctx = ctx, .st = st };
	struct stat sb;
	size_t len = strlen(root);

	if (len >= sizeof w.path || lstat(root, &sb) < 0)
		return -1;
	memcpy(w.path, root, len + 1);
	w.dev = sb.st_dev;
	if (walk_one(&w, &sb) == 0 && S_ISDIR(sb.st_mode))
		walk_dir(&w, len, 0);
	return 0;
}

/* ---- the relabel ------------------------------------------------------- */

struct relabel {
	struct selabel_handle *h;
	size_t changed;
	size_t unlabelable;      /* EOPNOTSUPP: the file system keeps no labels */
	char first_error[BOOT_ERR_MAX];
};

static int relabel_visit(void *ctx, const char *path, mode_t mode)
{
	struct relabel *r = ctx;
	char *want = NULL, *have = NULL;
	int rc = 0;

	if (selabel_lookup_raw(r->h, &want, path, (int)mode) < 0)
		return errno == ENOENT ? 0 : -1;   /* ENOENT: no rule for it, leave it */
	if (lgetfilecon_raw(path, &have) < 0 || strcmp(have, want) != 0) {
		if (lsetfilecon_raw(path, want) == 0) {
			r->changed++;
		} else {
			if (errno == EOPNOTSUPP)
				r->unlabelable++;
			if (!r->first_error[0])
				snprintf(r->first_error, sizeof r->first_error, "%s -> %s: %s", path,
					 want, strerror(errno));
			rc = -1;
		}
	}
	freecon(have);
	freecon(want);
	return rc;
}

/* /dev, /dev/shm, /run: each file system once (a /dev/shm that is a plain
 * directory of devtmpfs is part of the /dev walk). */
static size_t relabel_roots(const struct boot *b, char roots[RELABEL_ROOTS][BOOT_PATH_MAX])
{
	dev_t seen[RELABEL_ROOTS];
	size_t n = 0;
	const char *dirs[RELABEL_ROOTS] = { b->dev, NULL, b->run };
	char shm[BOOT_PATH_MAX];

	if (hi_boot_path(shm, sizeof shm, b->dev, "shm"))
		dirs[1] = shm;
	for (size_t i = 0; i < RELABEL_ROOTS; i++) {
		struct stat sb;
		bool dup = false;
		if (!dirs[i] || lstat(dirs[i], &sb) < 0 || !S_ISDIR(sb.st_mode))
			continue;
		for (size_t j = 0; j < n; j++)
			dup = dup || seen[j] == sb.st_dev;
		if (dup)
			continue;
		seen[n] = sb.st_dev;
		snprintf(roots[n++], BOOT_PATH_MAX, "%s", dirs[i]);
	}
	return n;
}

static struct selabel_handle *open_contexts(const char *fc_path)
{
	/* BASEONLY: /dev and /run need no home-directory or local rules, and
	 * skipping them saves most of the open. */
	struct selinux_opt opts[] = {
		{ SELABEL_OPT_PATH, fc_path },
		{ SELABEL_OPT_BASEONLY, (const char *)1 },
	};
	return selabel_open(SELABEL_CTX_FILE, opts, 2);
}

static void report_relabel(struct boot *b, const struct relabel *r,
			   const struct selinux_walk_stats *st, uint64_t ns)
{
	char ms[32];

	hi_clock_format_ms(ms, sizeof ms, ns);
	hi_report_add(&b->rep, "selinux", "relabel_ms", "ok", "%s", ms);
	hi_report_add(&b->rep, "selinux", "relabel_seen", "info", "%zu", st->seen);
	hi_report_add(&b->rep, "selinux", "relabeled", r->changed ? "applied" : "already", "%zu", r->changed);
	if (st->failed)
		hi_report_add(&b->rep, "selinux", "relabel_failed", "warn", "%zu", st->failed);
	log_info("SELinux: relabelled %zu of %zu objects in /dev, /dev/shm, /run in %s ms",
		 r->changed, st->seen, ms);
	if (r->unlabelable)
		log_warn("SELinux: %zu objects are on a file system that cannot hold labels "
			 "(no security.* xattrs; tmpfs needs CONFIG_TMPFS_XATTR); they keep the "
			 "file system's label", r->unlabelable);
	if (st->failed && r->first_error[0])
		log_warn("SELinux: %zu objects could not be relabelled, the first: %s", st->failed,
			 r->first_error);
	if (st->limit_hit)
		log_warn("SELinux: relabel stopped after %zu objects ([selinux] relabel_limit); the "
			 "rest keep the label they were created with: raise the limit", st->seen);
	if (st->depth_hit)
		log_warn("SELinux: relabel did not descend below %d directory levels",
			 SELINUX_RELABEL_MAX_DEPTH);
}

static void relabel_tree(struct boot *b, struct selabel_handle *h, uint64_t start)
{
	char roots[RELABEL_ROOTS][BOOT_PATH_MAX];
	struct relabel r = { .h = h };
	struct selinux_walk_stats st = { 0 };
	size_t limit = b->cfg.selinux_relabel_limit > 0 ? (size_t)b->cfg.selinux_relabel_limit
							 : SELINUX_RELABEL_DEFAULT_LIMIT;
	size_t n = relabel_roots(b, roots);

	for (size_t i = 0; i < n && !st.limit_hit; i++)
		if (hi_selinux_walk(roots[i], limit, relabel_visit, &r, &st) < 0)
			st.failed++;
	report_relabel(b, &r, &st, hi_boottime_ns() - start);
}

/* The real init as the kernel would find it: what the handoff stage will
 * exec (it decides later; this follows the same order). */
static bool init_candidate(const struct boot *b, char *out, size_t outlen)
{
	static const char *const defaults[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };
	const char *want = b->cfg.init[0] ? b->cfg.init : hi_cmdline_get(&b->cmd, "init", NULL);

	if (want && *want)
		return hi_boot_path(out, outlen, b->newroot, want) != NULL;
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
		if (hi_boot_path(out, outlen, b->newroot, defaults[i]) && access(out, X_OK) == 0)
			return true;
	return false;
}

/* Whether the file system holding path keeps SELinux labels: the kernel
 * marks such mounts "seclabel" in mountinfo's super options. Without it
 * (iso9660, vfat, ...) every file gets the policy's one genfs label, so no
 * file there is init_exec_t. Unknown (unreadable) counts as labelled. */
static bool fs_holds_labels(const struct boot *b, const char *path)
{
	static char info[64 * 1024];
	char mi[BOOT_PATH_MAX], want[32];
	struct stat st;

	if (stat(path, &st) < 0 || !hi_boot_path(mi, sizeof mi, b->proc, "self/mountinfo") ||
	    (hi_fs_read(mi, info, sizeof info, NULL) < 0 && errno != E2BIG))
		return true;
	snprintf(want, sizeof want, "%u:%u", major(st.st_dev), minor(st.st_dev));
	char *save = NULL;
	for (char *line = strtok_r(info, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char devno[32];
		if (sscanf(line, "%*s %*s %31s", devno) != 1 || strcmp(devno, want) != 0)
			continue;
		const char *super = strstr(line, " - ");
		return super && strstr(super, "seclabel") != NULL;
	}
	return true;
}

/* The domain the real init will run in: the policy's type transition from
 * our domain (kernel_t) on exec of the init file's type (init_exec_t ->
 * init_t in refpolicy). When the init's file system cannot hold labels
 * the file has no init_exec_t, so ask for the domain explicitly with
 * setexeccon(), as the policy would have chosen for the file's expected
 * label. */
static void check_init_domain(struct boot *b, struct selabel_handle *h)
{
	char init[BOOT_PATH_MAX];
	char *self = NULL, *file = NULL, *domain = NULL;
	bool unlabelable = false;

	if (!init_candidate(b, init, sizeof init))
		return;
	if (getcon_raw(&self) < 0)
		goto out;
	if (!fs_holds_labels(b, init)) {
		/* The label read back is the file system's genfs label; the one
		 * that counts is what file_contexts would give the file. */
		unlabelable = true;
		if (!h || selabel_lookup_raw(h, &file, init, S_IFREG) < 0) {
			log_warn("SELinux: %s is on a file system without labels and the file contexts "
				 "give it none; the real init will run in %s", init, self);
			goto out;
		}
	} else if (getfilecon_raw(init, &file) < 0) {
		if (errno != EOPNOTSUPP && errno != ENODATA) {
			log_warn("SELinux: cannot read the label of %s: %s", init, strerror(errno));
			goto out;
		}
		unlabelable = true;
		if (!h || selabel_lookup_raw(h, &file, init, S_IFREG) < 0) {
			log_warn("SELinux: %s has no label and the file contexts give none; the real "
				 "init will run in %s", init, self);
			goto out;
		}
	}
	if (security_compute_create_raw(self, file, string_to_security_class("process"), &domain) < 0) {
		log_warn("SELinux: cannot compute the domain of %s (%s): %s", init, file, strerror(errno));
		goto out;
	}
	if (strcmp(domain, self) == 0) {
		log_warn("SELinux: the real init %s is labelled %s, which has no transition out of %s: "
			 "it would run in the kernel's domain; relabel it (restorecon %s)",
			 init, file, self, init);
		hi_report_add(&b->rep, "selinux", "init_domain", "warn", "%s (%s)", domain, init);
		goto out;
	}
	if (unlabelable) {
		log_warn("SELinux: the file system of %s cannot hold labels; asking for %s on its exec "
			 "(setexeccon), as its expected label %s would", init, domain, file);
		if (setexeccon_raw(domain) < 0)
			log_warn("SELinux: setexeccon(%s) failed: %s", domain, strerror(errno));
	}
	hi_report_add(&b->rep, "selinux", "init_domain", unlabelable ? "applied" : "ok", "%s (%s)",
		   domain, init);
out:
	freecon(self);
	freecon(file);
	freecon(domain);
}

int hi_selinux_relabel(struct boot *b, const char *fc_path)
{
	uint64_t start = hi_boottime_ns();
	struct selabel_handle *h = NULL;

	if (fc_path && fc_path[0])
		h = open_contexts(fc_path);
	if (h) {
		char ms[32];
		hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - start);
		hi_report_add(&b->rep, "selinux", "contexts_ms", "info", "%s", ms);
	}
	if (!h)
		log_warn("SELinux: cannot open the file contexts %s: %s; %s", fc_path && fc_path[0] ?
			 fc_path : "(none)", strerror(errno), b->cfg.selinux_relabel ?
			 "nothing is relabelled" : "the init label is not checked");
	if (!b->cfg.selinux_relabel)
		hi_report_add(&b->rep, "selinux", "relabel_ms", "skipped", "0.000");
	else if (h)
		relabel_tree(b, h, start);
	else
		hi_report_add(&b->rep, "selinux", "relabel_ms", "failed", "0.000");
	check_init_domain(b, h);
	/* Kept for the stages that create files later (stages/selinux_label.c). */
	b->selabel = h;
	return 0;
}
