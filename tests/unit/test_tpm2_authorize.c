/* Unit tests: systemd 252's signed PCR policy without a TPM
 * (tpm/tpm2_pcrsig.c, tpm/tpm2_authorize.c, tpm/tpm2_unseal.c's use of
 * them). The token's PEM key: its modulus, and pkfp as OpenSSL computes
 * it (`openssl rsa -pubin -RSAPublicKey_out -outform DER | sha256sum`);
 * an EC key and an exponent of 3 refused. The commands as bytes
 * (LoadExternal with systemd's template, its name as the TPM computes
 * it, by Python's hashlib), the decoders on good, cut and erring
 * responses. The signature file: the entry chosen as find_signature
 * chooses it, each "no entry" reason, malformed files refused. And the
 * sequence against a scripted TPM: the signed PolicyPCR, VerifySignature
 * of SHA-256(pol), PolicyAuthorize with the ticket and the key's name,
 * then the PCRs by value, in systemd's order; a missing signature and a
 * refused one; every handle flushed. Against systemd-cryptenroll,
 * systemd-measure and swtpm: tests/bats/luks_tpm2_signed.bats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tpm_bytes.h"
#include "tpm2_authorize.h"
#include "tpm2_pcrsig.h"
#include "tpm2_unseal.h"

static char why[300];
static uint8_t cmd[TPM_CMD_MAX];

/* A 1024-bit key made by `openssl genrsa 1024` (exponent 65537). */
static const char pem[] =
	"-----BEGIN PUBLIC KEY-----\n"
	"MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC5EOAHHEJ50faBsamwWH9LQ8tV\n"
	"rEeKak288d1L0a0Pv0qfs0jc32Bl45KE0JDAGwLnzP8ufZJ3ctdKzoOy3Ivs1oUH\n"
	"/MInrpP2ZXt1h5m2dmrfMB4Za6OJkliJnsOSizuk7NvhGXHFH9xjQnZWpWwdyp33\n"
	"du0tFJk7vU6yrFCsLQIDAQAB\n"
	"-----END PUBLIC KEY-----\n";
static const char pkfp[] = "a8b427cff13fed2c518641b5805c59edd814a9efa7db0ef0e88f100878cbc5f3";

static char *hex(const uint8_t *p, size_t n)
{
	static char out[2 * TPM_CMD_MAX + 1];
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
	out[2 * n] = '\0';
	return out;
}

static void unhex(const char *h, uint8_t *out)
{
	for (size_t i = 0; h[2 * i]; i++)
		sscanf(h + 2 * i, "%2hhx", &out[i]);
}

static void test_key(void)
{
	struct tpm2_rsa_pub k;
	tap_ok(hi_tpm2_rsa_pub_parse((const uint8_t *)pem, strlen(pem), &k, why, sizeof why) == 0 && k.nlen == 128 &&
		       k.e == 65537 && k.n[0] == 0xb9 && k.n[1] == 0x10,
	       "PEM key: a 1024-bit modulus (its leading zero dropped), exponent 65537");
	tap_streq(hex(k.fp, 32), pkfp, "pkfp: SHA-256 of the PKCS#1 RSAPublicKey DER, as OpenSSL's i2d_PublicKey");
	static const char ec[] = "-----BEGIN PUBLIC KEY-----\n"
		"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE6ztJIM9iFD3dY6FC7tiVYXsGFiNt\n"
		"5Q9VYYaFqvhhpiuBktMq6yTxWjlTKrYV7iEkUcx3e8XuDe9VYNokZWmU1Q==\n"
		"-----END PUBLIC KEY-----\n";
	tap_ok(hi_tpm2_rsa_pub_parse((const uint8_t *)ec, strlen(ec), &k, why, sizeof why) < 0, "an EC key: refused");
	tap_contains(why, "not an RSA key", "says it is not RSA");
	static const char e3[] = "-----BEGIN PUBLIC KEY-----\n"
		"MIGdMA0GCSqGSIb3DQEBAQUAA4GLADCBhwKBgQDVhBAfBrsAEmhuobOgtGxBZXRZ\n"
		"AEgNaX9u4CHpQo3KHwW0BFHb/SGcj3cBAGfevxpW6ZmNZ0M7v/g79Bz4dfGrnvCc\n"
		"1JKAMqt7evnDumqm8eRvLI9DsgycLuhYJXJ5A0KOhc0zbpED9ZcEacycbKUs1zqi\n"
		"GymfJIIIw9t6JZPNdwIBAw==\n"
		"-----END PUBLIC KEY-----\n";
	tap_ok(hi_tpm2_rsa_pub_parse((const uint8_t *)e3, strlen(e3), &k, why, sizeof why) < 0, "exponent 3: refused");
	tap_contains(why, "other than 65537", "says which exponent is accepted");
	char cut[sizeof pem];
	memcpy(cut, pem, sizeof pem);
	cut[60] = '\0';
	tap_ok(hi_tpm2_rsa_pub_parse((const uint8_t *)cut, strlen(cut), &k, why, sizeof why) < 0, "a cut PEM: refused");
	tap_contains(why, "END PUBLIC KEY", "says the END line is missing");
	tap_ok(hi_tpm2_rsa_pub_parse((const uint8_t *)"hello", 5, &k, why, sizeof why) < 0, "not PEM: refused");
	memcpy(cut, pem, sizeof pem);
	cut[40] = 'A';                   /* the DER's sizes no longer add up */
	tap_ok(hi_tpm2_rsa_pub_parse((const uint8_t *)cut, strlen(cut), &k, why, sizeof why) < 0,
	       "a damaged DER: refused (%s)", why);
}

static void test_commands(void)
{
	struct tpm2_rsa_pub k;
	uint8_t name[34];
	hi_tpm2_rsa_pub_parse((const uint8_t *)pem, strlen(pem), &k, why, sizeof why);
	long n = hi_tpm2_cmd_load_external(cmd, sizeof cmd, &k);
	tap_ok(n == 10 + 2 + 2 + 22 + 128 + 4, "LoadExternal: %ld bytes", n);
	tap_streq(hex(cmd, 36), "8001000000a800000167" "0000" "0096" "0001000b000600400000001000100400000100010080",
		  "LoadExternal: no private part; RSA, SHA-256 name, userWithAuth|decrypt|sign, no policy, "
		  "no symmetric, no scheme, 1024 bits, exponent 65537 written out (systemd 252's template)");
	tap_streq(hex(cmd + n - 4, 4), "40000001", "LoadExternal: into the owner hierarchy");
	hi_tpm2_rsa_name(&k, name);
	tap_streq(hex(name, 34), "000bea21d94586dd0295475f73a69f532ab7cb1d2ff7008f391d5df4741dcd1a0408",
		  "the key's name: SHA-256 of the public area (Python's hashlib)");
	uint8_t d[32], sig[128];
	memset(d, 0x11, sizeof d);
	memset(sig, 0x22, sizeof sig);
	n = hi_tpm2_cmd_verify_signature(cmd, sizeof cmd, 0x80000002, d, sig, sizeof sig);
	tap_ok(n == 10 + 4 + 34 + 6 + 128, "VerifySignature: %ld bytes", n);
	tap_streq(hex(cmd, 20), "8001000000b600000177800000020020" "11111111", "VerifySignature: the key, a 32-byte digest");
	tap_streq(hex(cmd + 48, 8), "0014000b00802222", "VerifySignature: RSASSA, SHA-256, the signature");
	tap_ok(hi_tpm2_cmd_verify_signature(cmd, sizeof cmd, 1, d, sig, 0) == -1 &&
		       hi_tpm2_cmd_verify_signature(cmd, sizeof cmd, 1, d, sig, 513) == -1,
	       "VerifySignature: no signature, or one over 512 bytes: -1");
	struct tpm2_ticket t = { 0x8022, 0x40000001, { 0 }, 32 };
	memset(t.digest, 0x33, 32);
	n = hi_tpm2_cmd_policy_authorize(cmd, sizeof cmd, 0x03000000, d, 32, name, 34, &t);
	tap_ok(n == 10 + 4 + 34 + 2 + 36 + 6 + 34, "PolicyAuthorize: %ld bytes", n);
	tap_streq(hex(cmd, 16), "80010000007e0000016a030000000020", "PolicyAuthorize: the session, the approved policy");
	tap_streq(hex(cmd + 48, 6), "00000022000b", "PolicyAuthorize: an empty policyRef, then the key's name");
	tap_streq(hex(cmd + 86, 10), "80224000000100203333", "PolicyAuthorize: the ticket (TPM_ST_VERIFIED, owner)");
	tap_ok(hi_tpm2_cmd_load_external(cmd, 100, &k) == -1, "LoadExternal into too small a buffer: -1, not overflowed");
}

static void test_responses(void)
{
	uint8_t r[64], name[TPM2_NAME_MAX];
	size_t nlen = 0;
	uint32_t h = 0;
	struct tpm2_ticket t;

	unhex("8001000000320000000080000002" "0022000b" "ea21d94586dd0295475f73a69f532ab7cb1d2ff7008f391d5df4741dcd1a0408",
	      r);
	tap_ok(hi_tpm2_resp_load_external(r, 36 + 0, &h, name, sizeof name, &nlen, why, sizeof why) == -1,
	       "LoadExternal response cut: -1");
	tap_ok(hi_tpm2_resp_load_external(r, 50, &h, name, sizeof name, &nlen, why, sizeof why) == 0 &&
		       h == 0x80000002 && nlen == 34 && name[2] == 0xea,
	       "LoadExternal response: the handle and the name");
	tap_ok(hi_tpm2_resp_load_external(r, 50, &h, name, 10, &nlen, why, sizeof why) == -1,
	       "LoadExternal response: a name over the buffer refused");
	unhex("80010000000a000002c4", r);     /* TPM_RC_KEY_SIZE-ish: an error code */
	tap_ok(hi_tpm2_resp_load_external(r, 10, &h, name, sizeof name, &nlen, why, sizeof why) == 0x2c4,
	       "LoadExternal error: the TPM's response code");
	unhex("800100000032000000008022400000010020" "4444444444444444444444444444444444444444444444444444444444444444", r);
	tap_ok(hi_tpm2_resp_verify_signature(r, 50, &t, why, sizeof why) == 0 && t.tag == 0x8022 &&
		       t.hierarchy == 0x40000001 && t.len == 32 && t.digest[31] == 0x44,
	       "VerifySignature response: the ticket");
	tap_ok(hi_tpm2_resp_verify_signature(r, 30, &t, why, sizeof why) == -1, "VerifySignature response cut: -1");
	r[10] = 0x80;
	r[11] = 0x21;
	tap_ok(hi_tpm2_resp_verify_signature(r, 50, &t, why, sizeof why) == -1, "a ticket of another tag: refused");
	tap_contains(why, "not TPM_ST_VERIFIED", "says the ticket's tag is wrong");
	unhex("80010000000a000002db", r);     /* TPM_RC_SIGNATURE, parameter 2 */
	tap_ok(hi_tpm2_resp_verify_signature(r, 10, &t, why, sizeof why) == 0x2db, "a refused signature: its code");
}

/* A signature file as systemd-measure writes one (shortened). */
static const char sigjson[] =
	"{\"sha1\":[{\"pcrs\":[11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"AAAA\"}],"
	" \"sha256\" : [ {\"pcrs\":[11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"Zm9v\"},\n"
	"  {\"pcrs\":[7,11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"YmFy\"},\n"
	"  {\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"YmF6\", \"other\": {\"x\": [1, -2.5e3, true, null]}},\n"
	"  {\"pcrs\":[11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"cXV4\"} ]}";

static const char pol_a[] = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";
static const char pol_b[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
static char doc[4096];

static int find(const char *json, uint16_t bank, uint32_t pcrs, const char *fp, const char *pol, char *sig)
{
	uint8_t f[32], p[32], s[64];
	size_t n = 0;
	unhex(fp, f);
	unhex(pol, p);
	struct tpm2_pcrsig_want w = { bank, pcrs, f, p, 32 };
	int rc = hi_tpm2_pcrsig_find(json, strlen(json), &w, s, sizeof s, &n, why, sizeof why);
	if (sig) {
		memcpy(sig, s, n);
		sig[n] = '\0';
	}
	return rc;
}

static void test_sigfile(void)
{
	static const char other_fp[] = "0000000000000000000000000000000000000000000000000000000000000000";
	char sig[80];
	snprintf(doc, sizeof doc, sigjson, pkfp, pol_a, pkfp, pol_b, pkfp, pol_a, pkfp, pol_a, pkfp, pol_a);
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 11, pkfp, pol_a, sig) == TPM2_PCRSIG_FOUND && !strcmp(sig, "qux"),
	       "the sha256 entry for PCR 11, this key and this policy: the mask, then key, then policy decide");
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 11, pkfp, pol_b, sig) == TPM2_PCRSIG_FOUND && !strcmp(sig, "foo"),
	       "another policy digest (the next boot phase): its own entry");
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 7 | 1u << 11, pkfp, pol_a, sig) == TPM2_PCRSIG_FOUND && !strcmp(sig, "bar"),
	       "PCRs 7+11: the entry with that exact mask");
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 11, pkfp, pkfp, sig) == TPM2_PCRSIG_NONE, "a policy no entry signs: none");
	tap_contains(why, "signs no sha256 policy for PCR 11 as it is now", "says the PCR is not what was signed");
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 11, other_fp, pol_a, sig) == TPM2_PCRSIG_NONE, "another key: none");
	tap_contains(why, "(signed with another key)", "says another key signed it");
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 12, pkfp, pol_a, sig) == TPM2_PCRSIG_NONE, "another PCR: none");
	tap_contains(why, "no sha256 signature for PCR 12 (4 entries)", "says no entry covers that PCR");
	tap_ok(find(doc, TPM_ALG_SHA384, 1u << 11, pkfp, pol_a, sig) == TPM2_PCRSIG_NONE, "another bank: none");
	tap_contains(why, "no \"sha384\" bank", "says the bank is missing");

	static const struct { const char *json, *what; } bad[] = {
		{ "[]", "not a JSON object" },
		{ "{\"sha256\":{}}", "\"sha256\" is not an array" },
		{ "{\"sha256\":[1]}", "not an object" },
		{ "{\"sha256\":[{\"pcrs\":[24]}]}", "a number over 23" },
		{ "{\"sha256\":[{\"pcrs\":11}]}", "\"pcrs\" is not an array" },
		{ "{\"sha256\":[{\"pkfp\":\"xyz\"}]}", "is not hex" },
		{ "{\"sha256\":[]} x", "text after the object" },
		{ "{\"a\":[[[[[[[[[[1]]]]]]]]]]}", "nested deeper than 8" },
		{ "{\"sha256\":[{\"sig\":\"ab", "unterminated string" },
		{ "{\"a\":\"\\u00e9\"}", "outside ASCII" },
		{ "{\"a\":tru}", "not a JSON value" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tap_ok(find(bad[i].json, TPM_ALG_SHA256, 1u << 11, pkfp, pol_a, NULL) == TPM2_PCRSIG_BAD,
		       "malformed file %zu refused", i);
		tap_contains(why, bad[i].what, bad[i].what);
	}
	snprintf(doc, sizeof doc, "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"!!!!\"}]}", pkfp,
		 pol_a);
	tap_ok(find(doc, TPM_ALG_SHA256, 1u << 11, pkfp, pol_a, NULL) == TPM2_PCRSIG_BAD, "the matching entry's sig not base64");
	tap_ok(find("{}", TPM_ALG_SHA256, 1u << 11, pkfp, pol_a, NULL) == TPM2_PCRSIG_NONE, "an empty object: none");
}

/* A scripted TPM: answers by command code, records the codes in order
 * and what was flushed. */
struct fake {
	uint32_t cc[24];
	int calls, digests, nflushed;
	uint32_t flushed[4];
	bool refuse_sig;
	uint8_t verify_digest[32], auth_ticket[32], auth_name[34];
};

static int fake_xfer(void *ctx, const uint8_t *c, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		     size_t errlen)
{
	static const char pub[] = "005a" "0023000b000300720000" "000600800043" "0010" "0003" "0010"
		"0020" "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
		"0020" "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
	struct fake *f = ctx;
	uint32_t cc = (uint32_t)c[6] << 24 | (uint32_t)c[7] << 16 | (uint32_t)c[8] << 8 | c[9];
	size_t n = 10;

	f->cc[f->calls++ % 24] = cc;
	memset(resp, 0, cap);
	resp[0] = 0x80;
	resp[1] = c[1];
	switch (cc) {
	case 0x131:                            /* CreatePrimary: the P-256 generator */
		tpm_put32(resp + 10, 0x80000000);
		tpm_put32(resp + 14, 92);
		unhex(pub, resp + 18);
		n = 18 + 92;
		break;
	case 0x157:                            /* Load */
		tpm_put32(resp + 10, 0x80000001);
		tpm_put32(resp + 14, 4);
		resp[19] = 2;
		resp[21] = 0x0b;
		n = 22;
		break;
	case 0x176:                            /* StartAuthSession */
		tpm_put32(resp + 10, 0x03000000);
		resp[15] = 16;
		n = 32;
		break;
	case 0x167:                            /* LoadExternal: the name by the TPM's rule */
		tpm_put32(resp + 10, 0x80000002);
		resp[15] = 34;
		unhex("000bea21d94586dd0295475f73a69f532ab7cb1d2ff7008f391d5df4741dcd1a0408", resp + 16);
		n = 50;
		break;
	case 0x189:                            /* PolicyGetDigest: pol_a, then the final one */
		resp[11] = 32;
		memset(resp + 12, f->digests++ ? 0xee : 0x5a, 32);
		n = 44;
		break;
	case 0x177:                            /* VerifySignature */
		memcpy(f->verify_digest, c + 16, 32);
		if (f->refuse_sig) {
			tpm_put32(resp + 6, 0x2db);
			break;
		}
		unhex("8022400000010020", resp + 10);
		memset(resp + 18, 0x44, 32);
		n = 50;
		break;
	case 0x16a:                            /* PolicyAuthorize: the name and the ticket */
		memcpy(f->auth_name, c + 52, 34);
		memcpy(f->auth_ticket, c + 94, 32);
		break;
	case 0x15e:                            /* Unseal: the final digest is not the object's */
		tpm_put32(resp + 6, 0x99d);
		break;
	case 0x165:
		f->flushed[f->nflushed++ & 3] = (uint32_t)c[10] << 24 | (uint32_t)c[11] << 16 | (uint32_t)c[12] << 8 | c[13];
		break;
	}
	(void)len;
	(void)err;
	(void)errlen;
	tpm_put32(resp + 2, (uint32_t)n);
	*rlen = n;
	return 0;
}

static void test_sequence(void)
{
	uint8_t blob[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3 }, policy[32], secret[TPM2_SECRET_MAX];
	size_t slen = 0;
	char err[300];
	memset(policy, 0x5a, sizeof policy);
	snprintf(doc, sizeof doc, "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"Zm9v\"}]}", pkfp,
		 pol_a);
	struct tpm2_unseal_req q = { .primary_alg = TPM_ALG_ECC, .pcr_bank = TPM_ALG_SHA256, .pcrs = 1u << 7,
				     .pubkey_pcrs = 1u << 11, .pubkey = (const uint8_t *)pem, .pubkey_len = strlen(pem),
				     .pcrsig = doc, .pcrsig_len = strlen(doc), .blob = blob, .blob_len = sizeof blob,
				     .policy_hash = policy, .policy_hash_len = sizeof policy };
	static struct fake f;
	int rc = hi_tpm2_unseal(fake_xfer, &f, &q, secret, sizeof secret, &slen, err, sizeof err);
	/* The final digest (0xee...) is not the token's: the TPM refuses the
	 * Unseal (no PIN: the digest is read after it) and the refusal names
	 * the PCRs. */
	tap_ok(rc == TPM2_POLICY_CHANGED, "the signed sequence reaches the final policy check (%s)", err);
	tap_contains(err, "the policy of PCR 7 (sha256 bank) is not the one the key was sealed to", "and names the PCR");
	static const uint32_t want[] = { 0x131, 0x157, 0x176, 0x167, 0x17f, 0x189, 0x177, 0x16a, 0x165, 0x17f, 0x15e, 0x189 };
	bool order = f.calls >= 12;
	for (size_t i = 0; i < 12 && order; i++)
		order = f.cc[i] == want[i];
	tap_ok(order, "systemd 252's order: LoadExternal, PolicyPCR 11, PolicyGetDigest, VerifySignature, "
		      "PolicyAuthorize, the key flushed, then PolicyPCR 7 by value; the Unseal refused, then its digest read");
	tap_streq(hex(f.verify_digest, 32), "60bf07c488aad18fda339df07e4fbc47b4f00be71711936f18d04d352ad01890",
		  "VerifySignature's digest: SHA-256 of the approved policy (Python's hashlib)");
	tap_streq(hex(f.auth_name, 34), "000bea21d94586dd0295475f73a69f532ab7cb1d2ff7008f391d5df4741dcd1a0408",
		  "PolicyAuthorize: the loaded key's name");
	tap_ok(f.auth_ticket[0] == 0x44 && f.auth_ticket[31] == 0x44, "PolicyAuthorize: VerifySignature's ticket");
	tap_ok(f.nflushed == 4 && f.flushed[0] == 0x80000002 && f.flushed[1] == 0x03000000 && f.flushed[2] == 0x80000001 &&
		       f.flushed[3] == 0x80000000,
	       "the key, the session, the object and the primary flushed");

	static struct fake r;
	r.refuse_sig = true;
	rc = hi_tpm2_unseal(fake_xfer, &r, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_POLICY_CHANGED && slen == 0, "a signature the TPM refuses: refused, no secret");
	tap_contains(err, "does not verify with the token's public key", "says the signature does not verify");
	tap_ok(r.nflushed == 4 && r.flushed[0] == 0x80000002, "the loaded key flushed after the refusal");

	static struct fake g;
	snprintf(doc, sizeof doc, "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"%s\",\"pol\":\"%s\",\"sig\":\"Zm9v\"}]}", pkfp,
		 pol_b);
	q.pcrsig_len = strlen(doc);
	rc = hi_tpm2_unseal(fake_xfer, &g, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_POLICY_CHANGED, "PCR 11 not what was signed: refused");
	tap_contains(err, "signs no sha256 policy for PCR 11 as it is now", "says the PCR is not what the UKI was signed for");
	tap_ok(g.nflushed == 4, "every handle flushed");

	static struct fake h;
	q.pcrsig = NULL;
	rc = hi_tpm2_unseal(fake_xfer, &h, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_ERROR && h.calls == 0, "no signature file: refused before any command");
	tap_contains(err, "no tpm2-pcr-signature.json", "says the signature file is missing");
}

int main(void)
{
	test_key();
	test_commands();
	test_responses();
	test_sigfile();
	test_sequence();
	return tap_done();
}
