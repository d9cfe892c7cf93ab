/* HMAC-SHA256 (RFC 2104) and PBKDF2 (RFC 8018) over it. The HMAC's inner
 * and outer states are computed once per derivation and copied for each
 * iteration, so an iteration costs two compressions. */
#include <string.h>

#include "pbkdf2.h"

#define BLOCK 64

bool pbkdf2_supported(const char *hash)
{
	return hash && !strcmp(hash, "sha256");
}

struct hmac {
	struct sha256 inner, outer;
};

static void hmac_init(struct hmac *m, const uint8_t *key, size_t keylen)
{
	uint8_t k[BLOCK], pad[BLOCK];

	memset(k, 0, sizeof k);
	if (keylen > BLOCK)
		sha256(key, keylen, k);
	else
		memcpy(k, key, keylen);
	for (int i = 0; i < BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&m->inner);
	sha256_update(&m->inner, pad, BLOCK);
	for (int i = 0; i < BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&m->outer);
	sha256_update(&m->outer, pad, BLOCK);
	explicit_bzero(k, sizeof k);
	explicit_bzero(pad, sizeof pad);
}

/* out = HMAC(msg1 || msg2) from the keyed states in m. */
static void hmac_run(const struct hmac *m, const uint8_t *msg1, size_t len1, const uint8_t *msg2, size_t len2,
		     uint8_t out[SHA256_BYTES])
{
	struct sha256 s = m->inner;
	uint8_t mid[SHA256_BYTES];

	sha256_update(&s, msg1, len1);
	if (len2)
		sha256_update(&s, msg2, len2);
	sha256_final(&s, mid);
	s = m->outer;
	sha256_update(&s, mid, sizeof mid);
	sha256_final(&s, out);
	explicit_bzero(&s, sizeof s);
	explicit_bzero(mid, sizeof mid);
}

void hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len, uint8_t out[SHA256_BYTES])
{
	struct hmac m;
	hmac_init(&m, key, keylen);
	hmac_run(&m, msg, len, NULL, 0, out);
	explicit_bzero(&m, sizeof m);
}

int pbkdf2(const char *hash, const uint8_t *pass, size_t passlen, const uint8_t *salt, size_t saltlen,
	   uint32_t iterations, uint8_t *out, size_t outlen)
{
	struct hmac m;
	uint8_t u[SHA256_BYTES], t[SHA256_BYTES];

	if (!pbkdf2_supported(hash) || iterations == 0 || outlen > PBKDF2_OUT_MAX)
		return -1;
	hmac_init(&m, pass, passlen);
	for (uint32_t block = 1; outlen > 0; block++) {
		uint8_t be[4] = { (uint8_t)(block >> 24), (uint8_t)(block >> 16), (uint8_t)(block >> 8), (uint8_t)block };
		hmac_run(&m, salt, saltlen, be, sizeof be, u);
		memcpy(t, u, sizeof t);
		for (uint32_t i = 1; i < iterations; i++) {
			hmac_run(&m, u, sizeof u, NULL, 0, u);
			for (size_t k = 0; k < sizeof t; k++)
				t[k] ^= u[k];
		}
		size_t n = outlen < sizeof t ? outlen : sizeof t;
		memcpy(out, t, n);
		out += n;
		outlen -= n;
	}
	explicit_bzero(&m, sizeof m);
	explicit_bzero(u, sizeof u);
	explicit_bzero(t, sizeof t);
	return 0;
}

bool ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	volatile uint8_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}
