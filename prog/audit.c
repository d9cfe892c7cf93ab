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

#include <cap-ng.h>

#include "audit.h"
#include "fsutil.h"
#include "hardening.h"
#include "sink.h"

#define AUDIT_MAX_ITEMS   256
#define AUDIT_REPORT_MAX  (256 * 1024)

struct audit_item {
	char what[96];
	char expected[96];
	char actual[96];
	int drift;
};

struct audit {
	const char *proc, *sys;
	struct audit_item items[AUDIT_MAX_ITEMS];
	size_t n;
	size_t dropped;
};

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
	if (sysctl_read(a->proc, key, live, sizeof live) < 0) {
		/* Absent at boot is reported then; it is drift only if required. */
		add(a, what, expected, errno == ENOENT ? "absent" : strerror(errno), required || errno != ENOENT);
		return;
	}
	add(a, what, expected, live, !sysctl_value_equal(live, expected));
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
		if (fs_read(path, live, sizeof live, NULL) < 0) {
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
		if (fs_read(path, live, sizeof live, NULL) < 0) {
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
	if (fs_read(path, status, sizeof status, NULL) == 0)
		line = strstr(status, "\nSeccomp:");
	int mode = line ? atoi(line + 9) : -1;
	add(a, "TIOCSTI seccomp filter in PID 1", "filter", mode == 2 ? "filter" : mode < 0 ? "unreadable" : "none",
	    mode != 2);
}

static int read_report(struct audit *a, const char *path)
{
	static char text[AUDIT_REPORT_MAX];

	if (fs_read(path, text, sizeof text, NULL) < 0) {
		fprintf(stderr, "hardinit audit: cannot read the boot report %s: %s; was this system booted by hardinit?\n",
			path, strerror(errno));
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
	if (fs_read(path, status, sizeof status, NULL) == 0)
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

static void check_mount_shared(struct audit *a, const struct config *c)
{
	char path[512], info[16384];

	if (!c->mount_shared)
		return;
	snprintf(path, sizeof path, "%s/1/mountinfo", a->proc);
	if (fs_read(path, info, sizeof info, NULL) < 0 && errno != E2BIG) {
		add(a, "mount propagation /", "shared", "mountinfo unreadable", 1);
		return;
	}
	char *save = NULL;
	for (char *line = strtok_r(info, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char mnt[256];
		if (sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 || strcmp(mnt, "/") != 0)
			continue;
		int shared = strstr(line, " shared:") != NULL;
		add(a, "mount propagation /", "shared", shared ? "shared" : "private", !shared);
		return;
	}
	add(a, "mount propagation /", "shared", "no / in mountinfo", 1);
}

static void print_text(const struct audit *a, int drifts)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct audit_item *it = &a->items[i];
		printf("%-5s %-44s expected %-18s actual %s\n", it->drift ? "drift" : "ok",
		       it->what, it->expected, it->actual);
	}
	printf("audit: %zu checked, %zu ok, %d drift%s\n", a->n, a->n - (size_t)drifts, drifts,
	       a->dropped ? " (some items over the limit were not checked)" : "");
}

/* Item texts are bounded (struct audit_item), so six bytes an input byte
 * always fit. */
static void json_string(const char *s)
{
	char buf[6 * 256 + 3];
	struct sink k;

	sink_init(&k, buf, sizeof buf);
	sink_json_string(&k, s);
	fputs(buf, stdout);
}

static void print_json(const struct audit *a, int drifts)
{
	printf("{\"checked\": %zu, \"drift\": %d, \"items\": [", a->n, drifts);
	for (size_t i = 0; i < a->n; i++) {
		const struct audit_item *it = &a->items[i];
		printf("%s\n  {\"item\": ", i ? "," : "");
		json_string(it->what);
		printf(", \"expected\": ");
		json_string(it->expected);
		printf(", \"actual\": ");
		json_string(it->actual);
		printf(", \"status\": \"%s\"}", it->drift ? "drift" : "ok");
	}
	printf("\n]}\n");
}

int audit_main(int argc, char **argv)
{
	static struct audit a;
	static struct config cfg;
	const char *config_path = "/run/hardinit/config", *report_path = "/run/hardinit/report.txt";
	char err[CONFIG_ERR_MAX];
	int json = 0;

	a.proc = "/proc";
	a.sys = "/sys";
	for (int i = 1; i < argc; i++) {
		const char **dst = NULL;
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
			continue;
		}
		if (strcmp(argv[i], "--config") == 0) dst = &config_path;
		else if (strcmp(argv[i], "--report") == 0) dst = &report_path;
		else if (strcmp(argv[i], "--proc") == 0) dst = &a.proc;
		else if (strcmp(argv[i], "--sys") == 0) dst = &a.sys;
		if (!dst || i + 1 >= argc) {
			fprintf(stderr, "hardinit audit: bad option '%s'; usage: hardinit audit [--json] [--config FILE] [--report FILE]\n", argv[i]);
			return 2;
		}
		*dst = argv[++i];
	}
	config_defaults(&cfg);
	if (config_load(&cfg, config_path, "", err, sizeof err) < 0) {
		fprintf(stderr, "hardinit audit: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < cfg.n_sysctls; i++)
		check_sysctl(&a, cfg.sysctls[i].key, cfg.sysctls[i].value, cfg.sysctls[i].required);
	check_caps(&a, &cfg);
	check_mount_shared(&a, &cfg);
	if (read_report(&a, report_path) < 0)
		return 2;
	int drifts = 0;
	for (size_t i = 0; i < a.n; i++)
		drifts += a.items[i].drift;
	if (json)
		print_json(&a, drifts);
	else
		print_text(&a, drifts);
	return drifts ? 1 : 0;
}
