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
#include "cli.h"
#include "log.h"

static void sleep_seconds(int seconds)
{
	struct timespec ts = { seconds, 0 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Halt: say so, then sleep forever. PID 1 must not exit (the kernel
 * panics), and a silent hang is the one thing a user cannot diagnose. */
static void __attribute__((noreturn)) halt_forever(void)
{
	log_err("system halted; power it off or reset it");
	for (;;)
		sleep_seconds(3600);
}

static void run_emergency_shell(void)
{
	static const char *const shells[] = { "/bin/sh", "/bin/busybox" };

	for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++) {
		if (access(shells[i], X_OK) != 0)
			continue;
		log_err("starting emergency shell %s; exit it to reboot", shells[i]);
		pid_t pid = fork();
		if (pid == 0) {
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

/* The failure action: the one place that decides what a fatal error does. */
static void __attribute__((noreturn)) fail_boot(struct boot *b)
{
	enum failure_action action = b->cfg.failure_action;

	log_err("%s", b->err[0] ? b->err : "boot failed");
	log_err("taking the failure action: %s", config_failure_action_name(action));
	sync();
	if (action == FAIL_SHELL) {
		run_emergency_shell();
		action = FAIL_REBOOT;
	}
	if (action == FAIL_REBOOT) {
		if (b->cfg.failure_delay > 0) {
			log_err("rebooting in %d seconds", b->cfg.failure_delay);
			sleep_seconds(b->cfg.failure_delay);
		}
		reboot(RB_AUTOBOOT);
	} else if (action == FAIL_POWEROFF) {
		reboot(RB_POWER_OFF);
	}
	if (action != FAIL_HALT)
		log_err("%s failed: %s", action == FAIL_REBOOT ? "reboot" : "poweroff", strerror(errno));
	halt_forever();
}

/* Before the config is read (or when it is broken) the failure action can
 * still come from the command line, so a test or an operator gets the
 * action they asked for. An emergency shell is not granted this way: the
 * config that would say whether the command line may weaken it is unknown. */
static void failure_action_from_cmdline(struct boot *b)
{
	static const struct { const char *name; enum failure_action action; } names[] = {
		{ "reboot", FAIL_REBOOT }, { "poweroff", FAIL_POWEROFF }, { "halt", FAIL_HALT },
	};

	for (size_t i = 0; i < b->cmd.n_overrides; i++) {
		const struct cmdline_word *o = &b->cmd.overrides[i];
		if (!o->value || strcmp(o->key, "boot.failure_action") != 0)
			continue;
		for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
			if (strcmp(o->value, names[j].name) == 0)
				b->cfg.failure_action = names[j].action;
	}
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

	b.rep.start_ns = boottime_ns();
	boot_init_paths(&b, pid1_mode());
	b.argc = argc;
	b.argv = argv;
	b.envp = envp;
	/* A write to a pipe whose reader died must fail with EPIPE, not kill
	 * PID 1 (the kernel would panic). */
	signal(SIGPIPE, SIG_IGN);

	if (boot_run_stages(&b) == 0)
		boot_handoff(&b);
	failure_action_from_cmdline(&b);
	fail_boot(&b);
}

int main(int argc, char **argv, char **envp)
{
	if (getpid() == 1)
		pid1_main(argc, argv, envp);
	return cli_main(argc, argv);
}
