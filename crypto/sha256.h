/* SHA-256 (FIPS 180-4), for the content digests of measured boot and the
 * replay of a PCR in hardinit audit. The TPM hashes hardinit's own event
 * data itself for every bank (TPM2_PCR_Event); the other banks' hashes
 * (BearSSL's SHA-1, sha512.c) serve only extends made as systemd makes
 * them (tpm/tpm_extend.h). */
#ifndef HARDINIT_SHA256_H
#define HARDINIT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX   (2 * SHA256_BYTES + 1)

struct sha256 {
	uint32_t h[8];
	uint64_t len;            /* bytes hashed so far */
	uint8_t block[64];
	size_t fill;
};

void hi_sha256_init(struct sha256 *s);
void hi_sha256_update(struct sha256 *s, const void *data, size_t len);
void hi_sha256_final(struct sha256 *s, uint8_t out[SHA256_BYTES]);

/* One call: out = SHA-256(data). */
void hi_sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES]);

/* Lower-case hex of n bytes into out (2n+1 bytes). Returns out. */
char *hi_hex_encode(char *out, const uint8_t *data, size_t n);

/* One hex digit's value (either case), or -1. */
int hi_hex_nibble(char c);

/* Parse exactly 2n hex digits into n bytes. Returns 0, or -1. */
int hi_hex_decode(uint8_t *out, size_t n, const char *hex);

#endif
