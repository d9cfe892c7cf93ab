#include "dev_wait.h"

#include "clock.h"

void hi_dev_wait_begin(struct dev_wait *w, long timeout_ms)
{
	w->start_ns = hi_boottime_ns();
	w->deadline_ns = w->start_ns + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * NS_PER_MS;
	w->next_progress_ns = w->start_ns + DEV_WAIT_PROGRESS_S * NS_PER_S;
	w->poll_ms = DEV_WAIT_POLL_MIN_MS;
}

bool hi_dev_wait_next(struct dev_wait *w)
{
	if (hi_boottime_ns() >= w->deadline_ns)
		return false;
	hi_sleep_ms(w->poll_ms);
	w->poll_ms = hi_dev_wait_poll_next_ms(w->poll_ms);
	return true;
}

bool hi_dev_wait_progress(struct dev_wait *w, unsigned *left_s)
{
	uint64_t now = hi_boottime_ns();

	if (now < w->next_progress_ns || now >= w->deadline_ns)
		return false;
	while (w->next_progress_ns <= now)
		w->next_progress_ns += DEV_WAIT_PROGRESS_S * NS_PER_S;
	*left_s = (unsigned)((w->deadline_ns - now) / NS_PER_S);
	return true;
}

long hi_dev_wait_poll_next_ms(long ms)
{
	if (ms < DEV_WAIT_POLL_MIN_MS)
		return DEV_WAIT_POLL_MIN_MS;
	return ms >= DEV_WAIT_POLL_MAX_MS / 2 ? DEV_WAIT_POLL_MAX_MS : ms * 2;
}
