/* The TPM unit tests' bytes, in one place for test_tpm2_*.c:
 *   tpm_hex_is(p, len, hex, name)   a command or response compared with
 *                                   its expected hex (one TAP line)
 *   tpm_put32(p, v), tpm_get32(p)   a big-endian 32-bit field
 *   tpm_create_primary_resp(r, h)   a whole CreatePrimary response for
 *                                   handle h: systemd's ECC template with
 *                                   the P-256 generator as its point (on
 *                                   the curve, so a salt can be made to it)
 * and, after a header the scripted TPM wrote itself, the parameters of:
 *   tpm_load_resp(r, h)             Load: handle h, a name of only its hash
 *                                   algorithm (SHA-256)
 *   tpm_start_session_resp(r, h)    StartAuthSession: handle h, a 16-byte
 *                                   nonceTPM of zeros
 *   tpm_policy_digest_resp(r, b)    PolicyGetDigest: 32 bytes of b
 * each returning the response's length, and
 *   tpm_resp_finish(r, n, code)     the header's size and code written: n
 *                                   bytes, or the bare header for a code */
#ifndef HARDINIT_TEST_TPM_BYTES_H
#define HARDINIT_TEST_TPM_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "tpm.h"

static inline int tpm_hex_is(const uint8_t *p, long len, const char *hex, const char *name)
{
	static char got[2 * TPM_CMD_MAX + 1];
	long n = len < 0 ? 0 : len < TPM_CMD_MAX ? len : TPM_CMD_MAX;
	for (long i = 0; i < n; i++)
		snprintf(got + 2 * i, 3, "%02x", p[i]);
	got[2 * n] = '\0';
	return tap_streq(got, hex, name);
}

static inline void tpm_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint32_t tpm_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline size_t tpm_create_primary_resp(uint8_t *r, uint32_t handle)
{
	static const char pubhex[] =
		"005a" "0023000b000300720000" "000600800043" "0010" "0003" "0010"
		"0020" "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
		"0020" "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
	memset(r, 0, 18);
	r[0] = 0x80;
	r[1] = 2;
	tpm_put32(r + 10, handle);
	tpm_put32(r + 14, 92);
	for (size_t i = 0; i < 92; i++)
		sscanf(pubhex + 2 * i, "%2hhx", &r[18 + i]);
	tpm_put32(r + 2, 18 + 92);
	return 18 + 92;
}

static inline size_t tpm_load_resp(uint8_t *r, uint32_t handle)
{
	tpm_put32(r + 10, handle);
	tpm_put32(r + 14, 4);            /* parameterSize */
	r[19] = 2;                       /* name: size 2, TPM_ALG_SHA256 */
	r[20] = 0;
	r[21] = 0x0b;
	return 22;
}

static inline size_t tpm_start_session_resp(uint8_t *r, uint32_t handle)
{
	tpm_put32(r + 10, handle);
	r[15] = 16;                      /* nonceTPM: 16 bytes */
	return 32;
}

static inline size_t tpm_policy_digest_resp(uint8_t *r, uint8_t fill)
{
	r[11] = 32;
	memset(r + 12, fill, 32);
	return 44;
}

static inline size_t tpm_resp_finish(uint8_t *r, size_t n, uint32_t code)
{
	if (code)
		n = 10;
	tpm_put32(r + 2, (uint32_t)n);
	tpm_put32(r + 6, code);
	return n;
}

#endif
