/* SELinux: decide the mode, load the policy of the real root (or the one
 * the initramfs embedded), set the mode and the configured booleans, then
 * relabel what was created before the policy (selinux_relabel.c).
 *
 * It runs after the switch, so the policy and /etc/selinux/config are the
 * real root's, and before the real init, which then enters its own domain
 * (init_t in refpolicy) by the policy's transition on exec of its
 * init_exec_t file instead of staying in kernel_t.
 *
 * selinux_init_load_policy() would do most of this, but it mounts /sys and
 * selinuxfs and reads /proc/cmdline at fixed paths, cannot load a policy
 * from anywhere but the root's /etc/selinux, and does not say which file
 * it loaded. So the pieces are done here with the lower-level calls:
 * set_selinuxmnt(), security_policyvers(), a write to selinuxfs load,
 * security_setenforce(), security_set_boolean(). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <selinux/selinux.h>

#include "boot.h"
#include <linux/magic.h>

#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "selinux_config.h"
#include "selinux_relabel.h"
#include "sha256.h"
#include "selinux.h"

#define FILESYSTEMS_MAX_BYTES   (16 * 1024)
#define ATTR_CURRENT_MAX        256
#define LIBSELINUX_MSG_MAX      256
/* When selinuxfs cannot tell (a dry run): the newest version of 5.x and
 * 6.x kernels (POLICYDB_VERSION_COMP_FTRANS). */
#define SELINUX_POLICY_VERS_ASSUMED 33

/* ---- talking to the kernel -------------------------------------------- */

/* libselinux logs to stderr by default; during the boot its lines would
 * land on the console without context. Keep the last one for our error. */
static char libselinux_msg[LIBSELINUX_MSG_MAX];

static int __attribute__((format(printf, 2, 3))) libselinux_log(int type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(libselinux_msg, sizeof libselinux_msg, fmt, ap);
	va_end(ap);
	libselinux_msg[strcspn(libselinux_msg, "\n")] = '\0';
	log_debug("libselinux: %s", libselinux_msg);
	return 0;
}

static void silence_libselinux(void)
{
	union selinux_callback cb;

	cb.func_log = libselinux_log;
	selinux_set_callback(SELINUX_CB_LOG, cb);
}

/* Where the policy comes from: the root's, or the initramfs's copy. */
struct policy_choice {
	char type[CONFIG_NAME_MAX];
	char path[BOOT_PATH_MAX];        /* the policy file */
	char fc_path[BOOT_PATH_MAX];     /* file_contexts for the relabel */
	char searched[BOOT_PATH_MAX];    /* for the error when none is found */
	bool embedded;
	bool too_new;                    /* only versions above the kernel's exist */
	int too_new_vers;
};

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool embedded_path(const struct boot *b, char *out, size_t outlen, const char *name)
{
	char rel[64];
	snprintf(rel, sizeof rel, "%s/%s", SELINUX_EMBED_RUN_DIR, name);
	return hi_boot_path(out, outlen, b->run, rel) != NULL;
}

static void embedded_type(const struct boot *b, char *out, size_t outlen)
{
	char path[BOOT_PATH_MAX], buf[CONFIG_NAME_MAX];

	out[0] = '\0';
	if (!embedded_path(b, path, sizeof path, "type") || hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return;
	buf[strcspn(buf, " \t\r\n")] = '\0';
	snprintf(out, outlen, "%s", buf);
}

/* policy.N of the root's type, from the kernel's maximum version down,
 * as libselinux's selinux_mkload_policy() searches. */
static bool root_policy(const struct boot *b, int kernel_max, struct policy_choice *pc)
{
	char rel[BOOT_PATH_MAX], path[BOOT_PATH_MAX];

	if (!pc->type[0] || strchr(pc->type, '/') || strcmp(pc->type, "..") == 0)
		return false;
	snprintf(rel, sizeof rel, "etc/selinux/%s/policy/policy", pc->type);
	if (!hi_boot_path(pc->searched, sizeof pc->searched, b->newroot, rel))
		return false;
	for (int v = kernel_max; v >= SELINUX_POLICY_VERS_MIN; v--) {
		int n = snprintf(path, sizeof path, "%s.%d", pc->searched, v);
		if (n > 0 && (size_t)n < sizeof path && is_file(path)) {
			snprintf(pc->path, sizeof pc->path, "%s", path);
			snprintf(rel, sizeof rel, "etc/selinux/%s/contexts/files/file_contexts", pc->type);
			hi_boot_path(pc->fc_path, sizeof pc->fc_path, b->newroot, rel);
			return true;
		}
	}
	for (int v = kernel_max + 1; v <= kernel_max + SELINUX_POLICY_VERS_AHEAD; v++) {
		int n = snprintf(path, sizeof path, "%s.%d", pc->searched, v);
		if (n > 0 && (size_t)n < sizeof path && is_file(path)) {
			pc->too_new = true;
			pc->too_new_vers = v;
			break;
		}
	}
	return false;
}

static bool choose_policy(const struct boot *b, const struct selinux_file_config *file,
			  int kernel_max, struct policy_choice *pc)
{
	char emb_type[CONFIG_NAME_MAX], path[BOOT_PATH_MAX];

	memset(pc, 0, sizeof *pc);
	embedded_type(b, emb_type, sizeof emb_type);
	snprintf(pc->type, sizeof pc->type, "%s",
		 b->cfg.selinux_type[0] ? b->cfg.selinux_type : file->type[0] ? file->type : emb_type);
	if (root_policy(b, kernel_max, pc))
		return true;
	if (!embedded_path(b, path, sizeof path, "policy") || !is_file(path))
		return false;
	pc->embedded = true;
	snprintf(pc->path, sizeof pc->path, "%s", path);
	if (emb_type[0])
		snprintf(pc->type, sizeof pc->type, "%s", emb_type);
	if (embedded_path(b, path, sizeof path, "file_contexts") && is_file(path)) {
		snprintf(pc->fc_path, sizeof pc->fc_path, "%s", path);
	} else if (pc->type[0]) {
		char rel[BOOT_PATH_MAX];
		snprintf(rel, sizeof rel, "etc/selinux/%s/contexts/files/file_contexts", pc->type);
		hi_boot_path(pc->fc_path, sizeof pc->fc_path, b->newroot, rel);
	}
	return true;
}

static void no_policy_reason(const struct policy_choice *pc, int kernel_max, char *out, size_t outlen)
{
	if (!pc->type[0])
		snprintf(out, outlen, "SELinux: no policy type: the root has no SELINUXTYPE= in "
			 "/etc/selinux/config, hardinit.conf sets no [selinux] type and the initramfs "
			 "embeds no policy; install a policy package in the root or embed one with "
			 "hardinit-mkinitramfs");
	else if (pc->too_new)
		snprintf(out, outlen, "SELinux: %s.%d is newer than this kernel reads (policy "
			 "version %d at most); rebuild the policy for this kernel or boot a newer one",
			 pc->searched, pc->too_new_vers, kernel_max);
	else
		snprintf(out, outlen, "SELinux: no policy file %.160s.N (N = %d down to %d) and no "
			 "embedded policy; install the policy for type \"%.64s\" in the root (Debian: "
			 "selinux-policy-default) or embed one with hardinit-mkinitramfs",
			 pc->searched, kernel_max, SELINUX_POLICY_VERS_MIN, pc->type);
}

/* What a failed load means: fatal when SELinux is required or enforcing,
 * else a warning and the boot goes on without a policy. */
static int load_failed(struct boot *b, const struct selinux_decision *d, const char *msg)
{
	hi_report_add(&b->rep, "selinux", "load", "failed", "%s", msg);
	if (d->fatal_on_failure)
		return hi_boot_error(b, "%s (SELinux is required: %s)", msg,
				  b->cfg.selinux_require ? "[selinux] require = yes" : d->why);
	log_warn("%s; continuing without a policy, since %s allows permissive", msg, d->why);
	return 0;
}

static int mount_selinuxfs(struct boot *b, char *mnt, size_t mntlen, char *why, size_t whylen)
{
	struct statfs sfs;

	if (!hi_boot_path(mnt, mntlen, b->sys, "fs/selinux")) {
		snprintf(why, whylen, "the path %s/fs/selinux is too long", b->sys);
		return -1;
	}
	if (statfs(mnt, &sfs) == 0 && (uint32_t)sfs.f_type == SELINUX_MAGIC)
		return 0;
	/* The same flags as systemd's mount-setup for selinuxfs. */
	if (mount("selinuxfs", mnt, "selinuxfs", MS_NOSUID | MS_NOEXEC | MS_RELATIME, NULL) < 0 &&
	    errno != EBUSY) {
		snprintf(why, whylen, "SELinux: cannot mount selinuxfs on %.100s: %s; check that "
			 "%.100s is sysfs", mnt, strerror(errno), b->sys);
		return -1;
	}
	return 0;
}

/* Before a policy is loaded every task's context is "kernel". */
static bool policy_loaded(const struct boot *b)
{
	char path[BOOT_PATH_MAX], buf[ATTR_CURRENT_MAX];

	if (!hi_boot_path(path, sizeof path, b->proc, "self/attr/current") ||
	    hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] && strcmp(buf, "kernel") != 0;
}

/* What security_load_policy() does, without it: that function shares an
 * object in libselinux.a with selinux_mkload_policy(), whose references
 * pull 170 KiB of libsepol into the binary for a downgrade hardinit never
 * does. The kernel takes the whole policy in one write at offset 0. */
static int kernel_load_policy(const struct boot *b, const void *data, size_t len)
{
	char path[BOOT_PATH_MAX];

	if (!hi_boot_path(path, sizeof path, b->sys, "fs/selinux/load")) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return hi_fs_write_once(path, data, len);
}

/* The policy file as the boot reads it: a regular file (O_NONBLOCK and the
 * type check: a FIFO swapped in as the policy must not block PID 1) of a
 * policy's size, mapped, with a binary policy's header. NULL with msg
 * saying why, else the mapping of *size bytes. The dry run stops here;
 * the boot hands it to the kernel. */
static void *map_policy(const char *path, size_t *size, unsigned *version, char *msg, size_t msglen)
{
	char why[CONFIG_ERR_MAX];
	struct stat st;
	void *map = NULL;

	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int e = fd < 0 || fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : FS_ENOTREG;
	if (e) {
		snprintf(msg, msglen, "SELinux: cannot read the policy %s: %s; reinstall it", path, hi_fs_read_why(e));
	} else if (st.st_size < SELINUX_POLICY_HEADER_MIN || (uint64_t)st.st_size > SELINUX_POLICY_MAX_BYTES) {
		snprintf(msg, msglen, "SELinux: the policy %s is %lld bytes, outside %d..%u; it is "
			 "truncated or not a policy: reinstall it", path, (long long)st.st_size,
			 SELINUX_POLICY_HEADER_MIN, SELINUX_POLICY_MAX_BYTES);
	} else if ((map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		snprintf(msg, msglen, "SELinux: cannot map the policy %s: %s", path, strerror(errno));
		map = NULL;
	} else if (hi_selinux_policy_header(map, (size_t)st.st_size, version, why, sizeof why) < 0) {
		snprintf(msg, msglen, "SELinux: %.200s is not a binary policy: %.160s; reinstall "
			 "the policy package or rebuild it (semodule -B)", path, why);
		munmap(map, (size_t)st.st_size);
		map = NULL;
	}
	if (fd >= 0)
		close(fd);
	if (map)
		*size = (size_t)st.st_size;
	return map;
}

static int load_policy_file(struct boot *b, const struct selinux_decision *d,
			    const struct policy_choice *pc)
{
	char msg[BOOT_ERR_MAX], ms[32];
	size_t size = 0;
	unsigned version = 0;
	int rc = -1;
	uint64_t start = hi_boottime_ns();

	void *map = map_policy(pc->path, &size, &version, msg, sizeof msg);
	if (map) {
		if (kernel_load_policy(b, map, size) < 0) {
			snprintf(msg, sizeof msg, "SELinux: the kernel rejected the policy %s (version %u, "
				 "%zu bytes): %s; it is damaged or not for this kernel (the kernel log says "
				 "why): reinstall or rebuild it", pc->path, version, size, strerror(errno));
		} else {
			rc = 0;
			/* Hashed only for the measure stage: 3 MiB of SHA-256 is not free. */
			if (b->cfg.tpm_measure) {
				hi_sha256(map, size, b->selinux_policy_sha256);
				b->selinux_policy_hashed = true;
			}
		}
		munmap(map, size);
	}
	if (rc < 0)
		return load_failed(b, d, msg) < 0 ? -1 : 1;

	hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - start);
	hi_report_add(&b->rep, "selinux", "policy", "ok", "%s", pc->path);
	hi_report_add(&b->rep, "selinux", "policy_type", "info", "%s%s", pc->type,
		   pc->embedded ? " (embedded in the initramfs)" : "");
	hi_report_add(&b->rep, "selinux", "policy_version", "info", "%u", version);
	hi_report_add(&b->rep, "selinux", "policy_bytes", "info", "%zu", size);
	hi_report_add(&b->rep, "selinux", "load_ms", "ok", "%s", ms);
	log_info("SELinux: loaded %s (version %u, %zu bytes) in %s ms", pc->path, version, size, ms);
	return 0;
}

static int set_mode(struct boot *b, const struct selinux_decision *d)
{
	int now = security_getenforce();
	const char *name = d->enforcing ? "enforcing" : "permissive";

	if (now == (d->enforcing ? 1 : 0)) {
		hi_report_add(&b->rep, "selinux", "enforce", "already", "%s (%s)", name, d->why);
		return 0;
	}
	if (security_setenforce(d->enforcing ? 1 : 0) < 0) {
		char msg[BOOT_ERR_MAX];
		snprintf(msg, sizeof msg, "SELinux: cannot switch to %s: %s", name, strerror(errno));
		hi_report_add(&b->rep, "selinux", "enforce", "failed", "%s", msg);
		if (d->enforcing)
			return hi_boot_error(b, "%s; the kernel stays permissive, which the config does "
					  "not allow", msg);
		log_warn("%s; the kernel stays enforcing", msg);
		return 0;
	}
	hi_report_add(&b->rep, "selinux", "enforce", "applied", "%s (%s)", name, d->why);
	return 0;
}

/* Names differ between policies (refpolicy: allow_execmem; Fedora:
 * deny_execmem), so a name the loaded policy lacks is a warning. */
static void set_booleans(struct boot *b)
{
	const struct config *c = &b->cfg;
	size_t pending = 0;

	for (size_t i = 0; i < c->n_booleans; i++) {
		const struct selinux_boolean *sb = &c->booleans[i];
		if (security_set_boolean(sb->name, sb->value ? 1 : 0) == 0) {
			pending++;
			continue;
		}
		if (errno == ENOENT) {
			log_warn("SELinux: boolean %s: the loaded policy has no such boolean; ignored "
				 "(check the names with getsebool -a for this policy)", sb->name);
			hi_report_add(&b->rep, "selinux", "boolean", "absent", "%s", sb->name);
		} else {
			log_warn("SELinux: boolean %s: cannot set it: %s", sb->name, strerror(errno));
			hi_report_add(&b->rep, "selinux", "boolean", "failed", "%s: %s", sb->name, strerror(errno));
		}
	}
	if (!pending)
		return;
	if (security_commit_booleans() < 0) {
		log_warn("SELinux: cannot commit %zu booleans: %s", pending, strerror(errno));
		hi_report_add(&b->rep, "selinux", "booleans_commit", "failed", "%s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < c->n_booleans; i++) {
		const struct selinux_boolean *sb = &c->booleans[i];
		int active = security_get_boolean_active(sb->name);
		if (active < 0)
			continue;
		bool ok = active == (sb->value ? 1 : 0);
		hi_report_add(&b->rep, "selinux", "boolean", ok ? "applied" : "failed", "%s=%s",
			   sb->name, active ? "on" : "off");
		if (!ok)
			log_warn("SELinux: boolean %s reads back %d after the commit", sb->name, active);
	}
}

/* systemd, as the real init, loads the policy again with
 * selinux_init_load_policy(), which sets the mode from the kernel's
 * enforcing= or else the root's /etc/selinux/config. Say so now when that
 * will differ from what hardinit set. Booleans survive the reload (the
 * kernel carries active values over by name). */
static void warn_systemd_mode(struct boot *b, const struct selinux_decision *d,
			      const char *kernel_enforcing, const struct selinux_file_config *file)
{
	const char *later;

	if (kernel_enforcing && (kernel_enforcing[0] == '0' || kernel_enforcing[0] == '1'))
		later = hi_selinux_parse_enforcing(kernel_enforcing) == 1 ? "enforcing" : "permissive";
	else if (file->mode == SEFILE_ENFORCING)
		later = "enforcing";
	else
		later = "permissive";   /* permissive, disabled (6.4+ cannot disable), unknown, absent */
	hi_report_add(&b->rep, "selinux", "systemd_mode", "info", "%s", later);
	if (strcmp(later, d->enforcing ? "enforcing" : "permissive") != 0)
		log_warn("SELinux: hardinit set %s, but a systemd real init will reload the policy and "
			 "set %s (from %s); make SELINUX= in /etc/selinux/config say %s",
			 d->enforcing ? "enforcing" : "permissive", later,
			 kernel_enforcing ? "the kernel's enforcing=" : "/etc/selinux/config",
			 d->enforcing ? "enforcing" : "permissive");
}

static int selinuxfs_absent(struct boot *b)
{
	const char *msg = "SELinux: the kernel has no selinuxfs in /proc/filesystems, so SELinux is "
			  "not active; Debian's kernels start AppArmor by default: boot with "
			  "security=selinux (or an lsm= list with selinux)";

	hi_report_add(&b->rep, "selinux", "kernel", "absent", "selinuxfs not in /proc/filesystems");
	if (b->cfg.selinux_require)
		return hi_boot_error(b, "%s (SELinux is required: [selinux] require = yes)", msg);
	log_warn("%s; continuing without SELinux", msg);
	return 0;
}

static bool selinux_in_kernel(const struct boot *b)
{
	char path[BOOT_PATH_MAX];
	static char text[FILESYSTEMS_MAX_BYTES];

	if (!hi_boot_path(path, sizeof path, b->proc, "filesystems") ||
	    hi_fs_read(path, text, sizeof text, NULL) < 0)
		return false;
	return hi_selinux_fs_listed(text, "selinuxfs");
}

static int dry_run(struct boot *b, const struct selinux_decision *d,
		   const struct selinux_file_config *file)
{
	struct policy_choice pc;
	char reason[BOOT_ERR_MAX];

	/* The root's files are the target's (--root): no policy there, or
	 * one that is not a binary policy, is the boot's decision, fatal
	 * where the boot's is; only the kernel's load is left out. */
	if (!choose_policy(b, file, SELINUX_POLICY_VERS_ASSUMED, &pc)) {
		no_policy_reason(&pc, SELINUX_POLICY_VERS_ASSUMED, reason, sizeof reason);
		return load_failed(b, d, reason);
	}
	size_t size = 0;
	unsigned version = 0;
	void *map = map_policy(pc.path, &size, &version, reason, sizeof reason);
	if (!map)
		return load_failed(b, d, reason);
	munmap(map, size);
	log_info("dry run: would load %s (type %s) %s, set %zu booleans, %s", pc.path, pc.type,
		 d->enforcing ? "enforcing" : "permissive", b->cfg.n_booleans,
		 b->cfg.selinux_relabel ? "relabel /dev, /dev/shm, /run" : "not relabel");
	hi_report_add(&b->rep, "selinux", "load", "skipped", "dry run: %s", pc.path);
	b->selinux_applied = d->enforcing ? "enforcing" : "permissive";
	return 0;
}

/* The root's /etc/selinux/config read and the mode decided, reported. */
static int decide(struct boot *b, const char *kernel_enforcing, struct selinux_file_config *file,
		  struct selinux_decision *d)
{
	char err[CONFIG_ERR_MAX], emb[BOOT_PATH_MAX];

	if (hi_selinux_config_read(b->newroot, file, err, sizeof err) < 0) {
		if (b->cfg.selinux_require)
			return hi_boot_error(b, "SELinux: %s (SELinux is required)", err);
		log_warn("SELinux: %s; going on as if it were absent", err);
		memset(file, 0, sizeof *file);
	}
	bool have_embedded = embedded_path(b, emb, sizeof emb, "policy") && is_file(emb);
	hi_selinux_decide(d, kernel_enforcing, &b->cfg, file, have_embedded);
	if (d->warning[0])
		log_warn("%s", d->warning);
	hi_report_add(&b->rep, "selinux", "mode", d->action == SEACT_SKIP ? "skipped" : "info", "%s (%s)",
		   d->action == SEACT_SKIP ? "disabled" : d->enforcing ? "enforcing" : "permissive", d->why);
	return 0;
}

/* selinuxfs mounted and a policy in the kernel: the one chosen, or one an
 * earlier loader left. Returns 0 to go on, 1 to end the stage without a
 * policy (allowed: load_failed said so), -1 on failure. */
static int load_policy(struct boot *b, const struct selinux_decision *d, const struct selinux_file_config *file,
		       struct policy_choice *pc)
{
	char err[CONFIG_ERR_MAX], mnt[BOOT_PATH_MAX];

	silence_libselinux();
	if (mount_selinuxfs(b, mnt, sizeof mnt, err, sizeof err) < 0)
		return load_failed(b, d, err) < 0 ? -1 : 1;
	set_selinuxmnt(mnt);

	int kernel_max = security_policyvers();
	if (kernel_max < SELINUX_POLICY_VERS_MIN)
		kernel_max = SELINUX_POLICY_VERS_ASSUMED;
	bool found = choose_policy(b, file, kernel_max, pc);
	if (policy_loaded(b)) {
		/* An earlier loader did it (init= after an initramfs that loaded
		 * one): keep it, set the mode and booleans over it. */
		hi_report_add(&b->rep, "selinux", "policy", "already", "a policy was loaded before hardinit");
		b->selinux_policy_before = true;
		return 0;
	}
	if (!found) {
		char reason[BOOT_ERR_MAX];
		no_policy_reason(pc, kernel_max, reason, sizeof reason);
		return load_failed(b, d, reason) < 0 ? -1 : 1;
	}
	return load_policy_file(b, d, pc);
}

/* The booleans set and committed; the commit makes the kernel rebuild its
 * access vectors: kernel work, like the load, timed apart from both. */
static void apply_booleans(struct boot *b)
{
	uint64_t bool_start = hi_boottime_ns();
	set_booleans(b);
	if (b->cfg.n_booleans) {
		char ms[32];
		hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - bool_start);
		hi_report_add(&b->rep, "selinux", "booleans_ms", "info", "%s", ms);
	}
}

int hi_stage_selinux(struct boot *b)
{
	struct selinux_file_config file;
	struct selinux_decision d;
	struct policy_choice pc;
	const char *kernel_enforcing = hi_cmdline_get(&b->cmd, "enforcing", NULL);

	if (decide(b, kernel_enforcing, &file, &d) < 0)
		return -1;
	if (d.action == SEACT_SKIP) {
		log_info("SELinux: not loading a policy: %s", d.why);
		return 0;
	}
	/* A dry run runs on a build host, whose kernel is not the target's:
	 * it says what it sees of the kernel and never fails on it. */
	if (b->mode == MODE_DRY_RUN) {
		if (!selinux_in_kernel(b))
			log_info("dry run: this kernel has no selinuxfs; the target needs security=selinux");
		return dry_run(b, &d, &file);
	}
	if (!selinux_in_kernel(b))
		return selinuxfs_absent(b);
	int rc = load_policy(b, &d, &file, &pc);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (set_mode(b, &d) < 0)
		return -1;
	/* What the measure stage extends: the kernel's mode, read back. */
	int now = security_getenforce();
	b->selinux_applied = now == 1 ? "enforcing" : now == 0 ? "permissive" : NULL;
	apply_booleans(b);
	warn_systemd_mode(b, &d, kernel_enforcing, &file);
	return hi_selinux_relabel(b, pc.fc_path);
}
