/* The sysctl_start stage: right after the config, start the profile's slow
 * sysctl writes on a child process, so that the kernel's wait runs while
 * PID 1 loads modules and mounts root. Nothing is judged here: the sysctl
 * stage collects each result with its read-back, reports it and applies
 * the config's failure rules, before the caps and locks stages run. */
#define _GNU_SOURCE   /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "log.h"
#include "report.h"
#include "stages.h"
#include "sysctl_early.h"

/* After SIGKILL a writer stuck in the kernel may not die at once; PID 1
 * does not wait for it longer than this (the real init reaps it). */
#define SYSCTL_EARLY_REAP_MS 100

/* Writes that make the kernel wait, measured under `-icount` on Debian's
 * 6.12 cloud kernel (hardinit.debug prints each write's time). */
static const struct {
	const char *key;
	const char *why;
} slow_sysctls[] = {
	/* Turning SysRq off unregisters its input handler: drivers/tty/sysrq.c
	 * sysrq_toggle_support() -> input_unregister_handler(), which calls
	 * synchronize_rcu() once per connected input device (6.12, and 6.1):
	 * 45-70 ms of guest time, against 0.05 ms for an ordinary write. */
	{ "kernel.sysrq", "unregisters the SysRq input handler (RCU grace periods)" },
};

static struct sysctl_early early;

const char *sysctl_slow_reason(const char *key)
{
	for (size_t i = 0; i < sizeof slow_sysctls / sizeof slow_sysctls[0]; i++)
		if (strcmp(key, slow_sysctls[i].key) == 0)
			return slow_sysctls[i].why;
	return NULL;
}

static uint64_t ms_to_ns(int ms)
{
	return (uint64_t)ms * 1000000u;
}

/* The child: apply each slot through a directory fd of proc, which stays
 * valid when PID 1 moves /proc into the new root meanwhile. */
static void __attribute__((noreturn)) writer_main(struct sysctl_early *e, int proc_fd,
						   const char *proc, int done_wr)
{
	struct sysctl_io io = sysctl_io_proc(fchdir(proc_fd) == 0 ? "." : proc);

	for (size_t i = 0; i < e->n; i++) {
		struct sysctl_early_slot *s = &e->slots[i];
		uint64_t start = boottime_ns();
		sysctl_apply_one(&io, s->key, s->value, &s->res);
		s->took_ns = boottime_ns() - start;
		__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	}
	char byte = 1;
	ssize_t n;
	do
		n = write(done_wr, &byte, 1);
	while (n < 0 && errno == EINTR);
	_exit(0);
}

static void early_reset(struct sysctl_early *e)
{
	if (e->slots)
		munmap(e->slots, SYSCTL_EARLY_MAX * sizeof *e->slots);
	memset(e, 0, sizeof *e);
	e->done_fd = -1;
	e->timeout_ms = SYSCTL_EARLY_TIMEOUT_MS;
}

static size_t pick_slow(struct sysctl_early *e, const struct config *cfg)
{
	for (size_t i = 0; i < cfg->n_sysctls && i < CONFIG_MAX_SYSCTLS; i++) {
		const struct sysctl_setting *s = &cfg->sysctls[i];
		const char *why = sysctl_slow_reason(s->key);
		if (!why)
			continue;
		if (e->n >= SYSCTL_EARLY_MAX) {
			log_debug("sysctl_start: more than %d slow writes; %s stays in the sysctl stage",
				  SYSCTL_EARLY_MAX, s->key);
			continue;
		}
		struct sysctl_early_slot *slot = &e->slots[e->n++];
		snprintf(slot->key, sizeof slot->key, "%s", s->key);
		snprintf(slot->value, sizeof slot->value, "%s", s->value);
		log_debug("sysctl_start: %s = %s starts early: writing it %s", s->key, s->value, why);
	}
	return e->n;
}

static int start_writer(struct boot *b, struct sysctl_early *e)
{
	int pipefd[2];
	int proc_fd = open(b->proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (proc_fd < 0)
		return -1;
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		close(proc_fd);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		writer_main(e, proc_fd, b->proc, pipefd[1]);
	}
	int saved = errno;
	close(proc_fd);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		errno = saved;
		return -1;
	}
	e->pid = pid;
	e->done_fd = pipefd[0];
	return 0;
}

int stage_sysctl_start(struct boot *b)
{
	struct sysctl_early *e = &early;

	early_reset(e);
	b->sysctl_early = e;
	/* A dry run writes nothing; a root config read after the switch may
	 * change [sysctl], and nothing is written that the final config might
	 * not ask for: both leave every write to the sysctl stage. */
	if (b->mode == MODE_DRY_RUN || b->cfg.read_root_config)
		return 0;
	e->slots = mmap(NULL, SYSCTL_EARLY_MAX * sizeof *e->slots, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (e->slots == MAP_FAILED) {
		e->slots = NULL;
		log_debug("sysctl_start: no shared page (%s); slow writes stay in the sysctl stage",
			  strerror(errno));
		return 0;
	}
	if (pick_slow(e, &b->cfg) == 0)
		return 0;
	if (start_writer(b, e) < 0) {
		log_debug("sysctl_start: cannot start the writer (%s); slow writes stay in the sysctl stage",
			  strerror(errno));
		e->n = 0;
		return 0;
	}
	log_debug("sysctl_start: %zu slow write%s started early (pid %d, first %s)", e->n,
		  e->n == 1 ? "" : "s", (int)e->pid, e->slots[0].key);
	return 0;
}

/* ---- collection, called by the sysctl stage ---- */

static int wait_byte(int fd, uint64_t deadline)
{
	for (;;) {
		uint64_t now = boottime_ns();
		if (now >= deadline)
			return 0;
		int ms = (int)((deadline - now + 999999) / 1000000);
		struct pollfd p = { fd, POLLIN, 0 };
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		char byte;
		ssize_t n = read(fd, &byte, 1);
		if (n < 0 && errno == EINTR)
			continue;
		return n == 1 ? 1 : -1;   /* -1: the writer died without finishing */
	}
}

static bool reap(pid_t pid, uint64_t deadline)
{
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		if (boottime_ns() >= deadline)
			return false;
		nanosleep(&ms, NULL);
	}
}

int sysctl_early_collect(struct sysctl_early *e)
{
	if (!e || e->pid <= 0 || e->collected)
		return e && e->timed_out ? -1 : 0;
	e->collected = true;
	uint64_t start = boottime_ns();
	int got = wait_byte(e->done_fd, start + ms_to_ns(e->timeout_ms));
	close(e->done_fd);
	e->done_fd = -1;
	if (got != 1)
		kill(e->pid, SIGKILL);
	if (!reap(e->pid, boottime_ns() + ms_to_ns(got == 1 ? e->timeout_ms : SYSCTL_EARLY_REAP_MS)))
		log_debug("sysctl: the early writer (pid %d) is not reaped yet; the real init will", (int)e->pid);
	uint64_t waited = boottime_ns() - start;
	log_debug("sysctl: collected the early writes after waiting %llu.%03llu ms",
		  (unsigned long long)(waited / 1000000), (unsigned long long)(waited / 1000 % 1000));

	size_t unfinished = 0;
	for (size_t i = 0; i < e->n; i++) {
		struct sysctl_early_slot *s = &e->slots[i];
		if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
			continue;
		memset(&s->res, 0, sizeof s->res);
		s->res.outcome = SYSCTL_REFUSED;
		s->res.err = ETIMEDOUT;
		s->done = 1;
		unfinished++;
		log_warn("sysctl: the early write %s = %s %s; it is judged as refused", s->key, s->value,
			 got < 0 ? "ended with its writer process" : "did not finish in time");
	}
	if (unfinished == 0)
		return 0;
	e->timed_out = true;
	if (got == 0)
		log_warn("sysctl: the early writer (pid %d) did not finish within %d ms and was killed; "
			 "the kernel is stuck in a sysctl write, look at its log", (int)e->pid, e->timeout_ms);
	return -1;
}

const struct sysctl_early_slot *sysctl_early_find(const struct sysctl_early *e,
						  const char *key, const char *value)
{
	if (!e || !e->collected)
		return NULL;
	for (size_t i = 0; i < e->n; i++) {
		const struct sysctl_early_slot *s = &e->slots[i];
		if (s->done && strcmp(s->key, key) == 0 && strcmp(s->value, value) == 0)
			return s;
	}
	return NULL;
}
