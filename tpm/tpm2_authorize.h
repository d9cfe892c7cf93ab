/* The TPM2 commands of a signed PCR policy, as systemd 252's
 * tpm2_make_policy_session issues them (src/shared/tpm2-util.c):
 * LoadExternal of the token's RSA public key (systemd's template:
 * SHA-256 name, decrypt | sign | userWithAuth, no scheme, no symmetric,
 * the exponent 65537 written out, into the owner hierarchy), PolicyPCR
 * of the signed PCRs and PolicyGetDigest (tpm/tpm2_unseal.h) for the
 * approved policy, VerifySignature of its RSASSA SHA-256 signature over
 * SHA-256(approved policy) for a ticket, and PolicyAuthorize with that
 * policy, an empty policyRef, the key's name and the ticket. Pure
 * encoders and bounded decoders; the sequence is tpm2_unseal's. Fuzzed
 * by tests/fuzz/fuzz_tpm2_pcrsig.c. */
#ifndef HARDINIT_TPM2_AUTHORIZE_H
#define HARDINIT_TPM2_AUTHORIZE_H

#include <stddef.h>
#include <stdint.h>

#include "tpm.h"
#include "tpm2_pcrsig.h"

#define TPM2_TICKET_DIGEST_MAX TPM_DIGEST_MAX

/* TPMT_TK_VERIFIED, as VerifySignature returns it. */
struct tpm2_ticket {
	uint16_t tag;                    /* TPM_ST_VERIFIED */
	uint32_t hierarchy;
	uint8_t digest[TPM2_TICKET_DIGEST_MAX];
	size_t len;
};

/* The key's TPMT_PUBLIC as systemd 252 loads it (no size in front);
 * its length, or -1. */
long hi_tpm2_rsa_public_area(uint8_t *out, size_t cap, const struct tpm2_rsa_pub *k);
/* The key's name as the TPM computes it: TPM_ALG_SHA256 then the
 * SHA-256 of its public area (34 bytes). 0 or -1. */
int hi_tpm2_rsa_name(const struct tpm2_rsa_pub *k, uint8_t name[34]);

long hi_tpm2_cmd_load_external(uint8_t *out, size_t cap, const struct tpm2_rsa_pub *k);
/* digest: SHA-256(approved policy), 32 bytes; sig of the key's size. */
long hi_tpm2_cmd_verify_signature(uint8_t *out, size_t cap, uint32_t key, const uint8_t digest[32], const uint8_t *sig,
				  size_t siglen);
long hi_tpm2_cmd_policy_authorize(uint8_t *out, size_t cap, uint32_t session, const uint8_t *approved, size_t alen,
				  const uint8_t *name, size_t namelen, const struct tpm2_ticket *t);

/* Decoders: 0, -1 (does not parse: why), or the TPM's response code. */
long hi_tpm2_resp_load_external(const uint8_t *in, size_t len, uint32_t *handle, uint8_t *name, size_t namecap,
				size_t *namelen, char *why, size_t whylen);
long hi_tpm2_resp_verify_signature(const uint8_t *in, size_t len, struct tpm2_ticket *t, char *why, size_t whylen);

#endif
