/* HMAC (RFC 2104) over SHA-256 or SHA-512 and PBKDF2 (RFC 8018) over it. The HMAC's inner
 * and outer states are computed once per derivation and copied for each
 * iteration, so an iteration costs two compressions. */
#include <string.h>

#include "pbkdf2.h"
#include "sha512.h"

/* The hashes PBKDF2 runs over: sha256 (cryptsetup's default) and sha512
 * (systemd-cryptenroll's keyslots). One state type holds either. */
struct hash {
	const char *name;
	size_t block, out;
};

static const struct hash hashes[] = {
	{ "sha256", 64, SHA256_BYTES },
	{ "sha512", 128, SHA512_BYTES },
};

union hstate {
	struct sha256 s256;
	struct sha512 s512;
};

static const struct hash *hash_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof hashes / sizeof hashes[0]; i++)
		if (!strcmp(hashes[i].name, name))
			return &hashes[i];
	return NULL;
}

static void h_init(const struct hash *h, union hstate *s)
{
	if (h->out == SHA512_BYTES)
		hi_sha512_init(&s->s512);
	else
		hi_sha256_init(&s->s256);
}

static void h_update(const struct hash *h, union hstate *s, const void *p, size_t n)
{
	if (h->out == SHA512_BYTES)
		hi_sha512_update(&s->s512, p, n);
	else
		hi_sha256_update(&s->s256, p, n);
}

static void h_final(const struct hash *h, union hstate *s, uint8_t *out)
{
	if (h->out == SHA512_BYTES)
		hi_sha512_final(&s->s512, out);
	else
		hi_sha256_final(&s->s256, out);
}

bool hi_pbkdf2_supported(const char *hash)
{
	return hash_find(hash) != NULL;
}

struct hmac {
	const struct hash *h;
	union hstate inner, outer;
};

static void hmac_init(struct hmac *m, const struct hash *h, const uint8_t *key, size_t keylen)
{
	uint8_t k[128], pad[128];
	union hstate s;

	m->h = h;
	memset(k, 0, sizeof k);
	if (keylen > h->block) {
		h_init(h, &s);
		h_update(h, &s, key, keylen);
		h_final(h, &s, k);
	} else {
		memcpy(k, key, keylen);
	}
	for (size_t i = 0; i < h->block; i++)
		pad[i] = k[i] ^ 0x36;
	h_init(h, &m->inner);
	h_update(h, &m->inner, pad, h->block);
	for (size_t i = 0; i < h->block; i++)
		pad[i] = k[i] ^ 0x5c;
	h_init(h, &m->outer);
	h_update(h, &m->outer, pad, h->block);
	explicit_bzero(k, sizeof k);
	explicit_bzero(pad, sizeof pad);
	explicit_bzero(&s, sizeof s);
}

/* out = HMAC(msg1 || msg2) from the keyed states in m. */
static void hmac_run(const struct hmac *m, const uint8_t *msg1, size_t len1, const uint8_t *msg2, size_t len2,
		     uint8_t *out)
{
	union hstate s = m->inner;
	uint8_t mid[SHA512_BYTES];

	h_update(m->h, &s, msg1, len1);
	if (len2)
		h_update(m->h, &s, msg2, len2);
	h_final(m->h, &s, mid);
	s = m->outer;
	h_update(m->h, &s, mid, m->h->out);
	h_final(m->h, &s, out);
	explicit_bzero(&s, sizeof s);
	explicit_bzero(mid, sizeof mid);
}

void hi_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t len, uint8_t out[SHA256_BYTES])
{
	struct hmac m;
	hmac_init(&m, &hashes[0], key, keylen);
	hmac_run(&m, msg, len, NULL, 0, out);
	explicit_bzero(&m, sizeof m);
}

int hi_pbkdf2(const char *hash, const uint8_t *pass, size_t passlen, const uint8_t *salt, size_t saltlen,
	   uint32_t iterations, uint8_t *out, size_t outlen)
{
	const struct hash *h = hash_find(hash);
	struct hmac m;
	uint8_t u[SHA512_BYTES], t[SHA512_BYTES];

	if (!h || iterations == 0 || outlen > PBKDF2_OUT_MAX)
		return -1;
	hmac_init(&m, h, pass, passlen);
	for (uint32_t block = 1; outlen > 0; block++) {
		uint8_t be[4] = { (uint8_t)(block >> 24), (uint8_t)(block >> 16), (uint8_t)(block >> 8), (uint8_t)block };
		hmac_run(&m, salt, saltlen, be, sizeof be, u);
		memcpy(t, u, h->out);
		for (uint32_t i = 1; i < iterations; i++) {
			hmac_run(&m, u, h->out, NULL, 0, u);
			for (size_t k = 0; k < h->out; k++)
				t[k] ^= u[k];
		}
		size_t n = outlen < h->out ? outlen : h->out;
		memcpy(out, t, n);
		out += n;
		outlen -= n;
	}
	explicit_bzero(&m, sizeof m);
	explicit_bzero(u, sizeof u);
	explicit_bzero(t, sizeof t);
	return 0;
}

bool hi_ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	volatile uint8_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}
