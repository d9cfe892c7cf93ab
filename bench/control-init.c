/* The benchmark's control: the least an initramfs /init can do to reach the
 * same real init. Load virtio_blk, wait for /dev/vda, mount it read-only,
 * switch to it, exec /sbin/init. No hardening, no config, no report: the
 * difference from hardinit is hardinit's cost. Not for real use.
 *
 * CONTROL_PACE on the kernel command line (the kernel hands it to /init in
 * the environment) gives it hardinit's pace, so that no row of the bench
 * gains by a setting its control lacks:
 *   nice   PID 1 at BOOT_NICE (init/boot.h) for the boot, 0 put back
 *          before the exec: the floor of the same scheduling
 *   full   both of hardinit's settings through hardinit's own code
 *          (init/boot_pace.c: BOOT_NICE and expedited RCU grace periods,
 *          read from and put back to /sys/kernel/rcu_expedited before the
 *          exec), with sysfs mounted for it and moved into the new root as
 *          hardinit moves it: the least an initramfs must do at
 *          hardinit's pace
 *
 * CONTROL_MODULE=NAME and CONTROL_ROOT=DEV (same way) name another disk
 * driver, /lib/modules/NAME.ko.xz, and root: the Xen row of bench/xen
 * loads xen-blkfront and mounts /dev/xvda. Default virtio_blk, /dev/vda. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "boot_pace.h"

#define WAIT_STEPS 1000          /* 1000 x 10 ms: 10 s */

/* struct boot holds the whole config and report: not on PID 1's stack. */
static struct boot pace;

static void die(const char *what)
{
	printf("control-init: %s failed: errno %d\n", what, errno);
	fflush(stdout);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

int main(int argc, char **argv, char **envp)
{
	struct timespec ten_ms = { 0, 10000000 };
	struct stat st;
	const char *how = getenv("CONTROL_PACE");
	bool nice = how && strcmp(how, "nice") == 0, full = how && strcmp(how, "full") == 0;
	(void)argc;

	if (how && !nice && !full) {
		errno = EINVAL;
		die("CONTROL_PACE (nice or full)");
	}
	if (nice && setpriority(PRIO_PROCESS, 0, BOOT_NICE) < 0)
		die("setpriority");
	if (full) {
		if (mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			die("mount /sys");
		snprintf(pace.sys, sizeof pace.sys, "/sys");
		/* RCU left alone (already expedited, or no tree RCU) is what
		 * hardinit would do too; PID 1 left at nice 0 is no paced floor. */
		hi_boot_pace_start(&pace);
		if (!pace.nice_raised) {
			errno = EPERM;
			die("hardinit's pace: the boot's priority");
		}
	}

	const char *module = getenv("CONTROL_MODULE"), *root = getenv("CONTROL_ROOT");
	char path[128];
	snprintf(path, sizeof path, "/lib/modules/%.64s.ko.xz", module ? module : "virtio_blk");
	root = root ? root : "/dev/vda";

	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 4) < 0)
		die("finit_module");
	close(fd);
	for (int i = 0; stat(root, &st) < 0; i++) {
		if (i >= WAIT_STEPS)
			die("waiting for the root device");
		nanosleep(&ten_ms, NULL);
	}
	if (mount(root, "/root", "ext4", MS_RDONLY, NULL) < 0)
		die("mount root");
	if (mount("/dev", "/root/dev", NULL, MS_MOVE, NULL) < 0)
		die("move /dev");
	if (full && mount("/sys", "/root/sys", NULL, MS_MOVE, NULL) < 0)
		die("move /sys");
	if (chdir("/root") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0)
		die("switch root");
	if (nice && setpriority(PRIO_PROCESS, 0, 0) < 0)
		die("setpriority back to 0");
	/* hardinit's own put-back, read back: /sys is the new root's now. */
	if (full && hi_boot_pace_end(&pace) < 0)
		die("putting hardinit's pace back");
	argv[0] = "/sbin/init";
	execve("/sbin/init", argv, envp);
	die("exec /sbin/init");
	return 1;
}
