/* stages/mounts.c: namespace.conf parsing and validation, the instance
 * parent checks and creation, the fstab deferral and the tmpfiles.d
 * drop-in, all against a temporary tree standing in for the new root.
 *
 * With --sandbox DIR (tests/bats/mounts.bats runs it that way, inside
 * `unshare --mount --propagation private`) it runs the whole stage, real
 * mounts included, against DIR; it refuses to unless its mount namespace
 * differs from PID 1's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "config_table.h"
#include "mounts.h"
#include "fsutil.h"
#include "log.h"
#include "fixture.h"
#include "tap.h"

static struct boot b;
static char base[] = "/tmp/hardinit-mounts-XXXXXX";

static void put(const char *rel, const char *text)
{
	fixture_put(base, rel, text);
}

static void mkd(const char *rel, unsigned mode)
{
	fixture_mkdir(base, rel, mode);
}

static const char *at(const char *rel)
{
	static char p[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", base, rel);
	return p[i];
}

static void boot_reset(enum boot_mode mode)
{
	boot_at(&b, base, mode);
	b.switched = true;
}

static const char *status_of(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "mounts", key);
	return it ? it->status : "(none)";
}

/* ---- namespace.conf lines ---- */

static void test_good_lines(void)
{
	struct ns_entry e;
	char err[320];

	tap_ok(hi_nsconf_parse_line("/tmp     /tmp-inst/       level      root,adm", &e, err, sizeof err) == 0,
	       "man page line for /tmp parses");
	tap_streq(e.polydir, "/tmp", "polydir");
	tap_streq(e.parent, "/tmp-inst", "parent of /tmp-inst/ is /tmp-inst");
	tap_ok(e.method == NS_LEVEL && e.n_users == 2 && !e.users_exclusive, "level, two users");
	tap_streq(e.users[1], "adm", "second user");

	tap_ok(hi_nsconf_parse_line("/var/tmp/ /var/tmp/tmp-inst/inst- user ~alice", &e, err, sizeof err) == 0,
	       "trailing slash and a name prefix");
	tap_streq(e.polydir, "/var/tmp", "trailing slash of polydir removed");
	tap_streq(e.parent, "/var/tmp/tmp-inst", "parent is before the prefix's last slash");
	tap_ok(e.users_exclusive && e.n_users == 1, "~ makes the list exclusive");

	tap_ok(hi_nsconf_parse_line("$HOME $HOME/$USER.inst/inst- context", &e, err, sizeof err) == 0 && e.per_user,
	       "$HOME line is per user");
	tap_ok(hi_nsconf_parse_line("/srv/x /srv/x/inst/ user", &e, err, sizeof err) == 0 && !e.per_user &&
	       e.n_users == 0, "no user list");
	tap_ok(hi_nsconf_parse_line("/scratch - tmpfs:mntopts=size=10M,nosuid", &e, err, sizeof err) == 0 &&
	       e.method == NS_TMPFS && e.parent[0] == '\0', "tmpfs: relative prefix allowed, no parent");
	tap_ok(hi_nsconf_parse_line("/tmp /tmp/tmp-inst/ tmpdir:create=0755,root,root:noinit root", &e, err,
				 sizeof err) == 0 && e.create && e.method == NS_TMPDIR, "flags: create, noinit");
	tap_ok(hi_nsconf_parse_line("\"/tmp\" \"/tmp/tmp inst/\" user root # trailing comment", &e, err,
				 sizeof err) == 0, "quoted fields and a comment");
	tap_streq(e.parent, "/tmp/tmp inst", "quoted blank kept");
	tap_ok(hi_nsconf_parse_line("   # only a comment", &e, err, sizeof err) == 1, "comment line");
	tap_ok(hi_nsconf_parse_line("", &e, err, sizeof err) == 1, "empty line");
	tap_ok(hi_nsconf_parse_line(" \t ", &e, err, sizeof err) == 1, "blank line");
}

static void expect_bad(const char *line, const char *needle)
{
	struct ns_entry e;
	char err[320] = "";
	int r = hi_nsconf_parse_line(line, &e, err, sizeof err);
	tap_ok(r == -1, "refused: %s", line);
	tap_contains(err, needle, "  says why");
}

static void expect_warn(const char *line, const char *needle)
{
	struct ns_entry e;
	char err[320] = "";
	int r = hi_nsconf_parse_line(line, &e, err, sizeof err);
	tap_ok(r == 2, "kept with a warning: %s", line);
	tap_contains(err, needle, "  warning says why");
}

static void test_bad_lines(void)
{
	char longline[NSCONF_MAX_LINE + 20];

	expect_bad("/tmp", "missing instance_prefix");
	expect_bad("/tmp /tmp-inst/", "missing method");
	expect_bad("/tmp /tmp-inst/ bogus root", "unknown method");
	expect_bad("/tmp /tmp-inst/ :create", "unknown method");
	expect_bad("tmp /tmp-inst/ user", "not an absolute path");
	expect_bad("/tmp tmp-inst/ user", "not an absolute path");
	expect_bad("/tmp /tmp/../etc/ user", "'..'");
	expect_bad("/tmp /tmp/ user", "polydir /tmp itself");
	expect_bad("/tmp /inst- user", "is /");
	expect_bad("/ /inst/ user", "polydir /");
	expect_bad("/tmp \"/tmp-inst/ user", "unterminated quote");
	memset(longline, 'a', sizeof longline - 1);
	longline[0] = '/';
	longline[sizeof longline - 1] = '\0';
	expect_bad(longline, "longer than");
	expect_warn("/tmp /tmp-inst/ user root, adm", "root,adm");
	expect_warn("/tmp /tmp-inst/ user:bogus root", "unknown flag");
	expect_warn("/tmp /tmp-inst/ user:mntopts=size=1M root", "tmpfs method only");
}

/* ---- files ---- */

static void test_load(void)
{
	struct ns_conf *c = calloc(1, sizeof *c);

	boot_reset(MODE_ON_ROOT);
	put("root/etc/security/namespace.conf",
	    "# comment\n/tmp /tmp/tmp-inst/ user root\nbroken line\n");
	put("root/etc/security/namespace.d/20-b.conf", "/b /b/inst/ user\n");
	put("root/etc/security/namespace.d/10-a.conf", "/a /a/inst/ user\n/a /a/inst2/ user\n");
	put("root/etc/security/namespace.d/README", "/ignored /ignored/inst/ user\n");
	tap_ok(hi_nsconf_load(&b, c) == 0, "namespace.conf and namespace.d load");
	tap_ok(c->n == 4 && c->n_invalid == 1 && c->n_files == 3, "4 lines kept, 1 invalid, 3 files (got %zu %zu %zu)",
	       c->n, c->n_invalid, c->n_files);
	tap_ok(c->n == 4 && strcmp(c->entries[1].polydir, "/a") == 0 && strcmp(c->entries[3].polydir, "/b") == 0,
	       "namespace.d read in name order");
	tap_streq(c->n ? c->entries[0].source : "", "namespace.conf:2", "source names file and line");
	tap_streq(status_of("namespace.conf:3"), "invalid", "invalid line reported by file:line");

	/* Limits: a file over the byte limit is reported, not half read. */
	char *big = malloc(NSCONF_MAX_FILE_BYTES + 100);
	memset(big, '#', NSCONF_MAX_FILE_BYTES + 99);
	big[NSCONF_MAX_FILE_BYTES + 99] = '\0';
	put("root/etc/security/namespace.d/30-big.conf", big);
	free(big);
	boot_reset(MODE_ON_ROOT);
	tap_ok(hi_nsconf_load(&b, c) == -1, "a file over %d bytes is an error", NSCONF_MAX_FILE_BYTES);
	tap_streq(status_of("namespace.d/30-big.conf"), "warn", "  and reported");
	unlink(at("root/etc/security/namespace.d/30-big.conf"));
	free(c);
}

/* ---- instance parents ---- */

static void test_parent_check(void)
{
	char why[128];
	bool root = geteuid() == 0;

	mkd("pc/good", 0);
	mkd("pc/open", 0755);
	mkd("pc/user", 0);
	if (symlink("good", at("pc/link")) < 0)
		perror("symlink");
	put("pc/file", "x");
	if (root && chown(at("pc/user"), 1000, 0) < 0)
		perror("chown");

	if (root)
		tap_ok(hi_poly_parent_check(at("pc/good"), why, sizeof why) == PARENT_OK, "mode 000 root: ok");
	else
		tap_ok(1, "mode 000 root # skip not root");
	tap_ok(hi_poly_parent_check(at("pc/open"), why, sizeof why) == (root ? PARENT_BAD_MODE : PARENT_BAD_OWNER),
	       "mode 0755 is wrong");
	if (root)
		tap_contains(why, "0755", "  names the mode");
	if (root)
		tap_ok(hi_poly_parent_check(at("pc/user"), why, sizeof why) == PARENT_BAD_OWNER &&
		       strstr(why, "1000"), "owner 1000 is wrong");
	tap_ok(hi_poly_parent_check(at("pc/link"), why, sizeof why) == PARENT_LINK, "a symlink is refused, as a link");
	tap_ok(hi_poly_parent_check(at("pc/file"), why, sizeof why) == PARENT_NOT_DIR, "a file is refused");
	tap_ok(hi_poly_parent_check(at("pc/none"), why, sizeof why) == PARENT_MISSING, "missing");

	if (!root) {
		tap_ok(1, "poly_parent_create # skip not root");
		return;
	}
	struct stat st;
	mkd("pc/sgid", 02775);
	if (chown(at("pc/sgid"), 0, 1234) < 0)
		perror("chown");
	tap_ok(hi_poly_parent_create(at("pc/sgid/inst")) == 0, "create under a setgid parent");
	tap_ok(lstat(at("pc/sgid/inst"), &st) == 0 && (st.st_mode & 07777) == 0 && st.st_uid == 0 &&
	       st.st_gid == 0, "  mode 0000 root:root, no setgid bit inherited");
	tap_ok(hi_poly_parent_create(at("pc/sgid/inst")) == -1 && errno == EEXIST, "never over an existing one");
	tap_ok(hi_poly_parent_create(at("pc/link")) == -1 && errno == EEXIST, "never through a symlink");
}

/* ---- mountinfo, fstab, tmpfiles ---- */

static const char mountinfo[] =
	"22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw,hidepid=invisible,gid=4\n"
	"25 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	"30 25 0:30 / /with\\040blank rw,nosuid - tmpfs tmpfs rw,size=100k\n"
	"31 25 0:31 / /tmp rw - tmpfs tmpfs rw\n"
	"32 25 0:32 / /tmp rw,nosuid,nodev master:3 - tmpfs tmpfs rw,size=50%\n";

static void test_mountinfo(void)
{
	struct mountinfo_entry m;

	tap_ok(hi_mountinfo_find_text(mountinfo, "/", &m) == 1 && m.shared && strcmp(m.fstype, "ext4") == 0,
	       "/ is shared ext4");
	tap_ok(hi_mountinfo_find_text(mountinfo, "/proc", &m) == 1 && hi_mount_opts_has(m.super_opts, "hidepid=invisible") &&
	       hi_mount_opts_has(m.super_opts, "gid=4") && hi_mount_opts_has(m.mnt_opts, "noexec"), "/proc options");
	tap_ok(hi_mountinfo_find_text(mountinfo, "/with blank", &m) == 1 && !m.shared, "\\040 decoded, not shared");
	tap_ok(hi_mountinfo_find_text(mountinfo, "/tmp", &m) == 1 && hi_mount_opts_has(m.mnt_opts, "nodev") &&
	       !m.shared, "the top mount of a stack wins; master: is not shared:");
	tap_ok(hi_mountinfo_find_text(mountinfo, "/var", &m) == 0, "absent mount point");
	tap_ok(!hi_mount_opts_has("rw,nosuidx", "nosuid") && hi_mount_opts_has("nosuid", "nosuid"), "whole words only");
	tap_ok(hi_config_tmp_size_valid("50%") && hi_config_tmp_size_valid("512m") && hi_config_tmp_size_valid("1048576") &&
	       !hi_config_tmp_size_valid("") && !hi_config_tmp_size_valid("m") && !hi_config_tmp_size_valid("10mb") &&
	       !hi_config_tmp_size_valid("1,mode=777"), "tmpfs sizes");
}

static void test_later(void)
{
	char mnt[256], mi[1024];

	boot_reset(MODE_ON_ROOT);
	put("root/etc/fstab", "# <fs> <mp> <type>\nUUID=1 / ext4 ro 0 1\nUUID=2 /var ext4 defaults 0 2\n"
	    "tmpfs /tmp tmpfs size=10% 0 0\n/swap none swap sw 0 0\nUUID=3 /var/lib/x xfs defaults 0 2\n");
	snprintf(mi, sizeof mi, "25 1 254:1 / %s rw shared:1 - ext4 /dev/vda rw\n"
		 "31 25 0:31 / %s/tmp rw - tmpfs tmpfs rw\n", b.newroot, b.newroot);
	put("proc/self/mountinfo", mi);
	tap_ok(hi_poly_mounted_later(&b, "/var/tmp/tmp-inst", mnt, sizeof mnt) == 1, "under /var: mounted later");
	tap_streq(mnt, "/var", "  names /var");
	tap_ok(hi_poly_mounted_later(&b, "/var/lib/x/inst", mnt, sizeof mnt) == 1 && strcmp(mnt, "/var/lib/x") == 0,
	       "the longest mount point wins");
	tap_ok(hi_poly_mounted_later(&b, "/tmp/tmp-inst", mnt, sizeof mnt) == 0, "/tmp is mounted already");
	tap_ok(hi_poly_mounted_later(&b, "/variable/inst", mnt, sizeof mnt) == 0, "/variable is not under /var");
	tap_ok(hi_poly_mounted_later(&b, "/srv/inst", mnt, sizeof mnt) == 0, "on the root itself");
}

static void test_tmpfiles(void)
{
	const char paths[2][CONFIG_PATH_MAX] = { "/var/tmp/tmp-inst", "/srv/inst" };
	const char bad[1][CONFIG_PATH_MAX] = { "/var/my dir" };
	char out[1024];

	tap_ok(hi_poly_tmpfiles_format(paths, 2, out, sizeof out) > 0, "tmpfiles text");
	tap_contains(out, "\nd /var/tmp/tmp-inst 0000 root root -\nd /srv/inst 0000 root root -\n",
		     "  one d line per parent, mode 0000 root root, no age");
	tap_ok(hi_poly_tmpfiles_format(bad, 1, out, sizeof out) == -1, "a blank in a path is refused");
	tap_ok(hi_poly_tmpfiles_format(paths, 2, out, 120) == -1, "a buffer too small is an error");
}

/* ---- the polyinstantiation part of the stage, on a temporary root ---- */

static void make_poly_root(void)
{
	put("root/etc/security/namespace.conf",
	    "/tmp /tmp/tmp-inst/ user root\n"
	    "/var/tmp /var/tmp/inst/ level root,nosuchuser\n"
	    "/data /data/inst/ user root\n"
	    "/home2 /home2/inst/ user root\n"
	    "$HOME $HOME/$USER.inst/ user root\n");
	put("root/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n");
	put("root/etc/fstab", "UUID=1 / ext4 ro 0 1\nUUID=2 /var ext4 defaults 0 2\n");
	mkd("root/tmp", 01777);
	mkd("root/var", 0755);
	mkd("root/srv", 0755);
	mkd("root/data", 0755);
	mkd("root/home2/inst", 0755);
	mkd("root/sbin", 0755);
	mkd("run", 0755);
	if (symlink("/lib/systemd/systemd", at("root/sbin/init")) < 0 && errno != EEXIST)
		perror("symlink");
	put("proc/self/mountinfo", "25 1 254:1 / / rw shared:1 - ext4 /dev/vda rw\n");
}

static void test_prepare(void)
{
	struct stat st;
	char text[1024];

	make_poly_root();
	boot_reset(MODE_DRY_RUN);
	strcpy(b.cfg.polydirs[2], "/srv/");
	b.cfg.n_polydirs = 3;
	tap_ok(hi_mounts_prepare_polydirs(&b) == 0, "dry run");
	tap_ok(access(at("root/tmp/tmp-inst"), F_OK) < 0 && access(at("run/tmpfiles.d"), F_OK) < 0,
	       "  a dry run creates nothing");

	if (geteuid() != 0) {
		tap_ok(1, "prepare for real # skip not root");
		return;
	}
	boot_reset(MODE_ON_ROOT);
	strcpy(b.cfg.polydirs[2], "/srv/");
	b.cfg.n_polydirs = 3;
	tap_ok(hi_mounts_prepare_polydirs(&b) == 0, "prepare");
	tap_ok(lstat(at("root/tmp/tmp-inst"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0 &&
	       st.st_uid == 0 && st.st_gid == 0, "/tmp's parent from namespace.conf created 0000 root:root");
	tap_streq(status_of("polydir /tmp"), "created", "  reported created");
	tap_ok(lstat(at("root/srv/" POLY_DEFAULT_PARENT_NAME), &st) == 0 && (st.st_mode & 07777) == 0,
	       "/srv (no namespace.conf line) gets the default parent");
	tap_streq(status_of("polydir /var/tmp"), "deferred", "/var/tmp is on /var, mounted later");
	tap_ok(access(at("root/var/tmp"), F_OK) < 0, "  nothing created on the root's /var");
	tap_streq(status_of("polydir /data"), "missing", "unconfigured line: missing parent reported");
	tap_ok(access(at("root/data/inst"), F_OK) < 0, "  and not created");
	tap_streq(status_of("polydir /home2"), "wrong", "unconfigured line: wrong mode reported");
	tap_ok(lstat(at("root/home2/inst"), &st) == 0 && (st.st_mode & 0777) == 0755, "  and left as it was");
	const struct report_item *it = NULL;
	for (size_t i = 0; i < b.rep.n_items; i++)
		if (strstr(b.rep.items[i].value, "per-user"))
			it = &b.rep.items[i];
	tap_ok(it && strcmp(it->status, "skipped") == 0, "$HOME line: not preparable at boot");
	tap_ok(hi_fs_read(at("run/" POLY_TMPFILES_NAME), text, sizeof text, NULL) == 0, "tmpfiles.d drop-in written");
	tap_contains(text, "d /var/tmp/inst 0000 root root -\n", "  with the deferred parent");
	tap_ok(strstr(text, "/data") == NULL, "  and nothing for lines hardinit does not own");

	/* Second boot: everything that exists is left alone and reported ok. */
	mkd("root/var/tmp", 01777);
	boot_reset(MODE_ON_ROOT);
	put("root/etc/fstab", "UUID=1 / ext4 ro 0 1\n");
	tap_ok(hi_mounts_prepare_polydirs(&b) == 0, "prepare again, /var on the root");
	tap_streq(status_of("polydir /tmp"), "ok", "existing parent: ok");
	tap_streq(status_of("polydir /var/tmp"), "created", "/var/tmp's parent now created");

	/* A configured parent that exists with the wrong mode is reported, not fixed. */
	chmod(at("root/tmp/tmp-inst"), 0700);
	boot_reset(MODE_ON_ROOT);
	hi_mounts_prepare_polydirs(&b);
	tap_streq(status_of("polydir /tmp"), "wrong", "configured parent with mode 0700: wrong");
	tap_ok(lstat(at("root/tmp/tmp-inst"), &st) == 0 && (st.st_mode & 0777) == 0700, "  not changed");

	boot_reset(MODE_ON_ROOT);
	strcpy(b.cfg.polydirs[0], "relative");
	tap_ok(hi_mounts_prepare_polydirs(&b) == -1, "a relative polydir in the config is an error");
	tap_contains(b.err, "absolute", "  saying what to write");
}

/* ---- the whole stage on a sandbox, for tests/bats/mounts.bats ---- */

/* The caller names the mount namespace it came from (HI_HOST_MNTNS, the
 * readlink of /proc/self/ns/mnt outside unshare); PID 1's is compared too
 * where it can be read (in a container it often cannot). An empty or
 * malformed name counts as the host's: it proves nothing. */
static int in_host_mount_ns(void)
{
	char self[64] = "", init[64] = "";
	const char *host = getenv("HI_HOST_MNTNS");

	if (!host || strncmp(host, "mnt:[", 5) != 0 ||
	    readlink("/proc/self/ns/mnt", self, sizeof self - 1) < 0)
		return 1;
	if (readlink("/proc/1/ns/mnt", init, sizeof init - 1) > 0 && strcmp(self, init) == 0)
		return 1;
	return strcmp(self, host) == 0;
}

static int sandbox_main(const char *dir)
{
	if (in_host_mount_ns()) {
		fprintf(stderr, "--sandbox runs only in a mount namespace of its own: "
			"HI_HOST_MNTNS=$(readlink /proc/self/ns/mnt) unshare --mount "
			"--propagation private test_mounts --sandbox DIR\n");
		return 2;
	}
	boot_at(&b, dir, MODE_INITRAMFS);
	b.switched = true;
	const char *v;
	if ((v = getenv("HI_TMP_SIZE")))
		snprintf(b.cfg.tmp_size, sizeof b.cfg.tmp_size, "%s", v);
	b.cfg.tmp_noexec = getenv("HI_TMP_NOEXEC") != NULL;
	if ((v = getenv("HI_HIDEPID")))
		b.cfg.proc_hidepid = (enum hidepid)atoi(v);
	if ((v = getenv("HI_PROC_GID")))
		b.cfg.proc_gid = atoi(v);
	b.cfg.mount_shared = getenv("HI_NO_SHARED") == NULL;
	int rc = hi_stage_mounts(&b);
	tap_ok(rc == 0, "stage_mounts on %s %s", dir, rc ? b.err : "");
	for (size_t i = 0; i < b.rep.n_items; i++)
		printf("# report %s %s: %s\n", b.rep.items[i].key, b.rep.items[i].status, b.rep.items[i].value);
	return tap_done();
}

int main(int argc, char **argv)
{
	char cmd[600];

	hi_log_set_kmsg_enabled(0);
	if (argc == 3 && strcmp(argv[1], "--sandbox") == 0)
		return sandbox_main(argv[2]);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	test_good_lines();
	test_bad_lines();
	test_load();
	test_parent_check();
	test_mountinfo();
	test_later();
	test_tmpfiles();
	test_prepare();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		perror("rm");
	return tap_done();
}
