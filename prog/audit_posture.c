/* hardinit audit's posture: what a fleet alerts on besides the checks.
 * The one-way locks (engaged or not, asked for or not), SELinux's mode
 * and policy, the boot's stage times (report.json) and which config the
 * machine booted (the shipped profile it equals, its SHA-256). Reads only;
 * every path under a->proc and a->sys so tests point it at a tree. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_export.h"
#include "audit_posture.h"
#include "audit_types.h"
#include "config.h"
#include "config_format.h"
#include "fsutil.h"
#include "hardening.h"
#include "locks.h"
#include "report.h"
#include "sha256.h"

#define POSTURE_MAX_PROFILES 16

static void add_state(struct audit *a, const char *kind, const char *name, bool configured, bool engaged,
		      const char *state)
{
	if (a->n_states >= AUDIT_MAX_STATES)
		return;
	struct audit_state *st = &a->states[a->n_states++];
	snprintf(st->kind, sizeof st->kind, "%s", kind);
	snprintf(st->name, sizeof st->name, "%s", name);
	snprintf(st->state, sizeof st->state, "%s", state);
	st->configured = configured;
	st->engaged = engaged;
}

/* A sysctl lock: engaged when it reads want. */
static void lock_sysctl(struct audit *a, const char *name, const char *key, const char *want, bool configured)
{
	char live[64];

	if (hi_sysctl_read(a->proc, key, live, sizeof live) < 0) {
		add_state(a, "lock", name, configured, false, errno == ENOENT ? "absent" : "unreadable");
		return;
	}
	add_state(a, "lock", name, configured, strcmp(live, want) == 0, live);
}

/* Lockdown (5.4) only goes up: engaged when at the configured level or
 * above (any level but none when none is configured). */
static void lock_lockdown(struct audit *a, const struct config *c)
{
	static const char *const names[] = { "none", "integrity", "confidentiality" };
	char path[512], text[128];

	snprintf(path, sizeof path, "%s/kernel/security/lockdown", a->sys);
	int level = hi_fs_read(path, text, sizeof text, NULL) == 0 ? hi_lockdown_parse_current(text) : -1;
	int want = c->lockdown == LOCKDOWN_NONE ? 1 : (int)c->lockdown;
	add_state(a, "lock", "lockdown", c->lockdown != LOCKDOWN_NONE, level >= want,
		  level < 0 ? "unreadable" : names[level]);
}

static void collect_locks(struct audit *a, const struct config *c)
{
	lock_sysctl(a, "modules_disabled", "kernel.modules_disabled", "1", c->lock_modules);
	lock_sysctl(a, "kexec_load_disabled", "kernel.kexec_load_disabled", "1", c->lock_kexec);
	lock_lockdown(a, c);
	/* Yama's scope 3 is the one-way one; 1 and 2 can be lowered again. */
	lock_sysctl(a, "ptrace_scope", "kernel.yama.ptrace_scope", "3", c->ptrace_scope == 3);
}

/* selinuxfs's class/ directory is empty until the first policy load
 * fills it (security/selinux/selinuxfs.c, sel_make_policy_nodes). */
static int hi_selinux_policy_loaded(const struct audit *a)
{
	char path[512];
	int found = 0;

	snprintf(path, sizeof path, "%s/fs/selinux/class", a->sys);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	for (struct dirent *e = readdir(d); e && !found; e = readdir(d))
		found = e->d_name[0] != '.';
	closedir(d);
	return found;
}

static void collect_selinux(struct audit *a, const struct config *c, bool config_read)
{
	char path[512], live[16];

	snprintf(path, sizeof path, "%s/fs/selinux/enforce", a->sys);
	a->selinux_enforcing = hi_fs_read(path, live, sizeof live, NULL) == 0 ? atoi(live) != 0 : -1;
	a->selinux_policy_loaded = hi_selinux_policy_loaded(a);
	a->selinux_wanted = config_read && c->selinux_mode == SELINUX_ENFORCING;
	/* mode = config: the boot decided from the root's /etc/selinux/config
	 * and the report's "selinux mode" check says what it set. */
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].what, "selinux mode") == 0 && strcmp(a->items[i].expected, "enforcing") == 0)
			a->selinux_wanted = 1;
}

static void collect_stages(struct audit *a, const char *boot_json_path)
{
	static char text[AUDIT_BOOT_JSON_MAX];

	if (!boot_json_path || hi_fs_read(boot_json_path, text, sizeof text, NULL) < 0)
		return;
	if (hi_audit_read_boot_json(a, text) < 0)
		fprintf(stderr, "hardinit audit: %s has no readable stage times; the stage durations are left out\n",
			boot_json_path);
}

/* The shipped profile whose effective config equals the booted one. The
 * saved config is config_format output, so both go through it. */
static int profile_matches(const char *path, const char *booted)
{
	static struct config prof;
	static char text[CONFIG_MAX_FILE_BYTES];
	char err[CONFIG_ERR_MAX];

	hi_config_defaults(&prof);
	if (hi_config_load(&prof, path, "", err, sizeof err) < 0 || hi_config_format(&prof, text, sizeof text) < 0)
		return 0;
	return strcmp(text, booted) == 0;
}

static void find_profile(struct audit *a, const struct config *c, const char *profile_dir)
{
	static char booted[CONFIG_MAX_FILE_BYTES];
	char best[32] = "", path[512];
	size_t seen = 0;

	snprintf(a->profile, sizeof a->profile, "unknown");
	DIR *d = profile_dir ? opendir(profile_dir) : NULL;
	if (!d || hi_config_format(c, booted, sizeof booted) < 0) {
		if (d)
			closedir(d);
		return;
	}
	snprintf(a->profile, sizeof a->profile, "custom");
	for (struct dirent *e = readdir(d); e && seen < POSTURE_MAX_PROFILES; e = readdir(d)) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || len - 5 >= sizeof best || strcmp(e->d_name + len - 5, ".conf") != 0)
			continue;
		seen++;
		snprintf(path, sizeof path, "%s/%s", profile_dir, e->d_name);
		/* readdir's order is arbitrary: of two equal profiles, the first by name. */
		if (profile_matches(path, booted) && (!best[0] || strncmp(e->d_name, best, len - 5) < 0))
			snprintf(best, sizeof best, "%.*s", (int)(len - 5), e->d_name);
	}
	closedir(d);
	if (best[0])
		snprintf(a->profile, sizeof a->profile, "%s", best);
}

static void digest_config(struct audit *a, const char *config_path)
{
	static char text[CONFIG_MAX_FILE_BYTES + 1];
	size_t len = 0;

	uint8_t digest[SHA256_BYTES];

	if (hi_fs_read(config_path, text, sizeof text, &len) == 0) {
		hi_sha256(text, len, digest);
		hi_hex_encode(a->config_digest, digest, SHA256_BYTES);
	}
}

void hi_audit_posture(struct audit *a, const struct config *c, bool config_read,
		   const char *config_path, const char *boot_json_path, const char *profile_dir)
{
	collect_selinux(a, c, config_read);
	collect_stages(a, boot_json_path);
	digest_config(a, config_path);
	if (!config_read) {
		snprintf(a->profile, sizeof a->profile, "unknown");
		return;
	}
	collect_locks(a, c);
	find_profile(a, c, profile_dir);
}
