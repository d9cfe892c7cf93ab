/* The sysctl stage: the profile's sysctls (write, read back, classify),
 * the boot command-line protections PID 1 can only check, and a sysctl.d
 * drop-in so systemd-sysctl does not undo them later in the boot. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "boot.h"
#include "fsutil.h"
#include "locks.h"
#include "selinux_label.h"
#include "hardening.h"
#include "hypervisor.h"
#include "log.h"
#include "report.h"
#include "sysctl.h"
#include "sysctl_apply.h"
#include "sysctl_early.h"
#include "sysctl_microcode.h"
#include "sysctl_start.h"

#define KERNEL_FILE_MAX       1024   /* lsm list, lockdown, one module parameter */
#define VULNERABILITIES_MAX   48     /* files in .../cpu/vulnerabilities; 6.12 has ~20 */

/* ---- the profile's sysctls ---- */

static int sysctl_failed(struct boot *b, const struct sysctl_setting *s, const struct sysctl_result *r)
{
	const char *status = hi_sysctl_outcome_name(r->outcome);
	const char *err = r->err ? strerror(r->err) : "read back differs";

	if (s->required && r->outcome == SYSCTL_ABSENT)
		return hi_boot_error(b, "sysctl: %s is required but this kernel has no such sysctl; "
				  "boot a kernel that has it or drop it from [sysctl] require", s->key);
	if (s->required)
		return hi_boot_error(b, "sysctl: %s is required at %s but the kernel refused it (%s; it reads %s); "
				  "fix the value or drop it from [sysctl] require", s->key, s->value, err,
				  r->after[0] ? r->after : "nothing");
	/* sysctl.d's leading '-': the user expects this one may not exist. */
	if (s->ignore_failure)
		log_info("sysctl: %s %s (ignored as configured)", s->key, status);
	else if (r->outcome == SYSCTL_ABSENT)
		log_warn("sysctl: %s is absent on this kernel; left as is", s->key);
	else
		log_warn("sysctl: %s = %s refused (%s; it reads %s)", s->key, s->value, err,
			 r->after[0] ? r->after : "nothing");
	return 0;
}

static void log_write(const struct sysctl_setting *s, const struct sysctl_result *r,
		      uint64_t took_ns, const char *where)
{
	log_debug("sysctl: %s = %s: %s, reads %s, %llu.%03llu ms%s", s->key, s->value,
		  hi_sysctl_outcome_name(r->outcome), r->after[0] ? r->after : "nothing",
		  (unsigned long long)(took_ns / 1000000), (unsigned long long)(took_ns / 1000 % 1000), where);
}

static void dry_run_one(const struct sysctl_io *io, const struct sysctl_setting *s)
{
	struct sysctl_result r;

	hi_sysctl_check_one(io, s->key, s->value, &r);
	if (r.outcome == SYSCTL_ALREADY)
		log_info("sysctl: %s = %s already", s->key, s->value);
	else if (r.outcome == SYSCTL_ABSENT)
		log_info("sysctl: %s is absent on this kernel%s", s->key,
			 s->required ? " (required: the boot would fail)" : "");
	else
		log_info("sysctl: would set %s = %s (now %s)", s->key, s->value, r.before);
}

/* The result of one write: the early writer's when it made it (an absent
 * one is tried again here: a module loaded since may have brought it),
 * else written now. */
static void write_one(struct boot *b, const struct sysctl_io *io, const struct sysctl_setting *s,
		      struct sysctl_result *r)
{
	const struct sysctl_early_slot *e = hi_sysctl_early_find(b->sysctl_early, s->key, s->value);

	if (e && e->judged.outcome != SYSCTL_ABSENT) {
		*r = e->judged;
		log_write(s, r, e->took_ns, " (started early)");
		return;
	}
	uint64_t start = hi_boottime_ns();
	hi_sysctl_apply_one(io, s->key, s->value, r);
	log_write(s, r, hi_boottime_ns() - start, "");
}

static int apply_sysctls(struct boot *b)
{
	struct sysctl_io io = hi_sysctl_io_proc(b->proc);
	struct sysctl_result r;

	/* Before any result is used: every early write is finished (or judged
	 * refused) here, never later than this stage. */
	(void)hi_sysctl_early_collect(b->sysctl_early);
	for (size_t i = 0; i < b->cfg.n_sysctls && i < CONFIG_MAX_SYSCTLS; i++) {
		const struct sysctl_setting *s = &b->cfg.sysctls[i];

		if (b->mode == MODE_DRY_RUN) {
			dry_run_one(&io, s);
			continue;
		}
		write_one(b, &io, s, &r);
		hi_report_add(&b->rep, "sysctl", s->key, hi_sysctl_outcome_name(r.outcome), "%s",
			   r.outcome == SYSCTL_ABSENT ? s->value : r.after);
		if (r.outcome == SYSCTL_APPLIED || r.outcome == SYSCTL_ALREADY)
			continue;
		if (sysctl_failed(b, s, &r) < 0)
			return -1;
	}
	return 0;
}

/* ---- command-line protections: seen, not set ---- */

static const char *const lockdown_names[] = { "none", "integrity", "confidentiality" };

static int read_sys(const struct boot *b, const char *rel, char *buf, size_t cap)
{
	char path[BOOT_PATH_MAX];

	if (!hi_boot_path(path, sizeof path, b->sys, rel) || hi_fs_read(path, buf, cap, NULL) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool in_comma_list(const char *list, const char *name, size_t len)
{
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && strncmp(p, name, len) == 0)
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

/* lockdown=X is in force when the live level is at least X, whoever
 * raised it (command line, secure boot, an earlier hardinit stage). */
static int live_lockdown(const struct boot *b, const char *want, char *why, size_t whylen)
{
	char buf[KERNEL_FILE_MAX];
	int want_level = -1;

	for (int i = 0; i < 3; i++)
		if (strcmp(want, lockdown_names[i]) == 0)
			want_level = i;
	if (want_level < 0 || read_sys(b, "kernel/security/lockdown", buf, sizeof buf) < 0)
		return -1;
	int level = hi_lockdown_parse_current(buf);
	if (level < 0)
		return -1;
	snprintf(why, whylen, "lockdown is %s", lockdown_names[level]);
	return level >= want_level;
}

/* lsm=a,b / security=a: every named LSM is in the active list. */
static int live_lsm(const struct boot *b, const char *want, char *why, size_t whylen)
{
	char active[KERNEL_FILE_MAX];

	if (read_sys(b, "kernel/security/lsm", active, sizeof active) < 0)
		return -1;
	for (const char *p = want; *p;) {
		size_t l = strcspn(p, ",");
		if (l > 0 && !in_comma_list(active, p, l)) {
			snprintf(why, whylen, "%.*s is not active (active: %.60s)", (int)l, p, active);
			return 0;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	snprintf(why, whylen, "active: %.60s", active);
	return 1;
}

static const char *bool_word(const char *v)
{
	static const char *const yes[] = { "1", "y", "Y", "yes", "on", "true" };
	static const char *const no[] = { "0", "n", "N", "no", "off", "false" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcmp(v, yes[i]) == 0)
			return "Y";
		if (strcmp(v, no[i]) == 0)
			return "N";
	}
	return v;
}

/* A sysfs file showing a word's live value (a boolean or a number). */
static int live_sys_value(const struct boot *b, const char *rel, const char *want, char *why, size_t whylen)
{
	char buf[KERNEL_FILE_MAX];

	if (read_sys(b, rel, buf, sizeof buf) < 0)
		return -1;
	snprintf(why, whylen, "%s reads %.40s", rel, buf);
	return strcmp(bool_word(buf), bool_word(want)) == 0;
}

/* module.param=value (page_alloc.shuffle=1): built-in code's parameters
 * show under /sys/module/MODULE/parameters/PARAM when they are readable. */
static int live_module_param(const struct boot *b, const char *key, const char *want,
			     char *why, size_t whylen)
{
	char rel[CONFIG_NAME_MAX + 32];
	const char *dot = strchr(key, '.');

	if (!dot || strchr(dot + 1, '.') || strchr(key, '/'))
		return -1;
	snprintf(rel, sizeof rel, "module/%.*s/parameters/%s", (int)(dot - key), key, dot + 1);
	return live_sys_value(b, rel, want, why, whylen);
}

bool hi_kernel_opt_in_force(const struct boot *b, const char *word, char *why, size_t whylen)
{
	char key[CONFIG_NAME_MAX];
	const char *eq = strchr(word, '=');
	const char *want = eq ? eq + 1 : NULL;
	bool bare = false;

	snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - word) : (int)strlen(word), word);
	const char *v = hi_cmdline_get(&b->cmd, key, &bare);
	if (want ? (v && strcmp(v, want) == 0) : (bare || v)) {
		snprintf(why, whylen, "on the command line");
		return true;
	}

	int live = -1;
	if (want && strcmp(key, "lockdown") == 0)
		live = live_lockdown(b, want, why, whylen);
	else if (want && (strcmp(key, "lsm") == 0 || strcmp(key, "security") == 0))
		live = live_lsm(b, want, why, whylen);
	else if (want && strchr(key, '.'))
		live = live_module_param(b, key, want, why, whylen);
	else if (want && strcmp(key, "xen_scrub_pages") == 0)
		/* a core_param, hidden from /sys/module: the balloon shows it */
		live = live_sys_value(b, HYPERVISOR_XEN_SCRUB_PAGES, want, why, whylen);
	else if (want && strcmp(key, "mitigations") == 0 && strcmp(want, "auto") == 0 && !v) {
		snprintf(why, whylen, "the default when mitigations= is absent");
		live = 1;
	}
	if (live >= 0)
		return live == 1;
	if (v)
		snprintf(why, whylen, "command line has %s=%.60s", key, v);
	else
		snprintf(why, whylen, "not on the command line; this kernel shows no live state for it");
	return false;
}

/* What the CPU-bug mitigations actually are, next to the mitigations=
 * word: "Vulnerable" lines are warnings, the rest facts; on a Xen PV guest
 * every line is the hypervisor's (hypervisor.h), neither. */
static void report_vulnerabilities(struct boot *b)
{
	char dir[BOOT_PATH_MAX];
	size_t seen = 0;
	bool xen_pv = hi_hypervisor_xen_pv(b->sys);

	/* The microcode revision the CPU runs: after an early update from the
	 * initrd's kernel/x86/microcode/ (hardinit-mkinitramfs --microcode),
	 * the updated one. Mitigations such as MDS's buffer clearing need it. */
	char rev[64];
	if (read_sys(b, "devices/system/cpu/cpu0/microcode/version", rev, sizeof rev) == 0) {
		char early[MICROCODE_WHAT_MAX];
		hi_report_add(&b->rep, "kernel", "microcode", "info", "cpu0 runs microcode revision %s", rev);
		/* Whether that revision came from the initrd: the kernel says
		 * so only in its log. */
		int early_seen = hi_microcode_early_seen(b, early, sizeof early);
		if (early_seen == 1)
			hi_report_add(&b->rep, "kernel", "microcode_early", "ok", "the kernel loaded an early update (%s)", early);
		else
			hi_report_add(&b->rep, "kernel", "microcode_early", "info", "%s",
				   early_seen == 0 ? "no early update in the kernel log: the CPU runs the firmware's microcode"
					     : "the kernel log is unreadable: whether an early update was loaded is unknown");
	}
	if (!hi_boot_path(dir, sizeof dir, b->sys, "devices/system/cpu/vulnerabilities"))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	if (xen_pv)
		log_info("kernel: %s; their lines are in the report with status hypervisor",
			 HYPERVISOR_VULN_NOTE);
	for (struct dirent *e; (e = readdir(d)) != NULL && seen < VULNERABILITIES_MAX;) {
		char buf[KERNEL_FILE_MAX];
		if (e->d_name[0] == '.')
			continue;
		seen++;
		if (hi_fs_read_at(dirfd(d), e->d_name, buf, sizeof buf) < 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (xen_pv) {
			hi_report_add(&b->rep, "kernel", e->d_name, "hypervisor", "%s", buf);
			continue;
		}
		bool vulnerable = strncmp(buf, "Vulnerable", 10) == 0;
		if (vulnerable)
			log_warn("kernel: cpu vulnerability %s: %s", e->d_name, buf);
		hi_report_add(&b->rep, "kernel", e->d_name, vulnerable ? "warn" : "info", "%s", buf);
	}
	closedir(d);
}

/* A [kernel] warn word not in force, and why: warned after the checks. */
struct missing_opt {
	const char *word;
	char why[160];
};

/* The words to warn about, one console line per reason rather than per
 * word: a profile warns about some 40 words a stock kernel does not show,
 * nearly all for the same reason, and each console line is a printk to
 * the serial console on PID 1's path. Each word and its reason stay in
 * the report. A line holds the words that fit LOG_LINE_MAX. */
static void warn_missing(const struct missing_opt *m, size_t n)
{
	bool done[CONFIG_MAX_KERNEL_OPTS] = { false };

	for (size_t i = 0; i < n; i++) {
		char words[LOG_LINE_MAX / 2];
		size_t used = 0, count = 0;
		if (done[i])
			continue;
		/* m[i] first, unless it alone is longer than words (then alone) */
		for (size_t j = i; j < n; j++) {
			size_t len = strlen(m[j].word);
			if (done[j] || strcmp(m[j].why, m[i].why) != 0 || used + len + 3 > sizeof words)
				continue;
			used += (size_t)snprintf(words + used, sizeof words - used, "%s%s", used ? ", " : "", m[j].word);
			done[j] = true;
			count++;
		}
		if (count > 1)
			log_warn("kernel: boot options %s are not in force (each: %s)", words, m[i].why);
		else
			log_warn("kernel: boot option %s is not in force (%s)", m[i].word, m[i].why);
		done[i] = true;
	}
}

static int check_kernel_opts(struct boot *b)
{
	static struct missing_opt missing[CONFIG_MAX_KERNEL_OPTS];
	size_t n_missing = 0;
	bool saw_mitigations = false;

	/* The lockdown level and the LSM list live on securityfs. */
	if (b->cfg.n_kernel_opts > 0)
		(void)hi_securityfs_ensure(b);

	for (size_t i = 0; i < b->cfg.n_kernel_opts && i < CONFIG_MAX_KERNEL_OPTS; i++) {
		const struct kernel_opt *o = &b->cfg.kernel_opts[i];
		char why[160];

		const struct arch *owner = hi_arch_of_word(o->word);
		if (owner && owner != hi_arch_native()) {
			hi_report_add(&b->rep, "kernel", o->word, "skipped", "a word of %s kernels only", owner->name);
			continue;
		}
		if (strncmp(o->word, "mitigations", 11) == 0)
			saw_mitigations = true;
		if (hi_kernel_opt_in_force(b, o->word, why, sizeof why)) {
			hi_report_add(&b->rep, "kernel", o->word, "ok", "%s", why);
			continue;
		}
		if (o->required)
			return hi_boot_error(b, "kernel: required boot option %s is not in force (%s); "
					  "add it to the kernel command line", o->word, why);
		missing[n_missing].word = o->word;
		snprintf(missing[n_missing++].why, sizeof missing[0].why, "%s", why);
		hi_report_add(&b->rep, "kernel", o->word, "warn", "%s", why);
	}
	warn_missing(missing, n_missing);
	if (saw_mitigations)
		report_vulnerabilities(b);
	return 0;
}

/* ---- keeping them: a drop-in for systemd-sysctl ---- */

static bool dropin_safe(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '=' || *p == '#' || *p == ';')
			return false;
	return true;
}

#define PTRACE_KEY "kernel.yama.ptrace_scope"

static int append(char *out, size_t cap, size_t *used, const char *key, const char *value)
{
	int n = snprintf(out + *used, cap - *used, "%s = %s\n", key, value);
	if (n < 0 || (size_t)n >= cap - *used)
		return -1;
	*used += (size_t)n;
	return 0;
}

int hi_sysctl_dropin_format(const struct report *r, int ptrace_scope, char *out, size_t cap)
{
	size_t used = 0;
	int n = snprintf(out, cap,
		"# Written by hardinit at boot; rebuilt every boot (this is /run).\n"
		"# systemd-sysctl applies every sysctl.d file in file-name order, the last\n"
		"# setting winning, so this file's name sorts last and the values hardinit\n"
		"# set stay in force (Debian's 99-protect-links.conf would lower\n"
		"# fs.protected_fifos to 1). Change them in hardinit.conf, not here.\n");
	if (n < 0 || (size_t)n >= cap)
		return -1;
	used = (size_t)n;
	for (size_t i = 0; i < r->n_items && i < REPORT_MAX_ITEMS; i++) {
		const struct report_item *it = &r->items[i];
		if (strcmp(it->stage, "sysctl") != 0 && strcmp(it->stage, "memory") != 0)
			continue;
		if (strcmp(it->status, "applied") != 0 && strcmp(it->status, "already") != 0)
			continue;
		/* Only sysctl keys (dotted) with values sysctl.d can carry. */
		if (!strchr(it->key, '.') || !dropin_safe(it->key) || !dropin_safe(it->value))
			continue;
		/* The ptrace scope gets one line below: the highest asked for. */
		if (strcmp(it->key, PTRACE_KEY) == 0) {
			int v = atoi(it->value);
			if (v > ptrace_scope)
				ptrace_scope = v;
			continue;
		}
		if (append(out, cap, &used, it->key, it->value) < 0)
			return -1;
	}
	/* The locks stage runs after this one and may raise the scope; a
	 * lower line (Debian's 0, or [sysctl]'s 2 under [locks]' one-way 3)
	 * would be refused or, worse, accepted. */
	if (ptrace_scope >= 0 && ptrace_scope <= 3) {
		char v[4];
		snprintf(v, sizeof v, "%d", ptrace_scope);
		if (append(out, cap, &used, PTRACE_KEY, v) < 0)
			return -1;
	}
	return (int)used;
}

static void persist(struct boot *b)
{
	static char text[SYSCTL_DROPIN_MAX];
	char path[BOOT_PATH_MAX];

	if (!b->cfg.sysctl_persist) {
		hi_report_add(&b->rep, "sysctl", "persist", "skipped", "[sysctl] persist = no");
		return;
	}
	if (!hi_boot_path(path, sizeof path, b->run, "sysctl.d/" SYSCTL_DROPIN_NAME))
		return;
	if (b->mode == MODE_DRY_RUN) {
		log_info("sysctl: would write %s for systemd-sysctl and sysctl --system", path);
		return;
	}
	if (hi_sysctl_dropin_format(&b->rep, b->cfg.ptrace_scope, text, sizeof text) < 0) {
		log_warn("sysctl: drop-in larger than %d bytes; not written, systemd-sysctl may "
			 "re-apply weaker values", SYSCTL_DROPIN_MAX);
		hi_report_add(&b->rep, "sysctl", "persist", "failed", "too large");
		return;
	}
	if (hi_fs_write_new(path, text) < 0) {
		log_warn("sysctl: cannot write %s: %s; systemd-sysctl may re-apply weaker values",
			 path, strerror(errno));
		hi_report_add(&b->rep, "sysctl", "persist", "failed", "%s: %s", path, strerror(errno));
		return;
	}
	/* The policy has no rule for /run/sysctl.d; labelled as the same file
	 * in /etc/sysctl.d (etc_t), systemd-sysctl may read it in enforcing
	 * mode, where var_run_t would be denied. */
	if (hi_label_path_as(b, path, "/etc/sysctl.d/" SYSCTL_DROPIN_NAME, S_IFREG) < 0)
		log_warn("sysctl: cannot label %s: %s; in enforcing mode systemd-sysctl will not read it",
			 path, strerror(errno));
	log_info("sysctl: wrote %s so systemd-sysctl and sysctl --system keep these values", path);
	hi_report_add(&b->rep, "sysctl", "persist", "applied", "%s", path);
}

int hi_stage_sysctl(struct boot *b)
{
	if (apply_sysctls(b) < 0)
		return -1;
	if (check_kernel_opts(b) < 0)
		return -1;
	persist(b);
	return 0;
}
