/* The boot's pace (init/boot_pace.c) against a temporary sysfs: RCU
 * expedited for the boot and put back, a setting already on left alone,
 * and the nice value raised and put back. Each case runs in a child, so
 * the priority change never touches this test's own process; the child
 * reports through its exit status and the files it leaves. */
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

int main(void)
{
	test_rcu();
	test_nice();
	return tap_done();
}
