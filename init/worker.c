#include "worker.h"

#include <errno.h>

#include "clock.h"

static void *trampoline(void *p)
{
	struct hi_worker *w = p;

	w->fn(w->arg);
	pthread_mutex_lock(&w->mu);
	bool orphaned = w->abandoned;
	void (*orphan)(void *) = w->orphan;
	void *arg = w->arg;
	w->claimed = !orphaned;
	w->ended = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	/* Not a byte of w from here: an abandoned worker's orphan may free
	 * it, a claimed one's owner may once the join returned. */
	if (orphaned && orphan)
		orphan(arg);
	return NULL;
}

int hi_worker_start(struct hi_worker *w, void (*fn)(void *arg), void *arg, size_t stack_bytes,
		    void (*orphan)(void *arg))
{
	pthread_attr_t attr;
	pthread_condattr_t ca;

	*w = (struct hi_worker){ .fn = fn, .arg = arg, .orphan = orphan };
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	int rc = pthread_attr_init(&attr);
	if (rc != 0)
		return rc;
	if (stack_bytes)
		pthread_attr_setstacksize(&attr, stack_bytes);
	rc = pthread_create(&w->thread, &attr, trampoline, w);
	pthread_attr_destroy(&attr);
	w->started = rc == 0;
	return rc;
}

bool hi_worker_claim(struct hi_worker *w)
{
	pthread_mutex_lock(&w->mu);
	bool mine = !w->abandoned;
	w->claimed = mine;
	pthread_mutex_unlock(&w->mu);
	return mine;
}

bool hi_worker_running(struct hi_worker *w)
{
	if (!w->started || w->joined)
		return false;
	pthread_mutex_lock(&w->mu);
	bool running = !w->ended;
	pthread_mutex_unlock(&w->mu);
	return running;
}

int hi_worker_join_until(struct hi_worker *w, const struct timespec *deadline)
{
	if (!w->started)
		return EINVAL;
	if (w->joined || w->abandoned)     /* both set by the owner alone */
		return w->joined ? 0 : ETIMEDOUT;
	pthread_mutex_lock(&w->mu);
	while (!w->ended && !w->abandoned) {
		/* Once it claimed its results it is only letting go of what it
		 * held (a close): that is waited for without the bound. */
		if (w->claimed)
			pthread_cond_wait(&w->cv, &w->mu);
		else if (pthread_cond_timedwait(&w->cv, &w->mu, deadline) == ETIMEDOUT && !w->ended && !w->claimed)
			w->abandoned = true;
	}
	bool late = w->abandoned;
	pthread_mutex_unlock(&w->mu);
	if (late) {
		pthread_detach(w->thread);
		return ETIMEDOUT;
	}
	pthread_join(w->thread, NULL);
	w->joined = true;
	return 0;
}

int hi_worker_join(struct hi_worker *w, long timeout_ms)
{
	struct timespec deadline;

	hi_deadline_ts(&deadline, CLOCK_MONOTONIC, timeout_ms);
	return hi_worker_join_until(w, &deadline);
}
