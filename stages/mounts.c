/* Mounts: hardened API mounts, /tmp as a tmpfs, the instance parents that
 * pam_namespace needs for polyinstantiated directories, and / made shared.
 *
 * Runs after the switch (the kernel refuses MS_MOVE of a mount whose
 * parent is shared, so / must not be shared before it) and after the
 * SELinux policy is loaded (the parents need the label the policy gives
 * them, which only a loaded policy can tell). The instance parents
 * themselves are stages/mounts_polyinst.c. */
#define _GNU_SOURCE   /* ST_NODEV and the other statvfs flags in glibc */
#include "mounts.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fsutil.h"
#include "boot.h"
#include "config_table.h"
#include "selinux_label.h"
#include "log.h"
#include "report.h"
#include "safepath.h"

#define STAGE "mounts"

/* ---- mount flags ------------------------------------------------------ */

/* statvfs's ST_ flags to mount's MS_ flags: the per-mount flags a remount
 * must repeat, or the kernel clears them. ST_RELATIME is not MS_RELATIME. */
static unsigned long mount_flags_now(const char *path)
{
	static const struct { unsigned long st, ms; } map[] = {
		{ ST_RDONLY, MS_RDONLY }, { ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC }, { ST_SYNCHRONOUS, MS_SYNCHRONOUS },
		{ ST_NOATIME, MS_NOATIME }, { ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME },
	};
	struct statvfs sv;
	unsigned long ms = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (sv.f_flag & map[i].st)
			ms |= map[i].ms;
	return ms;
}

static void flags_text(unsigned long flags, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s", flags & MS_NOSUID ? "nosuid," : "",
		 flags & MS_NODEV ? "nodev," : "", flags & MS_NOEXEC ? "noexec," : "");
	size_t n = strlen(out);
	if (n)
		out[n - 1] = '\0';
}

/* Does the mountinfo entry carry every flag of want? */
static bool entry_has_flags(const struct mountinfo_entry *m, unsigned long want)
{
	return (!(want & MS_NOSUID) || hi_mount_opts_has(m->mnt_opts, "nosuid")) &&
	       (!(want & MS_NODEV) || hi_mount_opts_has(m->mnt_opts, "nodev")) &&
	       (!(want & MS_NOEXEC) || hi_mount_opts_has(m->mnt_opts, "noexec"));
}

/* Add per-mount flags to an existing mount. MS_REMOUNT|MS_BIND changes the
 * mount, not the file system (2.6.26), so size= and the like stay. */
static void harden_existing(struct boot *b, const char *path, const char *key, unsigned long want)
{
	struct mountinfo_entry m;
	char text[64];

	flags_text(want, text, sizeof text);
	if (hi_mountinfo_find(b->proc, path, &m) != 1) {
		hi_report_add(&b->rep, STAGE, key, "absent", "not a mount point");
		return;
	}
	if (entry_has_flags(&m, want)) {
		hi_report_add(&b->rep, STAGE, key, "already", "%s", text);
		return;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would remount %s with %s", path, text);
		return;
	}
	if (hi_fs_mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | mount_flags_now(path) | want, NULL) < 0) {
		log_warn("remounting %s with %s failed: %s; it stays without them", path, text,
			 strerror(errno));
		hi_report_add(&b->rep, STAGE, key, "failed", "%s: %s", text, strerror(errno));
		return;
	}
	bool found = hi_mountinfo_find(b->proc, path, &m) == 1;
	bool ok = found && entry_has_flags(&m, want);
	if (!ok)
		log_warn("%s: remounted with %s but mountinfo shows '%s'", path, text,
			 found ? m.mnt_opts : "no mount there");
	hi_report_add(&b->rep, STAGE, key, ok ? "applied" : "failed", "%s",
		   ok ? text : found ? m.mnt_opts : "not in mountinfo");
}

/* ---- the API mounts --------------------------------------------------- */

static void mounts_dev_shm(struct boot *b)
{
	char path[BOOT_PATH_MAX + 8], label[256];
	unsigned long want = MS_NOSUID | MS_NODEV | (b->cfg.shm_noexec ? MS_NOEXEC : 0);
	struct mountinfo_entry m;

	if (!hi_boot_path(path, sizeof path, b->dev, "shm"))
		return;
	if (hi_mountinfo_find(b->proc, path, &m) == 1) {
		harden_existing(b, path, "/dev/shm", want);
		return;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would mount a tmpfs on %s", path);
		return;
	}
	/* POSIX shared memory and semaphores (shm_open, sem_open) live here;
	 * the early stage mounts /dev only. */
	if ((mkdir(path, 01777) < 0 && errno != EEXIST) || chmod(path, 01777) < 0 ||
	    hi_fs_mount("tmpfs", path, "tmpfs", want, "mode=1777") < 0) {
		log_warn("mounting a tmpfs on %s failed: %s; shm_open() will fail", path, strerror(errno));
		hi_report_add(&b->rep, STAGE, "/dev/shm", "failed", "%s", strerror(errno));
		return;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		hi_label_dir(b, fd, "/dev/shm", true, label, sizeof label);
		close(fd);
	}
	bool ok = hi_mountinfo_find(b->proc, path, &m) == 1 && entry_has_flags(&m, want);
	hi_report_add(&b->rep, STAGE, "/dev/shm", ok ? "applied" : "failed", "tmpfs %s",
		   ok ? m.mnt_opts : "not in mountinfo");
}

static const char *hidepid_value(enum hidepid h)
{
	/* Numbers, which every kernel takes; 4 (ptraceable) needs 5.8. */
	switch (h) {
	case HIDEPID_NOACCESS: return "1";
	case HIDEPID_INVISIBLE: return "2";
	case HIDEPID_PTRACEABLE: return "4";
	default: return "0";
	}
}

/* hidepid and gid are per proc instance since 5.8 (before, per pid
 * namespace), so a remount of this instance is what the real init and
 * everything below it will see. */
static void mounts_proc(struct boot *b)
{
	char data[64], want[80];
	struct mountinfo_entry m;

	if (b->cfg.proc_hidepid == HIDEPID_OFF && b->cfg.proc_gid < 0) {
		hi_report_add(&b->rep, STAGE, "/proc", "skipped", "hidepid off");
		return;
	}
	snprintf(data, sizeof data, "hidepid=%s", hidepid_value(b->cfg.proc_hidepid));
	if (b->cfg.proc_gid >= 0)
		snprintf(data + strlen(data), sizeof data - strlen(data), ",gid=%d", b->cfg.proc_gid);
	if (b->mode == MODE_DRY_RUN) {
		log_info("would remount %s with %s", b->proc, data);
		return;
	}
	unsigned long flags = mount_flags_now(b->proc) | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	if (hi_fs_mount("proc", b->proc, "proc", MS_REMOUNT | flags, data) < 0) {
		log_warn("remounting %s with %s failed: %s; every user sees every process",
			 b->proc, data, strerror(errno));
		hi_report_add(&b->rep, STAGE, "/proc", "failed", "%s: %s", data, strerror(errno));
		return;
	}
	/* The kernel shows hidepid by name (5.8+) and gid only when not 0. */
	snprintf(want, sizeof want, "hidepid=%s", hi_config_hidepid_name(b->cfg.proc_hidepid));
	bool ok = hi_mountinfo_find(b->proc, b->proc, &m) == 1 &&
		  (b->cfg.proc_hidepid == HIDEPID_OFF || hi_mount_opts_has(m.super_opts, want) ||
		   hi_mount_opts_has(m.super_opts, data));
	if (ok && b->cfg.proc_gid > 0) {
		snprintf(want, sizeof want, "gid=%d", b->cfg.proc_gid);
		ok = hi_mount_opts_has(m.super_opts, want);
	}
	if (!ok)
		log_warn("%s: remounted with %s but mountinfo shows '%s'", b->proc, data, m.super_opts);
	hi_report_add(&b->rep, STAGE, "/proc", ok ? "applied" : "failed", "%s", m.super_opts);
}

/* Debian's sysvinit initscripts wipe /tmp at boot (bootclean.sh, TMPTIME
 * 0), the instance parent with it, unless /tmp is a tmpfs they recognise by
 * the marker /tmp/.tmpfs, which their own tmpfs mount writes. A tmpfs
 * hardinit just mounted is as fresh as theirs, so it carries the marker on
 * roots that have those scripts. tmpfd is the new tmpfs's root. */
static void mark_tmpfs_for_initscripts(struct boot *b, int tmpfd)
{
	char path[BOOT_PATH_MAX * 2];

	if (!hi_boot_path(path, sizeof path, b->newroot, "lib/init/bootclean.sh") || access(path, F_OK) < 0)
		return;
	int fd = openat(tmpfd, ".tmpfs", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		log_warn("cannot write /tmp/.tmpfs (%s): Debian's bootclean will empty /tmp, instance "
			 "parent included", strerror(errno));
	else
		close(fd);
}

/* A link or another file where a directory of the root should be: one line
 * naming it (and the link's target), the step skipped. The fix named acts
 * on the link itself, never through it. */
void hi_mounts_refuse_path(struct boot *b, const char *key, const char *rel, int err)
{
	char link[BOOT_PATH_MAX * 2];

	if (err == ELOOP && hi_safe_find_link(b->newroot, rel, link, sizeof link)) {
		log_warn("%s: %s is a symbolic link; hardinit does not follow links in the root, so "
			 "it leaves %s alone; replace the link with a directory", key, link, key);
		hi_report_add(&b->rep, STAGE, key, "refused", "symbolic link %s", link);
		return;
	}
	log_warn("%s: %s cannot be used (%s); hardinit leaves it alone", key, rel,
		 err == ENOTDIR ? "not a directory" : strerror(err));
	hi_report_add(&b->rep, STAGE, key, "refused", "%s", err == ENOTDIR ? "not a directory" : strerror(err));
}

/* The directory /tmp of the root, resolved without links (created when
 * missing and create is set): an fd, or -1 after saying why not (*missing
 * set, and nothing said, when it is absent and create is not set). */
static int open_tmp_dir(struct boot *b, bool create, bool *missing)
{
	*missing = false;
	int fd = hi_safe_open(b->newroot, "tmp", O_PATH | O_DIRECTORY, 0);
	if (fd >= 0)
		return fd;
	int e = errno;
	if (e != ENOENT) {
		hi_mounts_refuse_path(b, "/tmp", "tmp", e);
	} else if (!create) {
		*missing = true;
	} else if ((fd = hi_safe_mkdir(b->newroot, "tmp", 01777)) < 0) {
		log_warn("/tmp is missing and cannot be created (%s): no tmpfs on /tmp", strerror(errno));
		hi_report_add(&b->rep, STAGE, "/tmp", "failed", "mkdir: %s", strerror(errno));
	}
	return fd;
}

static int mount_tmp_fd(struct boot *b, int fd, bool remount, unsigned long want, char *data, size_t cap)
{
	char target[BOOT_PATH_MAX + 32];

	/* The fd's own path: the kernel mounts on the directory the fd holds,
	 * so nothing on the way can be swapped for a link. */
	if (!hi_safe_fd_path(target, sizeof target, b->proc, fd)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (remount) {
		snprintf(data, cap, "size=%s", b->cfg.tmp_size);
		return mount(NULL, target, NULL, MS_REMOUNT | mount_flags_now(target) | want, data);
	}
	snprintf(data, cap, "mode=1777,size=%s", b->cfg.tmp_size);
	return mount("tmpfs", target, "tmpfs", want, data);
}

static void tmp_verify(struct boot *b, const char *path, unsigned long want)
{
	char label[256];
	struct mountinfo_entry m;

	/* The fd taken before the mount holds the covered directory: open
	 * the new tmpfs's root afresh. */
	int fd = hi_safe_open(b->newroot, "tmp", O_RDONLY | O_DIRECTORY, 0);
	if (fd >= 0) {
		/* A new tmpfs root is tmpfs_t until labelled; the policy says tmp_t. */
		hi_label_dir(b, fd, "/tmp", true, label, sizeof label);
		mark_tmpfs_for_initscripts(b, fd);
		close(fd);
	}
	bool found = hi_mountinfo_find(b->proc, path, &m) == 1;
	bool ok = found && strcmp(m.fstype, "tmpfs") == 0 && entry_has_flags(&m, want);
	if (!found)
		log_warn("%s: mounted, but mountinfo has no mount there", path);
	else if (!ok)
		log_warn("%s: mounted, but mountinfo shows %s '%s'", path, m.fstype, m.mnt_opts);
	if (found)
		hi_report_add(&b->rep, STAGE, "/tmp", ok ? "applied" : "failed", "tmpfs %s %s", m.mnt_opts,
			   m.super_opts);
	else
		hi_report_add(&b->rep, STAGE, "/tmp", "failed", "not in mountinfo");
}

static int mounts_tmp(struct boot *b)
{
	char path[BOOT_PATH_MAX + 8], data[80], text[64];
	unsigned long want = MS_NOSUID | MS_NODEV | (b->cfg.tmp_noexec ? MS_NOEXEC : 0);
	struct mountinfo_entry m;

	if (b->cfg.tmp_size[0] == '\0') {
		hi_report_add(&b->rep, STAGE, "/tmp", "skipped", "no tmp_size");
		return 0;
	}
	if (!hi_config_tmp_size_valid(b->cfg.tmp_size))
		return hi_boot_error(b, "[mounts] tmp_size '%s' is not a tmpfs size; write digits with an "
				  "optional k, m, g or %% suffix, e.g. 50%%", b->cfg.tmp_size);
	if (!hi_boot_path(path, sizeof path, b->newroot, "tmp"))
		return 0;
	flags_text(want, text, sizeof text);
	bool missing;
	int fd = open_tmp_dir(b, false, &missing);
	if (fd < 0 && !missing)
		return 0;
	int found = fd >= 0 ? hi_mountinfo_find(b->proc, path, &m) : 0;
	if (found == 1 && strcmp(m.fstype, "tmpfs") != 0) {
		log_warn("%s is already a %s mount; not covering it with a tmpfs", path, m.fstype);
		hi_report_add(&b->rep, STAGE, "/tmp", "warn", "already %s", m.fstype);
		close(fd);
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would %s a tmpfs on %s with size=%s,%s", found == 1 ? "remount" : "mount",
			 path, b->cfg.tmp_size, text);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0 && (fd = open_tmp_dir(b, true, &missing)) < 0)
		return 0;
	int r = mount_tmp_fd(b, fd, found == 1, want, data, sizeof data);
	int e = errno;
	close(fd);
	if (r < 0) {
		log_warn("mounting a tmpfs on %s (%s,%s) failed: %s", path, data, text, strerror(e));
		hi_report_add(&b->rep, STAGE, "/tmp", "failed", "%s", strerror(e));
		return 0;
	}
	tmp_verify(b, path, want);
	return 0;
}

static void mounts_shared(struct boot *b)
{
	struct mountinfo_entry m;

	if (!b->cfg.mount_shared) {
		hi_report_add(&b->rep, STAGE, "shared", "skipped", "mount_shared off");
		return;
	}
	if (b->mode == MODE_INITRAMFS && !b->switched) {
		log_warn("not making / shared before the switch: the kernel would then refuse the "
			 "MS_MOVE of the new root");
		hi_report_add(&b->rep, STAGE, "shared", "refused", "before the switch");
		return;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would make %s shared, recursively", b->newroot);
		return;
	}
	if (hi_fs_mount(NULL, b->newroot, NULL, MS_SHARED | MS_REC, NULL) < 0) {
		log_warn("making %s shared failed: %s; per-user mount namespaces will not see "
			 "later mounts", b->newroot, strerror(errno));
		hi_report_add(&b->rep, STAGE, "shared", "failed", "%s", strerror(errno));
		return;
	}
	bool ok = hi_mountinfo_find(b->proc, b->newroot, &m) == 1 && m.shared;
	hi_report_add(&b->rep, STAGE, "shared", ok ? "applied" : "failed", "%s MS_SHARED|MS_REC", b->newroot);
}

int hi_stage_mounts(struct boot *b)
{
	char run_path[BOOT_PATH_MAX];

	mounts_dev_shm(b);
	hi_copy_str(run_path, sizeof run_path, b->run);
	harden_existing(b, run_path, "/run", MS_NOSUID | MS_NODEV);
	mounts_proc(b);
	int rc = mounts_tmp(b);
	if (rc == 0 && b->cfg.polyinstantiate)
		rc = hi_mounts_prepare_polydirs(b);
	else if (rc == 0)
		hi_report_add(&b->rep, STAGE, "polyinstantiation", "skipped", "polyinstantiate off");
	/* Last, so every mount made above is in the MS_REC sweep. */
	if (rc == 0)
		mounts_shared(b);
	return rc;
}
