/* The boot's pace (init/boot_pace.c) against a temporary sysfs: RCU
 * expedited for the boot and put back, a setting already on left alone,
 * and the nice value raised and put back. Each case runs in a child, so
 * the priority change never touches this test's own process; the child
 * reports through its exit status and the files it leaves. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot_pace.h"
#include "fixture.h"
#include "report.h"
#include "tap.h"

enum { SEEN_RCU_REPORT = 1, SEEN_NICE_RAISED = 2, NICE_BACK = 4, START_RCU_ON = 8 };

/* Start and end the pace in a child against ROOT/sys; its findings as bits. */
static int pace_in_child(const char *root)
{
	pid_t pid = fork();

	if (pid == 0) {
		static struct boot b;
		int seen = 0;
		boot_at(&b, root, MODE_INITRAMFS);
		int before = getpriority(PRIO_PROCESS, 0);
		hi_boot_pace_start(&b);
		if (hi_report_find(&b.rep, "early", "rcu_expedited"))
			seen |= SEEN_RCU_REPORT;
		if (getpriority(PRIO_PROCESS, 0) == BOOT_NICE && hi_report_find(&b.rep, "early", "priority"))
			seen |= SEEN_NICE_RAISED;
		const char *now = fixture_get(root, "sys/kernel/rcu_expedited");
		if (now && now[0] == '1')
			seen |= START_RCU_ON;
		if (hi_boot_pace_end(&b) == 0 && getpriority(PRIO_PROCESS, 0) == before)
			seen |= NICE_BACK;
		_exit(seen);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		fixture_die("fork", root);
	return WEXITSTATUS(status);
}

static void test_rcu(void)
{
	const char *root = fixture_tree("hardinit-pace");

	fixture_put(root, "sys/kernel/rcu_expedited", "0\n");
	int seen = pace_in_child(root);
	tap_ok(seen & START_RCU_ON, "rcu_expedited reads 1 during the boot");
	tap_ok(seen & SEEN_RCU_REPORT, "  and the report says so");
	tap_streq(fixture_get(root, "sys/kernel/rcu_expedited"), "0\n", "  put back to 0 at the end");

	fixture_put(root, "sys/kernel/rcu_expedited", "1\n");
	seen = pace_in_child(root);
	tap_ok(!(seen & SEEN_RCU_REPORT), "already expedited (rcupdate.rcu_expedited=1): not touched, not reported");
	tap_streq(fixture_get(root, "sys/kernel/rcu_expedited"), "1\n", "  and still 1 after");

	const char *bare = fixture_tree("hardinit-pace-none");
	fixture_mkdir(bare, "sys/kernel", 0755);
	seen = pace_in_child(bare);
	tap_ok(!(seen & SEEN_RCU_REPORT) && (seen & NICE_BACK), "no rcu_expedited (tiny RCU): nothing to do, no error");
}

static void test_nice(void)
{
	const char *root = fixture_tree("hardinit-pace-nice");

	fixture_put(root, "sys/kernel/rcu_expedited", "0\n");
	int seen = pace_in_child(root);
	if (geteuid() == 0)
		tap_ok(seen & SEEN_NICE_RAISED, "PID 1's nice is %d during the boot, reported", BOOT_NICE);
	else
		tap_ok(!(seen & SEEN_NICE_RAISED), "not root: the priority cannot rise, and nothing claims it did");
	tap_ok(seen & NICE_BACK, "the nice value of before is back at the end");
}

static void test_preempt_mode(void)
{
	char mode[16];

	tap_ok(hi_boot_pace_preempt_mode("none (voluntary) full\n", mode, sizeof mode) == 0 && !strcmp(mode, "voluntary"),
	       "sched/preempt: the mode in parentheses (voluntary)");
	tap_ok(hi_boot_pace_preempt_mode("none voluntary full (lazy)\n", mode, sizeof mode) == 0 && !strcmp(mode, "lazy"),
	       "  (lazy), the last word");
	tap_ok(hi_boot_pace_preempt_mode("none voluntary full\n", mode, sizeof mode) < 0, "  none marked: refused");
	tap_ok(hi_boot_pace_preempt_mode("none () full\n", mode, sizeof mode) < 0, "  an empty mark: refused");
	tap_ok(hi_boot_pace_preempt_mode("(voluntary", mode, sizeof mode) < 0, "  an unclosed mark: refused");
	tap_ok(hi_boot_pace_preempt_mode("(voluntary)", mode, 9) < 0, "  a mode longer than the room: refused");
}

/* A fake debugfs already in place (so nothing is mounted): a kernel that is
 * already fully preemptible is left alone; one whose file keeps the old
 * mode after the write is not claimed changed, and nothing is put back. */
static void test_preempt(void)
{
	static struct boot b;
	const char *root = fixture_tree("hardinit-pace-preempt");

	fixture_put(root, "sys/kernel/debug/sched/preempt", "none voluntary (full)\n");
	boot_at(&b, root, MODE_INITRAMFS);
	hi_boot_pace_start(&b);
	tap_ok(!hi_report_find(&b.rep, "early", "preempt") && !b.preempt_before[0], "already (full): not touched, not reported");
	tap_streq(fixture_get(root, "sys/kernel/debug/sched/preempt"), "none voluntary (full)\n", "  the file as it was");
	hi_boot_pace_end(&b);

	fixture_put(root, "sys/kernel/debug/sched/preempt", "none (voluntary) full\n");
	boot_at(&b, root, MODE_INITRAMFS);
	hi_boot_pace_start(&b);
	tap_ok(!hi_report_find(&b.rep, "early", "preempt") && !b.preempt_before[0],
	       "(voluntary) kept after the write: no claim, nothing to put back");
	hi_boot_pace_end(&b);
}

/* A process named as the kernel's self-test threads are (its /proc entry
 * faked, its pid real): nice 19 from the start, 0 again once the devices
 * are done. Raising a nice value needs no privilege; lowering it does. */
static void test_selftests(void)
{
	static struct boot b;
	const char *root = fixture_tree("hardinit-pace-selftest");
	char rel[64];

	pid_t t = fork();
	if (t == 0) {
		pause();
		_exit(0);
	}
	if (t < 0)
		fixture_die("fork", root);
	snprintf(rel, sizeof rel, "proc/%d/comm", (int)t);
	fixture_put(root, rel, "cryptomgr_test\n");
	fixture_put(root, "proc/1/comm", "kthreadd\n");
	boot_at(&b, root, MODE_INITRAMFS);
	int before = getpriority(PRIO_PROCESS, 0);
	hi_boot_pace_start(&b);
	tap_ok(getpriority(PRIO_PROCESS, (id_t)t) == 19 && hi_report_find(&b.rep, "early", "selftests"),
	       "a self-test thread runs at nice 19 during the boot, reported");
	hi_boot_pace_devices_done(&b);
	if (geteuid() == 0)
		tap_ok(getpriority(PRIO_PROCESS, (id_t)t) == 0 && !b.selftests_reniced, "  and at nice 0 again when the devices are done");
	else
		tap_ok(!b.selftests_reniced, "  not root: it cannot go back to 0, and nothing is left to do");
	hi_boot_pace_end(&b);
	setpriority(PRIO_PROCESS, 0, before);

	/* On a root the kernel mounted there is no device wait: neither the
	 * self-tests' nice nor the preemption model is touched. */
	fixture_put(root, "sys/kernel/debug/sched/preempt", "none (voluntary) full\n");
	boot_at(&b, root, MODE_ON_ROOT);
	int nice_t = getpriority(PRIO_PROCESS, (id_t)t);
	hi_boot_pace_start(&b);
	tap_ok(getpriority(PRIO_PROCESS, (id_t)t) == nice_t && !hi_report_find(&b.rep, "early", "selftests") && !b.selftests_reniced,
	       "on a root: the self-test threads are left at their nice");
	tap_ok(!b.preempt_before[0] && !hi_report_find(&b.rep, "early", "preempt"), "  and the preemption model is not read");
	hi_boot_pace_end(&b);
	setpriority(PRIO_PROCESS, 0, before);
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
}

int main(void)
{
	test_rcu();
	test_nice();
	test_preempt_mode();
	test_preempt();
	test_selftests();
	return tap_done();
}
