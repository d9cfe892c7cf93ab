/* hardinit: PID 1 for the few milliseconds before the real init.
 *
 * main() decides the mode, runs the stage table in order, and is the one
 * place that decides what a failure means. As PID 1 it never returns: it
 * either execs the real init or takes the configured failure action. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "boot.h"
#include "boot_pace.h"
#include "cli.h"
#include "config_table.h"
#include "failure.h"
#include "log.h"
#include "table.h"

/* Halt: say so, then sleep forever. PID 1 must not exit (the kernel
 * panics), and a silent hang is the one thing a user cannot diagnose. */
static void __attribute__((noreturn)) halt_forever(void)
{
	log_err("system halted; power it off or reset it");
	for (;;)
		hi_sleep_ms(3600 * 1000L);
}

static void run_emergency_shell(struct boot *b)
{
	static const char *const shells[] = { "/bin/sh", "/bin/busybox" };

	for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++) {
		if (access(shells[i], X_OK) != 0)
			continue;
		log_err("starting emergency shell %s; exit it to reboot", shells[i]);
		pid_t pid = fork();
		if (pid == 0) {
			hi_boot_pace_end(b);
			char *const argv[] = { (char *)shells[i], strstr(shells[i], "busybox") ? "sh" : NULL, NULL };
			setsid();
			execv(shells[i], argv);
			_exit(127);
		}
		if (pid > 0) {
			int status;
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return;
		}
	}
	log_err("no emergency shell (/bin/sh, /bin/busybox) in this root");
}

/* The failure action: the one place that takes it. What it is, is
 * decided by failure_decide (init/failure.c), which the dry run shares. */
static void __attribute__((noreturn)) fail_boot(struct boot *b, const char *failed_stage)
{
	struct failure_plan plan;

	hi_failure_decide(b, failed_stage, &plan);
	enum failure_action action = plan.action;
	log_err("%s", b->err[0] ? b->err : "boot failed");
	log_err("taking the failure action: %s (from the %s)", hi_config_failure_action_name(action), plan.source);
	sync();
	if (action == FAIL_SHELL) {
		run_emergency_shell(b);
		action = FAIL_REBOOT;
	}
	if (action == FAIL_REBOOT) {
		if (plan.delay > 0) {
			log_err("rebooting in %d seconds", plan.delay);
			hi_sleep_ms(plan.delay * 1000L);
		}
		reboot(RB_AUTOBOOT);
	} else if (action == FAIL_POWEROFF) {
		reboot(RB_POWER_OFF);
	}
	if (action != FAIL_HALT)
		log_err("%s failed: %s", action == FAIL_REBOOT ? "reboot" : "poweroff", strerror(errno));
	halt_forever();
}

static enum boot_mode pid1_mode(void)
{
	struct statfs sfs;

	/* The kernel unpacks an initramfs into rootfs, a ramfs or tmpfs; a
	 * root the kernel mounted itself (init=) is a disk file system. */
	if (statfs("/", &sfs) == 0 &&
	    ((unsigned long)sfs.f_type == RAMFS_MAGIC || (unsigned long)sfs.f_type == TMPFS_MAGIC))
		return MODE_INITRAMFS;
	return MODE_ON_ROOT;
}

static void __attribute__((noreturn)) pid1_main(int argc, char **argv, char **envp)
{
	static struct boot b;

	b.rep.start_ns = hi_boottime_ns();
	hi_boot_init_paths(&b, pid1_mode());
	b.argc = argc;
	b.argv = argv;
	b.envp = envp;
	/* A write to a pipe whose reader died must fail with EPIPE, not kill
	 * PID 1 (the kernel would panic). */
	signal(SIGPIPE, SIG_IGN);

	if (hi_boot_run_stages(&b) == 0) {
		hi_boot_handoff(&b);
		b.failed_stage = "handoff";
	}
	fail_boot(&b, b.failed_stage);
}

int main(int argc, char **argv, char **envp)
{
	if (getpid() == 1)
		pid1_main(argc, argv, envp);
	return hi_cli_main(argc, argv);
}
