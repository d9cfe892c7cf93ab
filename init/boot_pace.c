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
 * rcupdate.rcu_expedited= sets, and then puts back what it read.
 *
 * Preemption, while PID 1 waits for devices. Nice decides who gets the CPU
 * when the scheduler picks, not when it may pick: on Debian's kernels
 * (PREEMPT_DYNAMIC, "voluntary" by default) a kernel thread is switched out
 * only where it offers to (cond_resched), and a crypto self-test runs up
 * to 20 ms of guest time without offering, so PID 1, woken by the disk it
 * waited for, waited for the self-test instead (the root stage's mount:
 * 10-113 ms, 65 median, in 6 boots of make bench's LVM case; 2-27 with
 * full preemption). From "Run /init" to the switch to the real root the
 * model is "full", through debugfs's sched/preempt (mounted for the write
 * and unmounted again), and put back before the switch: after it PID 1
 * waits for no device, and the locks stage may raise lockdown, which
 * closes debugfs. Under lockdown already (Secure Boot) the kernel refuses
 * the write; the boot is then as fast as before, and the report says so.
 *
 * The self-tests' own priority. When PID 1 sleeps in a device-mapper
 * ioctl it waits for kthreadd to make a thread (DM_DEV_CREATE) or for
 * devtmpfs (the table load): kernel threads of nice 0, which the
 * scheduler weighs equally with the self-tests, so the wake-up chain could
 * wait a whole tick (4 ms at HZ=250) behind a self-test at each link. The
 * cryptomgr_test threads alive at "Run /init" (the kernel's own, started
 * at late_initcall; the modules hardinit loads register no algorithm) run
 * at nice 19 for the same span, and are put back to 0 with it. They still
 * get the CPU whenever nothing else wants it, so nothing that waits for a
 * test result starves. */
#include <dirent.h>
#include <linux/magic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "boot.h"
#include "boot_pace.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"

#define RCU_EXPEDITED "kernel/rcu_expedited"
#define DEBUGFS_DIR   "kernel/debug"
#define SCHED_PREEMPT "kernel/debug/sched/preempt"
#define BOOT_PREEMPT  "full"
#define SELFTEST_COMM "cryptomgr_test"
#define SELFTEST_NICE 19
#define PACE_MAX_PIDS 4096   /* /proc entries looked at for self-test threads */

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

int hi_boot_pace_preempt_mode(const char *text, char *out, size_t cap)
{
	const char *open = strchr(text, '(');
	const char *close = open ? strchr(open, ')') : NULL;

	if (!close || close == open + 1 || (size_t)(close - open - 1) >= cap)
		return -1;
	memcpy(out, open + 1, (size_t)(close - open - 1));
	out[close - open - 1] = '\0';
	return 0;
}

/* sched/preempt read into TEXT, and with WANT set to that mode (read back);
 * debugfs mounted for it if it was not, and unmounted after. 0, or -1 with
 * errno (ENOENT/ENODEV: no such switch in this kernel; EPERM: lockdown). */
static int preempt_switch(struct boot *b, const char *want, char *text, size_t cap)
{
	char dir[BOOT_PATH_MAX + 32], file[BOOT_PATH_MAX + 32];
	bool mounted = false;
	int rc = -1, err = 0;

	if (!hi_boot_path(dir, sizeof dir, b->sys, DEBUGFS_DIR) || !hi_boot_path(file, sizeof file, b->sys, SCHED_PREEMPT)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (access(file, F_OK) < 0) {
		/* Only on the kernel's own sysfs: a test's tree is never mounted on. */
		struct statfs fs;
		if (statfs(dir, &fs) < 0)
			return -1;
		if (fs.f_type != SYSFS_MAGIC) {
			errno = ENODEV;
			return -1;
		}
		if (mount("debugfs", dir, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0)
			return -1;
		mounted = true;
	}
	char now[16];
	if (hi_fs_read(file, text, cap, NULL) < 0 || (want && hi_fs_write(file, want) < 0))
		err = errno;
	else if (want && hi_fs_read(file, text, cap, NULL) < 0)
		err = errno;
	else if (want && (hi_boot_pace_preempt_mode(text, now, sizeof now) < 0 || strcmp(now, want) != 0))
		err = EIO;   /* the kernel took the write and kept another mode */
	else
		rc = 0;
	if (mounted)
		umount2(dir, MNT_DETACH);
	errno = err;
	return rc;
}

static void preempt_full(struct boot *b)
{
	char text[128], mode[16];

	if (preempt_switch(b, NULL, text, sizeof text) < 0 || hi_boot_pace_preempt_mode(text, mode, sizeof mode) < 0)
		return;   /* no debugfs or no PREEMPT_DYNAMIC: one model, nothing to choose */
	if (strcmp(mode, "none") != 0 && strcmp(mode, "voluntary") != 0)
		return;   /* full, lazy: already preemptible */
	if (preempt_switch(b, BOOT_PREEMPT, text, sizeof text) < 0) {
		if (errno == EPERM)
			hi_report_add(&b->rep, "early", "preempt", "info", "%s (kernel lockdown closes debugfs: not changed)", mode);
		else
			log_warn("cannot make the kernel fully preemptible for the boot (%s/%s): %s; PID 1 waits for "
				 "kernel threads to yield after each device wait", b->sys, SCHED_PREEMPT, strerror(errno));
		return;
	}
	snprintf(b->preempt_before, sizeof b->preempt_before, "%s", mode);
	hi_report_add(&b->rep, "early", "preempt", "applied", "%s until the switch to the root (was %s); put back before it",
		   BOOT_PREEMPT, mode);
}

/* The self-test threads at nice FROM set to TO; how many. */
static unsigned renice_selftests(struct boot *b, int from, int to)
{
	char path[BOOT_PATH_MAX + 64], comm[sizeof SELFTEST_COMM + 2];
	struct dirent *e;
	unsigned n = 0, seen = 0;
	DIR *d = opendir(b->proc);

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL && seen++ < PACE_MAX_PIDS) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "%s/%s/comm", b->proc, e->d_name);
		if (hi_fs_read(path, comm, sizeof comm, NULL) < 0 || strcmp(comm, SELFTEST_COMM "\n") != 0)
			continue;
		id_t pid = (id_t)strtoul(e->d_name, NULL, 10);
		errno = 0;
		if ((id_t)getpid() != pid && getpriority(PRIO_PROCESS, pid) == from && errno == 0 &&
		    setpriority(PRIO_PROCESS, pid, to) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static void calm_selftests(struct boot *b)
{
	unsigned n = renice_selftests(b, 0, SELFTEST_NICE);
	if (!n)
		return;
	b->selftests_reniced = true;
	hi_report_add(&b->rep, "early", "selftests", "applied", "%u crypto self-test thread%s at nice %d until the switch to the root",
		   n, n == 1 ? "" : "s", SELFTEST_NICE);
}

void hi_boot_pace_devices_done(struct boot *b)
{
	char text[128];

	if (b->preempt_before[0]) {
		if (preempt_switch(b, b->preempt_before, text, sizeof text) < 0)
			log_warn("cannot put the kernel's preemption back to %s (%s/%s): %s; the real init runs fully "
				 "preemptible (slightly more context switches)", b->preempt_before, b->sys, SCHED_PREEMPT,
				 strerror(errno));
		b->preempt_before[0] = '\0';
	}
	if (b->selftests_reniced) {
		/* Those still testing go back to nice 0; the rest have exited. */
		renice_selftests(b, SELFTEST_NICE, 0);
		b->selftests_reniced = false;
	}
}

void hi_boot_pace_start(struct boot *b)
{
	/* The device waits are an initramfs's: on a root the kernel mounted
	 * there is none, and the locks stage, before the hand-off, may close
	 * debugfs to the put-back. */
	if (b->mode == MODE_INITRAMFS)
		calm_selftests(b);
	raise_priority(b);
	expedite_rcu(b);
	if (b->mode == MODE_INITRAMFS)
		preempt_full(b);
}

int hi_boot_pace_end(struct boot *b)
{
	char path[BOOT_PATH_MAX + 32], now[16];
	int rc = 0;

	hi_boot_pace_devices_done(b);   /* a failure before the switch: not yet done */

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
