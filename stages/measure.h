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
#define MEASURE_LOG_MAX       (16 * 1024)
/* The wait for the systemd log's flock: tries, and the pause between. */
#define MEASURE_LOCK_TRIES    100
#define MEASURE_LOCK_WAIT_MS  10
/* The kernel's boot id (/proc/sys/kernel/random/boot_id) as systemd writes
 * an id128 in the log: 32 hex digits, no dashes. */
#define MEASURE_BOOT_ID_MAX   33

struct ima_rule {
	unsigned line;                 /* in the policy file */
	char text[IMA_RULE_MAX];
};

struct sink;
struct tpm_digests;

/* One record of systemd's userspace event log, as systemd's
 * tpm2_userspace_log (src/shared/tpm2-util.c, systemd 255 and later)
 * writes it: JSON-SEQ (RFC 7464: a record separator first, a newline
 * last), "pcr", "digests" (every bank extended: hashAlg, hex digest),
 * "content_type": "systemd" and "content" {"string": the measured text,
 * "bootId", "timestamp" (CLOCK_BOOTTIME in microseconds), "eventType"
 * (only with one: systemd's names, "phase" for the boot phases; hardinit's
 * own events have none, as systemd writes none for a plain word)}. No
 * "recnum": systemd leaves it to the reader. */
void hi_measure_cel_record(struct sink *s, unsigned pcr, const struct tpm_digests *d, const char *text,
			   const char *event_type, const char *boot_id, uint64_t boottime_ns);

/* The boot id read under b->proc, as the log writes it; "" when unreadable
 * (the record then has no bootId). */
void hi_measure_boot_id(const struct boot *b, char out[MEASURE_BOOT_ID_MAX]);

/* Append records to b->run's systemd log the way systemd does, so both
 * readers and later writers (the real root's systemd 255+) accept it:
 * created 0600, an exclusive flock (bounded: MEASURE_LOCK_TRIES), refused
 * when the sticky bit says an earlier writer died mid-record, the sticky
 * bit set while writing and cleared after an fsync. 0, or -1 (why says). */
int hi_measure_cel_append(const struct boot *b, const char *recs, size_t len, char *why, size_t whylen);

/* The check and replay hardinit audit does on the text of the log
 * (NUL-terminated; changed in place). Nothing in the log is trusted for
 * what it must prove: the PCR is the config's (pcr), the starting value is
 * start (the reset value, or what the boot's report recorded), every
 * event's sha256 digest is recomputed from its text, and the events must
 * be the whole sequence of measure_event_names in order. Returns 0 and
 * the sha256 value the PCR must hold, or -1 (why says what is wrong). */
int hi_measure_log_check(char *text, unsigned pcr, const uint8_t start[32], uint8_t value[32], char *why, size_t whylen);

/* measure_log_check on the file at path (at most MEASURE_LOG_MAX bytes). */
int hi_measure_log_replay(const char *path, unsigned pcr, const uint8_t start[32], uint8_t value[32], char *why,
		       size_t whylen);

int hi_stage_measure(struct boot *b);    /* stages/measure.c: hardinit's state into a TPM PCR */

#endif
