/* The boot report: what each stage did, kept in memory during the boot and
 * written to /run/hardinit/ in the new root before the hand-off, so the
 * running system (and hardinit audit) can read what was done. */
#ifndef HARDINIT_REPORT_H
#define HARDINIT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_ITEMS   384
#define REPORT_MAX_STAGES  24
#define REPORT_KEY_MAX     96
#define REPORT_VALUE_MAX   160

/* One fact: stage "sysctl", key "kernel.kptr_restrict", value "2",
 * status "applied". Status words are per stage and listed in hardinit(8):
 * ok, applied, already, absent, refused, warn, skipped, failed, info,
 * hypervisor (hypervisor.h). */
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

/* Add a fact (formatted value). Never fails: overflow is counted. */
void report_add(struct report *r, const char *stage, const char *key,
		const char *status, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Find the first item of stage/key; NULL if none. */
const struct report_item *report_find(const struct report *r,
				      const char *stage, const char *key);

/* Write report.json (machine-readable) and report.txt (one line per fact)
 * into dir, creating it. Returns 0 or -1 with errno. */
int report_write(const struct report *r, const char *dir);

uint64_t boottime_ns(void);

/* Nanoseconds as milliseconds with three decimals, "12.345": the one form
 * every log line and report uses. */
#define REPORT_MS_MAX 24
char *report_format_ms(char *out, size_t cap, uint64_t ns);

#endif
