/* The hand-off's systemd pieces: the serialization that gives systemd the
 * initrd's start time (systemd's "initrd-timestamp=REALTIME MONOTONIC"
 * line in microseconds, then the end of the manager's section), and which
 * init is systemd (its links resolved inside the root, as Debian's
 * /sbin/init -> /lib/systemd/systemd with /lib -> usr/lib). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "handoff.h"
#include "tap.h"

static void test_serialization(void)
{
	char out[HANDOFF_SERIALIZATION_MAX];
	/* hardinit started at 1.5 s; now is 2.0 s boottime, 2.0 s monotonic,
	 * and 1700000000.75 s realtime: the start was 0.5 s before. */
	long n = hi_handoff_systemd_serialization(out, sizeof out, 1500000000ull, 2000000000ull, 2000000000ull,
						  1700000000750000000ull);
	tap_streq(out, "initrd-timestamp=1700000000250000 1500000\n\n", "initrd-timestamp: realtime and monotonic us, then the end marker");
	tap_ok(n == (long)strlen(out), "its length");
	tap_ok(hi_handoff_systemd_serialization(out, 10, 1, 2, 2, 2) == -1, "too small: -1");
	hi_handoff_systemd_serialization(out, sizeof out, 5000000000ull, 2000000000ull, 2000000000ull, 3000000000ull);
	tap_streq(out, "initrd-timestamp=3000000 2000000\n\n", "a start after now (a broken clock): now, never an underflow");
}

static void test_is_systemd(void)
{
	static struct boot b;
	const char *root = fixture_tree("hardinit-handoff");
	char p[512], q[512];

	boot_at(&b, root, MODE_INITRAMFS);
	fixture_put(root, "root/usr/lib/systemd/systemd", "#!/bin/sh\n");
	fixture_put(root, "root/usr/sbin/runit-init", "x");
	fixture_mkdir(root, "root/sbin", 0755);
	fixture_path(p, sizeof p, root, "root/lib");
	tap_ok(symlink("usr/lib", p) == 0, "/lib -> usr/lib");
	fixture_path(q, sizeof q, root, "root/sbin/init");
	tap_ok(symlink("/lib/systemd/systemd", q) == 0, "/sbin/init -> /lib/systemd/systemd");
	tap_ok(hi_handoff_is_systemd(&b, "/sbin/init"), "Debian's /sbin/init is systemd");
	tap_ok(hi_handoff_is_systemd(&b, "/lib/systemd/systemd"), "init=/lib/systemd/systemd is");
	tap_ok(!hi_handoff_is_systemd(&b, "/usr/sbin/runit-init"), "another init is not");
	tap_ok(!hi_handoff_is_systemd(&b, "/sbin/missing"), "a missing one is not");
	unlink(q);
	tap_ok(symlink("/usr/sbin/runit-init", q) == 0 && !hi_handoff_is_systemd(&b, "/sbin/init"),
	       "/sbin/init to another init is not");
	fixture_rmtree(root);
}

/* The real init's environment: the kernel's, or under the lock only its
 * own HOME and TERM (a command-line LD_PRELOAD= must not reach it). */
static void test_env(void)
{
	static struct boot b;
	static char *kernel_env[] = { "HOME=/", "TERM=linux", "LD_PRELOAD=/x.so", "BOOT_IMAGE=/vmlinuz", NULL };
	char *out[HANDOFF_MAX_ENV + 1];

	memset(&b, 0, sizeof b);
	b.envp = kernel_env;
	tap_ok(hi_handoff_env(&b, out, HANDOFF_MAX_ENV + 1) == 0 && out[2] && strcmp(out[2], "LD_PRELOAD=/x.so") == 0 &&
	       out[4] == NULL, "unlocked: the kernel's environment, as it gave it");
	b.cfg.lock_cmdline = true;
	tap_ok(hi_handoff_env(&b, out, HANDOFF_MAX_ENV + 1) == 2, "locked: two words left out");
	tap_ok(out[0] && strcmp(out[0], "HOME=/") == 0 && out[1] && strcmp(out[1], "TERM=linux") == 0 && !out[2],
	       "locked: only HOME and TERM");
	b.cfg.lock_cmdline = false;
	tap_ok(hi_handoff_env(&b, out, 3) == 2 && out[2] == NULL, "bounded: what does not fit is left out");
}

int main(void)
{
	test_env();
	test_serialization();
	test_is_systemd();
	return tap_done();
}
