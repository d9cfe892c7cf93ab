/* The boot's clocks, deadlines and sleeps: CLOCK_BOOTTIME in nanoseconds,
 * the one form durations are written in, an absolute deadline for the
 * pthread waits, and a sleep that runs its whole length through signals.
 * Below both the report and fsutil (which times mounts under
 * hardinit.debug), so neither includes the other; the one home of every
 * clock hardinit reads (tests/bats/onehome.bats). */
#ifndef HARDINIT_CLOCK_H
#define HARDINIT_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NS_PER_MS 1000000ull
#define NS_PER_S  1000000000ull

uint64_t hi_boottime_ns(void);

/* Any clock in nanoseconds: CLOCK_MONOTONIC, CLOCK_REALTIME,
 * CLOCK_THREAD_CPUTIME_ID...; 0 when the kernel refuses it. */
uint64_t hi_clock_ns(clockid_t id);

/* The time ms milliseconds from now on clock, for the waits that take an
 * absolute one: pthread_cond_timedwait on a condition set to that clock
 * (CLOCK_MONOTONIC: a clock set meanwhile moves no deadline). */
void hi_deadline_ts(struct timespec *ts, clockid_t clock, long ms);

/* Sleeps ms milliseconds, the rest of them again after a signal. */
void hi_sleep_ms(long ms);

/* Nanoseconds as milliseconds with three decimals, "12.345": the one form
 * every log line and report uses. */
#define CLOCK_MS_MAX 24
char *hi_clock_format_ms(char *out, size_t cap, uint64_t ns);

#endif
