/* Measured boot: the IMA policy (stages/ima.c) and the TPM measurements of
 * hardinit's own state (stages/measure.c). The pure pieces are here for
 * tests/unit/test_measure.c; the TPM's bytes are stages/tpm.h. */
#ifndef HARDINIT_MEASURE_H
#define HARDINIT_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "boot.h"

#define IMA_POLICY_MAX_BYTES  (64 * 1024)
#define IMA_POLICY_MAX_RULES  128
#define IMA_RULE_MAX          256
/* X.509 certificates for appraisal, DER, in the builder's directory. */
#define IMA_CERTS_MAX         8
#define IMA_CERT_MAX_BYTES    (16 * 1024)
/* Without CONFIG_INTEGRITY_TRUSTED_KEYRING (Debian's kernels) IMA finds
 * its keys with request_key(2) in a keyring named "_ima" (".ima" with it):
 * hardinit makes "_ima" in root's user keyring and adds the certificates. */
#define IMA_KEYRING_NAME      "_ima"

/* The event log a verifier replays, and the CEL-JSON one systemd's tools
 * (systemd-pcrlock, systemd-analyze pcrs) read. Both under b->run. */
#define MEASURE_LOG           "hardinit/measurements"
#define MEASURE_SYSTEMD_LOG   "log/systemd/tpm2-measure.log"
#define MEASURE_EVENTS_MAX    8
/* A TPM answers PCR_Event in milliseconds; a stuck one must not hang PID 1. */
#define MEASURE_TPM_TIMEOUT_MS 10000

struct ima_rule {
	unsigned line;                 /* in the policy file */
	char text[IMA_RULE_MAX];
};

/* Split an IMA policy into its rules: one a line, white space trimmed, '#'
 * comments and blank lines dropped. Returns the count, or -1 (why says what
 * is wrong: a control byte, a rule too long, more than max rules). */
long ima_policy_rules(const char *text, size_t len, struct ima_rule *rules, size_t max,
		      char *why, size_t whylen);

/* The event data hardinit extends: "hardinit:NAME:HEX(digest)". A verifier
 * recomputes each bank's digest as that bank's hash of this text. */
void measure_event_text(char *out, size_t cap, const char *name, const uint8_t digest[32]);

/* The replay hardinit audit does: the sha256 PCR value that the log at
 * path reaches (from its "initial" line through its "event" lines).
 * Returns 0 and the PCR index, or -1 (why says why). */
int measure_log_replay(const char *path, unsigned *pcr, uint8_t value[32], char *why, size_t whylen);

#endif
