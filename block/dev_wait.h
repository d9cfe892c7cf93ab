/* The one wait for a block device the kernel has not shown yet: root=,
 * a LUKS volume's device, an LVM volume group's PVs, verity's data and
 * hash devices. The caller looks (one pass over /sys/class/block), and
 * between passes asks this wait for the next: false once its deadline
 * has passed, else it has slept the next poll step. Bounded by the
 * caller's timeout; no other loop sleeps for a device
 * (tests/bats/onehome.bats). */
#ifndef HARDINIT_DEV_WAIT_H
#define HARDINIT_DEV_WAIT_H

#include <stdbool.h>
#include <stdint.h>

/* The poll step: 1, 2, 4, 8, 16, then 20 ms. A disk appears within
 * milliseconds of its driver's probe, so a fixed 20 ms step cost up to
 * 20 ms per miss (arm64 under -icount: the root stage took 45 ms where
 * the control /init mounted 11 ms after the disk appeared); a long wait
 * still polls every 20 ms. */
#define DEV_WAIT_POLL_MIN_MS 1
#define DEV_WAIT_POLL_MAX_MS 20
/* How often a long wait says it is still waiting. */
#define DEV_WAIT_PROGRESS_S  5

struct dev_wait {
	uint64_t start_ns, deadline_ns, next_progress_ns;
	long poll_ms;
};

void hi_dev_wait_begin(struct dev_wait *w, long timeout_ms);

/* After a pass that found nothing: false once the deadline has passed;
 * else sleeps the next poll step and returns true. */
bool hi_dev_wait_next(struct dev_wait *w);

/* True once per DEV_WAIT_PROGRESS_S seconds of waiting (never past the
 * deadline), with the whole seconds left, for a "still waiting" line. */
bool hi_dev_wait_progress(struct dev_wait *w, unsigned *left_s);

/* The step after ms (DEV_WAIT_POLL_MIN_MS for anything below it). */
long hi_dev_wait_poll_next_ms(long ms);

#endif
