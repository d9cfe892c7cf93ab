/* The TPM measurements, off PID 1's path: a TPM answers each command in
 * milliseconds (against swtpm under -icount, about 8 ms of guest time a
 * round trip, most of it the driver's 1 ms polls), and the measure stage
 * made seven of them in a row at the very end of the boot. Instead each
 * event goes to one thread as soon as what it measures is final, and the
 * TPM works while PID 1 mounts the root and hardens it:
 *
 *   measure_root   (after verity)  the IMA policy, the verity setup (root
 *                  hash, devices, options, corruption mode): measured
 *                  before the root they protect is mounted
 *   measure_policy (after selinux) the effective config (the root's own
 *                  config is read by then), the SELinux policy loaded
 *   measure        (after locks)   "handoff", then waits for the thread
 *
 * The first of these stages opens the TPM; the thread reads its banks
 * (TPM2_GetCapability) and the PCR's value before the first event, then
 * extends the events in the order they were queued; the first failure stops it. Nothing is judged here:
 * the measure stage reports each event, writes the logs and applies
 * [tpm] require. The thread only talks to the TPM through the fd it was
 * given; it holds no lock the rest of the boot needs, and it has ended
 * before the hand-off (the measure stage joins it, bounded). */
#define _GNU_SOURCE   /* pthread_timedjoin_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "measure.h"
#include "measure_queue.h"
#include "sha256.h"
#include "stages.h"

#define MEASURE_STACK_BYTES (64 * 1024)
#define CONFIG_TEXT_MAX (48 * 1024)

static struct measure_queue queue;

_Static_assert(sizeof "hardinit:verity-root-hash:" + sizeof ((struct boot *)0)->verity_setup <= TPM_EVENT_MAX,
	       "the verity setup's text must fit one event");

/* ---- the device ------------------------------------------------------------ */

static int tpm_open(const struct boot *b, char *path, size_t cap)
{
	static const char *const names[] = { "tpmrm0", "tpm0" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!boot_path(path, cap, b->dev, names[i]))
			continue;
		int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* One command, one response, bounded in time and size. */
static long tpm_transact(int fd, const uint8_t *cmd, long len, uint8_t *resp, char *why, size_t whylen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (len < 0) {
		snprintf(why, whylen, "the command does not encode");
		return -1;
	}
	if (write(fd, cmd, (size_t)len) != len) {
		snprintf(why, whylen, "writing the command failed: %s", strerror(errno));
		return -1;
	}
	int r = poll(&p, 1, MEASURE_TPM_TIMEOUT_MS);
	if (r == 0) {
		snprintf(why, whylen, "no answer within %d ms", MEASURE_TPM_TIMEOUT_MS);
		return -1;
	}
	if (r < 0) {
		snprintf(why, whylen, "poll failed: %s", strerror(errno));
		return -1;
	}
	ssize_t n = read(fd, resp, TPM_CMD_MAX);
	if (n < 0) {
		snprintf(why, whylen, "reading the answer failed: %s", strerror(errno));
		return -1;
	}
	return (long)n;
}

/* The PCR before hardinit's first event, from sysfs (5.12+): the log's
 * starting point, so a replay needs nothing measured before. */
static void initial_value(const char *sys, unsigned pcr, char *hex, size_t cap)
{
	char rel[64], buf[80], path[BOOT_PATH_MAX + 64];

	snprintf(rel, sizeof rel, "class/tpm/tpm0/pcr-sha256/%u", pcr);
	snprintf(hex, cap, "unknown");
	if (!boot_path(path, sizeof path, sys, rel) || fs_read(path, buf, sizeof buf, NULL) < 0)
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
	pthread_mutex_unlock(&q->lock);
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

static void *measure_main(void *arg)
{
	static uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
	struct measure_queue *q = arg;
	struct measure_event *e;
	uint64_t start = boottime_ns();

	long n = tpm_transact(q->fd, cmd, tpm_cmd_get_pcr_banks(cmd, sizeof cmd), resp, q->why, sizeof q->why);
	long rc = n < 0 ? -1 : tpm_resp_pcr_banks(resp, (size_t)n, &q->banks, q->why, sizeof q->why);
	if (rc != 0) {
		fail(q, rc, "reading its PCR banks");
		q->busy_ns = boottime_ns() - start;
		return NULL;
	}
	initial_value(q->sys, q->pcr, q->initial, sizeof q->initial);
	while ((e = next_event(q))) {
		long len = tpm_cmd_pcr_event(cmd, sizeof cmd, q->pcr, e->text, strlen(e->text));
		n = tpm_transact(q->fd, cmd, len, resp, q->why, sizeof q->why);
		rc = n < 0 ? -1 : tpm_resp_pcr_event(resp, (size_t)n, &e->digests, q->why, sizeof q->why);
		if (rc != 0) {
			char what[64];
			snprintf(what, sizeof what, "extending PCR %u with %s", q->pcr, e->name);
			fail(q, rc, what);
			break;
		}
		pthread_mutex_lock(&q->lock);
		q->n_done++;
		pthread_mutex_unlock(&q->lock);
	}
	q->busy_ns = boottime_ns() - start;
	return NULL;
}

/* ---- the events ---------------------------------------------------------------- */

static void push(struct measure_queue *q, enum measure_event_id id, const char *name, const char *fmt_word,
		 const uint8_t *digest)
{
	if (q->queued[id] || q->n_queued >= MEASURE_EVENTS_MAX)
		return;
	pthread_mutex_lock(&q->lock);
	struct measure_event *e = &q->events[q->n_queued];
	e->name = name;
	if (digest)
		measure_event_text(e->text, sizeof e->text, name, digest);
	else
		snprintf(e->text, sizeof e->text, "hardinit:%s:%s", name, fmt_word);
	q->queued[id] = true;
	q->n_queued++;
	pthread_cond_signal(&q->changed);
	pthread_mutex_unlock(&q->lock);
}

static void push_config(struct measure_queue *q, struct boot *b)
{
	static char config[CONFIG_TEXT_MAX];
	uint8_t d[SHA256_BYTES];
	int len = config_format(&b->cfg, config, sizeof config);

	if (len < 0) {
		push(q, EV_CONFIG, "config", "unformattable", NULL);
		return;
	}
	sha256(config, (size_t)len, d);
	push(q, EV_CONFIG, "config", NULL, d);
}

void measure_queue_events(struct boot *b, unsigned which)
{
	struct measure_queue *q = &queue;

	if (which & MEASURE_ROOT_EVENTS) {
		push(q, EV_IMA, "ima-policy", "none", b->ima_policy_loaded ? b->ima_policy_sha256 : NULL);
		/* The setup the verity stage described (root hash, devices,
		 * options, corruption mode), not the hash alone. */
		push(q, EV_VERITY, "verity-root-hash", b->verity_setup[0] ? b->verity_setup : "none", NULL);
	}
	if (which & MEASURE_POLICY_EVENTS) {
		push_config(q, b);
		push(q, EV_SELINUX, "selinux-policy", "none", b->selinux_policy_hashed ? b->selinux_policy_sha256 : NULL);
	}
	if (which & MEASURE_HANDOFF_EVENT)
		push(q, EV_HANDOFF, "handoff", HARDINIT_VERSION, NULL);
}

/* ---- start and finish ------------------------------------------------------------ */

struct measure_queue *measure_queue_get(void)
{
	return &queue;
}

static int start(struct boot *b)
{
	struct measure_queue *q = &queue;
	pthread_attr_t attr;

	/* Only a test runs boots one after another; one whose thread never
	 * ended still owns the queue. */
	if (q->started && !q->joined)
		return boot_problem(b, b->cfg.tpm_require, "measure", "tpm", "TPM: the measuring thread of an earlier "
				    "boot is still running");
	memset(q, 0, sizeof *q);
	q->active = true;
	q->fd = -1;
	q->pcr = (unsigned)b->cfg.tpm_pcr;
	snprintf(q->sys, sizeof q->sys, "%s", b->sys);
	q->fd = tpm_open(b, q->dev, sizeof q->dev);
	if (q->fd < 0) {
		q->no_tpm = true;
		return 0;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->changed, NULL);
	int rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setstacksize(&attr, MEASURE_STACK_BYTES);
		rc = pthread_create(&q->thread, &attr, measure_main, q);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		close(q->fd);
		q->fd = -1;
		return boot_problem(b, b->cfg.tpm_require, "measure", "tpm", "TPM %s: cannot start the measuring thread: %s",
				    q->dev, strerror(rc));
	}
	q->started = true;
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
	if (queue.started)
		measure_queue_events(b, which);
	return 0;
}

int stage_measure_root(struct boot *b)
{
	return queue_stage(b, MEASURE_ROOT_EVENTS, b->mode == MODE_INITRAMFS);
}

int stage_measure_policy(struct boot *b)
{
	/* The root's events too, if measure_root left them: one order. */
	return queue_stage(b, MEASURE_ROOT_EVENTS | MEASURE_POLICY_EVENTS, false);
}

int measure_queue_finish(struct boot *b)
{
	struct measure_queue *q = &queue;
	struct timespec deadline;

	if (!q->active && start(b) < 0)
		return -1;
	/* This boot's queue ends here, whatever happens below. */
	q->active = false;
	if (!q->started)
		return 0;
	/* Whatever an earlier stage did not queue (a mode without it), in
	 * the same order, then the last event. */
	measure_queue_events(b, MEASURE_ROOT_EVENTS | MEASURE_POLICY_EVENTS | MEASURE_HANDOFF_EVENT);
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_signal(&q->changed);
	pthread_mutex_unlock(&q->lock);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += MEASURE_TPM_TIMEOUT_MS / 1000 + 1;
	uint64_t start_ns = boottime_ns();
	int rc = pthread_timedjoin_np(q->thread, NULL, &deadline);
	q->waited_ns = boottime_ns() - start_ns;
	if (rc != 0)
		return -1;
	q->joined = true;
	close(q->fd);
	q->fd = -1;
	return 0;
}
