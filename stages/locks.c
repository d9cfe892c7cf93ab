/* The locks stage, last before the report: one-way switches that close
 * doors an earlier stage may still have needed (module loading for the
 * boot's own modules, kexec, raw kernel access, ptrace). Each is set,
 * read back and reported; a configured lock that does not hold is fatal,
 * since the system would run weaker than its config says. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "hardening.h"
#include "locks.h"
#include "log.h"
#include "report.h"
#include "sysctl_apply.h"

static const char *const lockdown_names[] = { "none", "integrity", "confidentiality" };
#define LOCKDOWN_FILE_MAX 128

int hi_lockdown_parse_current(const char *text)
{
	const char *open = strchr(text, '[');
	const char *close = open ? strchr(open, ']') : NULL;

	if (!close)
		return -1;
	size_t len = (size_t)(close - open - 1);
	for (int i = 0; i < 3; i++)
		if (strlen(lockdown_names[i]) == len && strncmp(open + 1, lockdown_names[i], len) == 0)
			return i;
	return -1;
}

int hi_securityfs_ensure(const struct boot *b)
{
	char dir[BOOT_PATH_MAX], lsm[BOOT_PATH_MAX];

	if (!hi_boot_path(dir, sizeof dir, b->sys, "kernel/security") ||
	    !hi_boot_path(lsm, sizeof lsm, dir, "lsm"))
		return -1;
	if (access(lsm, F_OK) == 0)
		return 0;
	/* Mounting is PID 1's business: a dry run or a unit test (whose
	 * b->sys is a temporary tree) never mounts anything. */
	if (b->mode == MODE_DRY_RUN || getpid() != 1)
		return -1;
	/* securityfs holds the lockdown switch and the active LSM list; the
	 * early stage mounts sysfs only, and systemd skips a mounted one. */
	if (mount("securityfs", dir, "securityfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 &&
	    errno != EBUSY)
		return -1;
	return access(lsm, F_OK);
}

/* A one-way sysctl: kernel.modules_disabled, kernel.kexec_load_disabled.
 * Absent means the feature is not built in, so there is nothing to lock. */
static int lock_sysctl(struct boot *b, const char *key, const char *value, const char *what)
{
	struct sysctl_io io = hi_sysctl_io_proc(b->proc);
	struct sysctl_result r;

	if (b->mode == MODE_DRY_RUN) {
		hi_sysctl_check_one(&io, key, value, &r);
		log_info("locks: would set %s = %s (%s; now %s)", key, value, what,
			 r.outcome == SYSCTL_ABSENT ? "absent" : r.before);
		return 0;
	}
	hi_sysctl_apply_one(&io, key, value, &r);
	hi_report_add(&b->rep, "locks", key, hi_sysctl_outcome_name(r.outcome), "%s",
		   r.outcome == SYSCTL_ABSENT ? "not built into this kernel" : r.after);
	if (r.outcome == SYSCTL_ABSENT) {
		log_info("locks: %s absent: this kernel has no %s to lock", key, what);
		return 0;
	}
	if (r.outcome == SYSCTL_REFUSED)
		return hi_boot_error(b, "locks: %s = %s refused (%s; it reads %s); %s stays open",
				  key, value, r.err ? strerror(r.err) : "read back differs",
				  r.after[0] ? r.after : "nothing", what);
	log_info("locks: %s = %s (%s)", key, r.after, what);
	return 0;
}

/* Yama's scope only ever matters upwards here: 3 is one-way, and a scope
 * already above the configured one is kept. */
static int lock_ptrace(struct boot *b, int scope)
{
	struct sysctl_io io = hi_sysctl_io_proc(b->proc);
	struct sysctl_result r;
	char value[8], now[SYSCTL_VALUE_MAX];
	const char *key = "kernel.yama.ptrace_scope";

	snprintf(value, sizeof value, "%d", scope);
	if (b->mode == MODE_DRY_RUN) {
		log_info("locks: would set %s = %s", key, value);
		return 0;
	}
	if (io.read(io.ctx, key, now, sizeof now) == 0 && atoi(now) > scope) {
		hi_report_add(&b->rep, "locks", key, "already", "%s", now);
		return 0;
	}
	hi_sysctl_apply_one(&io, key, value, &r);
	hi_report_add(&b->rep, "locks", key, hi_sysctl_outcome_name(r.outcome), "%s", r.after);
	if (r.outcome == SYSCTL_ABSENT)
		return hi_boot_error(b, "locks: %s is absent (Yama is not active on this kernel); "
				  "add yama to lsm= or set [locks] ptrace_scope = -1", key);
	if (r.outcome == SYSCTL_REFUSED)
		return hi_boot_error(b, "locks: %s = %d refused (%s; it reads %s)", key, scope,
				  r.err ? strerror(r.err) : "read back differs", r.after[0] ? r.after : "nothing");
	return 0;
}

/* Lockdown (5.4) can be raised by writing a level name and never lowered
 * (a lower level is refused with EPERM); compare with the bracketed
 * current level first and write only to go up. */
static int raise_lockdown(struct boot *b, enum lockdown_level want)
{
	char path[BOOT_PATH_MAX], buf[LOCKDOWN_FILE_MAX];
	const char *name = lockdown_names[want];

	if (b->mode == MODE_DRY_RUN) {
		log_info("locks: would raise lockdown to %s", name);
		return 0;
	}
	if (hi_securityfs_ensure(b) < 0 ||
	    !hi_boot_path(path, sizeof path, b->sys, "kernel/security/lockdown") ||
	    hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return hi_boot_error(b, "locks: lockdown %s is configured but %s/kernel/security/lockdown "
				  "cannot be read (%s); the lockdown LSM must be active (lsm=) and "
				  "securityfs mounted, or set [locks] lockdown = none",
				  name, b->sys, strerror(errno));
	int current = hi_lockdown_parse_current(buf);
	if (current < 0)
		return hi_boot_error(b, "locks: cannot parse the lockdown level '%s'", buf);
	if (current >= (int)want) {
		hi_report_add(&b->rep, "locks", "lockdown", "already", "%s", lockdown_names[current]);
		return 0;
	}
	if (hi_fs_write(path, name) < 0)
		return hi_boot_error(b, "locks: raising lockdown from %s to %s failed: %s",
				  lockdown_names[current], name, strerror(errno));
	if (hi_fs_read(path, buf, sizeof buf, NULL) < 0 || hi_lockdown_parse_current(buf) < (int)want)
		return hi_boot_error(b, "locks: lockdown reads '%s' after writing %s", buf, name);
	log_info("locks: lockdown raised from %s to %s", lockdown_names[current], name);
	hi_report_add(&b->rep, "locks", "lockdown", "applied", "%s", name);
	return 0;
}

int hi_stage_locks(struct boot *b)
{
	if (b->cfg.lock_modules &&
	    lock_sysctl(b, "kernel.modules_disabled", "1", "module loading") < 0)
		return -1;
	if (b->cfg.lock_kexec &&
	    lock_sysctl(b, "kernel.kexec_load_disabled", "1", "kexec_load") < 0)
		return -1;
	if (b->cfg.lockdown != LOCKDOWN_NONE && raise_lockdown(b, b->cfg.lockdown) < 0)
		return -1;
	if (b->cfg.ptrace_scope >= 0 && lock_ptrace(b, b->cfg.ptrace_scope) < 0)
		return -1;
	return 0;
}
