/* SHA-512 (FIPS 180-4), for PBKDF2-SHA512: the KDF systemd-cryptenroll
 * gives the keyslots it adds (TPM2, FIDO2, recovery keys); and SHA-384,
 * for a TPM's sha384 bank (tpm/tpm_extend.c). */
#ifndef HARDINIT_SHA512_H
#define HARDINIT_SHA512_H

#include <stddef.h>
#include <stdint.h>

#define SHA512_BYTES 64

struct sha512 {
	uint64_t h[8];
	uint64_t len;            /* bytes hashed so far */
	uint8_t block[128];
	size_t fill;
};

void hi_sha512_init(struct sha512 *s);
/* SHA-384 (for a TPM's sha384 PCR bank): sha384_init, then sha512_update
 * and sha512_final; the digest is the first SHA384_BYTES of its output. */
#define SHA384_BYTES 48
void hi_sha384_init(struct sha512 *s);
void hi_sha512_update(struct sha512 *s, const void *data, size_t len);
void hi_sha512_final(struct sha512 *s, uint8_t out[SHA512_BYTES]);

#endif
