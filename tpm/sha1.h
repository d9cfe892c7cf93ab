/* SHA-1 (FIPS 180-4), only for a TPM's sha1 PCR bank: systemd extends
 * every bank the TPM has active, and many firmwares still keep sha1 on,
 * so a boot phase or a volume's identity goes into it too. Never used to
 * trust anything. */
#ifndef HARDINIT_SHA1_H
#define HARDINIT_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_BYTES 20

struct sha1 {
	uint32_t h[5];
	uint64_t len;            /* bytes hashed so far */
	uint8_t block[64];
	size_t fill;
};

void hi_sha1_init(struct sha1 *s);
void hi_sha1_update(struct sha1 *s, const void *data, size_t len);
void hi_sha1_final(struct sha1 *s, uint8_t out[SHA1_BYTES]);

#endif
