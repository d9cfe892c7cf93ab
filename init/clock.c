#include "clock.h"

#include <errno.h>
#include <stdio.h>

uint64_t hi_clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t hi_boottime_ns(void)
{
	return hi_clock_ns(CLOCK_BOOTTIME);
}

void hi_deadline_ts(struct timespec *ts, clockid_t clock, long ms)
{
	clock_gettime(clock, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * (long)NS_PER_MS;
	if (ts->tv_nsec >= (long)NS_PER_S) {
		ts->tv_sec++;
		ts->tv_nsec -= (long)NS_PER_S;
	}
}

void hi_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * (long)NS_PER_MS };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

char *hi_clock_format_ms(char *out, size_t cap, uint64_t ns)
{
	snprintf(out, cap, "%llu.%03llu", (unsigned long long)(ns / NS_PER_MS),
		 (unsigned long long)(ns / 1000 % 1000));
	return out;
}
