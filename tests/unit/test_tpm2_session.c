/* Unit tests: the salted, encrypted TPM2 session (tpm/tpm2_session.c).
 * KDFa and KDFe against values computed by Python's hmac and hashlib,
 * AES-128-CFB against `openssl enc -aes-128-cfb`; the ECC salt against the
 * TPM's side of the ECDH (a known primary key, BearSSL's m15 P-256
 * code where hardinit uses m31), the RSA salt against
 * OAEP decryption with the key's private half; then the whole unseal
 * against a fake TPM that does what a TPM does with the session (decrypts
 * the salt, checks the command's HMAC, encrypts the secret and MACs its
 * response) while every byte on the "bus" is recorded: the secret never
 * appears in it, and a response whose HMAC or ciphertext was changed, or
 * whose session was stripped, is refused with one clear error. The same
 * code against swtpm and systemd-cryptenroll: tests/bats/luks_tpm2.bats. */
#define _GNU_SOURCE                      /* memmem */
#include <bearssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbkdf2.h"
#include "sha256.h"
#include "tap.h"
#include "tpm_bytes.h"
#include "tpm2_unseal.h"

static char why[200];

static void test_kdf(void)
{
	uint8_t k[32], u[32], v[32], out[40];
	for (int i = 0; i < 32; i++)
		k[i] = (uint8_t)i;
	memset(u, 0x11, sizeof u);
	memset(v, 0x22, sizeof v);
	hi_tpm2_kdfa(k, sizeof k, "ATH", u, sizeof u, v, sizeof v, out, 32);
	tpm_hex_is(out, 32, "a8679444f320a6d0a02c03cac153c458f28758eca056594e887fcefdc2d7e95b",
	           "KDFa(SHA-256, \"ATH\", 256 bits): as Python's hmac computes it");
	hi_tpm2_kdfa(k, sizeof k, "CFB", u, sizeof u, v, sizeof v, out, 40);
	tpm_hex_is(out, 40, "e9ad36b7f1876c62ea1dcf445fb7ae27182741ecdd7e380ce220f8d1c996b623168008de0f1a1697",
	           "KDFa over two rounds (320 bits: the counter and the length in bits)");
	hi_tpm2_kdfe(k, sizeof k, "SECRET", u, sizeof u, v, sizeof v, out, 32);
	tpm_hex_is(out, 32, "c21be073521259773cab940e5cbd0a66105a8da939b0b3ae13b7d7a37555b3e3",
	           "KDFe(SHA-256, Z, \"SECRET\", partyU, partyV): as Python's hashlib computes it");
}

static void test_cfb(void)
{
	uint8_t key[16], iv[16], data[] = "the secret that must not cross the bus";
	size_t n = sizeof data - 1;
	for (int i = 0; i < 16; i++) {
		key[i] = (uint8_t)i;
		iv[i] = (uint8_t)(0xf0 + i);
	}
	hi_tpm2_cfb(key, iv, data, n, false);
	tpm_hex_is(data, n, "12cfa2c84737523af225fe735b77d98de3ac8679c91a05534b53f4873a8fcf780a688e3429d2",
	           "AES-128-CFB encryption (a partial last block): as openssl enc -aes-128-cfb");
	hi_tpm2_cfb(key, iv, data, n, true);
	tap_ok(!memcmp(data, "the secret that must not cross the bus", n), "AES-128-CFB decryption gives it back");
}

/* The fake TPM's primary key: a fixed P-256 private scalar. */
static const uint8_t srk_d[32] = { 0x1f, 0x2e, 0x3d, 0x4c, 0x5b, 0x6a, 0x79, 0x88, 0x97, 0xa6, 0xb5,
				   0xc4, 0xd3, 0xe2, 0xf1, 0x00, 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a,
				   0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0 };

static void srk_pub(struct tpm2_primary_pub *k)
{
	uint8_t q[65];
	br_ec_p256_m15.mulgen(q, srk_d, sizeof srk_d, BR_EC_secp256r1);
	memset(k, 0, sizeof *k);
	k->type = TPM_ALG_ECC;
	memcpy(k->x, q + 1, 32);
	memcpy(k->y, q + 33, 32);
}

/* The TPM's side of the ECC salt (TPM 2.0 Part 1, 11.4.10.3 and C.6.1):
 * Z = d * Qe, salt = KDFe(Z, "SECRET", Qe.x, Qs.x). 0, or -1. */
static int tpm_salt(const struct tpm2_primary_pub *k, const uint8_t *enc, size_t len, uint8_t salt[32])
{
	uint8_t p[65];
	if (len != 68 || enc[0] != 0 || enc[1] != 32 || enc[34] != 0 || enc[35] != 32)
		return -1;
	p[0] = 4;
	memcpy(p + 1, enc + 2, 32);
	memcpy(p + 33, enc + 36, 32);
	if (br_ec_p256_m15.mul(p, sizeof p, srk_d, sizeof srk_d, BR_EC_secp256r1) != 1)
		return -1;
	hi_tpm2_kdfe(p + 1, 32, "SECRET", enc + 2, 32, k->x, 32, salt, 32);
	return 0;
}

static void test_salt(void)
{
	struct tpm2_primary_pub k;
	struct tpm2_salt s, s2;
	uint8_t seed[32], salt[32];

	memset(seed, 7, sizeof seed);
	srk_pub(&k);
	tap_ok(hi_tpm2_salt_make(&k, seed, &s, why, sizeof why) == 0 && s.enc_len == 68, "ECC salt: an ephemeral point of 68 bytes");
	tap_ok(tpm_salt(&k, s.enc, s.enc_len, salt) == 0 && !memcmp(salt, s.salt, 32),
	       "ECC salt: the TPM's ECDH with its private key and KDFe find the same salt");
	seed[0] = 8;
	hi_tpm2_salt_make(&k, seed, &s2, why, sizeof why);
	tap_ok(memcmp(s.salt, s2.salt, 32) != 0 && memcmp(s.enc, s2.enc, 68) != 0, "ECC salt: another seed, another salt and point");
	tap_ok(memmem(s.enc, s.enc_len, s.salt, 8) == NULL, "ECC salt: the salt itself is not in what is sent");
	k.y[31] ^= 1;
	tap_ok(hi_tpm2_salt_make(&k, seed, &s, why, sizeof why) == -1, "ECC salt: a primary point off the curve is refused");
	tap_contains(why, "not on the P-256 curve", "says so");

	/* RSA: a 1024-bit key made here (systemd's template is 2048; the
	 * arithmetic is the same, the test faster under qemu-user). */
	static uint8_t kp[BR_RSA_KBUF_PRIV_SIZE(1024)], kq[BR_RSA_KBUF_PUB_SIZE(1024)];
	br_rsa_private_key sk;
	br_rsa_public_key pk;
	br_hmac_drbg_context rng;
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "rsa test key", 12);
	tap_ok(br_rsa_i31_keygen(&rng.vtable, &sk, kp, &pk, kq, 1024, 65537) == 1, "RSA: a test key");
	memset(&k, 0, sizeof k);
	k.type = TPM_ALG_RSA;
	memcpy(k.n, pk.n, pk.nlen);
	k.nlen = pk.nlen;
	k.e = 65537;
	tap_ok(hi_tpm2_salt_make(&k, seed, &s, why, sizeof why) == 0 && s.enc_len == pk.nlen,
	       "RSA salt: OAEP to the primary key, a modulus' length (%zu)", s.enc_len);
	uint8_t dec[TPM2_SECRET_ENC_MAX];
	size_t dlen = s.enc_len;
	memcpy(dec, s.enc, dlen);
	tap_ok(br_rsa_i31_oaep_decrypt(&br_sha256_vtable, "SECRET", 7, &sk, dec, &dlen) == 1 && dlen == 32 &&
		       !memcmp(dec, s.salt, 32),
	       "RSA salt: OAEP-SHA256 with the label \"SECRET\\0\" decrypts to the salt, as the TPM's");
	k.nlen = 64;
	tap_ok(hi_tpm2_salt_make(&k, seed, &s, why, sizeof why) == -1, "RSA salt: a modulus too short for OAEP is refused");
	tap_contains(why, "RSA-OAEP of the salt", "says so");
}

/* ---- a fake TPM with the session ---------------------------------------- */

static const char SECRET[] = "hardinit-unseal-secret-7f3a9c";

struct fake {
	struct tpm2_primary_pub srk;
	uint8_t session_key[32], nonce_tpm[32], nonce_caller[32];
	uint8_t bus[16384];                  /* every byte both ways */
	size_t buslen;
	int tamper;                          /* 1 the HMAC, 2 the ciphertext, 3 no session */
	bool bad_cmd_hmac;
};

static void record(struct fake *f, const uint8_t *p, size_t n)
{
	if (n <= sizeof f->bus - f->buslen) {
		memcpy(f->bus + f->buslen, p, n);
		f->buslen += n;
	}
}

static const uint8_t NAME[34] = { 0, 0x0b, 9, 9, 9 };

/* The TPM's HMAC of a message: HMAC(sessionKey, m). */
static void fake_hmac(struct fake *f, const uint8_t *m, size_t n, uint8_t out[32])
{
	hi_hmac_sha256(f->session_key, 32, m, n, out);
}

static size_t fake_unseal(struct fake *f, const uint8_t *c, size_t len, uint8_t *r)
{
	/* Unseal: item, auth size, session, nonceCaller(32), attrs, hmac(32). */
	uint8_t m[32 + 32 + 32 + 1], mac[32], ccbytes[4] = { 0, 0, 1, 0x5e };
	struct sha256 h;
	if (len != 10 + 4 + 4 + 4 + 2 + 32 + 1 + 2 + 32 || c[56] != TPMA_SESSION_ENCRYPT)
		return 0;
	memcpy(f->nonce_caller, c + 24, 32);
	hi_sha256_init(&h);
	hi_sha256_update(&h, ccbytes, 4);
	hi_sha256_update(&h, NAME, sizeof NAME);
	hi_sha256_final(&h, m);
	memcpy(m + 32, f->nonce_caller, 32);
	memcpy(m + 64, f->nonce_tpm, 32);
	m[96] = c[56];
	fake_hmac(f, m, sizeof m, mac);
	if (memcmp(mac, c + 59, 32) != 0) {
		f->bad_cmd_hmac = true;
		tpm_put32(r + 6, 0x98e);                 /* TPM_RC_AUTH_FAIL */
		return 10;
	}
	/* The response: the secret under CFB, a new nonceTPM, the HMAC. */
	size_t sl = sizeof SECRET - 1, n = 10;
	for (int i = 0; i < 32; i++)
		f->nonce_tpm[i] = (uint8_t)(0xa0 + i);
	r[1] = 2;
	tpm_put32(r + n, (uint32_t)(2 + sl));
	n += 4;
	r[n++] = 0;
	r[n++] = (uint8_t)sl;
	memcpy(r + n, SECRET, sl);
	uint8_t kiv[32];
	hi_tpm2_kdfa(f->session_key, 32, "CFB", f->nonce_tpm, 32, f->nonce_caller, 32, kiv, 32);
	hi_tpm2_cfb(kiv, kiv + 16, r + n, sl, false);
	uint8_t rp[32], hm[32 + 32 + 32 + 1], zero_cc[8] = { 0, 0, 0, 0, 0, 0, 1, 0x5e };
	hi_sha256_init(&h);
	hi_sha256_update(&h, zero_cc, 8);
	hi_sha256_update(&h, r + 14, 2 + sl);
	hi_sha256_final(&h, rp);
	n += sl;
	memcpy(hm, rp, 32);
	memcpy(hm + 32, f->nonce_tpm, 32);
	memcpy(hm + 64, f->nonce_caller, 32);
	hm[96] = TPMA_SESSION_ENCRYPT;
	r[n++] = 0;
	r[n++] = 32;
	memcpy(r + n, f->nonce_tpm, 32);
	n += 32;
	r[n++] = TPMA_SESSION_ENCRYPT;
	r[n++] = 0;
	r[n++] = 32;
	fake_hmac(f, hm, sizeof hm, r + n);
	if (f->tamper == 1)
		r[n + 5] ^= 1;
	n += 32;
	if (f->tamper == 2)
		r[16 + 3] ^= 0x10;                   /* the HMAC is over what the TPM sent, then changed */
	if (f->tamper == 3) {                        /* the session stripped, the secret in clear */
		r[1] = 1;
		r[10] = 0;
		r[11] = (uint8_t)sl;
		memcpy(r + 12, SECRET, sl);
		n = 12 + sl;
	}
	return n;
}

static int fake_xfer(void *ctx, const uint8_t *c, size_t len, uint8_t *r, size_t cap, size_t *rlen, char *err,
		     size_t errlen)
{
	struct fake *f = ctx;
	uint32_t cc = (uint32_t)c[6] << 24 | (uint32_t)c[7] << 16 | (uint32_t)c[8] << 8 | c[9];
	size_t n = 10;

	record(f, c, len);
	memset(r, 0, cap);
	r[0] = 0x80;
	r[1] = 1;
	if (cc == 0x131) {                                   /* CreatePrimary */
		r[1] = 2;
		tpm_put32(r + 10, 0x80000000);
		static const uint8_t head[] = { 0, 0x5a, 0, 0x23, 0, 0x0b, 0, 3, 0, 0x72, 0, 0, 0, 6, 0, 0x80, 0, 0x43,
						0, 0x10, 0, 3, 0, 0x10, 0, 32 };
		memcpy(r + 18, head, sizeof head);
		memcpy(r + 18 + sizeof head, f->srk.x, 32);
		r[18 + sizeof head + 33] = 32;
		memcpy(r + 18 + sizeof head + 34, f->srk.y, 32);
		n = 18 + 92;
		tpm_put32(r + 14, 92);
	} else if (cc == 0x157) {                            /* Load */
		r[1] = 2;
		tpm_put32(r + 10, 0x80000001);
		tpm_put32(r + 14, 36);
		r[19] = 34;
		memcpy(r + 20, NAME, sizeof NAME);
		n = 20 + 34;
	} else if (cc == 0x176) {                            /* StartAuthSession */
		uint8_t salt[32];
		uint32_t key = (uint32_t)c[10] << 24 | (uint32_t)c[11] << 16 | (uint32_t)c[12] << 8 | c[13];
		size_t sl = (size_t)(c[52] << 8 | c[53]);
		if (key != 0x80000000 || tpm_salt(&f->srk, c + 54, sl, salt) < 0 || c[54 + sl + 1] != 0 ||
		    c[54 + sl + 2] != 6) {
			tpm_put32(r + 6, 0x2c4);                 /* TPM_RC_VALUE-ish: not salted as expected */
		} else {
			memset(f->nonce_tpm, 0x5c, 32);
			hi_tpm2_kdfa(salt, 32, "ATH", f->nonce_tpm, 32, c + 20, 32, f->session_key, 32);
			tpm_put32(r + 10, 0x03000000);
			r[15] = 32;
			memcpy(r + 16, f->nonce_tpm, 32);
			n = 48;
		}
	} else if (cc == 0x189) {                            /* PolicyGetDigest */
		r[11] = 32;
		memset(r + 12, 0x5a, 32);
		n = 44;
	} else if (cc == 0x15e) {
		n = fake_unseal(f, c, len, r);
		if (n == 0) {
			snprintf(err, errlen, "the fake TPM did not expect this Unseal");
			return -1;
		}
	}
	tpm_put32(r + 2, (uint32_t)n);
	*rlen = n;
	record(f, r, n);
	return 0;
}

static void test_unseal(void)
{
	uint8_t blob[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3 }, policy[32], secret[TPM2_SECRET_MAX];
	memset(policy, 0x5a, sizeof policy);
	struct tpm2_unseal_req q = { .primary_alg = TPM_ALG_ECC, .pcr_bank = TPM_ALG_SHA256, .pcrs = 1u << 15,
				     .blob = blob, .blob_len = sizeof blob, .policy_hash = policy,
				     .policy_hash_len = sizeof policy };
	static struct fake f;
	size_t slen = 0, sl = sizeof SECRET - 1;
	char err[256];

	srk_pub(&f.srk);
	int rc = hi_tpm2_unseal(fake_xfer, &f, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_UNSEALED && slen == sl && !memcmp(secret, SECRET, sl) && !f.bad_cmd_hmac,
	       "salted session: the fake TPM took the salt and the command's HMAC, the secret came back (%s)", err);
	tap_ok(memmem(f.bus, f.buslen, SECRET, sl) == NULL && memmem(f.bus, f.buslen, SECRET, 6) == NULL,
	       "no byte of the secret crossed the bus in clear (%zu bytes recorded)", f.buslen);
	tap_ok(memmem(f.bus, f.buslen, f.session_key, 8) == NULL, "nor the session key");

	const char *what[] = { "", "its HMAC changed", "its ciphertext changed", "its session stripped" };
	for (int t = 1; t <= 3; t++) {
		static struct fake g;
		memset(&g, 0, sizeof g);
		srk_pub(&g.srk);
		g.tamper = t;
		memset(secret, 0, sizeof secret);
		rc = hi_tpm2_unseal(fake_xfer, &g, &q, secret, sizeof secret, &slen, err, sizeof err);
		tap_ok(rc == TPM2_ERROR && slen == 0 && memmem(secret, sizeof secret, SECRET, 6) == NULL,
		       "a response with %s: refused, no secret", what[t]);
		tap_contains(err, t == 3 ? "Unseal: the response carries no session"
					 : "Unseal: the response's HMAC does not verify",
			     "one clear line says why");
	}
}

int main(void)
{
	test_kdf();
	test_cfb();
	test_salt();
	test_unseal();
	return tap_done();
}
