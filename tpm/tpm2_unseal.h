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
 * clear, as systemd's own unseal. The encoders and decoders are pure
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

/* The whole unseal. secret gets the sealed bytes (cap at least
 * TPM2_SECRET_MAX); returns an enum tpm2_unseal_rc, err saying why. */
int hi_tpm2_unseal(tpm_xfer_fn xfer, void *ctx, const struct tpm2_unseal_req *req, uint8_t *secret, size_t cap,
		size_t *slen, char *err, size_t errlen);

#endif
