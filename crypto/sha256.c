#include "sha256.h"

#include <string.h>

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

void hi_sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, iv, sizeof iv);
	s->len = 0;
	s->fill = 0;
}

void hi_sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->len += len;
	while (len > 0) {
		size_t n = sizeof s->block - s->fill;
		if (n > len)
			n = len;
		memcpy(s->block + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill == sizeof s->block) {
			compress(s, s->block);
			s->fill = 0;
		}
	}
}

void hi_sha256_final(struct sha256 *s, uint8_t out[SHA256_BYTES])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, zero = 0, len_be[8];

	hi_sha256_update(s, &pad, 1);
	while (s->fill != 56)
		hi_sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len_be[i] = (uint8_t)(bits >> (56 - 8 * i));
	hi_sha256_update(s, len_be, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

/* The frames below hi_sha256's overwritten: compress's schedule (its
 * first 16 words are the block) is left there by every compression. Not
 * done in compress itself: PBKDF2 runs it millions of times, on a state
 * its caller wipes. */
#define SHA256_STACK_BURN 1024

static __attribute__((noinline)) void burn_stack(void)
{
	uint8_t pad[SHA256_STACK_BURN];
	explicit_bzero(pad, sizeof pad);
}

void hi_sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
	struct sha256 s;

	hi_sha256_init(&s);
	hi_sha256_update(&s, data, len);
	hi_sha256_final(&s, out);
	/* A PIN's hash (tpm/tpm2_unseal.c): neither its last block in the
	 * state nor in the schedule outlives the call. */
	explicit_bzero(&s, sizeof s);
	burn_stack();
}

char *hi_hex_encode(char *out, const uint8_t *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[data[i] >> 4];
		out[2 * i + 1] = digits[data[i] & 15];
	}
	out[2 * n] = '\0';
	return out;
}

int hi_hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hi_hex_decode(uint8_t *out, size_t n, const char *hex)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hi_hex_nibble(hex[2 * i]), lo = hi < 0 ? -1 : hi_hex_nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return hex[2 * n] == '\0' ? 0 : -1;
}
