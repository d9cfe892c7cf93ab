/* The boot's pace: two kernel settings that make PID 1's work finish
 * sooner without changing any of it, for the few hundred milliseconds
 * between the kernel's "Run /init" and the real init.
 *
 * Priority. On a machine with one CPU (the small VMs and Xen guests
 * hardinit is for) the kernel's own background work competes with PID 1:
 * the crypto self-tests of the built-in algorithms run on kernel threads
 * well into userspace (cryptomgr_test: about 120 ms of CPU after "Run
 * /init" on Debian's 6.12 cloud kernel under -icount), and at equal
 * weight they took half the CPU, so each module the kernel decompressed
 * for PID 1 took twice as long. At nice -20 they still get about 1% while
 * PID 1 runs and all of it while PID 1 waits. Nice, not a real-time class:
 * nothing PID 1 waits for can starve.
 *
 * RCU. Loading the IMA policy (ima_update_policy) and turning SysRq off
 * (input_unregister_handler) each wait for an RCU grace period, about
 * 30 ms of guest time; expedited, the same wait takes well under one. The
 * kernel expedites its grace periods itself while it boots and stops
 * right before it starts /init (rcu_end_inkernel_boot); hardinit keeps
 * that until its hand-off through /sys/kernel/rcu_expedited, the switch
 * rcupdate.rcu_expedited= sets, and then puts back what it read. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "boot.h"
#include "boot_pace.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"

#define RCU_EXPEDITED "kernel/rcu_expedited"

static void raise_priority(struct boot *b)
{
	/* getpriority returns the nice value, and -1 is one: errno tells. */
	errno = 0;
	int before = getpriority(PRIO_PROCESS, 0);
	if (before == -1 && errno != 0) {
		log_warn("cannot read PID 1's priority: %s; the boot runs at the one it has", strerror(errno));
		return;
	}
	if (setpriority(PRIO_PROCESS, 0, BOOT_NICE) < 0) {
		log_warn("cannot raise PID 1's priority to nice %d: %s; the boot runs at nice %d",
			 BOOT_NICE, strerror(errno), before);
		return;
	}
	b->nice_before = before;
	b->nice_raised = true;
	hi_report_add(&b->rep, "early", "priority", "applied", "nice %d during the boot (was %d); put back before the real init",
		   BOOT_NICE, before);
}

static void expedite_rcu(struct boot *b)
{
	char path[BOOT_PATH_MAX + 32], before[sizeof b->rcu_expedited_before];

	/* Absent without tree RCU: nothing to speed up, nothing to say. */
	if (!hi_boot_path(path, sizeof path, b->sys, RCU_EXPEDITED) ||
	    hi_fs_read(path, before, sizeof before, NULL) < 0)
		return;
	before[strcspn(before, "\n")] = '\0';
	if (strcmp(before, "0") != 0)
		return;   /* already expedited (rcupdate.rcu_expedited=1): leave it */
	if (hi_fs_write(path, "1") < 0) {
		log_warn("cannot expedite RCU grace periods (%s): %s; the IMA policy load and "
			 "kernel.sysrq wait for normal ones", path, strerror(errno));
		return;
	}
	snprintf(b->rcu_expedited_before, sizeof b->rcu_expedited_before, "%s", before);
	hi_report_add(&b->rep, "early", "rcu_expedited", "applied", "1 during the boot (was %s); put back before the real init",
		   before);
}

void hi_boot_pace_start(struct boot *b)
{
	raise_priority(b);
	expedite_rcu(b);
}

int hi_boot_pace_end(struct boot *b)
{
	char path[BOOT_PATH_MAX + 32], now[16];
	int rc = 0;

	if (b->rcu_expedited_before[0]) {
		bool ok = hi_boot_path(path, sizeof path, b->sys, RCU_EXPEDITED) &&
			  hi_fs_write(path, b->rcu_expedited_before) == 0 &&
			  hi_fs_read(path, now, sizeof now, NULL) == 0 &&
			  strncmp(now, b->rcu_expedited_before, strlen(b->rcu_expedited_before)) == 0;
		if (!ok) {
			log_warn("cannot put %s/%s back to %s: the real init runs with expedited RCU grace "
				 "periods (faster waits, more interrupts)", b->sys, RCU_EXPEDITED, b->rcu_expedited_before);
			rc = -1;
		} else {
			b->rcu_expedited_before[0] = '\0';
		}
	}
	if (b->nice_raised) {
		errno = 0;
		if (setpriority(PRIO_PROCESS, 0, b->nice_before) < 0 || getpriority(PRIO_PROCESS, 0) != b->nice_before) {
			log_warn("cannot put PID 1's priority back to nice %d: %s; the real init starts at nice %d",
				 b->nice_before, errno ? strerror(errno) : "it reads back otherwise", BOOT_NICE);
			rc = -1;
		} else {
			b->nice_raised = false;
		}
	}
	return rc;
}
