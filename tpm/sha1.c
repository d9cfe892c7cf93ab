#include "sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned n)
{
	return x << n | x >> (32 - n);
}

static void compress(struct sha1 *s, const uint8_t *p)
{
	uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

void hi_sha1_init(struct sha1 *s)
{
	static const uint32_t iv[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };

	memcpy(s->h, iv, sizeof iv);
	s->len = 0;
	s->fill = 0;
}

void hi_sha1_update(struct sha1 *s, const void *data, size_t len)
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

void hi_sha1_final(struct sha1 *s, uint8_t out[SHA1_BYTES])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, zero = 0, len[8];

	hi_sha1_update(s, &pad, 1);
	while (s->fill != 56)
		hi_sha1_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	hi_sha1_update(s, len, sizeof len);
	for (int i = 0; i < 5; i++)
		for (int k = 0; k < 4; k++)
			out[4 * i + k] = (uint8_t)(s->h[i] >> (24 - 8 * k));
	memset(s, 0, sizeof *s);
}
