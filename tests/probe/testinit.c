/* testinit: the init of the VM tests' root (and of the harness's own
 * initramfs). It reports what it was handed (argv, environment, fds,
 * mounts, status, the kernel command line, hardinit's report) on the
 * console between "=== BEGIN NAME ===" / "=== END NAME ===" markers, runs
 * the test's /probe/run script if there is one, and powers off.
 *
 * The VM tests read this report rather than hardinit's own claims, so it
 * must be independent of hardinit: plain syscalls and raw file contents.
 *
 * It is PID 1: returning from main panics the kernel, so every error is
 * printed and the program still ends in poweroff.
 *
 * argv containing "shell" (and /bin/busybox present): an interactive
 * busybox shell on the console instead of /probe/run (make demo-shell). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define PROBE_SCRIPT "/probe/run"
#define BUSYBOX "/bin/busybox"
#define PROBE_TIMEOUT_SEC 120
#define RAW_FILE_MAX (1024 * 1024) /* bounded read of a /proc file */
#define FD_SCAN_MAX 1024           /* fds listed in the PID section */
#define FIRST_FDS 3

/* What fds 0-2 were before testinit opened anything: the real init must
 * get them open on the console (the test checks this). */
static int fd_was_open[FIRST_FDS];

/* Mounts testinit had to make itself, reported so a test can tell them
 * apart from what hardinit prepared. */
static char self_mounted[128];

static void note_self_mount(const char *what)
{
	size_t len = strlen(self_mounted);
	snprintf(self_mounted + len, sizeof(self_mounted) - len, "%s%s", len ? " " : "", what);
}

static long long boottime_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
		return -1;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The benchmark's end mark: the printk timestamp of this record, taken as
 * early as possible, plus our own CLOCK_BOOTTIME for cross-checking. */
static void kmsg_first_mark(long long t0)
{
	char line[96];
	int fd, len;

	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT && mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755") == 0) {
		/* Booted as /init from a bare initramfs: nobody mounted /dev. */
		note_self_mount("/dev");
		fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	}
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "<5>testinit: first instruction boottime_ns=%lld\n", t0);
	if (write(fd, line, (size_t)len) < 0) {
		/* nothing to do: the marker is best-effort, the console report follows */
	}
	close(fd);
}

/* When the kernel found no /dev/console, init starts without fds 0-2; the
 * report still has to reach the serial console. */
static void ensure_console_fds(void)
{
	int i, fd = -1;

	for (i = 0; i < FIRST_FDS; i++) {
		if (fcntl(i, F_GETFD) != -1)
			continue;
		if (fd < 0)
			fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd < 0)
			return;
		if (fd != i)
			dup2(fd, i);
	}
	if (fd >= FIRST_FDS)
		close(fd);
}

static void mount_api_filesystems(void)
{
	if (!path_exists("/proc/self")) {
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
			note_self_mount("/proc");
		else
			printf("testinit: cannot mount /proc: %s\n", strerror(errno));
	}
	if (!path_exists("/sys/kernel")) {
		if (mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
			note_self_mount("/sys");
		else
			printf("testinit: cannot mount /sys: %s\n", strerror(errno));
	}
}

static void begin(const char *name)
{
	printf("=== BEGIN %s ===\n", name);
}

static void end(const char *name)
{
	printf("=== END %s ===\n", name);
	fflush(stdout);
}

/* Copy a file to stdout as it is, bounded; make sure the END marker starts
 * on its own line. */
static void print_raw_file(const char *path)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;
	int last_newline = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("testinit: cannot open %s: %s\n", path, strerror(errno));
		return;
	}
	fflush(stdout);
	while (total < RAW_FILE_MAX && (n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, stdout);
		last_newline = buf[n - 1] == '\n';
		total += (size_t)n;
	}
	close(fd);
	if (!last_newline)
		putchar('\n');
	if (total >= RAW_FILE_MAX)
		printf("testinit: %s truncated at %d bytes\n", path, RAW_FILE_MAX);
}

static void section_file(const char *name, const char *path)
{
	begin(name);
	print_raw_file(path);
	end(name);
}

static void section_argv(int argc, char **argv)
{
	int i;
	begin("ARGV");
	for (i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	end("ARGV");
}

static void section_env(void)
{
	char **e;
	begin("ENV");
	for (e = environ; e && *e; e++)
		printf("%s\n", *e);
	end("ENV");
}

static void fd_target(int fd, char *out, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	if (n < 0)
		snprintf(out, size, "?(%s)", strerror(errno));
	else
		out[n] = '\0';
}

/* Any fd beyond 0-2 is one the previous init leaked into us. */
static void list_other_fds(void)
{
	char target[256];
	struct dirent *de;
	int listed = 0;
	DIR *dir = opendir("/proc/self/fd");

	if (!dir) {
		printf("testinit: cannot list /proc/self/fd: %s\n", strerror(errno));
		return;
	}
	while ((de = readdir(dir)) != NULL && listed < FD_SCAN_MAX) {
		int fd;
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		if (fd < FIRST_FDS || fd == dirfd(dir))
			continue;
		fd_target(fd, target, sizeof(target));
		printf("other_fd=%d %s\n", fd, target);
		listed++;
	}
	closedir(dir);
}

static void section_pid(void)
{
	char target[256];
	int i;

	begin("PID");
	printf("pid=%d\n", (int)getpid());
	printf("ppid=%d\n", (int)getppid());
	printf("sid=%d\n", (int)getsid(0));
	printf("pgid=%d\n", (int)getpgid(0));
	for (i = 0; i < FIRST_FDS; i++) {
		if (!fd_was_open[i]) {
			printf("fd%d=closed\n", i);
			continue;
		}
		fd_target(i, target, sizeof(target));
		printf("fd%d=open %s\n", i, target);
	}
	list_other_fds();
	printf("testinit_mounted=%s\n", self_mounted);
	end("PID");
}

static void report_sections(int argc, char **argv)
{
	section_argv(argc, argv);
	section_env();
	section_pid();
	section_file("MOUNTINFO", "/proc/self/mountinfo");
	begin("STATUS");
	print_raw_file("/proc/self/status");
	print_raw_file("/proc/1/status");
	end("STATUS");
	section_file("CMDLINE", "/proc/cmdline");
	if (path_exists("/run/hardinit/report.txt"))
		section_file("REPORT", "/run/hardinit/report.txt");
}

/* The child's side: its own session (so the shell gets the console as
 * controlling terminal, and a timeout can kill the whole group), default
 * signal state, a PATH if the kernel gave none. */
static void exec_child(char *const args[])
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (!getenv("PATH"))
		setenv("PATH", "/sbin:/usr/sbin:/bin:/usr/bin", 1);
	execv(args[0], args);
	printf("testinit: cannot exec %s: %s\n", args[0], strerror(errno));
	fflush(stdout);
	_exit(127);
}

/* Wait for the child, reaping any orphan that is reparented to us, for at
 * most timeout_sec (0: no limit, for the interactive shell). */
static void wait_child(pid_t child, const char *what, int timeout_sec)
{
	long long deadline = boottime_ns() + (long long)timeout_sec * 1000000000LL;
	sigset_t chld;
	int status;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		struct timespec tick = { 1, 0 };
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid != child)
				continue;
			if (WIFEXITED(status))
				printf("testinit: %s exited with status %d\n", what, WEXITSTATUS(status));
			else if (WIFSIGNALED(status))
				printf("testinit: %s killed by signal %d\n", what, WTERMSIG(status));
			return;
		}
		if (pid < 0 && errno == ECHILD)
			return;
		if (timeout_sec > 0 && boottime_ns() >= deadline) {
			printf("testinit: %s timed out after %d s; killing it\n", what, timeout_sec);
			kill(-child, SIGKILL);
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			return;
		}
		sigtimedwait(&chld, NULL, &tick);
	}
}

static void run_child(char *const args[], const char *what, int timeout_sec)
{
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0) {
		printf("testinit: fork failed: %s\n", strerror(errno));
		return;
	}
	if (child == 0)
		exec_child(args);
	wait_child(child, what, timeout_sec);
}

static int wants_shell(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "shell") == 0)
			return path_exists(BUSYBOX);
	return 0;
}

static void power_off(void)
{
	int fd;

	printf("=== TESTINIT DONE ===\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	/* Refused, e.g. when hardinit dropped CAP_SYS_BOOT: sysrq 'o' powers
	 * off without that capability. */
	printf("testinit: reboot(RB_POWER_OFF) failed: %s; trying sysrq\n", strerror(errno));
	fflush(stdout);
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "o", 1) < 0)
			printf("testinit: sysrq poweroff failed: %s\n", strerror(errno));
		close(fd);
	}
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long long t0 = boottime_ns();
	int i;

	for (i = 0; i < FIRST_FDS; i++)
		fd_was_open[i] = fcntl(i, F_GETFD) != -1;
	kmsg_first_mark(t0);
	ensure_console_fds();
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_api_filesystems();

	report_sections(argc, argv);

	if (wants_shell(argc, argv)) {
		char *shell[] = { BUSYBOX, "cttyhack", BUSYBOX, "sh", "-l", NULL };
		printf("testinit: starting an interactive shell; 'exit' powers off\n");
		run_child(shell, "the shell", 0);
	} else if (path_exists(PROBE_SCRIPT)) {
		char *probe[] = { BUSYBOX, "sh", PROBE_SCRIPT, NULL };
		run_child(probe, PROBE_SCRIPT, PROBE_TIMEOUT_SEC);
	}
	power_off();
	return 0;
}
