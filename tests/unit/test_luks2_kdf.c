/* Unit tests: the LUKS2 key derivation pieces. HMAC-SHA256 (RFC 4231),
 * PBKDF2-HMAC-SHA256 (RFC 7914 section 11 and the RFC 6070 inputs over
 * sha256), the luks1 anti-forensic merge against a diffuse written out
 * here, libargon2 against RFC 9106's argon2i and argon2id vectors (built
 * twice: host, and with musl-gcc against Debian's static libargon2.a as
 * PID 1 links it: build/unit/test_luks2_kdf_musl), the constant-time
 * compare and the dm-crypt cipher specs the AF_ALG wrapper accepts. */
#include <stdio.h>
#include <string.h>

#include <argon2.h>

#include "afalg.h"
#include "luks2.h"
#include "luks2_keyslot.h"
#include "pbkdf2.h"
#include "sha256.h"
#include "tap.h"

static void unhex(uint8_t *out, const char *hex)
{
	for (size_t i = 0; hex[2 * i]; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static int same_hex(const uint8_t *got, size_t n, const char *want)
{
	uint8_t w[256];
	unhex(w, want);
	return strlen(want) == 2 * n && memcmp(got, w, n) == 0;
}

static void test_hmac_pbkdf2(void)
{
	uint8_t out[64];

	hi_hmac_sha256((const uint8_t *)"Jefe", 4, (const uint8_t *)"what do ya want for nothing?", 28, out);
	tap_ok(same_hex(out, 32, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
	       "HMAC-SHA256, RFC 4231 case 2");
	tap_ok(hi_pbkdf2("sha256", (const uint8_t *)"passwd", 6, (const uint8_t *)"salt", 4, 1, out, 64) == 0 &&
	       same_hex(out, 64, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
				 "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"),
	       "PBKDF2-HMAC-SHA256 passwd/salt/1/64 (RFC 7914)");
	tap_ok(hi_pbkdf2("sha256", (const uint8_t *)"Password", 8, (const uint8_t *)"NaCl", 4, 80000, out, 64) == 0 &&
	       same_hex(out, 64, "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
				 "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"),
	       "PBKDF2-HMAC-SHA256 Password/NaCl/80000/64 (RFC 7914)");
	tap_ok(hi_pbkdf2("sha256", (const uint8_t *)"password", 8, (const uint8_t *)"salt", 4, 4096, out, 32) == 0 &&
	       same_hex(out, 32, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
	       "PBKDF2-HMAC-SHA256 password/salt/4096/32 (RFC 6070's inputs)");
	uint8_t longkey[100];
	memset(longkey, 'k', sizeof longkey);
	tap_ok(hi_pbkdf2("sha256", longkey, sizeof longkey, (const uint8_t *)"salt", 4, 2, out, 40) == 0 &&
	       same_hex(out, 40, "2c1357648009149f57e4d5544c3435bbca87a6b231300fa3abb2a89b50f56ec3eb3e22ce8267e0fe"),
	       "PBKDF2 with a key longer than a block, 40 bytes (two blocks)");
	/* systemd-cryptenroll's keyslots are pbkdf2-sha512 (values: Python's hashlib). */
	tap_ok(hi_pbkdf2("sha512", (const uint8_t *)"password", 8, (const uint8_t *)"salt", 4, 1, out, 64) == 0 &&
	       same_hex(out, 64, "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252"
				 "c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce"),
	       "PBKDF2-HMAC-SHA512 password/salt/1/64");
	uint8_t pw[144], big[80];
	for (int i = 0; i < 6; i++)
		memcpy(pw + 24 * i, "passwordPASSWORDpassword", 24);
	tap_ok(hi_pbkdf2("sha512", pw, sizeof pw, (const uint8_t *)"saltSALTsaltSALTsaltSALTsaltSALTsalt", 36, 4096, big, 80) == 0 &&
	       same_hex(big, 80, "a8c4ae57c6df34d68778525dc11f0660afd1f89b187be7fe4fd6adea3943099b2951b5df58cbc1b2"
				 "2ccd4b8350f95f1ec853b7989daaf4cf0e4735c20031accd0334f256f23a4cc6cbfea61e39b7b51a"),
	       "PBKDF2-HMAC-SHA512: a key longer than its 128-byte block, 4096 iterations, two blocks out");
	tap_ok(hi_pbkdf2("sha1", (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 1, out, 20) < 0 &&
	       hi_pbkdf2("sha256", (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 0, out, 20) < 0,
	       "PBKDF2: sha1 and 0 iterations refused");
	tap_ok(hi_ct_equal((const uint8_t *)"abcd", (const uint8_t *)"abcd", 4) &&
	       !hi_ct_equal((const uint8_t *)"abcd", (const uint8_t *)"abce", 4), "constant-time compare");
}

/* The diffuse written out from the spec: block i = H(be32(i) || block i),
 * a last partial block the digest's prefix. */
static void diffuse_ref(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i * 32 < len; i++) {
		uint8_t in[36], d[32];
		size_t n = len - i * 32 < 32 ? len - i * 32 : 32;
		in[0] = in[1] = in[2] = 0;
		in[3] = (uint8_t)i;
		memcpy(in + 4, buf + i * 32, n);
		hi_sha256(in, 4 + n, d);
		memcpy(buf + i * 32, d, n);
	}
}

static void test_af_merge(void)
{
	uint8_t src[3 * 40], out[40], want[40];

	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	tap_ok(hi_luks2_af_merge(src, 40, 1, "sha256", out) == 0 && !memcmp(out, src, 40), "AF merge of one stripe is the stripe");
	/* three stripes: d(d(s0) ^ s1) ^ s2 */
	uint8_t acc[40];
	memcpy(acc, src, 40);
	diffuse_ref(acc, 40);
	for (int k = 0; k < 40; k++)
		acc[k] ^= src[40 + k];
	diffuse_ref(acc, 40);
	for (int k = 0; k < 40; k++)
		want[k] = acc[k] ^ src[80 + k];
	tap_ok(hi_luks2_af_merge(src, 40, 3, "sha256", out) == 0 && !memcmp(out, want, 40),
	       "AF merge of three 40-byte stripes (a partial diffuse block)");
	tap_ok(hi_luks2_af_merge(src, 40, 3, "sha1", out) < 0, "AF merge with an unsupported hash refused");
}

/* RFC 9106 section 5: password 32 x 01, salt 16 x 02, secret 8 x 03,
 * associated data 12 x 04, 32 KiB, 3 passes, 4 lanes, 32-byte tag. */
static int rfc9106(argon2_type type, uint8_t tag[32])
{
	uint8_t pwd[32], salt[16], secret[8], ad[12];
	memset(pwd, 1, sizeof pwd);
	memset(salt, 2, sizeof salt);
	memset(secret, 3, sizeof secret);
	memset(ad, 4, sizeof ad);
	argon2_context c = {
		.out = tag, .outlen = 32, .pwd = pwd, .pwdlen = 32, .salt = salt, .saltlen = 16,
		.secret = secret, .secretlen = 8, .ad = ad, .adlen = 12,
		.t_cost = 3, .m_cost = 32, .lanes = 4, .threads = 4, .version = ARGON2_VERSION_13,
	};
	return argon2_ctx(&c, type);
}

static void test_argon2(void)
{
	uint8_t tag[32], a[32], b[32];
	char err[LUKS2_ERR_MAX];

	tap_ok(rfc9106(Argon2_i, tag) == ARGON2_OK &&
	       same_hex(tag, 32, "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"),
	       "libargon2: RFC 9106 argon2i vector");
	tap_ok(rfc9106(Argon2_id, tag) == ARGON2_OK &&
	       same_hex(tag, 32, "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"),
	       "libargon2: RFC 9106 argon2id vector");
	/* luks2_kdf's argon2 is argon2_hash without secret or data: the
	 * same as argon2id_hash_raw. */
	struct hi_luks2_kdf k = { .type = LUKS2_KDF_ARGON2ID, .time = 2, .memory = 64, .cpus = 2, .salt_len = 16 };
	memset(k.salt, 2, 16);
	tap_ok(hi_luks2_kdf(&k, (const uint8_t *)"pass", 4, a, 32, err, sizeof err) == 0 &&
	       argon2id_hash_raw(2, 64, 2, "pass", 4, k.salt, 16, b, 32) == ARGON2_OK && !memcmp(a, b, 32),
	       "luks2_kdf argon2id = argon2id_hash_raw");
	k.type = LUKS2_KDF_ARGON2I;
	tap_ok(hi_luks2_kdf(&k, (const uint8_t *)"pass", 4, a, 32, err, sizeof err) == 0 &&
	       argon2i_hash_raw(2, 64, 2, "pass", 4, k.salt, 16, b, 32) == ARGON2_OK && !memcmp(a, b, 32),
	       "luks2_kdf argon2i = argon2i_hash_raw");
	k.memory = LUKS2_ARGON2_MEMORY_MAX + 1;
	tap_ok(hi_luks2_kdf(&k, (const uint8_t *)"pass", 4, a, 32, err, sizeof err) < 0, "argon2 memory over the limit refused");
	tap_contains(err, "over the limits", "the error says the limit");
}

static void test_specs(void)
{
	char name[64];
	int p64;
	tap_ok(hi_afalg_spec("aes-xts-plain64", name, sizeof name, &p64) == 0 && !strcmp(name, "xts(aes)") && p64,
	       "aes-xts-plain64 is xts(aes), plain64");
	tap_ok(hi_afalg_spec("aes-cbc-plain", name, sizeof name, &p64) == 0 && !strcmp(name, "cbc(aes)") && !p64,
	       "aes-cbc-plain is cbc(aes), plain");
	tap_ok(hi_afalg_spec("aes-cbc-essiv:sha256", name, sizeof name, &p64) < 0 && hi_afalg_spec("aes", name, sizeof name, &p64) < 0 &&
	       hi_afalg_spec("des-xts-plain64", name, sizeof name, &p64) < 0, "essiv, a bare cipher, des refused");
}

int main(void)
{
	test_hmac_pbkdf2();
	test_af_merge();
	test_argon2();
	test_specs();
	return tap_done();
}
