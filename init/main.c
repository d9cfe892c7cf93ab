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

#include "boot.h"
#include "cli.h"
#include "log.h"
#include "stages.h"

#define RAMFS_MAGIC_ 0x858458f6
#define TMPFS_MAGIC_ 0x01021994

enum { M_INITRAMFS = 1, M_ON_ROOT = 2, M_DRY_RUN = 4, M_ALL = 7 };

struct stage_entry {
	const char *name;
	stage_fn run;
	unsigned modes;
};

/* The order of a boot, and the one place it is written down. The reasons
 * are in shared/DESIGN.md section 2: the policy needs the real root, the
 * mount tree must not be shared before the switch, the locks close doors
 * the earlier stages still need. */
static const struct stage_entry stage_table[] = {
	{ "early",      stage_early,      M_ALL },
	{ "config",     stage_config,     M_ALL },
	/* Before the slow parts of the boot, so the kernel's waits overlap. */
	{ "sysctl_start", stage_sysctl_start, M_INITRAMFS | M_ON_ROOT },
	{ "modules",    stage_modules,    M_INITRAMFS | M_DRY_RUN },
	{ "root",       stage_root,       M_INITRAMFS | M_DRY_RUN },
	/* The later stages' reads from the root, looked up in parallel. */
	{ "prefetch",   stage_prefetch,   M_INITRAMFS | M_ON_ROOT },
	{ "switchroot", stage_switchroot, M_INITRAMFS | M_DRY_RUN },
	{ "rootconfig", stage_config,     M_INITRAMFS },
	{ "selinux",    stage_selinux,    M_ALL },
	{ "memory",     stage_memory,     M_ALL },
	{ "sysctl",     stage_sysctl,     M_ALL },
	{ "mounts",     stage_mounts,     M_ALL },
	/* One thread again before the seccomp filter and the capability drops. */
	{ "prefetch_join", stage_prefetch_join, M_INITRAMFS | M_ON_ROOT },
	{ "tty",        stage_tty,        M_ALL },
	{ "caps",       stage_caps,       M_ALL },
	{ "locks",      stage_locks,      M_ALL },
	{ "report",     stage_report,     M_ALL },
};

static unsigned mode_bit(enum boot_mode m)
{
	return m == MODE_INITRAMFS ? M_INITRAMFS : m == MODE_ON_ROOT ? M_ON_ROOT : M_DRY_RUN;
}

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

static int run_stages(struct boot *b)
{
	unsigned bit = mode_bit(b->mode);

	for (size_t i = 0; i < sizeof stage_table / sizeof stage_table[0]; i++) {
		const struct stage_entry *s = &stage_table[i];
		if (!(s->modes & bit))
			continue;
		uint64_t start = boottime_ns();
		int rc = s->run(b);
		uint64_t took = boottime_ns() - start;
		if (b->rep.n_stages < REPORT_MAX_STAGES) {
			struct report_stage *st = &b->rep.stages[b->rep.n_stages++];
			snprintf(st->name, sizeof st->name, "%s", s->name);
			st->start_ns = start;
			st->duration_ns = took;
			st->result = rc < 0 ? -1 : 0;
		}
		if (rc < 0) {
			log_err("stage %s failed after %llu.%03llu ms", s->name,
				(unsigned long long)(took / 1000000), (unsigned long long)(took / 1000 % 1000));
			return -1;
		}
		log_debug("stage %s done in %llu.%03llu ms", s->name,
			  (unsigned long long)(took / 1000000), (unsigned long long)(took / 1000 % 1000));
	}
	return 0;
}

static enum boot_mode pid1_mode(void)
{
	struct statfs sfs;

	/* The kernel unpacks an initramfs into rootfs, a ramfs or tmpfs; a
	 * root the kernel mounted itself (init=) is a disk file system. */
	if (statfs("/", &sfs) == 0 &&
	    ((unsigned long)sfs.f_type == RAMFS_MAGIC_ || (unsigned long)sfs.f_type == TMPFS_MAGIC_))
		return MODE_INITRAMFS;
	return MODE_ON_ROOT;
}

void boot_init_paths(struct boot *b, enum boot_mode mode)
{
	b->mode = mode;
	b->kmsg_fd = -1;
	snprintf(b->proc, sizeof b->proc, "/proc");
	snprintf(b->sys, sizeof b->sys, "/sys");
	snprintf(b->dev, sizeof b->dev, "/dev");
	snprintf(b->run, sizeof b->run, "/run");
	snprintf(b->config_path, sizeof b->config_path, "/etc/hardinit.conf");
	snprintf(b->modules_list, sizeof b->modules_list, "/etc/hardinit/modules");
	snprintf(b->newroot, sizeof b->newroot, mode == MODE_INITRAMFS ? "/root" : "/");
	config_defaults(&b->cfg);
}

static void __attribute__((noreturn)) pid1_main(int argc, char **argv, char **envp)
{
	static struct boot b;

	b.rep.start_ns = boottime_ns();
	boot_init_paths(&b, pid1_mode());
	b.argc = argc;
	b.argv = argv;
	b.envp = envp;
	/* SIGCHLD default-ignored children would be reaped by nobody; keep
	 * the default disposition and reap in the one place that forks. */
	signal(SIGPIPE, SIG_IGN);

	if (run_stages(&b) == 0)
		handoff_exec(&b);
	failure_action_from_cmdline(&b);
	fail_boot(&b);
}

int main(int argc, char **argv, char **envp)
{
	if (getpid() == 1)
		pid1_main(argc, argv, envp);
	return cli_main(argc, argv);
}

int dry_run(struct boot *b)
{
	int rc = run_stages(b);
	if (rc == 0)
		rc = handoff_exec(b);
	if (rc < 0) {
		log_err("%s", b->err);
		log_err("at boot this would take the failure action: %s",
			config_failure_action_name(b->cfg.failure_action));
		return 1;
	}
	return 0;
}
