/* tiocsti: try to push one character into a terminal's input, the way a
 * keystroke-injection attack does, and print what the kernel said:
 *
 *   tiocsti [--uid N] [--high] [DEVICE]      (DEVICE: /dev/console)
 *   -> "tiocsti=ok|EIO|EPERM|E<n> uid=U ctty=ok|E<n> high=0|1"
 *
 * A child makes itself a session leader and takes DEVICE as its
 * controlling terminal (as root, stealing it), so that an unprivileged
 * caller is refused only by the policy under test, not by the kernel's
 * own "not your terminal" EPERM. Then it drops to uid N (gid N, no
 * supplementary groups) and calls ioctl(TIOCSTI). --high sets bits in
 * the upper half of the 64-bit request, which the kernel ignores and a
 * naive seccomp filter would not. Exit status 0 whatever the verdict. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *errname(int e)
{
	static char buf[16];
	switch (e) {
	case 0: return "ok";
	case EIO: return "EIO";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOTTY: return "ENOTTY";
	default:
		snprintf(buf, sizeof buf, "E%d", e);
		return buf;
	}
}

static int child(const char *dev, long uid, int high)
{
	char c = ' ';
	int ctty_err = 0;

	if (setsid() < 0)
		ctty_err = errno;
	int fd = open(dev, O_RDWR | O_NOCTTY);
	if (fd < 0) {
		printf("tiocsti=open-failed:%s uid=%ld\n", errname(errno), uid);
		return 1;
	}
	if (!ctty_err && ioctl(fd, TIOCSCTTY, 1) < 0)
		ctty_err = errno;
	if (uid >= 0 && (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0)) {
		printf("tiocsti=drop-failed:%s uid=%ld\n", errname(errno), uid);
		return 1;
	}
	unsigned long req = TIOCSTI | (high ? 0xdead000100000000ul : 0);
	errno = 0;
	long r = syscall(SYS_ioctl, fd, req, &c);
	printf("tiocsti=%s uid=%ld ctty=%s high=%d\n", r == 0 ? "ok" : errname(errno),
	       (long)getuid(), errname(ctty_err), high);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/console";
	long uid = -1;
	int high = 0, status;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--uid") == 0 && i + 1 < argc)
			uid = strtol(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--high") == 0)
			high = 1;
		else
			dev = argv[i];
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		printf("tiocsti=fork-failed:%s\n", errname(errno));
		return 1;
	}
	if (pid == 0)
		_exit(child(dev, uid, high));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("tiocsti=child-died\n");
		return 1;
	}
	return WEXITSTATUS(status);
}
