/* The benchmark's control: the least an initramfs /init can do to reach the
 * same real init. Load virtio_blk, wait for /dev/vda, mount it read-only,
 * switch to it, exec /sbin/init. No hardening, no config, no report: the
 * difference from hardinit is hardinit's cost. Not for real use.
 *
 * CONTROL_NICE=N on the kernel command line (the kernel hands it to /init
 * in the environment) runs it at nice N, as hardinit runs the boot
 * (BOOT_NICE in init/boot.h), and puts nice 0 back before the exec: the
 * floor of the same scheduling, to read hardinit's own cost against.
 *
 * CONTROL_MODULE=NAME and CONTROL_ROOT=DEV (same way) name another disk
 * driver, /lib/modules/NAME.ko.xz, and root: the Xen row of bench/xen
 * loads xen-blkfront and mounts /dev/xvda. Default virtio_blk, /dev/vda. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_STEPS 1000          /* 1000 x 10 ms: 10 s */

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
	const char *nice = getenv("CONTROL_NICE");
	(void)argc;

	if (nice && setpriority(PRIO_PROCESS, 0, atoi(nice)) < 0)
		die("setpriority");

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
	if (chdir("/root") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0)
		die("switch root");
	if (nice && setpriority(PRIO_PROCESS, 0, 0) < 0)
		die("setpriority back to 0");
	argv[0] = "/sbin/init";
	execve("/sbin/init", argv, envp);
	die("exec /sbin/init");
	return 1;
}
