/* The boot report: what each stage did, kept in memory during the boot and
 * written to /run/hardinit/ in the new root before the hand-off, so the
 * running system (and hardinit audit) can read what was done. */
#ifndef HARDINIT_REPORT_H
#define HARDINIT_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* Stage times are CLOCK_BOOTTIME nanoseconds, written as clock_format_ms
 * writes them. */
#include "clock.h"

#define REPORT_MAX_ITEMS   384
#define REPORT_MAX_STAGES  32   /* every stage of stages/table.c: checked there */
#define REPORT_KEY_MAX     96
#define REPORT_VALUE_MAX   160

/* What became of a fact: one word each, in report_status_names (the one
 * list; hardinit(8)'s is checked against it by tests/bats/onehome.bats, and
 * every word a stage passes to report_add by the same file). */
enum report_status {
	REPORT_OK, REPORT_APPLIED, REPORT_ALREADY, REPORT_ABSENT, REPORT_REFUSED,
	REPORT_FAILED, REPORT_WARN, REPORT_SKIPPED, REPORT_INFO,
	/* a few stages' own */
	REPORT_CREATED, REPORT_DEFERRED, REPORT_MISSING, REPORT_WRONG, REPORT_INVALID,
	REPORT_DUPLICATE, REPORT_REMOVED, REPORT_OFF, REPORT_TAKEN, REPORT_OPENED,
	REPORT_EXTENDED,
	/* a CPU-vulnerability line a Xen PV guest leaves to Xen (hypervisor.h) */
	REPORT_HYPERVISOR,
	N_REPORT_STATUS
};

extern const char *const hi_report_status_names[N_REPORT_STATUS + 1];

/* The status a word names, or -1. */
int hi_report_status_of(const char *word);

/* One fact: stage "sysctl", key "kernel.kptr_restrict", value "2",
 * status "applied" (a word of report_status_names). */
struct report_item {
	char stage[16];
	char key[REPORT_KEY_MAX];
	char value[REPORT_VALUE_MAX];
	char status[12];
};

struct report_stage {
	char name[16];
	uint64_t start_ns;       /* CLOCK_BOOTTIME */
	uint64_t duration_ns;
	int result;              /* 0 ok, -1 failed */
};

struct report {
	struct report_item items[REPORT_MAX_ITEMS];
	size_t n_items;
	size_t dropped;          /* items past REPORT_MAX_ITEMS, counted not kept */
	struct report_stage stages[REPORT_MAX_STAGES];
	size_t n_stages;
	uint64_t start_ns;       /* hardinit's first instruction, CLOCK_BOOTTIME */
	uint64_t exec_ns;        /* just before the exec of the real init */
};

/* Add a fact (formatted value). Never fails: overflow is counted; a
 * status word not in report_status_names is kept as given, with a warning
 * (a bug: the tests find every word a stage passes). */
void hi_report_add(struct report *r, const char *stage, const char *key,
		const char *status, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Find the first item of stage/key; NULL if none. */
const struct report_item *hi_report_find(const struct report *r,
				      const char *stage, const char *key);

/* Write report.json (machine-readable) and report.txt (one line per fact)
 * into dir, creating it. Returns 0 or -1 with errno. */
int hi_report_write(const struct report *r, const char *dir);

#endif
