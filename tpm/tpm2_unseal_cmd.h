/* The unseal's commands and responses as bytes (tpm/tpm2_unseal.c runs
 * them in order): the token's blob split, systemd's SRK templates, the
 * encoders of CreatePrimary, Load, StartAuthSession, the policy commands,
 * Unseal and FlushContext, the decoders of their responses, systemd
 * 255's serialized SRK, the PIN's authValue. Pure and fuzzed
 * (tests/fuzz/fuzz_tpm.c). */
#ifndef HARDINIT_TPM2_UNSEAL_CMD_H
#define HARDINIT_TPM2_UNSEAL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm.h"
#include "tpm2_session.h"

#define TPM_CC_UNSEAL        0x0000015E
#define TPM2_SECRET_MAX      128      /* TPM2B_SENSITIVE_DATA holds at most 128 */
#define TPM2_NAME_MAX        (2 + TPM_DIGEST_MAX)
#define TPM2_NONCE_BYTES     32
#define TPM2_PIN_MAX         256
#define TPM2_PCRS            24

#define TPM2_PIN_SALTED_LEN  44       /* base64 of PBKDF2's 32 bytes */
#define TPM2_PIN_ITERATIONS  10000    /* systemd's PBKDF2_HMAC_SHA256_ITERATIONS */
#define TPM2_SRK_HANDLE      0x81000001u  /* the shared SRK's persistent handle (TCG's, systemd's) */

#define TPM_RH_OWNER         0x40000001u
#define TPM_RH_NULL          0x40000007u

/* The sealed object of a token's tpm2-blob: TPM2B_PRIVATE then
 * TPM2B_PUBLIC, each with its size in front (the spans include it). */
struct tpm2_sealed {
	const uint8_t *priv, *pub;
	size_t priv_len, pub_len;
};

/* systemd 255's tpm2_srk: tpm2-tss's serialized ESYS_TR of the SRK the
 * blob was sealed under (its handle, its name, resource type 1: a key,
 * then its TPM2B_PUBLIC), checked here: the handle is TPM2_SRK_HANDLE,
 * the name is SHA-256 over that public area, the key ECC or RSA. */
struct tpm2_srk {
	uint8_t name[TPM2_NAME_MAX];
	size_t namelen;
	uint16_t alg;                  /* TPM_ALG_ECC or TPM_ALG_RSA */
};

int hi_tpm2_srk_parse(const uint8_t *ser, size_t len, struct tpm2_srk *k, char *why, size_t whylen);

/* Split a tpm2-blob. 0, or -1 with why. */
int hi_tpm2_blob_split(const uint8_t *blob, size_t len, struct tpm2_sealed *s, char *why, size_t whylen);

/* Encoders: the command into out (cap bytes); its length, or -1. */
long hi_tpm2_cmd_create_primary(uint8_t *out, size_t cap, uint16_t alg);
/* The same with systemd 255's SRK template: noDA added. */
long hi_tpm2_cmd_create_srk(uint8_t *out, size_t cap, uint16_t alg);
long hi_tpm2_cmd_read_public(uint8_t *out, size_t cap, uint32_t handle);
long hi_tpm2_cmd_load(uint8_t *out, size_t cap, uint32_t parent, const struct tpm2_sealed *s);
/* salt NULL: unsalted, no parameter encryption; else tpm_key decrypts
 * the salt (salt_len bytes of TPM2B_ENCRYPTED_SECRET) and the session
 * encrypts with AES-128-CFB. */
long hi_tpm2_cmd_start_policy_session(uint8_t *out, size_t cap, uint32_t tpm_key, const uint8_t nonce[TPM2_NONCE_BYTES],
				   const uint8_t *salt, size_t salt_len);
long hi_tpm2_cmd_policy_pcr(uint8_t *out, size_t cap, uint32_t session, uint16_t bank, uint32_t pcrs);
long hi_tpm2_cmd_policy_auth_value(uint8_t *out, size_t cap, uint32_t session);
long hi_tpm2_cmd_policy_get_digest(uint8_t *out, size_t cap, uint32_t session);
/* attrs: the session's TPMA_SESSION bits; hmac NULL: an empty one. */
long hi_tpm2_cmd_unseal(uint8_t *out, size_t cap, uint32_t item, uint32_t session, const uint8_t *nonce, size_t nlen,
		     uint8_t attrs, const uint8_t *hmac);
long hi_tpm2_cmd_flush(uint8_t *out, size_t cap, uint32_t handle);

/* Decoders: 0, -1 (does not parse: why), or the TPM's response code. */
long hi_tpm2_resp_create_primary(const uint8_t *in, size_t len, uint32_t *handle, struct tpm2_primary_pub *pub,
			      char *why, size_t whylen);
long hi_tpm2_resp_load(const uint8_t *in, size_t len, uint32_t *handle, uint8_t name[TPM2_NAME_MAX], size_t *namelen,
		    char *why, size_t whylen);
long hi_tpm2_resp_start_session(const uint8_t *in, size_t len, uint32_t *handle, uint8_t nonce[TPM_DIGEST_MAX],
			     size_t *nlen, char *why, size_t whylen);
long hi_tpm2_resp_policy_digest(const uint8_t *in, size_t len, uint8_t digest[TPM_DIGEST_MAX], size_t *dlen, char *why,
			     size_t whylen);
/* ReadPublic: *pub and *publen the span of outPublic (a TPM2B_PUBLIC,
 * its size in front) in the response. */
long hi_tpm2_resp_read_public(const uint8_t *in, size_t len, const uint8_t **pub, size_t *publen, char *why,
			      size_t whylen);
/* An object's name from its TPM2B_PUBLIC: nameAlg (SHA-256 only) and
 * SHA-256 of the public area. 0, or -1 (another nameAlg, cut short). */
int hi_tpm2_public_name(const uint8_t *pub, size_t len, uint8_t name[TPM2_NAME_MAX], size_t *namelen);

/* The Unseal's parameters (its response checked and decrypted by
 * tpm2_session_resp): the secret, a TPM2B of 1 to 128 bytes. 0, or -1. */
int hi_tpm2_unseal_params(const uint8_t *params, size_t plen, uint8_t *secret, size_t cap, size_t *slen, char *why,
		       size_t whylen);

/* The Unseal's cpHash: SHA-256(commandCode || the item's name). */
void hi_tpm2_unseal_cphash(const uint8_t *name, size_t namelen, uint8_t out[32]);
/* The object's authValue for a PIN: its SHA-256, as systemd 252 sets it,
 * trailing zero bytes dropped as the TPM does. */
void hi_tpm2_pin_auth(const char *pin, uint8_t out[32], size_t *len);
/* A PIN with the token's tpm2_salt, as systemd 254 and later: base64 of
 * PBKDF2-HMAC-SHA256(pin, salt, TPM2_PIN_ITERATIONS, 32 bytes), the text
 * whose SHA-256 is then the authValue. out NUL-terminated; 0, or -1 (an
 * empty PIN or salt: systemd derives none). */
int hi_tpm2_pin_salted(const char *pin, const uint8_t *salt, size_t saltlen, char out[TPM2_PIN_SALTED_LEN + 1]);

#endif
