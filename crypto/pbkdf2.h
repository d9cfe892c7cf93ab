/* HMAC-SHA256 and PBKDF2 (RFC 8018) over it, in C on sha256.c: the
 * KDF of LUKS2's pbkdf2 keyslots, of every LUKS2 digest (the volume
 * key's check) and of systemd's salted TPM2 PIN (tpm/tpm2_unseal.c); the
 * HMACs of the TPM2 sessions (tpm/tpm2_session.c). sha256 is what cryptsetup uses by default for both; other
 * hashes are refused by name (pbkdf2_supported). Every intermediate that
 * depends on the password is wiped before return. */
#ifndef HARDINIT_PBKDF2_H
#define HARDINIT_PBKDF2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

#define PBKDF2_OUT_MAX 1024

bool hi_pbkdf2_supported(const char *hash);

void hi_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len,
		 uint8_t out[SHA256_BYTES]);

/* PBKDF2 with HMAC-hash. Returns 0, or -1 when the hash is not
 * supported, iterations is 0 or outlen is over PBKDF2_OUT_MAX. */
int hi_pbkdf2(const char *hash, const uint8_t *pass, size_t passlen, const uint8_t *salt, size_t saltlen,
	   uint32_t iterations, uint8_t *out, size_t outlen);

/* Equal in time independent of where they differ. */
bool hi_ct_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif
