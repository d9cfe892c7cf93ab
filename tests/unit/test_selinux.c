/* The SELinux stage's pure logic: the mode decision and its precedence,
 * /etc/selinux/config as libselinux reads it, a policy's header, the
 * bounded relabel walk, and the stage's paths that never reach the kernel
 * (no selinuxfs, SELINUX=disabled, a dry run) against a temporary tree.
 * Nothing here touches the host's SELinux state. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "config.h"
#include "fsutil.h"
#include "log.h"
#include "selinux.h"
#include "selinux_config.h"
#include "selinux_relabel.h"
#include "fixture.h"
#include "tap.h"

static char base[] = "/tmp/hardinit-selinux-XXXXXX";

static void put(const char *rel, const char *text)
{
	fixture_put(base, rel, text);
}

static void put_bytes(const char *rel, const void *data, size_t len)
{
	fixture_put_bytes(base, rel, data, len);
}

/* ---- /etc/selinux/config ---------------------------------------------- */

static void test_config_parse(void)
{
	struct selinux_file_config f;
	char err[256] = "";
	const char *debian =
		"# This file controls the state of SELinux on the system.\n"
		"# SELINUX= can take one of these three values:\n"
		"SELINUX=permissive\n"
		"# SELINUXTYPE= can take one of these two values:\n"
		"SELINUXTYPE=default\n"
		"\n"
		"SETLOCALDEFS=0\n";

	tap_ok(hi_selinux_config_parse(debian, strlen(debian), &f, err, sizeof err) == 0,
	       "Debian's config parses");
	tap_ok(f.present && f.mode == SEFILE_PERMISSIVE, "SELINUX=permissive read");
	tap_streq(f.type, "default", "SELINUXTYPE=default read");

	const char *t2 = "SELINUX=Enforcing  \r\n  selinuxtype=targeted \nSELINUXTYPE = x\nSELINUX=disabled\n";
	hi_selinux_config_parse(t2, strlen(t2), &f, err, sizeof err);
	tap_ok(f.mode == SEFILE_ENFORCING, "first SELINUX= wins, value case-insensitive (libselinux)");
	tap_streq(f.mode_text, "Enforcing", "trailing blanks and CR stripped from the mode");
	tap_streq(f.type, "targeted", "SELINUXTYPE tag case-insensitive after blanks, value trimmed, \"TYPE =\" ignored");

	const char *t3 = "SELINUX=enforcing # comment\nSELINUXTYPE=a\nSELINUXTYPE=mls";
	hi_selinux_config_parse(t3, strlen(t3), &f, err, sizeof err);
	tap_ok(f.mode == SEFILE_ENFORCING, "value matched by prefix, as libselinux does");
	tap_streq(f.type, "mls", "last SELINUXTYPE= wins, last line without newline read");

	const char *t4 = " SELINUX=enforcing\n#SELINUX=enforcing\n";
	hi_selinux_config_parse(t4, strlen(t4), &f, err, sizeof err);
	tap_ok(f.mode == SEFILE_ABSENT, "SELINUX= not at the start of a line is ignored (libselinux)");

	const char *t5 = "SELINUX=enforced\n";
	hi_selinux_config_parse(t5, strlen(t5), &f, err, sizeof err);
	tap_ok(f.mode == SEFILE_UNKNOWN, "an unknown value is UNKNOWN");
	tap_streq(f.mode_text, "enforced", "the unknown value is kept for the message");

	char longline[SELINUX_CONFIG_MAX_LINE + 20];
	memset(longline, 'x', sizeof longline);
	memcpy(longline, "SELINUX=", 8);
	tap_ok(hi_selinux_config_parse(longline, sizeof longline, &f, err, sizeof err) < 0,
	       "an overlong line is refused");
	tap_contains(err, "line 1", "the error names the line");

	const char withnul[] = "SELINUX=enf\0rcing\n";
	tap_ok(hi_selinux_config_parse(withnul, sizeof withnul - 1, &f, err, sizeof err) < 0,
	       "a NUL byte is refused");
	tap_contains(err, "NUL", "the error says NUL");

	tap_ok(hi_selinux_config_parse("", 0, &f, err, sizeof err) == 0 && f.mode == SEFILE_ABSENT &&
	       f.type[0] == '\0', "an empty file: no mode, no type");
}

static void test_config_read(void)
{
	struct selinux_file_config f;
	char err[512] = "", root[512];

	snprintf(root, sizeof root, "%s/r1", base);
	hi_fs_mkdir_p(root, 0755);
	tap_ok(hi_selinux_config_read(root, &f, err, sizeof err) == 0 && !f.present,
	       "a missing /etc/selinux/config is not an error, present = false");

	put("r1/etc/selinux/config", "SELINUX=disabled\nSELINUXTYPE=default\n");
	tap_ok(hi_selinux_config_read(root, &f, err, sizeof err) == 0 && f.present &&
	       f.mode == SEFILE_DISABLED, "the file is read from ROOT/etc/selinux/config");

	char *big = malloc(SELINUX_CONFIG_MAX_BYTES + 10);
	memset(big, '#', SELINUX_CONFIG_MAX_BYTES + 9);
	big[SELINUX_CONFIG_MAX_BYTES + 9] = '\0';
	put("r1/etc/selinux/config", big);
	free(big);
	tap_ok(hi_selinux_config_read(root, &f, err, sizeof err) < 0, "an oversized file is refused");
	tap_contains(err, "larger than", "the error says it is too large");
}

/* ---- the decision ----------------------------------------------------- */

static struct selinux_file_config file_with(enum selinux_file_mode m, const char *text)
{
	struct selinux_file_config f;
	memset(&f, 0, sizeof f);
	f.present = m != SEFILE_ABSENT;
	f.mode = m;
	snprintf(f.mode_text, sizeof f.mode_text, "%s", text);
	snprintf(f.type, sizeof f.type, "default");
	return f;
}

static void test_decide(void)
{
	struct config c;
	struct selinux_decision d;
	struct selinux_file_config enf = file_with(SEFILE_ENFORCING, "enforcing");
	struct selinux_file_config perm = file_with(SEFILE_PERMISSIVE, "permissive");
	struct selinux_file_config dis = file_with(SEFILE_DISABLED, "disabled");
	struct selinux_file_config unk = file_with(SEFILE_UNKNOWN, "enforced");
	struct selinux_file_config none = file_with(SEFILE_ABSENT, "");

	hi_config_defaults(&c);
	c.selinux_mode = SELINUX_FROM_CONFIG;
	c.selinux_require = false;
	c.lock_cmdline = false;

	hi_selinux_decide(&d, NULL, &c, &enf, false);
	tap_ok(d.action == SEACT_LOAD && d.enforcing && d.fatal_on_failure,
	       "config: SELINUX=enforcing loads enforcing, failure fatal");
	tap_contains(d.why, "/etc/selinux/config", "the reason names /etc/selinux/config");

	hi_selinux_decide(&d, NULL, &c, &perm, false);
	tap_ok(d.action == SEACT_LOAD && !d.enforcing && !d.fatal_on_failure,
	       "config: SELINUX=permissive loads permissive, failure a warning");

	hi_selinux_decide(&d, "1", &c, &perm, false);
	tap_ok(d.enforcing && d.fatal_on_failure, "kernel enforcing=1 beats SELINUX=permissive");
	tap_contains(d.why, "kernel enforcing=1", "the reason names the kernel");

	hi_selinux_decide(&d, "0", &c, &enf, false);
	tap_ok(d.action == SEACT_LOAD && !d.enforcing && !d.fatal_on_failure,
	       "kernel enforcing=0 beats SELINUX=enforcing");

	hi_selinux_decide(&d, "1", &c, &dis, false);
	tap_ok(d.action == SEACT_SKIP, "SELINUX=disabled: no load, even with enforcing=1");
	tap_contains(d.why, "disabled", "the reason says disabled");

	c.selinux_mode = SELINUX_ENFORCING;
	hi_selinux_decide(&d, NULL, &c, &dis, false);
	tap_ok(d.action == SEACT_LOAD && d.enforcing, "hardinit mode enforcing beats SELINUX=disabled");
	tap_contains(d.why, "hardinit config", "the reason names hardinit's config");

	hi_selinux_decide(&d, NULL, &c, &perm, false);
	tap_ok(d.enforcing, "hardinit mode enforcing beats SELINUX=permissive");

	hi_selinux_decide(&d, "0", &c, &enf, false);
	tap_ok(!d.enforcing && d.warning[0] == '\0', "kernel enforcing=0 beats hardinit mode enforcing");

	c.lock_cmdline = true;
	hi_selinux_decide(&d, "0", &c, &enf, false);
	tap_ok(d.enforcing && d.fatal_on_failure, "a locked config refuses kernel enforcing=0");
	tap_contains(d.warning, "refused", "and says so");
	hi_selinux_decide(&d, "1", &c, &enf, false);
	tap_ok(d.enforcing && d.warning[0] == '\0', "a locked config still takes enforcing=1");
	c.lock_cmdline = false;

	c.selinux_mode = SELINUX_PERMISSIVE;
	hi_selinux_decide(&d, NULL, &c, &enf, false);
	tap_ok(!d.enforcing && !d.fatal_on_failure, "hardinit mode permissive beats SELINUX=enforcing");
	c.selinux_require = true;
	hi_selinux_decide(&d, NULL, &c, &enf, false);
	tap_ok(!d.enforcing && d.fatal_on_failure, "require = yes makes a permissive load's failure fatal");
	c.selinux_require = false;

	c.selinux_mode = SELINUX_DISABLED;
	hi_selinux_decide(&d, "1", &c, &enf, true);
	tap_ok(d.action == SEACT_SKIP, "hardinit mode disabled: no load whatever else says");

	c.selinux_mode = SELINUX_FROM_CONFIG;
	hi_selinux_decide(&d, NULL, &c, &none, false);
	tap_ok(d.action == SEACT_SKIP, "no SELINUX= anywhere, nothing embedded: skip");
	hi_selinux_decide(&d, NULL, &c, &none, true);
	tap_ok(d.action == SEACT_LOAD && !d.enforcing && d.warning[0],
	       "no SELINUX= but an embedded policy: load it permissive, with a warning");
	c.selinux_require = true;
	hi_selinux_decide(&d, NULL, &c, &none, false);
	tap_ok(d.action == SEACT_LOAD && d.fatal_on_failure,
	       "no SELINUX= with require = yes: go on to the load, whose failure is fatal");
	c.selinux_require = false;

	hi_selinux_decide(&d, NULL, &c, &unk, false);
	tap_ok(d.action == SEACT_LOAD && !d.enforcing, "an unknown SELINUX= value loads permissive");
	tap_contains(d.warning, "enforced", "and the warning quotes the value");

	hi_selinux_decide(&d, "yes", &c, &enf, false);
	tap_ok(d.enforcing, "a non-numeric enforcing= is ignored, as the kernel ignores it");
	tap_contains(d.warning, "not a number", "with a warning");
	hi_selinux_decide(&d, "00", &c, &enf, false);
	tap_ok(!d.enforcing, "enforcing=00 is zero");
	hi_selinux_decide(&d, "2", &c, &perm, false);
	tap_ok(d.enforcing, "enforcing=2 is nonzero: enforcing");
}

/* ---- /proc/filesystems, the policy header, milliseconds --------------- */

static void test_filesystems(void)
{
	const char *with = "nodev\tsysfs\nnodev\ttmpfs\nnodev\tselinuxfs\n\text4\nnodev\tbpf";
	const char *without = "nodev\tsysfs\nnodev\tsecurityfs\n\text4\nnodev\tselinuxfs2\n";

	tap_ok(hi_selinux_fs_listed(with, "selinuxfs"), "selinuxfs found in /proc/filesystems");
	tap_ok(hi_selinux_fs_listed(with, "bpf"), "the last line without newline is read");
	tap_ok(hi_selinux_fs_listed(with, "ext4"), "a block file system's line is read");
	tap_ok(!hi_selinux_fs_listed(without, "selinuxfs"), "no selinuxfs (selinuxfs2 is not it)");
	tap_ok(!hi_selinux_fs_listed("", "selinuxfs"), "empty text: absent");
}

static size_t make_header(unsigned char *h, unsigned version)
{
	const uint32_t words[] = { SELINUX_POLICYDB_MAGIC, 8 };
	memset(h, 0, 64);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			h[i * 4 + j] = (unsigned char)(words[i] >> (8 * j));
	memcpy(h + 8, "SE Linux", 8);
	for (int j = 0; j < 4; j++)
		h[16 + j] = (unsigned char)(version >> (8 * j));
	return 64;
}

static void test_policy_header(void)
{
	unsigned char h[64];
	unsigned v = 0;
	char err[256];
	size_t n = make_header(h, 33);

	tap_ok(hi_selinux_policy_header(h, n, &v, err, sizeof err) == 0 && v == 33,
	       "a version 33 header is read");
	make_header(h, 31);
	tap_ok(hi_selinux_policy_header(h, n, &v, err, sizeof err) == 0 && v == 31, "version 31 read");
	tap_ok(hi_selinux_policy_header(h, 20, &v, err, sizeof err) < 0, "a 20-byte file is refused");
	tap_contains(err, "shorter", "as too short");
	h[0] ^= 0xff;
	tap_ok(hi_selinux_policy_header(h, n, &v, err, sizeof err) < 0, "a bad magic is refused");
	tap_contains(err, "magic", "naming the magic");
	h[0] ^= 0xff;
	memcpy(h + 8, "XenFlask", 8);
	tap_ok(hi_selinux_policy_header(h, n, &v, err, sizeof err) < 0, "a Xen policy is refused");

	/* The real thing, when the build host has Debian's refpolicy. */
	char buf[64];
	int fd = open("/etc/selinux/default/policy/policy.33", O_RDONLY);
	if (fd >= 0 && read(fd, buf, sizeof buf) == (ssize_t)sizeof buf) {
		tap_ok(hi_selinux_policy_header(buf, sizeof buf, &v, err, sizeof err) == 0 && v == 33,
		       "Debian's policy.33 has a version 33 header");
	} else {
		printf("ok %d - Debian's policy.33 # skip selinux-policy-default not installed\n",
		       ++tap_count);
	}
	if (fd >= 0)
		close(fd);

	char ms[32];
	hi_clock_format_ms(ms, sizeof ms, 12345678);
	tap_streq(ms, "12.345", "12345678 ns is 12.345 ms");
	hi_clock_format_ms(ms, sizeof ms, 999);
	tap_streq(ms, "0.000", "under a microsecond is 0.000 ms");
}

/* ---- the walk ----------------------------------------------------------- */

struct visits {
	size_t n;
	int fail_on;           /* visit number that fails, 0: none */
	bool saw_outside;
};

static int count_visit(void *ctx, const char *path, mode_t mode)
{
	struct visits *v = ctx;
	v->n++;
	if (strstr(path, "outside"))
		v->saw_outside = true;
	return (int)v->n == v->fail_on ? -1 : 0;
}

static size_t pts_seen;

static int pts_visit(void *ctx, const char *path, mode_t mode)
{
	if (strncmp(path, "/dev/pts/", 9) == 0)
		pts_seen++;
	return 0;
}

static void test_walk(void)
{
	char root[512], p[600];
	struct selinux_walk_stats st;
	struct visits v;

	snprintf(root, sizeof root, "%s/w/dev", base);
	put("w/dev/null", "");
	put("w/dev/shm/.keep", "");
	put("w/dev/disk/by-uuid/x", "");
	put("w/outside/secret", "");
	put("w/outside/secret2", "");
	snprintf(p, sizeof p, "%s/w/dev/link", base);
	if (symlink("../outside", p) < 0)
		perror("symlink");
	/* dev, null, shm, .keep, disk, by-uuid, x, link: 8 */
	memset(&st, 0, sizeof st);
	memset(&v, 0, sizeof v);
	tap_ok(hi_selinux_walk(root, 100, count_visit, &v, &st) == 0, "the walk runs");
	tap_ok(st.seen == 8 && v.n == 8, "every object visited once, the root included (%zu)", st.seen);
	tap_ok(!v.saw_outside, "a symlink to a directory is not followed");
	tap_ok(!st.limit_hit && !st.depth_hit && st.failed == 0, "no limit, no depth, no failure");

	memset(&st, 0, sizeof st);
	memset(&v, 0, sizeof v);
	hi_selinux_walk(root, 3, count_visit, &v, &st);
	tap_ok(st.seen == 3 && v.n == 3 && st.limit_hit, "the object limit stops the walk at 3");

	memset(&st, 0, sizeof st);
	memset(&v, 0, sizeof v);
	v.fail_on = 2;
	hi_selinux_walk(root, 100, count_visit, &v, &st);
	tap_ok(st.failed == 1 && st.seen == 8, "a failed visit is counted and the walk goes on");

	char deep[600] = "w/deep";
	for (int i = 0; i < SELINUX_RELABEL_MAX_DEPTH + 4; i++)
		strcat(deep, "/d");
	strcat(deep, "/f");
	put(deep, "");
	snprintf(root, sizeof root, "%s/w/deep", base);
	memset(&st, 0, sizeof st);
	memset(&v, 0, sizeof v);
	hi_selinux_walk(root, 1000, count_visit, &v, &st);
	tap_ok(st.depth_hit && st.seen == SELINUX_RELABEL_MAX_DEPTH + 1,
	       "the depth limit stops the descent (%zu objects)", st.seen);

	memset(&st, 0, sizeof st);
	tap_ok(hi_selinux_walk("/nonexistent/hardinit", 10, count_visit, &v, &st) < 0,
	       "a missing root is an error");

	snprintf(root, sizeof root, "%s/w/dev", base);
	memset(&st, 0, sizeof st);
	memset(&v, 0, sizeof v);
	hi_selinux_walk(root, 0, count_visit, &v, &st);
	tap_ok(st.limit_hit && v.n == 0, "limit 0 visits nothing");

	/* The host's /dev holds mount points of other file systems (devpts
	 * at least): they are skipped, not descended. Only read here. */
	struct stat d1, d2;
	if (stat("/dev", &d1) == 0 && stat("/dev/pts", &d2) == 0 && d1.st_dev != d2.st_dev) {
		struct pts_visits { struct visits v; } pv;
		memset(&st, 0, sizeof st);
		memset(&pv, 0, sizeof pv);
		hi_selinux_walk("/dev", 5000, pts_visit, &pv, &st);
		tap_ok(st.other_fs >= 1 && pts_seen == 0,
		       "mount points below the root are skipped (%zu), devpts not entered", st.other_fs);
	} else {
		printf("ok %d - other file systems skipped # skip /dev/pts is not a separate mount\n",
		       ++tap_count);
	}
}

/* ---- the stage, without a kernel ------------------------------------------ */

static struct boot bt;

static void boot_for(const char *tree, enum boot_mode mode)
{
	char dir[256];

	snprintf(dir, sizeof dir, "%s/%s", base, tree);
	boot_at(&bt, dir, mode);
	bt.switched = true;
}

static const char *item(const char *key)
{
	const struct report_item *it = hi_report_find(&bt.rep, "selinux", key);
	return it ? it->value : NULL;
}

static const char *status(const char *key)
{
	const struct report_item *it = hi_report_find(&bt.rep, "selinux", key);
	return it ? it->status : NULL;
}

static void test_stage(void)
{
	unsigned char h[64];
	char err[256];

	/* A kernel with AppArmor first: no selinuxfs. */
	put("s1/proc/filesystems", "nodev\tsysfs\nnodev\tsecurityfs\n\text4\n");
	put("s1/root/etc/selinux/config", "SELINUX=enforcing\nSELINUXTYPE=default\n");
	/* MODE_ON_ROOT: the stage returns before it would mount anything. */
	boot_for("s1", MODE_ON_ROOT);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	bt.cfg.selinux_require = true;
	tap_ok(hi_stage_selinux(&bt) == -1, "no selinuxfs with require = yes fails the boot");
	tap_contains(bt.err, "security=selinux", "and the error says to boot with security=selinux");
	tap_contains(bt.err, "AppArmor", "and why: Debian's kernels start AppArmor");

	boot_for("s1", MODE_ON_ROOT);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	bt.cfg.selinux_require = false;
	tap_ok(hi_stage_selinux(&bt) == 0, "no selinuxfs without require: a warning");
	tap_streq(status("kernel"), "absent", "the report says the kernel has none");

	/* A dry run on a build host never fails on the host's kernel (the
	 * root has its policy: only the kernel lacks SELinux). */
	make_header(h, 33);
	put_bytes("s1/root/etc/selinux/default/policy/policy.33", h, sizeof h);
	boot_for("s1", MODE_DRY_RUN);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	bt.cfg.selinux_require = true;
	tap_ok(hi_stage_selinux(&bt) == 0, "a dry run without selinuxfs does not fail, even with require");

	/* SELINUX=disabled is a skip, told apart from the missing kernel. */
	put("s2/proc/filesystems", "nodev\tselinuxfs\n");
	put("s2/root/etc/selinux/config", "SELINUX=disabled\nSELINUXTYPE=default\n");
	boot_for("s2", MODE_DRY_RUN);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	tap_ok(hi_stage_selinux(&bt) == 0, "SELINUX=disabled: the stage succeeds");
	tap_streq(status("mode"), "skipped", "the report says skipped");
	tap_contains(item("mode"), "SELINUX=disabled", "and why");
	tap_ok(hi_report_find(&bt.rep, "selinux", "kernel") == NULL, "and does not blame the kernel");

	/* A dry run finds the root's policy.33 and only says so. */
	make_header(h, 33);
	put("s3/proc/filesystems", "nodev\tselinuxfs\n");
	put("s3/root/etc/selinux/config", "SELINUX=permissive\nSELINUXTYPE=default\n");
	put_bytes("s3/root/etc/selinux/default/policy/policy.33", h, sizeof h);
	boot_for("s3", MODE_DRY_RUN);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	tap_ok(hi_stage_selinux(&bt) == 0, "dry run with a policy: ok");
	tap_contains(item("load"), "policy/policy.33", "the dry run names the policy it would load");
	tap_contains(item("mode"), "permissive", "and the mode");

	/* No root policy, an embedded one: the embedded one is chosen. */
	put("s4/proc/filesystems", "nodev\tselinuxfs\n");
	put_bytes("s4/run/hardinit/selinux/policy", h, sizeof h);
	put("s4/run/hardinit/selinux/type", "appliance\n");
	hi_fs_mkdir_p(bt.newroot, 0755);
	boot_for("s4", MODE_DRY_RUN);
	hi_fs_mkdir_p(bt.newroot, 0755);
	bt.cfg.selinux_mode = SELINUX_ENFORCING;
	tap_ok(hi_stage_selinux(&bt) == 0, "dry run with only an embedded policy: ok");
	tap_contains(item("load"), "run/hardinit/selinux/policy", "the embedded policy is the one");

	/* Neither: the root's files decide as at boot. Enforcing needs a
	 * policy, so the dry run fails naming the missing file ... */
	put("s5/proc/filesystems", "nodev\tselinuxfs\n");
	put("s5/root/etc/selinux/config", "SELINUX=enforcing\nSELINUXTYPE=default\n");
	boot_for("s5", MODE_DRY_RUN);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	tap_ok(hi_stage_selinux(&bt) == -1, "dry run without any policy, enforcing: fails as the boot would");
	tap_contains(bt.err, "no policy file", "naming the policy file it looked for");
	tap_contains(item("load"), "no policy", "and the report says no policy was found");
	/* ... and permissive goes on without one, with the boot's warning. */
	put("s5/root/etc/selinux/config", "SELINUX=permissive\nSELINUXTYPE=default\n");
	boot_for("s5", MODE_DRY_RUN);
	bt.cfg.selinux_mode = SELINUX_FROM_CONFIG;
	tap_ok(hi_stage_selinux(&bt) == 0, "dry run without any policy, permissive: goes on");
	tap_streq(status("load"), "failed", "the report says the load failed");

	/* An unreadable config with require fails; err names the file. */
	char big[SELINUX_CONFIG_MAX_BYTES + 8];
	memset(big, '#', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	put("s6/proc/filesystems", "nodev\tselinuxfs\n");
	put("s6/root/etc/selinux/config", big);
	boot_for("s6", MODE_DRY_RUN);
	bt.cfg.selinux_require = true;
	tap_ok(hi_stage_selinux(&bt) == -1, "an oversized /etc/selinux/config with require fails");
	tap_contains(bt.err, "etc/selinux/config", "naming the file");
	(void)err;
}

int main(void)
{
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	hi_log_set_console_fd(-1);
	hi_log_set_kmsg_enabled(0);
	test_config_parse();
	test_config_read();
	test_decide();
	test_filesystems();
	test_policy_header();
	test_walk();
	test_stage();

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
	return tap_done();
}
