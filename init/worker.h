/* Bounded worker threads: the one home of the thread a stage or the TPM
 * code starts and of its bounded join (tests/bats/onehome.bats fails on a
 * pthread_create or a join elsewhere). A worker runs fn(arg); its owner
 * waits for it at most a bound, and a worker late past that is abandoned:
 * detached, left to finish on its own, never waited for again. What it
 * still holds then is its own: orphan(arg), when given, runs on the
 * thread once fn returned, to free or wipe it. A worker can claim its
 * results first (hi_worker_claim): from then on it is past the point of
 * no return, only letting go of what it held, and the owner's join waits
 * for that without a bound. */
#ifndef HARDINIT_WORKER_H
#define HARDINIT_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct hi_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* on CLOCK_MONOTONIC: a set clock moves no deadline */
	void (*fn)(void *arg);
	void (*orphan)(void *arg);
	void *arg;
	bool started;       /* the thread ran: a join or abandon is due */
	bool claimed;       /* its results are the owner's (fn returned, or hi_worker_claim) */
	bool ended;         /* fn returned */
	bool abandoned;     /* late: detached, its own */
	bool joined;
};

/* Starts fn(arg) on a thread with a stack of stack_bytes (0: the
 * library's default). orphan (may be NULL): see above. Returns 0, or an
 * errno when no thread started (w->started false: the caller does the
 * work itself or goes without). */
int hi_worker_start(struct hi_worker *w, void (*fn)(void *arg), void *arg, size_t stack_bytes,
		    void (*orphan)(void *arg));

/* On the worker's thread: claims its results for the owner. true, or
 * false when the owner has already abandoned it (what it made is then its
 * own to undo). */
bool hi_worker_claim(struct hi_worker *w);

/* Whether fn has not returned yet: for an owner that abandoned a worker
 * whose memory stays (no orphan), before it reuses that memory. */
bool hi_worker_running(struct hi_worker *w);

/* Waits at most timeout_ms (or until the CLOCK_MONOTONIC deadline of
 * hi_deadline_ts, for workers that share one) for the worker. 0: joined, its results are the
 * owner's (0 again on a later call); ETIMEDOUT: it was late and is
 * abandoned (w is the thread's from then on when orphan frees it);
 * EINVAL: it never started. */
int hi_worker_join(struct hi_worker *w, long timeout_ms);
int hi_worker_join_until(struct hi_worker *w, const struct timespec *deadline);

#endif
