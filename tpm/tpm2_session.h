/* A salted TPM2 session with parameter encryption, as TPM 2.0 Part 1
 * (sections 11.4.9 KDFa, 11.4.10 KDFe, 19.6 HMAC, 21 parameter
 * encryption) defines it and systemd's tpm2-util.c uses it for an unseal:
 * the salt reaches the TPM encrypted to the primary key (ECC: an
 * ephemeral ECDH on P-256 and KDFe; RSA: RSA-OAEP with the label
 * "SECRET"), the session key is KDFa(salt, "ATH", nonceTPM, nonceCaller),
 * every command carries its HMAC, every response's HMAC is checked, and
 * the response's first parameter comes back under AES-128-CFB.
 *
 * The elliptic-curve and RSA arithmetic and AES are BearSSL's (constant
 * time: br_ec_p256_m31, br_aes_ct); the hashes and HMACs hardinit's own
 * (crypto/sha256.c, crypto/pbkdf2.c). Pure: no I/O but the randomness the
 * caller hands in, so the unit tests run every piece against vectors and
 * a fake TPM (tests/unit/test_tpm2_session.c, whose TPM side uses
 * BearSSL's other P-256 code, m15).
 *
 * What it protects against: a passive observer of the bus (an LPC/SPI
 * sniffer, a logging TPM proxy) sees no secret, and a changed response is
 * refused. What it does not: an active attacker who answers CreatePrimary
 * with a primary key of their own (systemd 252 does not pin the SRK
 * either; later systemd stores it in the token as tpm2_srk). */
#ifndef HARDINIT_TPM2_SESSION_H
#define HARDINIT_TPM2_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm.h"

#define TPM2_ECC_COORD        32        /* NIST P-256 */
#define TPM2_RSA_BYTES_MAX    512       /* RSA 4096: systemd's template is 2048 */
#define TPM2_SALT_BYTES       32        /* the primary's nameAlg: SHA-256 */
#define TPM2_SECRET_ENC_MAX   TPM2_RSA_BYTES_MAX  /* TPM2B_ENCRYPTED_SECRET */
#define TPM2_SESSION_NONCE    32
#define TPM2_AES_KEY          16        /* the session's AES-128-CFB */
#define TPMA_SESSION_CONTINUE 0x01
#define TPMA_SESSION_DECRYPT  0x20      /* the command's first parameter is encrypted */
#define TPMA_SESSION_ENCRYPT  0x40      /* the response's first parameter is encrypted */

/* The primary key's public part (CreatePrimary's outPublic). */
struct tpm2_primary_pub {
	uint16_t type;                       /* TPM_ALG_ECC or TPM_ALG_RSA */
	uint8_t x[TPM2_ECC_COORD], y[TPM2_ECC_COORD];
	uint8_t n[TPM2_RSA_BYTES_MAX];       /* the modulus, its exponent 65537 or e */
	size_t nlen;
	uint32_t e;
};

/* The salt and what StartAuthSession's encryptedSalt carries. */
struct tpm2_salt {
	uint8_t salt[TPM2_SALT_BYTES];
	uint8_t enc[TPM2_SECRET_ENC_MAX];
	size_t enc_len;
};

/* A session between StartAuthSession and its last command. */
struct tpm2_session {
	uint32_t handle;
	uint8_t key[32];                     /* sessionKey */
	size_t keylen;                       /* 0: an unsalted session's, empty */
	uint8_t auth[32];                    /* the authorized object's authValue */
	size_t authlen;
	uint8_t nonce_caller[TPM2_SESSION_NONCE];
	uint8_t nonce_tpm[TPM_DIGEST_MAX];
	size_t ntlen;
};

/* KDFa with SHA-256 (SP 800-108 counter mode over HMAC): bytes of
 * HMAC(key, i || label || 0 || u || v || bits), i from 1. */
void hi_tpm2_kdfa(const uint8_t *key, size_t keylen, const char *label, const uint8_t *u, size_t ulen,
	       const uint8_t *v, size_t vlen, uint8_t *out, size_t bytes);
/* KDFe with SHA-256 (SP 800-56A concatenation): SHA-256(i || z || label
 * || 0 || u || v), i from 1. */
void hi_tpm2_kdfe(const uint8_t *z, size_t zlen, const char *label, const uint8_t *u, size_t ulen, const uint8_t *v,
	       size_t vlen, uint8_t *out, size_t bytes);
/* AES-128-CFB over data in place (TPM parameter encryption). */
void hi_tpm2_cfb(const uint8_t key[TPM2_AES_KEY], const uint8_t iv[16], uint8_t *data, size_t len, bool decrypt);

/* outPublic of CreatePrimary (a TPM2B_PUBLIC, its size in front): the
 * key's type and its public point or modulus. 0, or -1 with why. */
int hi_tpm2_primary_pub_parse(const uint8_t *pub, size_t len, struct tpm2_primary_pub *k, char *why, size_t whylen);

/* A fresh salt encrypted to the primary key; seed: 32 random bytes (the
 * ephemeral key or OAEP's padding come from a DRBG over it). 0, or -1
 * with why (a point not on the curve, a modulus out of range). */
int hi_tpm2_salt_make(const struct tpm2_primary_pub *k, const uint8_t seed[32], struct tpm2_salt *s, char *why,
		   size_t whylen);

/* The session key of a salted, unbound session. */
void hi_tpm2_session_key(struct tpm2_session *s, const uint8_t salt[TPM2_SALT_BYTES]);

/* A command's HMAC: HMAC(sessionKey || authValue, cpHash || nonceCaller
 * || nonceTPM || attributes). An empty sessionKey and authValue give the
 * unsalted PolicyAuthValue HMAC. */
void hi_tpm2_session_cmd_hmac(const struct tpm2_session *s, const uint8_t cphash[32], uint8_t attrs, uint8_t out[32]);

/* A response with sessions for command cc: its one authorization checked
 * (HMAC(sessionKey || authValue, rpHash || nonceTPM || nonceCaller ||
 * attributes)), the session's nonceTPM taken from it, and, when it says
 * TPMA_SESSION_ENCRYPT, its first parameter (a TPM2B) decrypted in
 * place. *params and *plen: the parameter area. 0, or -1 with why (cut,
 * no session, an HMAC that does not verify). */
int hi_tpm2_session_resp(struct tpm2_session *s, uint32_t cc, uint8_t *resp, size_t len, uint8_t **params,
		      size_t *plen, char *why, size_t whylen);

#endif
