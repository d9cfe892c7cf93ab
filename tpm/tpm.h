/* TPM 2.0 commands as bytes: the few measured boot needs, encoded and
 * decoded here without tpm2-tss (TPM 2.0 Library, Part 3). Pure functions,
 * unit-tested with byte vectors and fuzzed (tests/fuzz/fuzz_tpm.c); the
 * measure stages' device I/O is stages/measure.c's. Every number on the
 * wire is big-endian. The tpm/ family: this codec, the extend, the
 * sessions and the unseal (tpm2_unseal.h); the systemd-tpm2 token that
 * names what to unseal is block/'s (luks2_json.h). */
#ifndef HARDINIT_TPM_H
#define HARDINIT_TPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tcg_alg.h"     /* TPM_ALG_*: the registry's ids, shared with block/ */

#define TPM_CMD_MAX        4096   /* a command or response, bytes (TPM2 max is 4096) */
#define TPM_EVENT_MAX      1024   /* TPM2B_EVENT: the TPM hashes at most this much */
#define TPM_MAX_BANKS      8
#define TPM_DIGEST_MAX     64     /* SHA-512 */

struct tpm_digest {
	uint16_t alg;
	uint8_t size;
	uint8_t bytes[TPM_DIGEST_MAX];
};

/* The active PCR banks (TPM2_GetCapability(TPM_CAP_PCRS)), each with
 * the PCRs 0-23 allocated in it (bit n: PCR n). */
struct tpm_banks {
	uint16_t alg[TPM_MAX_BANKS];
	uint32_t pcrs[TPM_MAX_BANKS];
	size_t n;
};
#define TPM_PCRS_ALL 0xFFFFFFu     /* PCRs 0-23: a bank systemd uses ("has 24") */

/* The digests a TPM2_PCR_Event returned, one per active bank. */
struct tpm_digests {
	struct tpm_digest d[TPM_MAX_BANKS];
	size_t n;
};

/* Size of an algorithm's digest, 0 when hardinit does not know it. */
unsigned hi_tpm_alg_size(uint16_t alg);
/* "sha256" and so on, the names CEL-JSON and sysfs use; "0x...." else. */
const char *hi_tpm_alg_name(uint16_t alg);

/* Encoders: write the command into out (cap bytes); return its length, or
 * -1 when it does not fit or a parameter is out of range. */
long hi_tpm_cmd_get_pcr_banks(uint8_t *out, size_t cap);
long hi_tpm_cmd_pcr_event(uint8_t *out, size_t cap, unsigned pcr, const void *event, size_t len);
long hi_tpm_cmd_pcr_extend_sha256(uint8_t *out, size_t cap, unsigned pcr, const uint8_t digest[32]);
/* TPM2_PCR_Extend with one digest per bank (d->n of them, at least one). */
long hi_tpm_cmd_pcr_extend(uint8_t *out, size_t cap, unsigned pcr, const struct tpm_digests *d);
/* TPM2_PCR_Read of one PCR in one bank. */
long hi_tpm_cmd_pcr_read(uint8_t *out, size_t cap, unsigned pcr, uint16_t alg);

/* Decoders: 0 on success; -1 for a response that does not parse (why says
 * what is wrong); a TPM error code > 0 is returned as is (tpm_rc_text). */
long hi_tpm_resp_code(const uint8_t *in, size_t len, char *why, size_t whylen);
long hi_tpm_resp_pcr_banks(const uint8_t *in, size_t len, struct tpm_banks *banks, char *why, size_t whylen);
long hi_tpm_resp_pcr_event(const uint8_t *in, size_t len, struct tpm_digests *out, char *why, size_t whylen);
/* The value tpm_cmd_pcr_read asked for, of bank alg; out->size 0 when the
 * TPM has that PCR unallocated in that bank (an empty selection back). */
long hi_tpm_resp_pcr_read(const uint8_t *in, size_t len, uint16_t alg, struct tpm_digest *out, char *why,
		       size_t whylen);

/* One line for a TPM response code: its name where known, and the
 * parameter, handle or session it is about ("TPM_RC_VALUE (parameter 1)"). */
void hi_tpm_rc_text(uint32_t rc, char *out, size_t cap);

/* How many times one command is sent while the TPM answers that it wants
 * it again (hi_tpm_rc_asks_again), before its last answer is taken. */
#define TPM_ASK_AGAIN_MAX 3
/* TPM_RC_RETRY, TPM_RC_TESTING or TPM_RC_YIELDED: not refused, only not
 * done yet; the same command may be sent again as it is. */
bool hi_tpm_rc_asks_again(long rc);

/* PCR replay: pcr = H(pcr || digest), for a bank of size bytes (SHA-256
 * only: the one hash hardinit carries). */
void hi_tpm_replay_sha256(uint8_t pcr[32], const uint8_t digest[32]);

#endif
