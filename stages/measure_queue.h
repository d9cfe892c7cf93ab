/* The measuring thread (stages/measure_queue.c): events queued by the
 * measure_root and measure_policy stages as what they measure becomes
 * final, extended by one thread while the boot goes on; the measure stage
 * (stages/measure.c) queues "handoff", joins the thread and writes the
 * logs from what it did. */
#ifndef HARDINIT_MEASURE_QUEUE_H
#define HARDINIT_MEASURE_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

#include "worker.h"
#include "boot.h"
#include "measure_event.h"
#include "tpm.h"
#include "tpm_dev.h"

#define MEASURE_ROOT_EVENTS    1u   /* the IMA policy, the verity root hash */
#define MEASURE_ROOT_EVENT_COUNT 2u /* ... the first two of the order */
#define MEASURE_POLICY_EVENTS  2u   /* the effective config, the SELinux policy */
#define MEASURE_HANDOFF_EVENT  4u

#define MEASURE_EVENTS_MAX    8

struct measure_event {
	const char *name;
	char text[TPM_EVENT_MAX];        /* "hardinit:NAME:HEX" */
	struct tpm_digests digests;      /* what the TPM returned, once done */
	uint64_t done_ns;                /* CLOCK_BOOTTIME when the TPM answered: the log's timestamp */
};

struct measure_queue {
	struct hi_worker worker;         /* the thread: started, joined (bounded) by hi_measure_queue_finish */
	pthread_mutex_t lock;
	pthread_cond_t changed;          /* an event queued, or the queue closed */
	pthread_cond_t progressed;       /* an event done, a failure, the thread's end (CLOCK_MONOTONIC) */
	bool active;                     /* this boot's: from the first stage to the measure stage */
	bool no_tpm;
	struct tpm_dev tpm;              /* TPM_USE_MEASURE's node; .stuck: a command got no answer in time */
	char dev[BOOT_PATH_MAX + 16];
	char sys[BOOT_PATH_MAX];         /* b->sys when started: the initial PCR read */
	unsigned pcr;

	/* Under lock: what is queued, and how far the thread is. */
	struct measure_event events[MEASURE_EVENTS_MAX];
	bool queued[EV_COUNT];
	size_t n_queued, n_done;
	bool closed;
	bool ended;                      /* the thread returned */

	/* Written by the thread, read after the join. */
	struct tpm_banks banks;
	char initial[80];                /* hex, or "unknown" */
	long rc;                         /* 0; a TPM code > 0; -1 a parse or I/O error */
	char failed_what[96];            /* what failed: "reading its PCR banks", ... */
	char why[160];
	uint64_t busy_ns;                /* the thread's time, first command to last answer */
	uint64_t waited_ns;              /* the measure stage's wait for it */
};

/* Queue the events of which (MEASURE_*_EVENTS), each at most once. */
void hi_measure_queue_events(struct boot *b, unsigned which);

/* Queue what is left and "handoff", close the queue and join the thread
 * (bounded by MEASURE_TPM_TIMEOUT_MS). 0 when it ended or none was started
 * (q->no_tpm: no TPM), -1 when it did not end in time or could not start. */
int hi_measure_queue_finish(struct boot *b);

struct measure_queue *hi_measure_queue_get(void);

/* For the root stage, before it mounts: wait until the thread has
 * extended the ima-policy and verity-root-hash events, bounded by
 * twice MEASURE_TPM_TIMEOUT_MS. 0 when they are, when nothing is measured yet
 * (no thread: no [tpm] measure, no TPM, read_root_config), or when the
 * thread failed or is late without [tpm] require (a warning; the measure
 * stage reports the failure); -1 (the failure action) with require. */
int hi_measure_queue_wait_root(struct boot *b);

/* Tests: the bound of each TPM command, instead of MEASURE_TPM_TIMEOUT_MS
 * (<= 0 puts that back). */
void hi_measure_queue_set_timeout_ms(int ms);

int hi_stage_measure_root(struct boot *b);    /* stages/measure_queue.c: the IMA policy, the verity root hash */

int hi_stage_measure_policy(struct boot *b);  /* stages/measure_queue.c: the config, the SELinux policy */

#endif
