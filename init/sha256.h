/* SHA-256 (FIPS 180-4), for the config digest hardinit audit exports: the
 * same hex a fleet gets from sha256sum /run/hardinit/config. */
#ifndef HARDINIT_SHA256_H
#define HARDINIT_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* Digest of len bytes of data as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

#endif
