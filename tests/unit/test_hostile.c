/* A hostile root: links where directories should be, FIFOs,
 * sockets and devices where files should be, against a temporary tree.
 * Every link case runs twice: through openat2 and through the component
 * walk kept for kernels before 5.6. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "config.h"
#include "config_lock.h"
#include "config_stage.h"
#include "config_table.h"
#include "dev_wait.h"
#include "early.h"
#include "mounts.h"
#include "root.h"
#include "switchroot.h"
#include "failure.h"
#include "fsutil.h"
#include "log.h"
#include "safepath.h"
#include "fixture.h"
#include "tap.h"

static char base[] = "/tmp/hardinit-hostile-XXXXXX";
static struct boot b;

static const char *at(const char *rel)
{
	static char p[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", base, rel);
	return p[i];
}

static void mkd(const char *rel)
{
	hi_fs_mkdir_p(at(rel), 0755);
}

static void put(const char *rel, const char *text)
{
	if (hi_fs_write_new(at(rel), text) < 0)
		perror(rel);
}

static void lnk(const char *target, const char *rel)
{
	if (symlink(target, at(rel)) < 0)
		perror(rel);
}

static void boot_reset(enum boot_mode mode)
{
	boot_at(&b, base, mode);
	b.switched = true;
}

/* The tree: root/etc (a file in it), root/tmp -> /etc (absolute),
 * root/var/tmp -> ../etc (relative), root/dir/inner, root/escape -> ../..,
 * root/etc/fifo, root/etc/sock. */
static void make_tree(void)
{
	mkd("root/etc");
	put("root/etc/passwd", "root:x:0:0::/root:/bin/sh\n");
	lnk("/etc", "root/tmp");
	mkd("root/var");
	lnk("../etc", "root/var/tmp");
	mkd("root/dir/inner");
	lnk("../..", "root/escape");
	lnk("passwd", "root/etc/link-to-passwd");
	if (mkfifo(at("root/etc/fifo"), 0644) < 0)
		perror("mkfifo");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("root/etc/sock"));
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0)
		perror("bind");
	if (s >= 0)
		close(s);
	mkd("proc");
}

static void test_safe_open(const char *how)
{
	const char *root = at("root");
	int fd;

	fd = hi_safe_open(root, "/dir/inner", O_PATH | O_DIRECTORY, 0);
	tap_ok(fd >= 0, "%s: a plain directory opens", how);
	if (fd >= 0)
		close(fd);
	fd = hi_safe_open(root, "", O_PATH | O_DIRECTORY, 0);
	tap_ok(fd >= 0, "%s: the root itself opens", how);
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = hi_safe_open(root, "/tmp", O_PATH | O_DIRECTORY, 0);
	tap_ok(fd < 0 && errno == ELOOP, "%s: /tmp -> /etc as the last component: ELOOP (%s)", how, strerror(errno));
	errno = 0;
	fd = hi_safe_open(root, "/tmp", O_PATH, 0);
	tap_ok(fd < 0 && errno == ELOOP, "%s: O_PATH of a link gives no link fd either", how);
	errno = 0;
	fd = hi_safe_open(root, "/var/tmp/tmp-inst", O_PATH, 0);
	tap_ok(fd < 0 && errno == ELOOP, "%s: a relative link on the way: ELOOP", how);
	errno = 0;
	fd = hi_safe_open(root, "/escape/etc", O_PATH, 0);
	tap_ok(fd < 0 && errno == ELOOP, "%s: a link out of the root: ELOOP", how);
	errno = 0;
	fd = hi_safe_open(root, "/dir/../../etc", O_PATH, 0);
	tap_ok(fd < 0 && errno == EXDEV, "%s: '..' out of the root: EXDEV (%s)", how, strerror(errno));
	fd = hi_safe_open(root, "/etc/new", O_WRONLY | O_CREAT | O_EXCL, 0600);
	tap_ok(fd >= 0, "%s: O_CREAT below the root", how);
	if (fd >= 0) {
		close(fd);
		unlink(at("root/etc/new"));
	}
	errno = 0;
	fd = hi_safe_mkdir(root, "/tmp/made", 0700);
	tap_ok(fd < 0 && errno == ELOOP && access(at("root/etc/made"), F_OK) < 0,
	       "%s: mkdir through /tmp -> /etc refused, nothing made in the target", how);
	fd = hi_safe_mkdir(root, "/dir/made", 0700);
	tap_ok(fd >= 0 && access(at("root/dir/made"), F_OK) == 0, "%s: mkdir below a real directory", how);
	if (fd >= 0)
		close(fd);
	rmdir(at("root/dir/made"));
}

static void test_find_link(void)
{
	char out[256] = "";

	tap_ok(hi_safe_find_link(at("root"), "/tmp/tmp-inst", out, sizeof out) == 1, "the link on the way is found");
	tap_streq(out, "/tmp -> /etc", "  named with its target");
	tap_ok(hi_safe_find_link(at("root"), "var/tmp/x", out, sizeof out) == 1, "a deeper link is found");
	tap_streq(out, "/var/tmp -> ../etc", "  named with its target");
	tap_ok(hi_safe_find_link(at("root"), "/dir/inner", out, sizeof out) == 0, "no link, none found");
}

/* Each kind of non-regular file is refused at once, never read. The read
 * runs in a child with an alarm: a blocking open would kill it. */
static int read_in_child(const char *path, int *err)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char buf[64];
		alarm(5);
		int rc = hi_fs_read(path, buf, sizeof buf, NULL);
		int e = rc < 0 ? errno : 0;
		if (write(p[1], &e, sizeof e) != sizeof e)
			_exit(3);
		_exit(rc < 0 ? 1 : 0);
	}
	close(p[1]);
	int status = 0;
	waitpid(pid, &status, 0);
	if (read(p[0], err, sizeof *err) != sizeof *err)
		*err = -1;
	close(p[0]);
	return WIFSIGNALED(status) ? -2 : WEXITSTATUS(status);
}

/* hi_fs_read_at, for a directory read file by file (sysfs): the same
 * refusals as hi_fs_read, relative to the directory's fd. In a child with
 * an alarm, as above: a blocking open would kill it. */
static int read_at_in_child(const char *dir, const char *name, int *err)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char buf[64];
		alarm(5);
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int rc = dfd < 0 ? -1 : hi_fs_read_at(dfd, name, buf, sizeof buf);
		int e = rc < 0 ? errno : 0;
		if (rc == 0 && strcmp(buf, "root:x:0:0::/root:/bin/sh\n") != 0)
			e = -3;
		if (write(p[1], &e, sizeof e) != sizeof e)
			_exit(3);
		_exit(rc < 0 ? 1 : 0);
	}
	close(p[1]);
	int status = 0;
	waitpid(pid, &status, 0);
	if (read(p[0], err, sizeof *err) != sizeof *err)
		*err = -1;
	close(p[0]);
	return WIFSIGNALED(status) ? -2 : WEXITSTATUS(status);
}

static void test_read_at(void)
{
	int e = 0;
	char small[8];

	tap_ok(read_at_in_child(at("root/etc"), "passwd", &e) == 0 && e == 0, "fs_read_at: a regular file is read whole");
	tap_ok(read_at_in_child(at("root/etc"), "fifo", &e) == 1 && e == FS_ENOTREG, "fs_read_at: a FIFO is refused at once");
	tap_ok(read_at_in_child(at("root/etc"), "sock", &e) == 1 && e == FS_ENOTREG, "fs_read_at: a socket is refused");
	tap_ok(read_at_in_child(at("root"), "etc", &e) == 1 && e == FS_ENOTREG, "fs_read_at: a directory is refused");
	tap_ok(read_at_in_child(at("root/etc"), "link-to-passwd", &e) == 1 && e == ELOOP, "fs_read_at: a link is not followed");
	tap_ok(read_at_in_child(at("root"), "etc/passwd", &e) == 1 && e == EINVAL, "fs_read_at: a name, not a path");
	int dfd = open(at("root/etc"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	tap_ok(dfd >= 0 && hi_fs_read_at(dfd, "passwd", small, sizeof small) < 0 && errno == E2BIG,
	       "fs_read_at: larger than the buffer: E2BIG");
	if (dfd >= 0)
		close(dfd);
}

static void test_non_regular(void)
{
	int e = 0;
	char why[256];

	tap_ok(read_in_child(at("root/etc/fifo"), &e) == 1 && e == FS_ENOTREG,
	       "a FIFO is refused at once, not waited on (e=%d)", e);
	tap_contains(hi_fs_read_why(FS_ENOTREG), "not a regular file", "  the reason says so");
	tap_ok(read_in_child(at("root/etc/sock"), &e) == 1 && e == FS_ENOTREG, "a socket is refused");
	tap_ok(read_in_child("/dev/zero", &e) == 1 && e == FS_ENOTREG, "a character device is refused");
	tap_ok(read_in_child(at("root/etc"), &e) == 1 && e == FS_ENOTREG, "a directory is refused");
	tap_ok(read_in_child(at("root/etc/link-to-passwd"), &e) == 1 && e == ELOOP, "a link is not followed");
	tap_ok(read_in_child(at("root/etc/passwd"), &e) == 0, "a regular file is read");
	tap_ok(hi_fs_check_regular(at("root/etc/fifo"), why, sizeof why) < 0, "fs_check_regular: FIFO");
	tap_contains(why, "is a FIFO, not a regular file", "  the line names the kind");
	tap_ok(hi_fs_check_regular(at("root/etc/passwd"), why, sizeof why) == 0, "fs_check_regular: file ok");
	tap_ok(hi_fs_check_regular(at("root/etc/none"), why, sizeof why) == 0, "fs_check_regular: absent is not its business");
}

/* The instance parents: through a link never checked, created or fixed. */
static void test_poly_links(void)
{
	char why[640];

	tap_ok(hi_poly_parent_check_at(at("root"), "/var/tmp/tmp-inst", why, sizeof why) == PARENT_LINK,
	       "parent below /var/tmp -> ../etc: a link");
	tap_contains(why, "/var/tmp -> ../etc", "  why names the link and its target");
	errno = 0;
	tap_ok(hi_poly_parent_create_at(at("root"), "/var/tmp/tmp-inst") < 0 && errno == ELOOP &&
	       access(at("root/etc/tmp-inst"), F_OK) < 0, "creating it refused; nothing made in the target");
	mkd("root/etc/realparent");
	chmod(at("root/etc/realparent"), 0755);
	tap_ok(hi_poly_parent_check_at(at("root"), "/tmp/realparent", why, sizeof why) == PARENT_LINK,
	       "a wrong-mode parent behind a link is a link, not 'wrong mode'");
}

static const char *status_of(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "mounts", key);
	return it ? it->status : "(none)";
}

/* The stage itself: the whole polydir path, and the advice it prints. */
static void test_poly_stage(void)
{
	boot_reset(MODE_INITRAMFS);
	b.cfg.polyinstantiate = true;
	b.cfg.n_polydirs = 1;
	snprintf(b.cfg.polydirs[0], sizeof b.cfg.polydirs[0], "/var/tmp");
	tap_ok(hi_mounts_prepare_polydirs(&b) == 0, "polydirs with /var/tmp a link: no fatal error");
	tap_streq(status_of("polydir /var/tmp"), "refused", "  reported refused");
	tap_ok(access(at("root/etc/tmp-inst"), F_OK) < 0, "  no instance parent made through the link");
	const struct report_item *it = hi_report_find(&b.rep, "mounts", "polydir /var/tmp");
	tap_ok(it && !strstr(it->value, "chmod"), "  no chmod advice that would act through it");
}

/* /tmp a link: the tmpfs step is skipped with one line, nothing mounted.
 * MODE_INITRAMFS so a bug would try the mount for real: the test runs as
 * a user or in a container where that mount fails anyway, and the report
 * would then say "failed", not "refused". */
static void test_tmp_link(void)
{
	boot_reset(MODE_DRY_RUN);
	snprintf(b.cfg.tmp_size, sizeof b.cfg.tmp_size, "10%%");
	tap_ok(hi_stage_mounts(&b) == 0, "mounts stage with /tmp -> /etc: no fatal error");
	tap_streq(status_of("/tmp"), "refused", "  /tmp refused (dry run)");
	const struct report_item *it = hi_report_find(&b.rep, "mounts", "/tmp");
	tap_contains(it ? it->value : NULL, "/tmp -> /etc", "  names the link and its target");
}

/* ---- the failure action ---- */

/* A dry-run boot of the early and config stages with this config text
 * (NULL: no file) and command line; returns the stage that failed. */
static const char *boot_until_config(const char *conf, const char *cmdline)
{
	boot_reset(MODE_DRY_RUN);
	b.switched = false;
	snprintf(b.config_path, sizeof b.config_path, "%s", at("fail.conf"));
	unlink(b.config_path);
	if (conf)
		put("fail.conf", conf);
	b.cmdline_text = cmdline;
	if (hi_stage_early(&b) < 0)
		return "early";
	if (hi_stage_config(&b) < 0)
		return "config";
	return "root";   /* a later stage fails */
}

static const char *decided(const char *failed)
{
	struct failure_plan p;
	hi_failure_decide(&b, failed, &p);
	return hi_config_failure_action_name(p.action);
}

static void test_failure_action(void)
{
	const char *locked = "[boot]\nfailure_action = halt\nlock_cmdline = yes\n";
	const char *unlocked = "[boot]\nfailure_action = halt\n";
	const char *f;

	f = boot_until_config(locked, "root=/dev/vda hardinit.boot.failure_action=poweroff");
	tap_streq(decided(f), "halt", "lock_cmdline: the command line cannot change the action after a later stage fails");
	f = boot_until_config(unlocked, "root=/dev/vda hardinit.boot.failure_action=poweroff");
	tap_streq(decided(f), "poweroff", "unlocked: the command line's action, applied as an override");
	f = boot_until_config(locked, "root= hardinit.boot.failure_action=poweroff");
	tap_streq(f, "early", "an empty root= fails the early stage");
	tap_streq(decided(f), "halt", "malformed command line: the initramfs config's action, not the default");
	f = boot_until_config(unlocked, "root= hardinit.boot.failure_action=poweroff");
	tap_streq(decided(f), "halt", "malformed command line: its own failure_action is not trusted");
	f = boot_until_config("[boot]\nfailure_action = halt\nbogus line\n", "root=/dev/vda hardinit.boot.failure_action=poweroff");
	tap_streq(f, "config", "a broken config fails the config stage");
	tap_streq(decided(f), "poweroff", "no config read: the command line may choose");
	f = boot_until_config("[boot]\nfailure_action = poweroff\nbogus line\n", "root=/dev/vda");
	tap_streq(decided(f), "reboot", "broken config, nothing on the command line: the default");
	f = boot_until_config(NULL, "root= hardinit.boot.failure_action=poweroff");
	tap_streq(decided(f), "reboot", "no config, malformed command line: the default");
	f = boot_until_config("[boot]\nfailure_action = halt\nbogus\n", "root=/dev/vda hardinit.boot.failure_action=shell");
	tap_streq(decided(f), "reboot", "no config read: the command line cannot grant a shell");
	/* The root's config broke after the initramfs's was read. */
	f = boot_until_config(locked, "root=/dev/vda hardinit.boot.failure_action=poweroff");
	b.cfg.failure_action = FAIL_SHELL;   /* as a half-read root config could leave it */
	tap_streq(decided("rootconfig"), "halt", "a broken root config: the initramfs config's action");
}

/* ---- fds 0-2 without a console ---- */

static void test_console_fds(void)
{
	mkd("nocons");
	put("nocons/null", "");
	put("nocons/kmsg", "");
	pid_t pid = fork();
	if (pid == 0) {
		int p[2];
		char what[512];
		/* As the kernel leaves them when it has no console for init:
		 * here a pipe, which the old fallback handed on. */
		if (pipe(p) < 0)
			_exit(9);
		dup2(p[0], 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		int rc = hi_console_std_fds(at("nocons"), 0, what, sizeof what);
		struct stat s0, s1, s2;
		fstat(0, &s0);
		fstat(1, &s1);
		fstat(2, &s2);
		int pipes = S_ISFIFO(s0.st_mode) + S_ISFIFO(s1.st_mode) + S_ISFIFO(s2.st_mode);
		if (write(1, "x", 1) != 1)
			_exit(8);
		_exit(rc == 0 && pipes == 0 && strstr(what, "kmsg (output)") ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	char out[8] = "";
	hi_fs_read(at("nocons/kmsg"), out, sizeof out, NULL);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "no console: fds 0-2 are no pipe (status %d)", status);
	tap_streq(out, "x", "  output lands in DEV/kmsg");
}

/* ---- messages that point the right way ---- */

static void test_messages(void)
{
	char err[256] = "f.conf:1: expected 'key = value'; got '\xef\xbb\xbf[boot]'";

	hi_config_explain(err, sizeof err);
	tap_contains(err, "<UTF-8 byte-order mark>[boot]", "a BOM in a config error is named");
	tap_contains(err, "without a byte-order mark", "  and the fix given");
	tap_ok(!strstr(err, "\xef\xbb\xbf"), "  the invisible bytes are gone");

	/* A FIFO as the root's /etc/hardinit.conf: refused at once, one line. */
	boot_reset(MODE_INITRAMFS);
	mkd("root/etc");
	b.cfg.read_root_config = true;
	unlink(at("root/etc/hardinit.conf"));
	mkfifo(at("root/etc/hardinit.conf"), 0644);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(5);
		int rc = hi_stage_config(&b);
		_exit(rc < 0 && strstr(b.err, "is a FIFO, not a regular file") ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "root config a FIFO: the config stage fails at once, naming it (status %d)", status);
	unlink(at("root/etc/hardinit.conf"));
}

/* ---- two root candidates ---- */

/* sys/class/block/NAME/size and a dev/NAME that is an ext4 image. */
static int fake_disk(const char *name, const char *label)
{
	char cmd[800], rel[64];
	snprintf(rel, sizeof rel, "dup/sys/class/block/%s", name);
	mkd(rel);
	snprintf(rel, sizeof rel, "dup/sys/class/block/%s/size", name);
	put(rel, "8192\n");
	mkd("dup/dev");
	snprintf(cmd, sizeof cmd, "mke2fs -q -F -t ext4 -L %s %s/dup/dev/%s 4M >/dev/null 2>&1", label, base, name);
	return system(cmd);
}

static void dup_boot(enum root_duplicates policy, const char *root)
{
	boot_reset(MODE_INITRAMFS);
	b.switched = false;
	snprintf(b.sys, sizeof b.sys, "%s", at("dup/sys"));
	snprintf(b.dev, sizeof b.dev, "%s", at("dup/dev"));
	/* Under a directory that does not exist: mount_root's mkdir fails
	 * before any mount(2) is tried on the host. */
	snprintf(b.newroot, sizeof b.newroot, "%s", at("dup/none/root"));
	b.cfg.root_timeout = 1;
	b.cfg.root_duplicates = policy;
	b.cmd.root = root;
}

static void test_root_duplicates(void)
{
	if (fake_disk("vdb", "dup") || fake_disk("vda", "dup") || fake_disk("vdc", "other")) {
		tap_ok(1, "two disks with one label # skip mke2fs not available");
		return;
	}
	dup_boot(ROOT_DUP_REFUSE, "LABEL=dup");
	tap_ok(hi_stage_root(&b) < 0, "LABEL= on two disks: refused");
	tap_contains(b.err, "matches 2 devices", "  says how many");
	tap_contains(b.err, "/dup/dev/vda (TYPE=ext4", "  names the first");
	tap_contains(b.err, "/dup/dev/vdb (TYPE=ext4", "  names the second");
	tap_contains(b.err, "root_duplicates = warn", "  names the setting that allows a pick");
	tap_ok(!strstr(b.err, "vdc"), "  not the disk with another label");
	dup_boot(ROOT_DUP_WARN, "LABEL=dup");
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot create"), "warn: goes on to mount (%s)", b.err);
	const struct report_item *it = hi_report_find(&b.rep, "root", "duplicates");
	tap_contains(it ? it->value : NULL, "took vda", "  took vda, the first by name, though vdb came first");
	dup_boot(ROOT_DUP_REFUSE, "LABEL=other");
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot create"), "one match: no refusal (%s)", b.err);

	/* More block devices than the stage compares (a disk of many
	 * partitions planted beside the real one): the one match seen is
	 * not taken, since the real root may be among those not compared. */
	char rel[64];
	for (int i = 0; i < 300; i++) {
		snprintf(rel, sizeof rel, "dup/sys/class/block/sdq%d", i);
		mkd(rel);
	}
	dup_boot(ROOT_DUP_REFUSE, "LABEL=other");
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "block devices; hardinit cannot check that only one matches"),
	       "past the device bound: no root taken (%s)", b.err);
	for (int i = 0; i < 300; i++) {
		snprintf(rel, sizeof rel, "dup/sys/class/block/sdq%d", i);
		rmdir(at(rel));
	}
	/* md: a running array is a root candidate; a member of one is not
	 * (a 1.0 or 0.90 member shows the array's file system at its start),
	 * nor is an md device that runs nothing. */
	if (fake_disk("md0", "raid") == 0 && fake_disk("vdd", "raid") == 0) {
		put("dup/sys/class/block/md0/md/array_state", "clean\n");
		mkd("dup/sys/class/block/vdd/holders");
		mkd("dup/sys/class/block/vdd/holders/md0");
		dup_boot(ROOT_DUP_REFUSE, "/dev/md0");
		tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot create"), "md: root=/dev/md0, running, is found (%s)", b.err);
		dup_boot(ROOT_DUP_REFUSE, "LABEL=raid");
		tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot create"),
		       "md: the running array is found by its label, its member not counted twice (%s)", b.err);
		put("dup/sys/class/block/md0/md/array_state", "inactive\n");
		dup_boot(ROOT_DUP_REFUSE, "LABEL=raid");
		tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "only an md member matched") && strstr(b.err, "vdd, held by md0"),
		       "md: an inactive array is not probed, nor the member it holds, which the line names (%s)", b.err);
	}

	struct config c;
	char err[CONFIG_ERR_MAX];
	hi_config_defaults(&c);
	tap_ok(c.root_duplicates == ROOT_DUP_REFUSE, "the default is refuse");
	tap_ok(hi_config_parse(&c, "[boot]\nlock_cmdline = yes\n", 26, "t", "", err, sizeof err) == 0 &&
	       hi_config_override(&c, "boot.root_duplicates", "warn", err, sizeof err) == 1,
	       "under the lock the command line cannot turn refuse into warn");
	hi_config_defaults(&c);
	c.root_duplicates = ROOT_DUP_WARN;
	c.lock_cmdline = true;
	tap_ok(hi_config_override(&c, "boot.root_duplicates", "refuse", err, sizeof err) == 0 &&
	       c.root_duplicates == ROOT_DUP_REFUSE, "  but may turn warn into refuse");
}

/* ---- a root that does not mount: which way the message points ---- */

/* The device wait (root=, LUKS, LVM, verity) polls at 1, 2, 4, 8, 16 ms,
 * then every 20 ms: fast for a disk that appears just after its driver,
 * bounded after. */
static void test_root_poll_steps(void)
{
	long seq[8], ms = DEV_WAIT_POLL_MIN_MS;
	for (int i = 0; i < 8; i++) {
		seq[i] = ms;
		ms = hi_dev_wait_poll_next_ms(ms);
	}
	tap_ok(seq[0] == 1 && seq[1] == 2 && seq[2] == 4 && seq[3] == 8 && seq[4] == 16,
	       "device wait: the first polls after 1, 2, 4, 8, 16 ms");
	tap_ok(seq[5] == 20 && seq[6] == 20 && seq[7] == 20, "  then every 20 ms, never longer");
	tap_ok(hi_dev_wait_poll_next_ms(0) == 1 && hi_dev_wait_poll_next_ms(-5) == 1, "  a step below 1 ms starts at 1 ms");
	/* A wait whose deadline has passed neither sleeps nor says it is
	 * still waiting: the caller's pass before it was the last. */
	struct dev_wait w;
	unsigned left = 99;
	hi_dev_wait_begin(&w, 0);
	tap_ok(!hi_dev_wait_next(&w) && !hi_dev_wait_progress(&w, &left) && left == 99,
	       "  a wait of 0 ms ends after the first pass, without a progress line");
	hi_dev_wait_begin(&w, -5);
	tap_ok(!hi_dev_wait_next(&w), "  a negative timeout is no wait");
	hi_dev_wait_begin(&w, 60 * 1000);
	tap_ok(hi_dev_wait_next(&w) && w.poll_ms == 2 && !hi_dev_wait_progress(&w, &left),
	       "  a long wait sleeps a step and goes on, no progress line in its first seconds");
}

static void test_mount_message(void)
{
	char msg[1024], line[512];
	const char *kmsg =
		"6,100,1000,-;virtio_blk virtio1: [vda] 65536 512-byte logical blocks\n"
		" SUBSYSTEM=block\n"
		"3,101,2000,-;EXT4-fs (vda): error loading journal\n"
		"30,102,2100,-;hardinit: cannot mount root /dev/vda (vda): x\n"
		"6,103,2200,-;EXT4-fs (vdb): mounted filesystem\n";

	tap_ok(hi_root_kmsg_pick(kmsg, "vda", line, sizeof line) == 1, "the kernel's line about vda is found");
	tap_streq(line, "EXT4-fs (vda): error loading journal", "  the last of the kernel's, not hardinit's");
	hi_root_mount_message(msg, sizeof msg, "/dev/vda", "ext4", EINVAL, line);
	tap_contains(msg, "error loading journal", "damaged journal, EINVAL: the kernel's line quoted");
	tap_contains(msg, "run fsck on /dev/vda", "  points to fsck");
	tap_ok(!strstr(msg, "rootflags"), "  not to rootfstype=/rootflags=");
	hi_root_mount_message(msg, sizeof msg, "/dev/vda", "ext4", EUCLEAN, NULL);
	tap_contains(msg, "fsck", "EUCLEAN (EFSCORRUPTED) without a kernel line: fsck");
	hi_root_mount_message(msg, sizeof msg, "/dev/vda", "ext4", EINVAL,
			   "EXT4-fs (vda): Unrecognized mount option \"bogus\" or missing value");
	tap_contains(msg, "rootflags=", "a bad option: points to rootflags=");
	tap_ok(!strstr(msg, "fsck"), "  not to fsck");
	hi_root_mount_message(msg, sizeof msg, "/dev/vda", "xfs", EINVAL, NULL);
	tap_contains(msg, "check rootfstype= and rootflags=", "no kernel line, EINVAL: the options, as before");
}

/* ---- the embedded policy copied to /run: whole or not at all ---- */

static void test_embedded_policy(void)
{
	char why[256], big[4096];

	memset(big, 'p', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	mkd("emb/from");
	put("emb/from/policy", big);
	put("emb/from/type", "default\n");
	put("emb/from/file_contexts", "/.* system_u:object_r:default_t\n");
	tap_ok(hi_embedded_policy_keep(at("emb/from"), at("emb/run"), 1 << 20, why, sizeof why) == 0 &&
	       access(at("emb/run/policy"), F_OK) == 0, "a policy under the limit is kept");
	tap_ok(hi_embedded_policy_keep(at("emb/from"), at("emb/run"), 1000, why, sizeof why) < 0,
	       "a policy over the limit is refused");
	tap_contains(why, "policy: larger than the size limit", "  and said so");
	tap_ok(access(at("emb/run/policy"), F_OK) < 0 && access(at("emb/run/type"), F_OK) < 0 &&
	       access(at("emb/run/file_contexts"), F_OK) < 0, "  no part of the set is left behind");

	/* A write error half-way (EFBIG under RLIMIT_FSIZE, as /run full would
	 * give ENOSPC): nothing left either. */
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 1024, 1024 };
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		int rc = hi_embedded_policy_keep(at("emb/from"), at("emb/run2"), 1 << 20, why, sizeof why);
		_exit(rc < 0 && strstr(why, "write") ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a write error is refused (status %d)", status);
	tap_ok(access(at("emb/run2/policy"), F_OK) < 0, "  and the partial policy removed");
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	make_tree();
	hi_safe_force_fallback(false);
	test_safe_open("openat2");
	hi_safe_force_fallback(true);
	test_safe_open("component walk");
	test_find_link();
	test_poly_links();
	test_poly_stage();
	hi_safe_force_fallback(false);
	test_poly_links();
	test_tmp_link();
	test_non_regular();
	test_read_at();
	test_failure_action();
	test_console_fds();
	test_messages();
	test_root_duplicates();
	test_mount_message();
	test_root_poll_steps();
	test_embedded_policy();

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}
