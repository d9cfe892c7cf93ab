#include "tpm2_session.h"

#include <bearssl.h>
#include <stdio.h>
#include <string.h>

#include "pbkdf2.h"
#include "sha256.h"
#include "tpm_wire.h"

#define KDF_LABEL_MAX 16    /* "ATH", "CFB", "SECRET" */

/* The message of one KDF round: i || [z] || label || 0 || u || v || [bits]. */
struct kdf_msg {
	uint8_t p[4 + 32 + KDF_LABEL_MAX + 2 * TPM_DIGEST_MAX + 4];
	size_t n;
};

static void msg_add(struct kdf_msg *m, const void *p, size_t n)
{
	if (n > sizeof m->p - m->n)
		n = sizeof m->p - m->n;          /* callers stay far below: see the sizes above */
	memcpy(m->p + m->n, p, n);
	m->n += n;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void hi_tpm2_kdfa(const uint8_t *key, size_t keylen, const char *label, const uint8_t *u, size_t ulen,
	       const uint8_t *v, size_t vlen, uint8_t *out, size_t bytes)
{
	uint8_t block[SHA256_BYTES], w[4];
	size_t done = 0;

	for (uint32_t i = 1; done < bytes; i++) {
		struct kdf_msg m = { .n = 0 };
		be32(w, i);
		msg_add(&m, w, 4);
		msg_add(&m, label, strlen(label) + 1);     /* the label with its NUL */
		msg_add(&m, u, ulen);
		msg_add(&m, v, vlen);
		be32(w, (uint32_t)bytes * 8);
		msg_add(&m, w, 4);
		hi_hmac_sha256(key, keylen, m.p, m.n, block);
		size_t k = bytes - done < sizeof block ? bytes - done : sizeof block;
		memcpy(out + done, block, k);
		done += k;
		explicit_bzero(&m, sizeof m);
	}
	explicit_bzero(block, sizeof block);
}

void hi_tpm2_kdfe(const uint8_t *z, size_t zlen, const char *label, const uint8_t *u, size_t ulen, const uint8_t *v,
	       size_t vlen, uint8_t *out, size_t bytes)
{
	uint8_t block[SHA256_BYTES], w[4];
	size_t done = 0;

	for (uint32_t i = 1; done < bytes; i++) {
		struct sha256 s;
		be32(w, i);
		hi_sha256_init(&s);
		hi_sha256_update(&s, w, 4);
		hi_sha256_update(&s, z, zlen);
		hi_sha256_update(&s, label, strlen(label) + 1);
		hi_sha256_update(&s, u, ulen);
		hi_sha256_update(&s, v, vlen);
		hi_sha256_final(&s, block);
		size_t k = bytes - done < sizeof block ? bytes - done : sizeof block;
		memcpy(out + done, block, k);
		done += k;
		explicit_bzero(&s, sizeof s);
	}
	explicit_bzero(block, sizeof block);
}

/* CFB-128: the keystream block is AES(the previous ciphertext block, or
 * the IV), computed as a one-block CBC encryption of zeros (BearSSL has
 * no CFB), so only the encrypting direction of AES is needed. */
void hi_tpm2_cfb(const uint8_t key[TPM2_AES_KEY], const uint8_t iv[16], uint8_t *data, size_t len, bool decrypt)
{
	br_aes_ct_cbcenc_keys aes;
	uint8_t reg[16], ks[16];

	br_aes_ct_cbcenc_init(&aes, key, TPM2_AES_KEY);
	memcpy(reg, iv, 16);
	for (size_t at = 0; at < len; at += 16) {
		size_t n = len - at < 16 ? len - at : 16;
		memset(ks, 0, sizeof ks);
		br_aes_ct_cbcenc_run(&aes, reg, ks, 16);   /* ks = AES(reg); reg = ks */
		for (size_t i = 0; i < n; i++) {
			uint8_t c = decrypt ? data[at + i] : (uint8_t)(data[at + i] ^ ks[i]);
			data[at + i] ^= ks[i];
			reg[i] = c;
		}
	}
	explicit_bzero(&aes, sizeof aes);
	explicit_bzero(reg, sizeof reg);
	explicit_bzero(ks, sizeof ks);
}

/* ---- the primary key ------------------------------------------------------ */

/* A TPM2B into out (at most max bytes, right-aligned when pad). */
static size_t get_2b(struct reader *r, uint8_t *out, size_t max, bool pad)
{
	size_t n = (size_t)get(r, 2);
	if (r->bad || n > max || n > r->len - r->pos) {
		r->bad = true;
		return 0;
	}
	size_t at = pad ? max - n : 0;
	if (pad)
		memset(out, 0, at);
	memcpy(out + at, r->p + r->pos, n);
	r->pos += n;
	return n;
}

int hi_tpm2_primary_pub_parse(const uint8_t *pub, size_t len, struct tpm2_primary_pub *k, char *why, size_t whylen)
{
	struct reader r = { pub, len, 0, false };

	memset(k, 0, sizeof *k);
	size_t size = (size_t)get(&r, 2);
	if (r.bad || size != len - 2) {
		snprintf(why, whylen, "the primary key's public area is cut short");
		return -1;
	}
	k->type = (uint16_t)get(&r, 2);
	get(&r, 2);                                /* nameAlg */
	get(&r, 4);                                /* objectAttributes */
	size_t policy = (size_t)get(&r, 2);        /* authPolicy */
	if (r.bad || policy > r.len - r.pos || (k->type != TPM_ALG_ECC && k->type != TPM_ALG_RSA)) {
		snprintf(why, whylen, "the primary key is neither ECC nor RSA, or its public area is cut short");
		return -1;
	}
	if (get(&r, 2) != 0x0010) {                /* symmetric: a storage key's */
		get(&r, 2);
		get(&r, 2);
	}
	if (get(&r, 2) != 0x0010)                  /* scheme */
		get(&r, 2);
	if (k->type == TPM_ALG_ECC) {
		uint16_t curve = (uint16_t)get(&r, 2);
		if (get(&r, 2) != 0x0010)          /* kdf */
			get(&r, 2);
		get_2b(&r, k->x, sizeof k->x, true);
		get_2b(&r, k->y, sizeof k->y, true);
		if (!r.bad && curve != 0x0003) {
			snprintf(why, whylen, "the primary key's curve 0x%04x is not NIST P-256", curve);
			return -1;
		}
	} else {
		get(&r, 2);                        /* keyBits */
		k->e = (uint32_t)get(&r, 4);
		if (k->e == 0)
			k->e = 65537;
		k->nlen = get_2b(&r, k->n, sizeof k->n, false);
		if (!r.bad && k->nlen < 128) {
			snprintf(why, whylen, "the primary key's RSA modulus of %zu bytes is too short", k->nlen);
			return -1;
		}
	}
	if (r.bad || r.pos != r.len) {
		snprintf(why, whylen, "the primary key's public area is cut short or has bytes after it");
		return -1;
	}
	return 0;
}

/* ---- the salt --------------------------------------------------------------- */

static const char SALT_LABEL[] = "SECRET";

static int salt_ecc(const struct tpm2_primary_pub *k, br_hmac_drbg_context *rng, struct tpm2_salt *s, char *why,
		    size_t whylen)
{
	/* BearSSL's "m31" P-256: constant time on CPUs whose 32x32->64-bit
	 * multiply is (x86-64, arm64), and twice as fast as "m15" (which is for
	 * small cores whose multiplier is not): under TCG every ms counts. */
	const br_ec_impl *ec = &br_ec_p256_m31;
	br_ec_private_key sk;
	uint8_t kbuf[BR_EC_KBUF_PRIV_MAX_SIZE], pub[1 + 2 * TPM2_ECC_COORD], z[1 + 2 * TPM2_ECC_COORD];
	struct buf b = { s->enc, 0, sizeof s->enc, false };
	int rc = -1;

	if (br_ec_keygen(&rng->vtable, ec, &sk, kbuf, BR_EC_secp256r1) == 0 ||
	    br_ec_compute_pub(ec, NULL, pub, &sk) != sizeof pub) {
		snprintf(why, whylen, "no ephemeral P-256 key");
		goto out;
	}
	z[0] = 0x04;
	memcpy(z + 1, k->x, TPM2_ECC_COORD);
	memcpy(z + 1 + TPM2_ECC_COORD, k->y, TPM2_ECC_COORD);
	if (ec->mul(z, sizeof z, sk.x, sk.xlen, BR_EC_secp256r1) != 1) {
		snprintf(why, whylen, "the primary key's public point is not on the P-256 curve");
		goto out;
	}
	/* Z is the shared point's x; partyUInfo our x, partyVInfo the TPM's. */
	hi_tpm2_kdfe(z + 1, TPM2_ECC_COORD, SALT_LABEL, pub + 1, TPM2_ECC_COORD, k->x, TPM2_ECC_COORD, s->salt,
		  sizeof s->salt);
	put(&b, TPM2_ECC_COORD, 2);                /* TPMS_ECC_POINT: x, y */
	put_bytes(&b, pub + 1, TPM2_ECC_COORD);
	put(&b, TPM2_ECC_COORD, 2);
	put_bytes(&b, pub + 1 + TPM2_ECC_COORD, TPM2_ECC_COORD);
	s->enc_len = b.len;
	rc = b.bad ? -1 : 0;
out:
	explicit_bzero(kbuf, sizeof kbuf);
	explicit_bzero(z, sizeof z);
	explicit_bzero(&sk, sizeof sk);
	return rc;
}

static int salt_rsa(const struct tpm2_primary_pub *k, br_hmac_drbg_context *rng, struct tpm2_salt *s, char *why,
		    size_t whylen)
{
	uint8_t e[4];
	br_rsa_public_key pk = { (unsigned char *)k->n, k->nlen, e, sizeof e };

	be32(e, k->e);
	rng->vtable->generate(&rng->vtable, s->salt, sizeof s->salt);
	s->enc_len = br_rsa_i31_oaep_encrypt(&rng->vtable, &br_sha256_vtable, SALT_LABEL, sizeof SALT_LABEL, &pk,
					     s->enc, sizeof s->enc, s->salt, sizeof s->salt);
	if (s->enc_len == 0) {
		snprintf(why, whylen, "RSA-OAEP of the salt to the primary key failed (a modulus of %zu bytes)", k->nlen);
		return -1;
	}
	return 0;
}

int hi_tpm2_salt_make(const struct tpm2_primary_pub *k, const uint8_t seed[32], struct tpm2_salt *s, char *why,
		   size_t whylen)
{
	br_hmac_drbg_context rng;
	int rc;

	memset(s, 0, sizeof *s);
	br_hmac_drbg_init(&rng, &br_sha256_vtable, seed, 32);
	if (k->type == TPM_ALG_ECC)
		rc = salt_ecc(k, &rng, s, why, whylen);
	else if (k->type == TPM_ALG_RSA)
		rc = salt_rsa(k, &rng, s, why, whylen);
	else {
		snprintf(why, whylen, "the primary key is neither ECC nor RSA");
		rc = -1;
	}
	explicit_bzero(&rng, sizeof rng);
	if (rc < 0)
		explicit_bzero(s, sizeof *s);
	return rc;
}

/* ---- the session ------------------------------------------------------------ */

void hi_tpm2_session_key(struct tpm2_session *s, const uint8_t salt[TPM2_SALT_BYTES])
{
	/* Unbound: the key is KDFa over the salt alone. */
	hi_tpm2_kdfa(salt, TPM2_SALT_BYTES, "ATH", s->nonce_tpm, s->ntlen, s->nonce_caller, sizeof s->nonce_caller, s->key,
		  sizeof s->key);
	s->keylen = sizeof s->key;
}

/* The HMAC key: sessionKey || authValue (the policy asked for the
 * authValue: PolicyAuthValue; with no PIN it is empty). */
static size_t hmac_key(const struct tpm2_session *s, uint8_t out[64])
{
	memcpy(out, s->key, s->keylen);
	memcpy(out + s->keylen, s->auth, s->authlen);
	return s->keylen + s->authlen;
}

static void session_hmac(const struct tpm2_session *s, const uint8_t phash[32], const uint8_t *newer, size_t newlen,
			 const uint8_t *older, size_t oldlen, uint8_t attrs, uint8_t out[32])
{
	uint8_t key[64], msg[32 + 2 * TPM_DIGEST_MAX + 1];
	size_t m = 0, klen = hmac_key(s, key);

	memcpy(msg, phash, 32);
	m += 32;
	memcpy(msg + m, newer, newlen);
	m += newlen;
	memcpy(msg + m, older, oldlen);
	m += oldlen;
	msg[m++] = attrs;
	hi_hmac_sha256(key, klen, msg, m, out);
	explicit_bzero(key, sizeof key);
}

void hi_tpm2_session_cmd_hmac(const struct tpm2_session *s, const uint8_t cphash[32], uint8_t attrs, uint8_t out[32])
{
	session_hmac(s, cphash, s->nonce_caller, sizeof s->nonce_caller, s->nonce_tpm, s->ntlen, attrs, out);
}

static int resp_bad(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "%s", what);
	return -1;
}

int hi_tpm2_session_resp(struct tpm2_session *s, uint32_t cc, uint8_t *resp, size_t len, uint8_t **params,
		      size_t *plen, char *why, size_t whylen)
{
	struct reader r = { resp, len, TPM_HEADER, false };
	uint8_t rp[SHA256_BYTES], mac[SHA256_BYTES], nonce[TPM_DIGEST_MAX], hdr[8] = { 0 };

	if (len < TPM_HEADER || (resp[0] << 8 | resp[1]) != TPM_ST_SESSIONS)
		return resp_bad(why, whylen, "the response carries no session: its HMAC is missing");
	size_t ps = (size_t)get(&r, 4);
	if (r.bad || ps > r.len - r.pos)
		return resp_bad(why, whylen, "the response's parameters run past its end");
	uint8_t *p = resp + r.pos;
	r.pos += ps;
	size_t ntlen = (size_t)get(&r, 2);
	if (r.bad || ntlen > sizeof nonce || ntlen > r.len - r.pos)
		return resp_bad(why, whylen, "the response's session nonce is cut short or too long");
	memcpy(nonce, resp + r.pos, ntlen);
	r.pos += ntlen;
	uint8_t attrs = (uint8_t)get(&r, 1);
	size_t maclen = (size_t)get(&r, 2);
	if (r.bad || maclen != SHA256_BYTES || r.len - r.pos != maclen)
		return resp_bad(why, whylen, "the response's session HMAC is missing, of the wrong size or not the last");
	/* rpHash: responseCode (0: only a success has sessions) || commandCode || parameters. */
	struct sha256 h;
	be32(hdr + 4, cc);
	hi_sha256_init(&h);
	hi_sha256_update(&h, hdr, sizeof hdr);
	hi_sha256_update(&h, p, ps);
	hi_sha256_final(&h, rp);
	session_hmac(s, rp, nonce, ntlen, s->nonce_caller, sizeof s->nonce_caller, attrs, mac);
	if (!hi_ct_equal(mac, resp + r.pos, SHA256_BYTES))
		return resp_bad(why, whylen, "the response's HMAC does not verify: it was changed on its way from the TPM");
	memcpy(s->nonce_tpm, nonce, ntlen);
	s->ntlen = ntlen;
	if (attrs & TPMA_SESSION_ENCRYPT) {
		/* The first parameter's buffer, under KDFa(sessionKey || authValue,
		 * "CFB", nonceTPM, nonceCaller): the key, then the IV. */
		uint8_t key[64], kiv[TPM2_AES_KEY + 16];
		size_t n = ps >= 2 ? (size_t)(p[0] << 8 | p[1]) : 0;
		if (ps < 2 || n > ps - 2)
			return resp_bad(why, whylen, "the response's encrypted parameter runs past its parameters");
		size_t klen = hmac_key(s, key);
		hi_tpm2_kdfa(key, klen, "CFB", s->nonce_tpm, s->ntlen, s->nonce_caller, sizeof s->nonce_caller, kiv,
			  sizeof kiv);
		hi_tpm2_cfb(kiv, kiv + TPM2_AES_KEY, p + 2, n, true);
		explicit_bzero(key, sizeof key);
		explicit_bzero(kiv, sizeof kiv);
	}
	*params = p;
	*plen = ps;
	return 0;
}
