/* Unsealing what systemd-cryptenroll --tpm2-device= sealed (systemd 252's
 * tpm2_seal), with TPM2 commands written here, no tpm2-tss: CreatePrimary
 * with systemd's SRK template for the token's primary algorithm (the same
 * seed and template give the same key, so it is the sealed object's
 * parent again), Load of the blob, a policy session (StartAuthSession)
 * with PolicyPCR on the token's PCRs and PolicyAuthValue when it has a
 * PIN, PolicyGetDigest to tell a changed PCR from any other refusal, and
 * Unseal; every handle flushed again. A token with tpm2_pubkey_pcrs
 * first gets systemd 252's signed policy (tpm/tpm2_authorize.h): the
 * signed PCRs' PolicyPCR, its digest's signature found in
 * tpm2-pcr-signature.json and checked by the TPM, PolicyAuthorize; then
 * the PCRs bound by value and the PIN, in that order, as systemd. systemd
 * 254's and 255's tokens: the PIN derived with the token's salt
 * (hi_tpm2_pin_salted), and the blob's parent the persistent SRK the
 * token names (struct tpm2_srk). The policy session is salted with
 * the primary key and the Unseal's response encrypted and its HMAC
 * checked (tpm/tpm2_session.h), so the secret never crosses the bus in
 * clear, as systemd's own unseal. The encoders and decoders (tpm/tpm2_unseal_cmd.h) are pure
 * and fuzzed (tests/fuzz/fuzz_tpm.c); the sequence talks through a
 * transfer callback, so a test drives it against swtpm's socket and the
 * luks stage against /dev/tpmrm0 (tpm/tpm_dev.h). */
#ifndef HARDINIT_TPM2_UNSEAL_H
#define HARDINIT_TPM2_UNSEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm.h"
#include "tpm2_session.h"
#include "tpm2_unseal_cmd.h"

/* What one unseal needs, from the systemd-tpm2 token. */
struct tpm2_unseal_req {
	uint16_t primary_alg;          /* TPM_ALG_ECC or TPM_ALG_RSA */
	uint16_t pcr_bank;             /* TPM_ALG_SHA256 and so on */
	uint32_t pcrs;                 /* bit i: PCR i */
	uint32_t pubkey_pcrs;          /* the signed policy's PCRs (PolicyAuthorize), 0: none */
	const uint8_t *pubkey;         /* its PEM public key (the token's tpm2_pubkey) */
	size_t pubkey_len;
	const char *pcrsig;            /* tpm2-pcr-signature.json's text, NULL: none found */
	size_t pcrsig_len;
	const uint8_t *blob;
	size_t blob_len;
	const uint8_t *policy_hash;    /* the token's: compared with the session's */
	size_t policy_hash_len;
	const char *pin;               /* NULL without tpm2-pin; with tpm2_salt, hi_tpm2_pin_salted's */
	/* tpm2_srk (systemd 255 and later), 0 bytes: none. The blob's parent
	 * is then the SRK: the key at TPM2_SRK_HANDLE if its name is the
	 * token's (ReadPublic), else, when no key is there, the primary made
	 * from systemd's SRK template (the 252 one with noDA), its name
	 * checked the same way; a key of another name is refused before the
	 * Load. The warm-up's primary (252's template) is not used. */
	const uint8_t *srk;
	size_t srk_len;
	/* A primary of primary_alg made and kept loaded beforehand
	 * (tpm/tpm2_warmup.h): the unseal starts at Load with it and leaves
	 * it loaded (its maker flushes it). 0: CreatePrimary here. */
	uint32_t primary;
	const struct tpm2_primary_pub *primary_pub;
	/* A salt to that primary made beforehand, or NULL: made here. Used
	 * for this one session and wiped here, whatever the outcome. */
	struct tpm2_salt *salt;
	/* Better still: the salted policy session itself, started to that
	 * primary beforehand (StartAuthSession: AES-128-CFB, SHA-256,
	 * unbound), or NULL. The unseal's policy goes into it; it ends with
	 * the Unseal or is flushed here, and is wiped here, whatever the
	 * outcome. The salt is then not needed. */
	struct tpm2_session *session;
};

/* Sends len bytes of cmd, receives the response into resp (cap bytes,
 * *rlen set). Returns 0, or -1 with err (no answer, I/O error). */
typedef int (*tpm_xfer_fn)(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen,
			   char *err, size_t errlen);

/* One command of len bytes (len < 0: it did not encode) through xfer,
 * sent again while the TPM asks for it again (hi_tpm_rc_asks_again, at
 * most TPM_ASK_AGAIN_MAX times). 0 with *code the last response's code
 * (0, a TPM error > 0, or -1 for a header that does not parse, why
 * saying so), or -1 with why (no command or no answer). */
int hi_tpm2_send(tpm_xfer_fn xfer, void *ctx, const uint8_t *cmd, long len, uint8_t *resp, size_t cap, size_t *rlen,
		 long *code, char *why, size_t whylen);

/* Outcomes of tpm2_unseal. */
enum tpm2_unseal_rc {
	TPM2_UNSEALED = 0,
	TPM2_POLICY_CHANGED = 1,       /* the PCRs are not what the token was sealed to */
	TPM2_PIN_WRONG = 2,            /* the TPM refused the PIN (TPM_RC_AUTH_FAIL) */
	TPM2_ERROR = -1,               /* anything else: err says what */
};

/* The whole unseal. secret gets the sealed bytes (cap at least
 * TPM2_SECRET_MAX); returns an enum tpm2_unseal_rc, err saying why. */
int hi_tpm2_unseal(tpm_xfer_fn xfer, void *ctx, const struct tpm2_unseal_req *req, uint8_t *secret, size_t cap,
		size_t *slen, char *err, size_t errlen);

#endif
