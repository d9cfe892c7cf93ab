/* What hardinit audit found: the structs audit.c fills and audit_export.c
 * writes out (below both, so neither includes the other's header). */
#ifndef HARDINIT_AUDIT_TYPES_H
#define HARDINIT_AUDIT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "sha256.h"

#define AUDIT_MAX_ITEMS   256
#define AUDIT_MAX_STATES  16
#define AUDIT_MAX_STAGES  REPORT_MAX_STAGES
#define AUDIT_ERR_MAX     320

/* The version of the --json document (its "schema" field, hardinit(8)). */
#define AUDIT_JSON_SCHEMA 2

/* One check: what was set at boot against what the system says now. */
struct audit_item {
	char what[96];
	char expected[96];
	char actual[96];
	int drift;
};

/* A switch whose being on is the fact a fleet alerts on: a one-way lock
 * today (kind "lock"); verity and TPM states are further kinds, each one
 * row of audit_export.c's state table. */
struct audit_state {
	char kind[16];
	char name[48];
	bool configured;     /* the booted config asked for it */
	bool engaged;        /* the live system has it */
	char state[48];      /* the live value, for people */
};

/* A boot stage's time, from /run/hardinit/report.json. */
struct audit_stage {
	char name[16];
	char result[12];
	uint64_t duration_us;
};

struct audit {
	const char *proc, *sys;
	struct audit_item items[AUDIT_MAX_ITEMS];
	size_t n;
	size_t dropped;
	int drifts;

	struct audit_state states[AUDIT_MAX_STATES];
	size_t n_states;

	int selinux_enforcing;       /* 1, 0, -1: no selinuxfs (SELinux not active) */
	int selinux_policy_loaded;   /* 1 or 0 */
	int selinux_wanted;          /* 1: the boot set or the config asks enforcing */

	struct audit_stage stages[AUDIT_MAX_STAGES];
	size_t n_stages;
	bool have_boot_json;
	uint64_t boot_ns;            /* hardinit's first instruction to the exec of init */
	char boot_version[32];       /* the hardinit that booted (report.json) */

	char profile[32];            /* shipped profile the config equals, "custom", "unknown" */
	char config_digest[SHA256_HEX];  /* of /run/hardinit/config; "" unread */

	char cpu_vuln_note[192];     /* whose the CPU vulnerabilities are, when not this kernel's */

	bool success;                /* config and boot report read: the checks ran */
	char error[AUDIT_ERR_MAX];
};

#endif
