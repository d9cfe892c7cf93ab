#include "clock.h"

#include <stdio.h>
#include <time.h>

uint64_t hi_boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *hi_clock_format_ms(char *out, size_t cap, uint64_t ns)
{
	snprintf(out, cap, "%llu.%03llu", (unsigned long long)(ns / 1000000),
		 (unsigned long long)(ns / 1000 % 1000));
	return out;
}
