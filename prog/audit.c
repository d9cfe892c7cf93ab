/* hardinit audit: compare the live system with what hardinit was asked to
 * do at boot (the effective config it saved in /run/hardinit/config) and
 * what it reported doing (/run/hardinit/report.txt). One line per item,
 * expected against actual, ok or drift; exit 1 on any drift. It only
 * reads: nothing here changes the system. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cap-ng.h>

#include "audit.h"
#include "audit_posture.h"
#include "audit_types.h"
#include "config.h"
#include "firmware.h"
#include "audit_export.h"
#include "fsutil.h"
#include "hardening.h"
#include "hypervisor.h"
#include "ima.h"
#include "luks_plan.h"
#include "measure.h"
#include "pcrphase.h"
#include "sha256.h"
#include "sink.h"
#include "tpm_dev.h"
#include "mounts.h"
#include "dm.h"
#include "verity_sb.h"

#define AUDIT_REPORT_MAX  (256 * 1024)

static void add(struct audit *a, const char *what, const char *expected, const char *actual, int drift)
{
	if (a->n >= AUDIT_MAX_ITEMS) {
		a->dropped++;
		return;
	}
	struct audit_item *it = &a->items[a->n++];
	snprintf(it->what, sizeof it->what, "%s", what);
	snprintf(it->expected, sizeof it->expected, "%s", expected);
	snprintf(it->actual, sizeof it->actual, "%s", actual);
	it->drift = drift;
}

static void check_sysctl(struct audit *a, const char *key, const char *expected, int required)
{
	char live[128], what[128];

	snprintf(what, sizeof what, "sysctl %s", key);
	if (hi_sysctl_read(a->proc, key, live, sizeof live) < 0) {
		/* Absent at boot is reported then; it is drift only if required. */
		add(a, what, expected, errno == ENOENT ? "absent" : strerror(errno), required || errno != ENOENT);
		return;
	}
	add(a, what, expected, live, !hi_sysctl_value_equal(live, expected));
}

/* A line of report.txt: "stage key status value...". */
struct report_line {
	char stage[16], key[96], status[16];
	const char *value;
};

static int split_report_line(char *line, struct report_line *r)
{
	int n = 0;
	if (sscanf(line, "%15s %95s %15s %n", r->stage, r->key, r->status, &n) < 3)
		return -1;
	r->value = line + n;
	return 0;
}

/* Sysctls the memory, locks and tty stages set from [memory], [locks] and
 * [tty] (not listed under [sysctl]) are in the report with their value. */
static void check_reported_sysctl(struct audit *a, const struct report_line *r)
{
	char value[96];

	if (strcmp(r->stage, "memory") && strcmp(r->stage, "locks") && strcmp(r->stage, "tty"))
		return;
	if (!strchr(r->key, '.') || (strcmp(r->status, "applied") && strcmp(r->status, "already")))
		return;
	snprintf(value, sizeof value, "%s", r->value);
	value[strcspn(value, " (")] = '\0';
	check_sysctl(a, r->key, value, 0);
}

static void check_parent(struct audit *a, const struct report_line *r)
{
	char path[256], what[300], actual[96];
	struct stat st;

	if (strcmp(r->stage, "mounts") || (strcmp(r->status, "created") && strcmp(r->status, "ok")) || r->value[0] != '/')
		return;
	snprintf(path, sizeof path, "%s", r->value);
	path[strcspn(path, " ")] = '\0';
	snprintf(what, sizeof what, "instance parent %s", path);
	if (lstat(path, &st) < 0) {
		add(a, what, "dir 0000 root", strerror(errno), 1);
		return;
	}
	snprintf(actual, sizeof actual, "%s %04o uid %u", S_ISDIR(st.st_mode) ? "dir" : "not-dir",
		 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
	add(a, what, "dir 0000 root", actual, !S_ISDIR(st.st_mode) || (st.st_mode & 07777) || st.st_uid != 0);
}

static void check_selinux(struct audit *a, const struct report_line *r)
{
	char path[512], live[64], expected[64];

	if (strcmp(r->stage, "selinux") || (strcmp(r->status, "applied") && strcmp(r->status, "already")))
		return;
	if (strcmp(r->key, "enforce") == 0) {
		snprintf(expected, sizeof expected, "%s", r->value);
		expected[strcspn(expected, " ")] = '\0';
		snprintf(path, sizeof path, "%s/fs/selinux/enforce", a->sys);
		if (hi_fs_read(path, live, sizeof live, NULL) < 0) {
			add(a, "selinux mode", expected, "selinuxfs unreadable", 1);
			return;
		}
		const char *mode = atoi(live) ? "enforcing" : "permissive";
		add(a, "selinux mode", expected, mode, strcmp(expected, mode) != 0);
	} else if (strcmp(r->key, "boolean") == 0) {
		char name[96], what[128];
		const char *eq = strchr(r->value, '=');
		if (!eq || (size_t)(eq - r->value) >= sizeof name)
			return;
		snprintf(name, sizeof name, "%.*s", (int)(eq - r->value), r->value);
		int want = strncmp(eq + 1, "on", 2) == 0 || eq[1] == '1';
		snprintf(path, sizeof path, "%s/fs/selinux/booleans/%s", a->sys, name);
		snprintf(what, sizeof what, "selinux boolean %s", name);
		if (hi_fs_read(path, live, sizeof live, NULL) < 0) {
			add(a, what, want ? "on" : "off", "absent", 1);
			return;
		}
		int now = atoi(live);
		add(a, what, want ? "on" : "off", now ? "on" : "off", now != want);
	}
}

static void check_mdwe(struct audit *a, const struct report_line *r)
{
	if (strcmp(r->stage, "memory") || strcmp(r->key, "mdwe") || strcmp(r->status, "applied"))
		return;
	/* Inherited from PID 1 by every process, this one included. */
	int now = prctl(PR_GET_MDWE, 0, 0, 0, 0);
	add(a, "memory-deny-write-execute", "refuse-exec-gain", now > 0 && (now & 1) ? "refuse-exec-gain" : "off",
	    !(now > 0 && (now & 1)));
}

/* The TIOCSTI filter lives in PID 1 and everything it started: PID 1's
 * status must still say seccomp filter mode (2). */
static void check_seccomp(struct audit *a, const struct report_line *r)
{
	char path[512], status[8192];

	if (strcmp(r->stage, "tty") || strcmp(r->key, "seccomp") || strcmp(r->status, "applied"))
		return;
	snprintf(path, sizeof path, "%s/1/status", a->proc);
	const char *line = NULL;
	if (hi_fs_read(path, status, sizeof status, NULL) == 0)
		line = strstr(status, "\nSeccomp:");
	int mode = line ? atoi(line + 9) : -1;
	add(a, "TIOCSTI seccomp filter in PID 1", "filter", mode == 2 ? "filter" : mode < 0 ? "unreadable" : "none",
	    mode != 2);
}

/* How the kernel was started (the firmware stage's report) against what
 * efivarfs and securityfs say now. Efivarfs is systemd's to mount; when
 * it is not mounted the live Secure Boot state is unknown, not drift. */
static void check_firmware(struct audit *a, const struct report_line *r)
{
	static const char *const levels[] = { "none", "integrity", "confidentiality" };
	struct firmware_facts f;
	char booted[96];

	if (strcmp(r->stage, "firmware") || (strcmp(r->key, "secure_boot") && strcmp(r->key, "uki") &&
					      strcmp(r->key, "lockdown")))
		return;
	hi_firmware_read(a->sys, &f);
	snprintf(booted, sizeof booted, "%s", r->value);
	booted[strcspn(booted, " ")] = '\0';
	if (strcmp(r->key, "secure_boot") == 0) {
		const char *now = !f.efi ? "no-efi" : f.secure_boot == 1 ? "on" : f.secure_boot == 0 ? "off" : NULL;
		add(a, "secure boot", booted, now ? now : "unknown (efivarfs not mounted)",
		    now && strcmp(now, booted) != 0);
	} else if (strcmp(r->key, "uki") == 0) {
		const char *now = f.stub[0] ? "yes" : f.efivars ? "no" : NULL;
		add(a, "started from a unified kernel image", booted,
		    now ? now : "unknown (efivarfs not mounted)", now && strcmp(now, booted) != 0);
	} else {
		int want = -1;
		for (int i = 0; i < 3; i++)
			if (strcmp(booted, levels[i]) == 0)
				want = i;
		/* Lockdown only rises; below the kernel's own choice is drift. */
		add(a, "kernel lockdown (at least the level at boot)", booted,
		    f.lockdown >= 0 ? levels[f.lockdown] : "unreadable", want >= 0 && f.lockdown < want);
	}
}

/* IMA appraisal as the kernel took it from its command line: when the
 * boot's policy had appraise rules (the ima stage's appraise_mode line),
 * an ima_appraise=off|log|fix word leaves every one of them a log line. */
static void check_ima_appraise(struct audit *a, const struct report_line *r)
{
	static struct cmdline cmd;
	char path[512], text[CMDLINE_MAX_BYTES], err[160], actual[96];
	const char *word = NULL;
	size_t len = 0;

	if (strcmp(r->stage, "ima") || strcmp(r->key, "appraise_mode"))
		return;
	snprintf(path, sizeof path, "%s/cmdline", a->proc);
	if (hi_fs_read(path, text, sizeof text, &len) < 0 || hi_cmdline_parse(&cmd, text, len, err, sizeof err) < 0) {
		add(a, "IMA appraisal (ima_appraise= of the kernel)", "enforce", "kernel command line unreadable", 1);
		return;
	}
	enum ima_appraise_mode m = hi_ima_appraise_cmdline(&cmd, &word);
	bool disarmed = hi_ima_appraise_disarmed(m);
	snprintf(actual, sizeof actual, disarmed ? "%s (ima_appraise=%.40s)" : "enforce", hi_ima_appraise_mode_name(m),
		 word ? word : "");
	add(a, "IMA appraisal (ima_appraise= of the kernel)", "enforce", actual, disarmed);
}

/* What opened each LUKS volume and whether its identity went into a PCR
 * (the luks stage's "luks unlock" lines: "NAME by MECH, PCR ..."). Which
 * mechanism is a fact, never drift; a PCR left unmeasured with a TPM
 * there is drift: a token bound to it could then be unsealed after a
 * volume its writer opened. No TPM or tpm2-measure-pcr=no are as booted. */
static void check_luks(struct audit *a, const struct report_line *r)
{
	char name[LUKS_NAME_MAX], mech[16], what[96];     /* %63s: LUKS_NAME_MAX - 1 */
	int n = 0;

	if (strcmp(r->stage, "luks") || strcmp(r->key, "unlock"))
		return;
	if (sscanf(r->value, "%63s by %15[^,], %n", name, mech, &n) < 2 || !n || strncmp(r->value + n, "PCR ", 4)) {
		add(a, "LUKS volume unlock (boot report)", "NAME by MECHANISM, PCR ...", r->value, 1);
		return;
	}
	snprintf(what, sizeof what, "LUKS %s opened by", name);
	add(a, what, "passphrase or tpm2", mech, 0);
	snprintf(what, sizeof what, "LUKS %s identity in a PCR", name);
	bool failed = !strcmp(r->status, "failed");
	add(a, what, failed ? "PCR measured" : r->value + n, r->value + n, failed);
}

static int read_report(struct audit *a, const char *path)
{
	static char text[AUDIT_REPORT_MAX];

	if (hi_fs_read(path, text, sizeof text, NULL) < 0) {
		snprintf(a->error, sizeof a->error,
			 "cannot read the boot report %s: %s; was this system booted by hardinit?", path, strerror(errno));
		return -1;
	}
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct report_line r;
		if (strncmp(line, "stage ", 6) == 0 || split_report_line(line, &r) < 0)
			continue;
		check_reported_sysctl(a, &r);
		check_parent(a, &r);
		check_selinux(a, &r);
		check_mdwe(a, &r);
		check_seccomp(a, &r);
		check_firmware(a, &r);
		check_ima_appraise(a, &r);
		check_luks(a, &r);
	}
	return 0;
}

/* PID 1's bounding set and the usermodehelper sets must lack every
 * dropped capability. */
static void check_caps(struct audit *a, const struct config *c)
{
	char path[512], status[8192], what[96];
	uint64_t bnd = 0;

	if (c->n_cap_drop == 0)
		return;
	snprintf(path, sizeof path, "%s/1/status", a->proc);
	const char *line = NULL;
	if (hi_fs_read(path, status, sizeof status, NULL) == 0)
		line = strstr(status, "\nCapBnd:");
	if (!line) {
		add(a, "capabilities of PID 1", "readable", "unreadable", 1);
		return;
	}
	bnd = strtoull(line + 8, NULL, 16);
	for (size_t i = 0; i < c->n_cap_drop; i++) {
		int cap = c->cap_drop[i];
		const char *name = capng_capability_to_name((unsigned)cap);
		snprintf(what, sizeof what, "PID 1 bounding set cap_%s", name ? name : "?");
		int present = cap < 64 && (bnd >> cap) & 1;
		add(a, what, "dropped", present ? "present" : "dropped", present);
	}
}

/* The mounts stage's own parser (stages/mounts.c): the last entry for /
 * is the kernel's view, a mountinfo over the limit is not half-read. */
static void check_mount_shared(struct audit *a, const struct config *c)
{
	char path[512];
	struct mountinfo_entry m;

	if (!c->mount_shared)
		return;
	snprintf(path, sizeof path, "%s/1/mountinfo", a->proc);
	int found = hi_mountinfo_find_file(path, "/", &m);
	if (found < 0)
		add(a, "mount propagation /", "shared", errno == E2BIG ? "mountinfo over the limit" :
		    "mountinfo unreadable", 1);
	else if (found == 0)
		add(a, "mount propagation /", "shared", "no / in mountinfo", 1);
	else
		add(a, "mount propagation /", "shared", m.shared ? "shared" : "private", !m.shared);
}

/* What the boot set up, from the verity stage's report lines: the root
 * hash, the corruption mode and the options (the kernel's words). Without
 * them (a report from before they were written) the config says: its
 * [verity] options words, which win over on_corruption at boot, then
 * on_corruption. */
struct verity_booted {
	char hash[CONFIG_ROOT_HASH_MAX];
	char mode[16];
	char options[VERITY_TABLE_MAX];
};

static void verity_booted_setup(const struct config *c, const char *report_path, struct verity_booted *v)
{
	static char text[AUDIT_REPORT_MAX];
	struct verity_params p;
	char err[VERITY_ERR_MAX], *save = NULL;

	hi_verity_params_defaults(&p);
	if (hi_verity_options_parse(c->verity_options, &p, err, sizeof err) < 0 || !p.corruption_set)
		p.on_corruption = c->verity_on_corruption;
	snprintf(v->hash, sizeof v->hash, "%s", c->verity_roothash);
	snprintf(v->mode, sizeof v->mode, "%s", hi_verity_corruption_name(p.on_corruption));
	hi_verity_options_words(&p, v->options, sizeof v->options);
	if (hi_fs_read(report_path, text, sizeof text, NULL) < 0)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct report_line r;
		if (split_report_line(line, &r) < 0 || strcmp(r.stage, "verity") != 0)
			continue;
		size_t n = strcspn(r.value, " ");
		if (!strcmp(r.key, "root_hash") && !v->hash[0])
			snprintf(v->hash, sizeof v->hash, "%.*s", (int)n, r.value);
		else if (!strcmp(r.key, "on_corruption"))
			snprintf(v->mode, sizeof v->mode, "%.*s", (int)n, r.value);
		else if (!strcmp(r.key, "options"))
			snprintf(v->options, sizeof v->options, "%.*s", (int)n, r.value);
	}
}

/* / on the dm device "root", its live table (DM_TABLE_STATUS) verity
 * with the boot's root hash, corruption mode and options, and its status
 * V: the live table against what the boot set up. */
static void check_verity(struct audit *a, const struct config *c, const char *report_path)
{
	char table[VERITY_TABLE_MAX], type[32], status[64], live[CONFIG_ROOT_HASH_MAX], words[VERITY_TABLE_MAX];
	char path[512], name[64], why[256];
	struct verity_booted want;
	struct verity_params p;
	struct stat st;

	verity_booted_setup(c, report_path, &want);
	if (!want.hash[0] && !c->verity_enabled)
		return;
	name[0] = '\0';
	if (stat("/", &st) == 0) {
		snprintf(path, sizeof path, "%s/dev/block/%u:%u/dm/name", a->sys, major(st.st_dev), minor(st.st_dev));
		if (hi_fs_read(path, name, sizeof name, NULL) == 0)
			name[strcspn(name, "\n")] = '\0';
	}
	add(a, "/ on the verity device", "dm root", name[0] ? name : "not a dm device", strcmp(name, "root") != 0);
	int fd = hi_dm_control_open("/dev", a->sys, 0, why, sizeof why);
	if (fd < 0 || hi_dm_target_text(fd, "root", 1, table, sizeof table, type, sizeof type) < 0 ||
	    hi_dm_target_text(fd, "root", 0, status, sizeof status, NULL, 0) < 0) {
		add(a, "verity table of root", "verity", fd < 0 ? why : strerror(errno), 1);
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	add(a, "verity target of root", "verity", type, strcmp(type, "verity") != 0);
	if (hi_verity_table_root_hash(table, live, sizeof live) < 0)
		snprintf(live, sizeof live, "unreadable");
	add(a, "verity root hash", want.hash[0] ? want.hash : "any", live, want.hash[0] && strcasecmp(want.hash, live) != 0);
	hi_verity_params_defaults(&p);
	bool readable = hi_verity_table_options(table, &p) == 0;
	const char *mode = readable ? hi_verity_corruption_name(p.on_corruption) : "unreadable";
	add(a, "verity on corruption", want.mode, mode, strcmp(want.mode, mode) != 0);
	if (readable)
		hi_verity_options_words(&p, words, sizeof words);
	else
		snprintf(words, sizeof words, "unreadable");
	add(a, "verity options", want.options, words, strcmp(want.options, words) != 0);
	add(a, "verity status (V verified, C corrupted)", "V", status, strcmp(status, "V") != 0);
}

/* What the boot's report says of the TPM: that the measure stage found
 * none ("measure tpm skipped no TPM ..."), its tpm line otherwise, and the
 * PCR's value before the first event ("measure initial info HEX"). */
struct tpm_report {
	bool no_tpm;
	bool have_initial;
	uint8_t initial[32];
	char tpm[80];
};

static void read_tpm_report(const char *report_path, struct tpm_report *t)
{
	static char text[AUDIT_REPORT_MAX];
	char *save = NULL;

	memset(t, 0, sizeof *t);
	if (hi_fs_read(report_path, text, sizeof text, NULL) < 0)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct report_line r;
		if (split_report_line(line, &r) < 0 || strcmp(r.stage, "measure") != 0)
			continue;
		if (strcmp(r.key, "tpm") == 0) {
			t->no_tpm = strcmp(r.status, "skipped") == 0 && strncmp(r.value, "no TPM", 6) == 0;
			snprintf(t->tpm, sizeof t->tpm, "%s %s", r.status, r.value);
		} else if (strcmp(r.key, "initial") == 0 && strlen(r.value) == 64) {
			t->have_initial = hi_hex_decode(t->initial, 32, r.value) == 0;
		}
	}
}

/* Measured boot: the PCR hardinit extended must still be what its log
 * replays to. Nothing the log says is trusted for what it must prove: the
 * PCR is the config's, the starting value the platform's reset value
 * (zeros: the config allows PCRs 8-14) unless the report recorded another,
 * each digest is recomputed from its event's text, and the whole sequence
 * must be there (measure_log_check). A missing log is drift unless the
 * boot found no TPM and the config allowed that. The log sits beside the
 * report. */
static void check_tpm(struct audit *a, const struct config *c, const char *report_path)
{
	char dir[512], log[600], what[64], rel[600], live[96], want[SHA256_HEX], why[200], actual[96];
	uint8_t value[32], start[32] = { 0 };
	unsigned pcr = (unsigned)c->tpm_pcr;
	struct tpm_report t;

	if (!c->tpm_measure)
		return;
	snprintf(what, sizeof what, "tpm pcr %u (sha256)", pcr);
	read_tpm_report(report_path, &t);
	if (t.have_initial)
		memcpy(start, t.initial, 32);
	snprintf(dir, sizeof dir, "%s", report_path);
	char *slash = strrchr(dir, '/');
	snprintf(log, sizeof log, "%.*s/measurements", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
	if (access(log, F_OK) != 0) {
		if (t.no_tpm && !c->tpm_require) {
			add(a, what, "measured", "not measured: no TPM at boot, [tpm] require = no", 0);
			return;
		}
		snprintf(actual, sizeof actual, "no log; the report says: %s", t.tpm[0] ? t.tpm : "nothing");
		add(a, what, "measured", actual, 1);
		return;
	}
	if (hi_measure_log_replay(log, pcr, start, value, why, sizeof why) < 0) {
		add(a, what, "a log that replays", why, 1);
		return;
	}
	hi_hex_encode(want, value, 32);
	if (!hi_tpm_dev_sysfs_pcr(a->sys, pcr, rel, sizeof rel) || hi_fs_read(rel, live, sizeof live, NULL) < 0) {
		add(a, what, want, "unreadable in sysfs", 1);
		return;
	}
	live[strcspn(live, "\n")] = '\0';
	for (char *p = live; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'F' ? *p - 'A' + 'a' : *p);
	add(a, what, want, live, strcmp(live, want) != 0);
}

/* The boot phases in PCR 11 (the pcrphase stages): what the boot's report
 * says of each. A phase that was extended, or skipped because no stub
 * measured the boot (or no TPM: systemd's --graceful), is ok; one that
 * failed or was refused is drift, since then no policy over PCR 11 unseals
 * and a verifier cannot predict it. Nothing when the report has none (a
 * boot without an initramfs). PCR 11 itself is not replayed: the real
 * root's systemd extends sysinit and ready on top. */
static void check_pcrphase(struct audit *a, const char *report_path)
{
	static char text[AUDIT_REPORT_MAX];
	static const char *const words[] = { PCRPHASE_ENTER, PCRPHASE_LEAVE };
	char *save = NULL, what[64], actual[200];

	if (hi_fs_read(report_path, text, sizeof text, NULL) < 0)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct report_line r;
		if (split_report_line(line, &r) < 0 || strcmp(r.stage, "pcrphase") != 0)
			continue;
		for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
			if (strcmp(r.key, words[i]) != 0)
				continue;
			bool ok = !strcmp(r.status, "extended") || !strcmp(r.status, "skipped");
			snprintf(what, sizeof what, "tpm pcr %d %s", PCRPHASE_PCR, words[i]);
			snprintf(actual, sizeof actual, "%s %s", r.status, r.value);
			add(a, what, "extended, or skipped (no stub measurement, no TPM)", actual, !ok);
		}
	}
}

/* CPU vulnerabilities are neither ok nor drift here; on a Xen PV guest the
 * audit says whose they are (hypervisor.h), with meltdown's line. */
static void note_cpu_vulnerabilities(struct audit *a)
{
	char path[512], meltdown[128];

	if (!hi_hypervisor_xen_pv(a->sys))
		return;
	snprintf(path, sizeof path, "%s/devices/system/cpu/vulnerabilities/meltdown", a->sys);
	if (hi_fs_read(path, meltdown, sizeof meltdown, NULL) < 0)
		snprintf(meltdown, sizeof meltdown, "unreadable");
	meltdown[strcspn(meltdown, "\n")] = '\0';
	snprintf(a->cpu_vuln_note, sizeof a->cpu_vuln_note, "%s (meltdown: %.100s)", HYPERVISOR_VULN_NOTE, meltdown);
}

static const char audit_usage[] =
	"usage: hardinit audit [--format text|json|prometheus] [--json] [--output FILE] [--config FILE] "
	"[--report FILE] [--profiles DIR]";

struct audit_options {
	const char *config_path, *report_path, *profile_dir, *output;
	enum audit_format format;
};

static int parse_format(const char *name, enum audit_format *f)
{
	if (strcmp(name, "text") == 0)
		*f = AUDIT_TEXT;
	else if (strcmp(name, "json") == 0)
		*f = AUDIT_JSON;
	else if (strcmp(name, "prometheus") == 0)
		*f = AUDIT_PROMETHEUS;
	else
		return -1;
	return 0;
}

static int parse_options(struct audit *a, struct audit_options *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char **dst = NULL, *format = NULL;
		if (strcmp(argv[i], "--json") == 0) {
			o->format = AUDIT_JSON;
			continue;
		}
		if (strcmp(argv[i], "--config") == 0) dst = &o->config_path;
		else if (strcmp(argv[i], "--report") == 0) dst = &o->report_path;
		else if (strcmp(argv[i], "--profiles") == 0) dst = &o->profile_dir;
		else if (strcmp(argv[i], "--output") == 0) dst = &o->output;
		else if (strcmp(argv[i], "--format") == 0) dst = &format;
		else if (strcmp(argv[i], "--proc") == 0) dst = &a->proc;
		else if (strcmp(argv[i], "--sys") == 0) dst = &a->sys;
		if (!dst || i + 1 >= argc) {
			fprintf(stderr, "hardinit audit: bad option '%s'; %s\n", argv[i], audit_usage);
			return -1;
		}
		*dst = argv[++i];
		if (format && parse_format(format, &o->format) < 0) {
			fprintf(stderr, "hardinit audit: unknown format '%s'; use text, json or prometheus\n", format);
			return -1;
		}
	}
	return 0;
}

/* report.json beside report.txt: the boot writes both into one directory. */
static const char *boot_json_path(const char *report_path, char *out, size_t cap)
{
	const char *slash = strrchr(report_path, '/');

	if (slash)
		snprintf(out, cap, "%.*s/report.json", (int)(slash - report_path), report_path);
	else
		snprintf(out, cap, "report.json");
	return out;
}

static int emit(const struct audit *a, const struct audit_options *o)
{
	static char out[AUDIT_OUTPUT_MAX];
	struct sink s;
	char err[AUDIT_ERR_MAX + 600];

	/* A failed audit has no text to show; the other formats say it failed. */
	if (o->format == AUDIT_TEXT && !a->success)
		return 0;
	hi_sink_init(&s, out, sizeof out);
	if (o->format == AUDIT_PROMETHEUS)
		hi_audit_format_prometheus(a, &s);
	else if (o->format == AUDIT_JSON)
		hi_audit_format_json(a, &s);
	else
		hi_audit_format_text(a, &s);
	if (s.full) {
		fprintf(stderr, "hardinit audit: the output exceeds its limit of %d bytes; nothing written\n",
			AUDIT_OUTPUT_MAX);
		return -1;
	}
	const char *path = o->output;
	if (!path && o->format == AUDIT_PROMETHEUS)
		path = AUDIT_PROM_DEFAULT;
	if (!path || strcmp(path, "-") == 0) {
		fwrite(s.buf, 1, s.len, stdout);
		return fflush(stdout) == 0 ? 0 : -1;
	}
	if (hi_audit_write_atomic(path, s.buf, s.len, err, sizeof err) < 0) {
		fprintf(stderr, "hardinit audit: %s\n", err);
		return -1;
	}
	return 0;
}

int hi_audit_main(int argc, char **argv)
{
	static struct audit a;
	static struct config cfg;
	struct audit_options o = {
		.config_path = "/run/hardinit/config", .report_path = "/run/hardinit/report.txt",
		.profile_dir = HARDINIT_PROFILE_DIR, .format = AUDIT_TEXT,
	};
	char err[CONFIG_ERR_MAX], json_path[512];

	a.proc = "/proc";
	a.sys = "/sys";
	if (parse_options(&a, &o, argc, argv) < 0)
		return 2;
	hi_config_defaults(&cfg);
	bool config_read = hi_config_load(&cfg, o.config_path, "", err, sizeof err) == 0;
	if (!config_read) {
		snprintf(a.error, sizeof a.error, "%s", err);
	} else {
		for (size_t i = 0; i < cfg.n_sysctls; i++)
			check_sysctl(&a, cfg.sysctls[i].key, cfg.sysctls[i].value, cfg.sysctls[i].required);
		check_caps(&a, &cfg);
		check_mount_shared(&a, &cfg);
		check_tpm(&a, &cfg, o.report_path);
		check_pcrphase(&a, o.report_path);
		a.success = read_report(&a, o.report_path) == 0;
		check_verity(&a, &cfg, o.report_path);
	}
	note_cpu_vulnerabilities(&a);
	for (size_t i = 0; i < a.n; i++)
		a.drifts += a.items[i].drift;
	hi_audit_posture(&a, &cfg, config_read, o.config_path, boot_json_path(o.report_path, json_path, sizeof json_path),
		      o.profile_dir);
	if (a.error[0])
		fprintf(stderr, "hardinit audit: %s\n", a.error);
	if (emit(&a, &o) < 0 || !a.success)
		return 2;
	return a.drifts ? 1 : 0;
}
