/* Unit tests: the prefetch stage's parallel lookups in the new root and
 * their join, against a temporary tree standing in for the root: what is
 * looked up, that absolute symlinks resolve inside the root, that a FIFO
 * is never opened for reading, that a dry run starts nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "prefetch.h"
#include "fixture.h"
#include "tap.h"

static char root[128];
static struct boot b;

static void put(const char *rel, const char *content)
{
	char in_root[512];
	snprintf(in_root, sizeof in_root, "newroot/%s", rel);
	fixture_put(root, in_root, content);
}

static void mk(const char *rel, int kind)
{
	char path[512];
	snprintf(path, sizeof path, "%s/newroot/%s", root, rel);
	int rc = kind == 'd' ? hi_fs_mkdir_p(path, 0755) : mkfifo(path, 0600);
	if (rc < 0) {
		printf("# cannot make %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

static void fresh_boot(enum boot_mode mode)
{
	fixture_rmtree(root);
	snprintf(root, sizeof root, "/tmp/hardinit-test-prefetch.XXXXXX");
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	boot_at(&b, root, mode);
	snprintf(b.newroot, sizeof b.newroot, "%s/newroot", root);
	b.cfg.polyinstantiate = true;
	b.cfg.n_polydirs = 2;
	snprintf(b.cfg.polydirs[0], sizeof b.cfg.polydirs[0], "/tmp");
	snprintf(b.cfg.polydirs[1], sizeof b.cfg.polydirs[1], "/var/tmp");
}

static const char *prefetch_value(void)
{
	const struct report_item *it = hi_report_find(&b.rep, "prefetch", "paths");
	return it ? it->value : NULL;
}

static void test_lookups(void)
{
	char link[512];

	fresh_boot(MODE_INITRAMFS);
	put("etc/selinux/config", "SELINUX=disabled\n");
	put("etc/passwd", "root:x:0:0::/root:/bin/sh\n");
	mk("etc/security/namespace.d", 'd');
	mk("etc/fstab", 'f');                 /* a FIFO: must not be opened to read */
	mk("tmp/tmp-inst", 'd');
	put("lib/real-init", "#!/bin/sh\n");
	mk("sbin", 'd');
	snprintf(link, sizeof link, "%s/newroot/sbin/init", root);
	/* Absolute: found only when resolved inside the new root. */
	if (symlink("/lib/real-init", link) < 0) {
		printf("# symlink: %s\n", strerror(errno));
		exit(2);
	}

	uint64_t start = hi_boottime_ns();
	tap_ok(hi_stage_prefetch(&b) == 0, "prefetch starts");
	tap_ok(hi_stage_prefetch_join(&b) == 0, "prefetch joins");
	uint64_t ms = (hi_boottime_ns() - start) / 1000000;
	tap_ok(ms < 2000, "start and join take %llu ms: a FIFO in the list blocks nothing",
	       (unsigned long long)ms);
	/* selinux/config, namespace.d, passwd, fstab, tmp/tmp-inst, sbin/init
	 * of: those 6, namespace.conf, bootclean.sh, var/tmp/tmp-inst. */
	/* Without openat2 (before 5.6, or qemu-user 7.2 running the arm64
	 * tests) the fallback openat cannot resolve the absolute link in the
	 * root: one fewer found, and nothing outside the root either. */
	if (syscall(SYS_openat2, -1, "", NULL, 0) < 0 && errno == ENOSYS)
		tap_streq(prefetch_value(), "9 looked up, 5 found",
			  "no openat2 here: every listed path looked up; the absolute symlink not followed out of the root");
	else
		tap_streq(prefetch_value(), "9 looked up, 6 found",
			  "every listed path looked up; the absolute symlink resolved in the root");
	tap_ok(hi_stage_prefetch_join(&b) == 0, "a second join is harmless");
}

static void test_init_from_config(void)
{
	fresh_boot(MODE_ON_ROOT);
	b.cfg.polyinstantiate = false;
	snprintf(b.cfg.init, sizeof b.cfg.init, "/usr/lib/custom-init");
	put("usr/lib/custom-init", "x");
	hi_stage_prefetch(&b);
	hi_stage_prefetch_join(&b);
	tap_streq(prefetch_value(), "7 looked up, 1 found", "the configured init is looked up, no polydirs when off");
}

static void test_dry_run(void)
{
	fresh_boot(MODE_DRY_RUN);
	put("etc/passwd", "root:x:0:0::/root:/bin/sh\n");
	tap_ok(hi_stage_prefetch(&b) == 0 && hi_stage_prefetch_join(&b) == 0, "dry run: both stages succeed");
	tap_ok(prefetch_value() == NULL, "dry run: nothing looked up");

	fresh_boot(MODE_INITRAMFS);
	snprintf(b.newroot, sizeof b.newroot, "%s/missing", root);
	tap_ok(hi_stage_prefetch(&b) == 0 && hi_stage_prefetch_join(&b) == 0, "a root that cannot be opened: no error");
	tap_ok(prefetch_value() == NULL, "and nothing looked up");
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);
	test_lookups();
	test_init_from_config();
	test_dry_run();
	fixture_rmtree(root);
	return tap_done();
}
