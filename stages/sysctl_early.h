/* The sysctl writes that make the kernel wait (kernel.sysrq = 0 waits for
 * RCU grace periods), started by the sysctl_start stage on a thread right
 * after the config is known, and collected with their read-backs by
 * the sysctl stage, which reports and judges them like every other write.
 * The wait then overlaps the module loads and the root mount instead of
 * adding to them. */
#ifndef HARDINIT_SYSCTL_EARLY_H
#define HARDINIT_SYSCTL_EARLY_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "config_types.h"
#include "sysctl_apply.h"
#include "worker.h"

#define SYSCTL_EARLY_MAX        8       /* slow writes started early in one boot */
/* The collection's bound on the child: under loaded TCG a write that waits
 * for RCU takes about 0.3 s; far above that, the kernel is stuck. */
#define SYSCTL_EARLY_TIMEOUT_MS 10000

struct sysctl_early_slot {
	char key[CONFIG_NAME_MAX];
	char value[CONFIG_VALUE_MAX];
	struct sysctl_result res;       /* written by the writer thread */
	uint64_t took_ns;               /* its time for read, write, read back */
	int done;                       /* set by the writer after res (release) */
	/* What the sysctl stage uses, set by the collection: res when done,
	 * else refused with ETIMEDOUT (res stays the writer's, even late). */
	struct sysctl_result judged;
};

struct sysctl_early {
	struct hi_worker writer;        /* started: a writer runs or ran; joined: it has ended */
	int timeout_ms;                 /* SYSCTL_EARLY_TIMEOUT_MS; tests shorten it */
	int proc_fd;                    /* b->proc: still valid after the switch moves it */
	size_t n;
	struct sysctl_early_slot slots[SYSCTL_EARLY_MAX];
	bool collected;
	bool timed_out;
};

#endif
