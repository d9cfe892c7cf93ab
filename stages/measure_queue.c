/* The TPM measurements, off PID 1's path: a TPM answers each command in
 * milliseconds (against swtpm under -icount, about 8 ms of guest time a
 * round trip, most of it the driver's 1 ms polls), and the measure stage
 * made seven of them in a row at the very end of the boot. Instead each
 * event goes to one thread as soon as what it measures is final, and the
 * TPM works while PID 1 mounts the root and hardens it:
 *
 *   measure_root   (after verity)  the IMA policy, the verity setup (root
 *                  hash, devices, options, corruption mode); the root
 *                  stage waits (bounded) for these two before it mounts
 *                  the root they protect (measure_queue_wait_root)
 *   measure_policy (after selinux) the effective config (the root's own
 *                  config is read by then), the SELinux policy loaded
 *   measure        (after locks)   "handoff", then waits for the thread
 *
 * The first of these stages opens the TPM; the thread reads its banks
 * (TPM2_GetCapability) and the PCR's value before the first event, then
 * extends the events in the order they were queued; the first failure
 * stops it. A failure is also a TPM without an active SHA-256 bank, or an
 * answer whose SHA-256 digest is not sha256 of the event's text: the log
 * a verifier replays is built from that hash. Nothing is judged here: the
 * measure stage reports each event, writes the logs and applies [tpm]
 * require. The thread only talks to the TPM through the fd it was given
 * (TPM_USE_MEASURE's node), through tpm/tpm_dev.c's bounded transport:
 * each command on a thread of its own, abandoned at the bound, so a TPM
 * that never answers cannot hold the measuring thread. It holds no lock
 * the rest of the boot needs, logs through init/log.c (one lock around
 * each line), and it has ended before the hand-off (the measure stage
 * joins it, bounded). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "boot.h"
#include "fsutil.h"
#include "handoff.h"
#include "log.h"
#include "measure_event.h"
#include "measure_queue.h"
#include "sha256.h"
#include "tpm_dev.h"

#define MEASURE_STACK_BYTES (64 * 1024)

static struct measure_queue queue;
/* MEASURE_TPM_TIMEOUT_MS; a unit test shortens it. */
static int timeout_ms = MEASURE_TPM_TIMEOUT_MS;

void hi_measure_queue_set_timeout_ms(int ms)
{
	timeout_ms = ms > 0 ? ms : MEASURE_TPM_TIMEOUT_MS;
}

_Static_assert(sizeof "hardinit:verity-root-hash:" + sizeof ((struct boot *)0)->verity_setup <= TPM_EVENT_MAX,
	       "the verity setup's text must fit one event");

/* ---- the device ------------------------------------------------------------ */

/* One command, one response, through tpm/tpm_dev.c's bounded transport:
 * the response's length, or -1 with why (the fd stuck when the TPM did
 * not answer in time). */
static long transact(struct measure_queue *q, const uint8_t *cmd, long len, uint8_t *resp)
{
	size_t rlen = 0;

	if (len < 0) {
		snprintf(q->why, sizeof q->why, "the command does not encode");
		return -1;
	}
	if (hi_tpm_dev_xfer(&q->tpm, cmd, (size_t)len, resp, TPM_CMD_MAX, &rlen, q->why, sizeof q->why) < 0)
		return -1;
	return (long)rlen;
}

/* The PCR before hardinit's first event, from sysfs (5.12+): the log's
 * starting point, so a replay needs nothing measured before. */
static void initial_value(const char *sys, unsigned pcr, char *hex, size_t cap)
{
	char buf[80], path[BOOT_PATH_MAX + 64];

	snprintf(hex, cap, "unknown");
	if (!hi_tpm_dev_sysfs_pcr(sys, pcr, path, sizeof path) || hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return;
	buf[strcspn(buf, "\n")] = '\0';
	for (char *c = buf; *c; c++)
		*c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
	if (strlen(buf) == 64)
		snprintf(hex, cap, "%s", buf);
}

/* ---- the thread ---------------------------------------------------------------- */

static void fail(struct measure_queue *q, long rc, const char *what)
{
	pthread_mutex_lock(&q->lock);
	q->rc = rc;
	snprintf(q->failed_what, sizeof q->failed_what, "%s", what);
	pthread_cond_broadcast(&q->progressed);
	pthread_mutex_unlock(&q->lock);
}

static bool has_bank(const struct tpm_banks *banks, uint16_t alg)
{
	for (size_t i = 0; i < banks->n; i++)
		if (banks->alg[i] == alg)
			return true;
	return false;
}

/* The TPM's SHA-256 digest of the event must be hi_sha256(text): the log a
 * verifier replays holds that hash, and a TPM that hashed something else
 * left a PCR no replay reaches. */
static int check_answer(const struct measure_event *e, char *why, size_t whylen)
{
	uint8_t want[SHA256_BYTES];
	char got_hex[SHA256_HEX], want_hex[SHA256_HEX];

	hi_sha256(e->text, strlen(e->text), want);
	for (size_t i = 0; i < e->digests.n; i++) {
		const struct tpm_digest *d = &e->digests.d[i];
		if (d->alg != TPM_ALG_SHA256)
			continue;
		if (memcmp(d->bytes, want, SHA256_BYTES) == 0)
			return 0;
		snprintf(why, whylen, "its SHA-256 digest %.16s... is not sha256 of the event text, %.16s...; a faulty "
			 "TPM or not a TPM", hi_hex_encode(got_hex, d->bytes, SHA256_BYTES), hi_hex_encode(want_hex, want, SHA256_BYTES));
		return -1;
	}
	snprintf(why, whylen, "its answer has no SHA-256 digest");
	return -1;
}

/* The next event to extend, waiting for one; NULL once the queue is
 * closed and every event is done. */
static struct measure_event *next_event(struct measure_queue *q)
{
	struct measure_event *e = NULL;

	pthread_mutex_lock(&q->lock);
	while (q->n_done == q->n_queued && !q->closed)
		pthread_cond_wait(&q->changed, &q->lock);
	if (q->n_done < q->n_queued)
		e = &q->events[q->n_done];
	pthread_mutex_unlock(&q->lock);
	return e;
}

static void measure_main(void *arg)
{
	static uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
	struct measure_queue *q = arg;
	struct measure_event *e;
	uint64_t start = hi_boottime_ns();

	long n = transact(q, cmd, hi_tpm_cmd_get_pcr_banks(cmd, sizeof cmd), resp);
	long rc = n < 0 ? -1 : hi_tpm_resp_pcr_banks(resp, (size_t)n, &q->banks, q->why, sizeof q->why);
	if (rc == 0 && !has_bank(&q->banks, TPM_ALG_SHA256)) {
		snprintf(q->why, sizeof q->why, "it has no active SHA-256 bank (%zu other%s); enable the SHA-256 "
			 "bank in the firmware's TPM settings", q->banks.n, q->banks.n == 1 ? "" : "s");
		rc = -1;
	}
	if (rc != 0) {
		fail(q, rc, "reading its PCR banks");
		goto out;
	}
	initial_value(q->sys, q->pcr, q->initial, sizeof q->initial);
	while ((e = next_event(q))) {
		uint64_t sent = hi_boottime_ns();
		long len = hi_tpm_cmd_pcr_event(cmd, sizeof cmd, q->pcr, e->text, strlen(e->text));
		n = transact(q, cmd, len, resp);
		rc = n < 0 ? -1 : hi_tpm_resp_pcr_event(resp, (size_t)n, &e->digests, q->why, sizeof q->why);
		if (rc == 0 && check_answer(e, q->why, sizeof q->why) < 0)
			rc = -1;
		if (rc != 0) {
			char what[64];
			snprintf(what, sizeof what, "extending PCR %u with %s", q->pcr, e->name);
			fail(q, rc, what);
			break;
		}
		log_debug("measure: %s extended into PCR %u in %llu us", e->name, q->pcr,
			  (unsigned long long)((hi_boottime_ns() - sent) / 1000));
		e->done_ns = hi_boottime_ns();
		pthread_mutex_lock(&q->lock);
		q->n_done++;
		pthread_cond_broadcast(&q->progressed);
		pthread_mutex_unlock(&q->lock);
	}
out:
	q->busy_ns = hi_boottime_ns() - start;
	pthread_mutex_lock(&q->lock);
	q->ended = true;
	pthread_cond_broadcast(&q->progressed);
	pthread_mutex_unlock(&q->lock);
}

/* ---- the events ---------------------------------------------------------------- */

/* Queue event id, its text from what b holds now (measure_event_for). */
static void push(struct measure_queue *q, struct boot *b, enum measure_event_id id)
{
	if (q->queued[id] || q->n_queued >= MEASURE_EVENTS_MAX)
		return;
	pthread_mutex_lock(&q->lock);
	struct measure_event *e = &q->events[q->n_queued];
	e->name = hi_measure_event_names[id];
	hi_measure_event_for(b, id, e->text, sizeof e->text);
	q->queued[id] = true;
	q->n_queued++;
	pthread_cond_signal(&q->changed);
	pthread_mutex_unlock(&q->lock);
}

void hi_measure_queue_events(struct boot *b, unsigned which)
{
	struct measure_queue *q = &queue;

	if (which & MEASURE_ROOT_EVENTS) {
		push(q, b, EV_IMA);
		push(q, b, EV_VERITY);
	}
	if (which & MEASURE_POLICY_EVENTS) {
		push(q, b, EV_CONFIG);
		push(q, b, EV_SELINUX);
	}
	if (which & MEASURE_HANDOFF_EVENT)
		push(q, b, EV_HANDOFF);
}

/* ---- start and finish ------------------------------------------------------------ */



struct measure_queue *hi_measure_queue_get(void)
{
	return &queue;
}

static int start(struct boot *b)
{
	struct measure_queue *q = &queue;
	/* Only a test runs boots one after another; one whose thread never
	 * ended still owns the queue. */
	if (hi_worker_running(&q->worker))
		return hi_boot_problem(b, b->cfg.tpm_require, "measure", "tpm", "TPM: the measuring thread of an earlier "
				    "boot is still running");
	memset(q, 0, sizeof *q);
	q->active = true;
	q->pcr = (unsigned)b->cfg.tpm_pcr;
	snprintf(q->sys, sizeof q->sys, "%s", b->sys);
	if (hi_tpm_dev_open(&q->tpm, b->dev, TPM_USE_MEASURE, timeout_ms, q->dev, sizeof q->dev) < 0) {
		q->no_tpm = true;
		return 0;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->changed, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->progressed, &ca);
	pthread_condattr_destroy(&ca);
	int rc = hi_worker_start(&q->worker, measure_main, q, MEASURE_STACK_BYTES, NULL);
	if (rc != 0) {
		hi_tpm_dev_close(&q->tpm);
		return hi_boot_problem(b, b->cfg.tpm_require, "measure", "tpm", "TPM %s: cannot start the measuring thread: %s",
				    q->dev, strerror(rc));
	}
	log_debug("measure: TPM %s, PCR %u: events are extended on a thread as they are queued", q->dev, q->pcr);
	return 0;
}

/* The stages: start the thread on the first, queue what each knows. A
 * root config read after the switch may change [tpm]: then nothing starts
 * before it is read. */
static int queue_stage(struct boot *b, unsigned which, bool before_root_config)
{
	if (!b->cfg.tpm_measure || b->mode == MODE_DRY_RUN || (before_root_config && b->cfg.read_root_config))
		return 0;
	if (!queue.active && start(b) < 0)
		return -1;
	if (queue.worker.started)
		hi_measure_queue_events(b, which);
	return 0;
}

int hi_stage_measure_root(struct boot *b)
{
	return queue_stage(b, MEASURE_ROOT_EVENTS, b->mode == MODE_INITRAMFS);
}

int hi_stage_measure_policy(struct boot *b)
{
	/* The root's events too, if measure_root left them: one order. */
	return queue_stage(b, MEASURE_ROOT_EVENTS | MEASURE_POLICY_EVENTS, false);
}

int hi_measure_queue_finish(struct boot *b)
{
	struct measure_queue *q = &queue;

	if (!q->active && start(b) < 0)
		return -1;
	/* This boot's queue ends here, whatever happens below. */
	q->active = false;
	if (!q->worker.started)
		return 0;
	/* Whatever an earlier stage did not queue (a mode without it), in
	 * the same order, then the last event: the program the hand-off
	 * will exec. */
	const char *init = hi_handoff_program(b);
	snprintf(b->handoff_init, sizeof b->handoff_init, "%s", init ? init : "");
	hi_measure_queue_events(b, MEASURE_ROOT_EVENTS | MEASURE_POLICY_EVENTS | MEASURE_HANDOFF_EVENT);
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_signal(&q->changed);
	pthread_mutex_unlock(&q->lock);
	/* The thread bounds each command by timeout_ms: the one under way
	 * has ended by then, with an answer or a timeout. A second more. */
	uint64_t start_ns = hi_boottime_ns();
	int rc = hi_worker_join(&q->worker, timeout_ms + 1000);
	q->waited_ns = hi_boottime_ns() - start_ns;
	if (rc != 0)
		return -1;
	/* A stuck fd is left open (hi_tpm_dev_close). */
	hi_tpm_dev_close(&q->tpm);
	return 0;
}

int hi_measure_queue_wait_root(struct boot *b)
{
	struct measure_queue *q = &queue;
	struct timespec deadline;
	char ms[CLOCK_MS_MAX];

	if (!q->active || !q->worker.started || b->mode == MODE_DRY_RUN)
		return 0;
	uint64_t start_ns = hi_boottime_ns();
	/* Twice the bound of one command: a TPM that never answers is the
	 * thread's failure to say (within one bound), a slow one is late. */
	hi_deadline_ts(&deadline, CLOCK_MONOTONIC, 2 * timeout_ms);
	pthread_mutex_lock(&q->lock);
	int rc = 0;
	while (q->n_done < MEASURE_ROOT_EVENT_COUNT && q->rc == 0 && !q->ended && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&q->progressed, &q->lock, &deadline);
	size_t done = q->n_done;
	long failed = q->rc;
	pthread_mutex_unlock(&q->lock);
	hi_report_add(&b->rep, "measure", "root_wait_ms", "info", "%s", hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - start_ns));
	if (done >= MEASURE_ROOT_EVENT_COUNT)
		return 0;
	/* A failure the thread met is the measure stage's to report, unless
	 * require forbids mounting a root whose protection was not measured. */
	if (failed != 0 && !b->cfg.tpm_require)
		return 0;
	if (failed != 0) {
		char err[200];
		hi_tpm_failure_text(failed, q->why, err, sizeof err);
		return hi_boot_problem(b, true, "measure", "tpm", "TPM %s: %s failed: %s; under [tpm] require = yes the root is "
				    "not mounted unmeasured", q->dev, q->failed_what, err);
	}
	return hi_boot_problem(b, b->cfg.tpm_require, "measure", "root_wait", "TPM %s: ima-policy and verity-root-hash not "
			    "extended within %d ms; %s", q->dev, 2 * timeout_ms, b->cfg.tpm_require ?
			    "[tpm] require = yes: the root is not mounted unmeasured" : "the root is mounted unmeasured");
}
