/* A signed PCR policy as systemd 252 makes and reads it
 * (systemd-cryptenroll --tpm2-public-key= --tpm2-public-key-pcrs=,
 * systemd-measure sign): the token's public key, a PEM
 * SubjectPublicKeyInfo of an RSA key, and the signature file
 * tpm2-pcr-signature.json, which systemd-stub writes to
 * /.extra/tpm2-pcr-signature.json from the UKI's .pcrsig section:
 *
 *   { "sha256": [ { "pcrs": [11], "pkfp": "<hex>", "pol": "<hex>",
 *                   "sig": "<base64>" }, ... ], "sha1": [ ... ] }
 *
 * one array per PCR bank, each entry the PCRs it covers, the SHA-256 of
 * the key's PKCS#1 RSAPublicKey DER (pkfp, as OpenSSL's i2d_PublicKey), the PolicyPCR digest those PCRs' values
 * give (pol) and the RSA PKCS#1 v1.5 SHA-256 signature of pol (sig).
 * The entry used is the first of the token's bank whose PCR mask, key
 * fingerprint and policy digest are all the ones this unseal has, as
 * systemd 252's find_signature picks it. Both inputs are untrusted (the
 * disk's header, a file the boot loader hands over): every length is
 * bounded, and the TPM checks the signature (tpm/tpm2_authorize.h).
 * Fuzzed by tests/fuzz/fuzz_tpm2_pcrsig.c. */
#ifndef HARDINIT_TPM2_PCRSIG_H
#define HARDINIT_TPM2_PCRSIG_H

#include <stddef.h>
#include <stdint.h>

#define TPM2_RSA_MAX          512        /* RSA-4096: TPM2B_PUBLIC_KEY_RSA's limit */
#define TPM2_RSA_MIN          128        /* RSA-1024 */
#define TPM2_SPKI_MAX         1024       /* the DER of an RSA-4096 SubjectPublicKeyInfo is 550 */
#define TPM2_PCRSIG_JSON_MAX  (64 * 1024) /* the signature file; one entry is ~800 bytes */
#define TPM2_PCRSIG_DEPTH_MAX 8

/* An RSA public key as systemd loads it into the TPM. */
struct tpm2_rsa_pub {
	uint8_t n[TPM2_RSA_MAX];         /* the modulus, big-endian, no leading zero */
	size_t nlen;
	uint32_t e;                      /* 65537: the one exponent accepted */
	uint8_t fp[32];                  /* pkfp: SHA-256 of the PKCS#1 RSAPublicKey DER */
};

/* The token's tpm2_pubkey (PEM text, len bytes) into k. 0, or -1 with
 * why. */
int hi_tpm2_rsa_pub_parse(const uint8_t *pem, size_t len, struct tpm2_rsa_pub *k, char *why, size_t whylen);

/* The SubjectPublicKeyInfo DER (len bytes) into k. 0 or -1. */
int hi_tpm2_rsa_spki_parse(const uint8_t *der, size_t len, struct tpm2_rsa_pub *k, char *why, size_t whylen);

/* What a signature entry must match. */
struct tpm2_pcrsig_want {
	uint16_t bank;                   /* TPM_ALG_SHA256 and so on: the key "sha256" */
	uint32_t pcrs;                   /* the signed PCRs' mask */
	const uint8_t *fp;               /* 32 bytes: the key's fingerprint */
	const uint8_t *pol;              /* the PolicyPCR digest the TPM gave */
	size_t pol_len;
};

/* Outcomes of hi_tpm2_pcrsig_find. */
enum tpm2_pcrsig_rc {
	TPM2_PCRSIG_FOUND = 0,
	TPM2_PCRSIG_NONE = 1,            /* well formed, no entry for this state: why says what differs */
	TPM2_PCRSIG_BAD = -1,            /* not the file's form: why says where */
};

/* The signature for w in the JSON text (len bytes) into sig (cap bytes,
 * *siglen set). An enum tpm2_pcrsig_rc. */
int hi_tpm2_pcrsig_find(const char *json, size_t len, const struct tpm2_pcrsig_want *w, uint8_t *sig, size_t cap,
			size_t *siglen, char *why, size_t whylen);

#endif
