/* The sysctl_start stage: right after the config, start the profile's slow
 * sysctl writes on a thread, so that the kernel's wait runs while
 * PID 1 loads modules and mounts root. Nothing is judged here: the sysctl
 * stage collects each result with its read-back, reports it and applies
 * the config's failure rules, before the caps and locks stages run. */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "sysctl_early.h"
#include "sysctl_start.h"

#define SYSCTL_EARLY_STACK_BYTES (64 * 1024)

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

const char *hi_sysctl_slow_reason(const char *key)
{
	for (size_t i = 0; i < sizeof slow_sysctls / sizeof slow_sysctls[0]; i++)
		if (strcmp(key, slow_sysctls[i].key) == 0)
			return slow_sysctls[i].why;
	return NULL;
}

static int proc_at_read(void *ctx, const char *key, char *buf, size_t cap)
{
	return hi_sysctl_read_at(((const struct sysctl_early *)ctx)->proc_fd, key, buf, cap);
}

static int proc_at_write(void *ctx, const char *key, const char *value)
{
	return hi_sysctl_write_at(((const struct sysctl_early *)ctx)->proc_fd, key, value);
}

static void writer_main(void *arg)
{
	struct sysctl_early *e = arg;
	struct sysctl_io io = { .read = proc_at_read, .write = proc_at_write, .ctx = e };

	/* Lowered once running, not from the start: created low, the writer
	 * would not even begin while PID 1 is busy loading modules (measured:
	 * the whole write then waited at the collection, 100 ms). Begun at
	 * once, its first RCU wait starts now; what it does after the waits
	 * runs mostly when PID 1 waits. Nice 0, the kernel threads' weight, not
	 * SCHED_IDLE: an idle thread starves behind the kernel's crypto
	 * self-tests (init/boot_pace.c) and the collection waited for them. */
	(void)setpriority(PRIO_PROCESS, 0, 0);
	for (size_t i = 0; i < e->n; i++) {
		struct sysctl_early_slot *s = &e->slots[i];
		uint64_t start = hi_boottime_ns();
		hi_sysctl_apply_one(&io, s->key, s->value, &s->res);
		s->took_ns = hi_boottime_ns() - start;
		__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	}
}

static size_t pick_slow(struct sysctl_early *e, const struct config *cfg)
{
	for (size_t i = 0; i < cfg->n_sysctls && i < CONFIG_MAX_SYSCTLS; i++) {
		const struct sysctl_setting *s = &cfg->sysctls[i];
		const char *why = hi_sysctl_slow_reason(s->key);
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

int hi_stage_sysctl_start(struct boot *b)
{
	struct sysctl_early *e = &early;

	/* A writer of an earlier run that never ended (a test's stuck one)
	 * still owns the old slots: leave them to it. */
	if (hi_worker_running(&e->writer))
		return 0;
	memset(e, 0, sizeof *e);
	e->proc_fd = -1;
	e->timeout_ms = SYSCTL_EARLY_TIMEOUT_MS;
	b->sysctl_early = e;
	/* A dry run writes nothing; a root config read after the switch may
	 * change [sysctl], and nothing is written that the final config might
	 * not ask for: both leave every write to the sysctl stage. */
	if (b->mode == MODE_DRY_RUN || b->cfg.read_root_config || pick_slow(e, &b->cfg) == 0)
		return 0;
	e->proc_fd = open(b->proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = e->proc_fd < 0 ? errno : hi_worker_start(&e->writer, writer_main, e, SYSCTL_EARLY_STACK_BYTES, NULL);
	if (rc != 0) {
		log_debug("sysctl_start: cannot start the writer (%s); slow writes stay in the sysctl stage",
			  strerror(rc));
		if (e->proc_fd >= 0)
			close(e->proc_fd);
		e->proc_fd = -1;
		e->n = 0;
		return 0;
	}
	log_debug("sysctl_start: %zu slow write%s started early on a thread", e->n, e->n == 1 ? "" : "s");
	return 0;
}

/* ---- collection, called by the sysctl stage ---- */

int hi_sysctl_early_collect(struct sysctl_early *e)
{
	if (!e || !e->writer.started || e->collected)
		return e && e->timed_out ? -1 : 0;
	e->collected = true;
	uint64_t start = hi_boottime_ns();
	if (hi_worker_join(&e->writer, e->timeout_ms) == 0) {
		close(e->proc_fd);
		e->proc_fd = -1;
	}
	uint64_t waited = hi_boottime_ns() - start;
	log_debug("sysctl: collected the early writes after waiting %llu.%03llu ms",
		  (unsigned long long)(waited / 1000000), (unsigned long long)(waited / 1000 % 1000));

	size_t unfinished = 0;
	for (size_t i = 0; i < e->n; i++) {
		struct sysctl_early_slot *s = &e->slots[i];
		if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
			s->judged = s->res;
			continue;
		}
		memset(&s->judged, 0, sizeof s->judged);
		s->judged.outcome = SYSCTL_REFUSED;
		s->judged.err = ETIMEDOUT;
		unfinished++;
		log_warn("sysctl: the early write %s = %s did not finish in time; it is judged as refused",
			 s->key, s->value);
	}
	if (unfinished == 0)
		return 0;
	e->timed_out = true;
	log_err("sysctl: the writer thread did not finish within %d ms: the kernel is stuck in a "
		"sysctl write; if the boot goes on, the real init's exec waits for that thread",
		e->timeout_ms);
	return -1;
}

const struct sysctl_early_slot *hi_sysctl_early_find(const struct sysctl_early *e,
						  const char *key, const char *value)
{
	if (!e || !e->collected)
		return NULL;
	for (size_t i = 0; i < e->n; i++) {
		const struct sysctl_early_slot *s = &e->slots[i];
		if (strcmp(s->key, key) == 0 && strcmp(s->value, value) == 0)
			return s;
	}
	return NULL;
}
