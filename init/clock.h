/* The boot's clock: CLOCK_BOOTTIME in nanoseconds, and the one form its
 * durations are written in. Below both the report and fsutil (which times
 * mounts under hardinit.debug), so neither includes the other. */
#ifndef HARDINIT_CLOCK_H
#define HARDINIT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

uint64_t hi_boottime_ns(void);

/* Nanoseconds as milliseconds with three decimals, "12.345": the one form
 * every log line and report uses. */
#define CLOCK_MS_MAX 24
char *hi_clock_format_ms(char *out, size_t cap, uint64_t ns);

#endif
