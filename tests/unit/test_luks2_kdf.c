/* Unit tests: the LUKS2 key derivation pieces. HMAC-SHA256 (RFC 4231),
 * PBKDF2-HMAC-SHA256 (RFC 7914 section 11 and the RFC 6070 inputs over
 * sha256), the luks1 anti-forensic merge against a diffuse written out
 * here, libargon2 against RFC 9106's argon2i and argon2id vectors (built
 * twice: host, and with musl-gcc against Debian's static libargon2.a as
 * PID 1 links it: build/unit/test_luks2_kdf_musl), the constant-time
 * compare and the dm-crypt cipher specs the AF_ALG wrapper accepts. */
#define _GNU_SOURCE
#include <stdint.h>
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

/* A header asks its KDF's cost, and PID 1 pays it before the boot goes
 * on: argon2 of 4 GiB on a machine with 1 GiB free, or 2^32 PBKDF2
 * iterations, are refused with a line, never run (the OOM killer cannot
 * take PID 1; the kernel would panic). hi_luks2_kdf refuses them before
 * any work: the 2^32-iteration case returns at once. */
static void test_kdf_bounds(void)
{
	char err[LUKS2_ERR_MAX];
	uint8_t out[32];
	const uint64_t gib = 1024 * 1024;     /* KiB */
	struct hi_luks2_kdf a = { .type = LUKS2_KDF_ARGON2ID, .time = 4, .memory = 4 * 1024 * 1024, .cpus = 4, .salt_len = 16 };

	tap_ok(hi_luks2_kdf_within(&a, 1 * gib, err, sizeof err) < 0, "argon2 of 4 GiB with 1 GiB free refused");
	tap_contains(err, "argon2 asks 4194304 KiB of memory, and this machine has 1048576 KiB free", "  the line says both");
	a.memory = 1024 * 1024;
	tap_ok(hi_luks2_kdf_within(&a, 2 * gib, err, sizeof err) == 0, "argon2 of 1 GiB, 4 passes, with 2 GiB free: taken");
	tap_ok(hi_luks2_kdf_within(&a, 1 * gib, err, sizeof err) < 0, "argon2 of 1 GiB with exactly 1 GiB free: refused (the reserve)");
	a.time = 1000;
	tap_ok(hi_luks2_kdf_within(&a, 8 * gib, err, sizeof err) < 0 && strstr(err, "passes over"),
	       "argon2 of 1 GiB over 1000 passes: over the work limit");
	a.time = UINT32_MAX;
	a.memory = 64;
	tap_ok(hi_luks2_kdf_within(&a, 8 * gib, err, sizeof err) < 0, "argon2 of 2^32 passes over 64 KiB refused");
	a.time = 4;
	a.memory = 8 * 1024 * 1024;
	tap_ok(hi_luks2_kdf_within(&a, 64 * gib, err, sizeof err) < 0 && strstr(err, "over the limits"),
	       "argon2 of 8 GiB refused whatever the machine has");

	struct hi_luks2_kdf p = { .type = LUKS2_KDF_PBKDF2, .hash = "sha256", .iterations = UINT32_MAX, .salt_len = 16 };
	tap_ok(hi_luks2_kdf_within(&p, 0, err, sizeof err) < 0, "pbkdf2 of 2^32-1 iterations refused");
	tap_contains(err, "pbkdf2 asks 4294967295 iterations, over hardinit's limit", "  the line says the limit");
	tap_ok(hi_luks2_kdf(&p, (const uint8_t *)"pass", 4, out, sizeof out, err, sizeof err) < 0,
	       "hi_luks2_kdf refuses it before any work");
	p.iterations = 2000000;      /* cryptsetup's 2 s benchmark on a fast machine */
	tap_ok(hi_luks2_kdf_within(&p, 0, err, sizeof err) == 0, "pbkdf2 of 2 million iterations taken");
}

/* hi_sha256 of a PIN (the token's PolicyAuthValue) leaves no copy of its
 * last block on the stack: its state and the compression's schedule are
 * overwritten before it returns. The stack below this frame is read back
 * through a fresh array in a function at the same depth as the hash. */
static uint8_t pin_input[] = "PIN:0123456789abcdefghijklmnopqrstuv";

static __attribute__((noinline)) void hash_pin(uint8_t *out)
{
	hi_sha256(pin_input, sizeof pin_input - 1, out);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/* Reads what the hash left: uninitialized on purpose. */
static __attribute__((noinline)) int stack_holds_pin(void)
{
	volatile uint8_t below[8192];
	static const uint8_t needle[] = "0123456789abcdefghij";     /* the PIN's bytes, not the marker word */
	uint8_t copy[sizeof below];
	for (size_t i = 0; i < sizeof below; i++)
		copy[i] = below[i];
	return memmem(copy, sizeof copy, needle, sizeof needle - 1) != NULL;
}
#pragma GCC diagnostic pop

static void test_sha256_wipe(void)
{
	uint8_t out[SHA256_BYTES];
	hash_pin(out);
	int found = stack_holds_pin();
	explicit_bzero(pin_input, sizeof pin_input);
	tap_ok(!found, "hi_sha256 leaves no copy of its input's last block on the stack");
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
	test_kdf_bounds();
	test_sha256_wipe();
	test_specs();
	return tap_done();
}
