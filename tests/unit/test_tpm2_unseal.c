/* Unit tests: the TPM2 unseal (tpm/tpm2_unseal.c) without a TPM. The
 * commands as bytes (systemd 252's SRK template, PolicyPCR's selection,
 * the Unseal's authorization), the response decoders on good, cut and
 * erring responses, the PIN's HMAC against a value computed by Python's
 * hmac module, and the sequence against a scripted TPM (its primary key
 * the P-256 generator, so the salt is made and sent): a changed PCR
 * (the Unseal refused, then PolicyGetDigest differs), a TPM that stops answering, a signed policy
 * whose key does not parse (the signed sequence is test_tpm2_authorize.c);
 * each time every handle it made is flushed. systemd 255's tokens: the
 * salted PIN against Python's hashlib.pbkdf2_hmac, tpm2_srk read, and the
 * SRK as the Load's parent: the persistent one when its name is the
 * token's, a planted one refused before the Load, none there: made again
 * from the noDA template and checked the same way. The salted session itself
 * is tests/unit/test_tpm2_session.c; interoperability with
 * systemd-cryptenroll against swtpm is tests/bats/luks_tpm2.bats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tpm_bytes.h"
#include "tpm2_unseal.h"

static uint8_t cmd[TPM_CMD_MAX];
static char why[200];

static void test_commands(void)
{
	long n = hi_tpm2_cmd_create_primary(cmd, sizeof cmd, TPM_ALG_ECC);
	tpm_hex_is(cmd, n,
	           "800200000043000001314000000100000009400000090000000000000400000000"
	           "001a0023000b00030072000000060080004300100003001000000000000000000000",
	           "CreatePrimary: owner, empty auth, systemd's ECC P-256 template (AES-128-CFB, no scheme, empty unique)");
	n = hi_tpm2_cmd_create_primary(cmd, sizeof cmd, TPM_ALG_RSA);
	tpm_hex_is(cmd, n,
	           "800200000043000001314000000100000009400000090000000000000400000000"
	           "001a0001000b00030072000000060080004300100800000000000000000000000000",
	           "CreatePrimary: systemd's RSA 2048 template");
	tap_ok(hi_tpm2_cmd_create_primary(cmd, sizeof cmd, TPM_ALG_SHA256) == -1, "CreatePrimary: no other key type");
	tap_ok(hi_tpm2_cmd_create_primary(cmd, 40, TPM_ALG_ECC) == -1, "CreatePrimary: too small a buffer is -1, not overflowed");
	n = hi_tpm2_cmd_policy_pcr(cmd, sizeof cmd, 0x03000000, TPM_ALG_SHA256, 1u << 7 | 1u << 11);
	tpm_hex_is(cmd, n, "80010000001a0000017f03000000000000000001000b03800800",
	           "PolicyPCR: the TPM's own PCR values, one sha256 selection of 3 bytes (PCRs 7 and 11)");
	tap_ok(hi_tpm2_cmd_policy_pcr(cmd, sizeof cmd, 0x03000000, TPM_ALG_SHA256, 1u << 24) == -1, "PolicyPCR: PCR 24 refused");
	n = hi_tpm2_cmd_unseal(cmd, sizeof cmd, 0x80000001, 0x03000000, NULL, 0, 0, NULL);
	tpm_hex_is(cmd, n, "80020000001b0000015e8000000100000009030000000000000000",
	           "Unseal: the policy session, empty nonce and HMAC, the session not continued");
	uint8_t nonce[32], mac[32];
	memset(nonce, 0x22, sizeof nonce);
	memset(mac, 0x44, sizeof mac);
	n = hi_tpm2_cmd_unseal(cmd, sizeof cmd, 0x80000001, 0x03000000, nonce, 32, TPMA_SESSION_ENCRYPT, mac);
	tap_ok(n == 10 + 4 + 4 + 4 + 2 + 32 + 1 + 2 + 32 && cmd[17] == 4 + 2 + 32 + 1 + 2 + 32 && cmd[56] == 0x40,
	       "Unseal under a salted session: nonce, the encrypt attribute and HMAC in the authorization (%ld bytes)", n);
	uint8_t salt[68];
	memset(salt, 0x55, sizeof salt);
	n = hi_tpm2_cmd_start_policy_session(cmd, sizeof cmd, 0x80000000, nonce, salt, sizeof salt);
	tap_ok(n == 10 + 4 + 4 + 2 + 32 + 2 + 68 + 1 + 6 + 2 && cmd[10] == 0x80 && cmd[13] == 0 && cmd[14] == 0x40 &&
		       cmd[52] == 0 && cmd[53] == 68 && cmd[122] == 1,
	       "StartAuthSession: salted with the primary (tpmKey), not bound, the encrypted salt, a policy session");
	tpm_hex_is(cmd + 123, 8, "00060080004300" "0b", "StartAuthSession: AES-128-CFB parameter encryption, SHA-256");
	n = hi_tpm2_cmd_create_srk(cmd, sizeof cmd, TPM_ALG_ECC);
	tpm_hex_is(cmd, n,
	           "800200000043000001314000000100000009400000090000000000000400000000"
	           "001a0023000b00030472000000060080004300100003001000000000000000000000",
	           "CreatePrimary of systemd 255's SRK: the same template with noDA (0x00030472)");
	n = hi_tpm2_cmd_read_public(cmd, sizeof cmd, TPM2_SRK_HANDLE);
	tpm_hex_is(cmd, n, "80010000000e0000017381000001", "ReadPublic of the SRK's persistent handle");
	n = hi_tpm2_cmd_flush(cmd, sizeof cmd, 0x80000001);
	tpm_hex_is(cmd, n, "80010000000e0000016580000001", "FlushContext");
}

static void test_blob(void)
{
	uint8_t blob[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3 };
	struct tpm2_sealed s;
	tap_ok(hi_tpm2_blob_split(blob, sizeof blob, &s, why, sizeof why) == 0 && s.priv_len == 4 && s.pub_len == 5 &&
		       s.pub == blob + 4,
	       "blob: TPM2B_PRIVATE then TPM2B_PUBLIC, sizes included");
	tap_ok(hi_tpm2_blob_split(blob, 5, &s, why, sizeof why) < 0, "blob: the public part cut short is refused");
	tap_contains(why, "no TPM2B_PUBLIC", "blob: says what is missing");
	blob[1] = 200;
	tap_ok(hi_tpm2_blob_split(blob, sizeof blob, &s, why, sizeof why) < 0, "blob: a private size past the end refused");
	/* systemd 255's third part, the seed of a key sealed offline. */
	uint8_t seeded[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3, 0, 2, 0xcc, 0xdd };
	tap_ok(hi_tpm2_blob_split(seeded, sizeof seeded, &s, why, sizeof why) < 0, "blob: an import seed after the public refused");
	tap_contains(why, "import seed", "blob: says it is an import seed");
	seeded[10] = 0;
	tap_ok(hi_tpm2_blob_split(seeded, 11, &s, why, sizeof why) == 0 && s.pub_len == 5, "blob: an empty seed is no seed");
}

/* The token's tpm2_salt and PIN 1234 from the token systemd-cryptenroll
 * 257 wrote (tests/unit/test_luks2_token.c); the expected texts from
 * base64.b64encode(hashlib.pbkdf2_hmac("sha256", pin, salt, 10000, 32)). */
static void test_pin_salted(void)
{
	static const uint8_t salt[] = { 0xce, 0x49, 0x31, 0x74, 0xcf, 0xb1, 0x46, 0xc7, 0xd6, 0x66, 0xe8,
					0xd4, 0x69, 0xc1, 0xaf, 0x93, 0xa0, 0xea, 0xa6, 0xe0, 0xd9, 0xc2,
					0xe5, 0xaa, 0xbe, 0x75, 0x66, 0xde, 0xed, 0x5e, 0xc5, 0x48 };
	char out[TPM2_PIN_SALTED_LEN + 1];

	tap_ok(hi_tpm2_pin_salted("1234", salt, sizeof salt, out) == 0, "salted PIN: derived");
	tap_streq(out, "NCrGpTRlFi+ohjb/sse3282rVzYO9ady1Hti+/LZ6MU=", "salted PIN: PBKDF2-HMAC-SHA256, 10000 rounds, base64");
	tap_ok(hi_tpm2_pin_salted("correct horse", (const uint8_t *)"NaCl", 4, out) == 0, "salted PIN: another");
	tap_streq(out, "ayBZBS5UP89qJM3Iji6ER4eJcuu9gLLWX1WeA2UcWAQ=", "salted PIN: another salt and PIN");
	tap_ok(hi_tpm2_pin_salted("", salt, sizeof salt, out) < 0 && !out[0], "salted PIN: an empty PIN derives nothing");
	/* A failure leaves no byte of an earlier derivation behind. */
	hi_tpm2_pin_salted("1234", salt, sizeof salt, out);
	int wiped = hi_tpm2_pin_salted("1234", salt, 0, out) < 0;
	for (size_t i = 0; i < sizeof out; i++)
		wiped = wiped && out[i] == 0;
	tap_ok(wiped, "salted PIN: a failed derivation wipes the whole output");
}

/* The scripted TPM's primary public area (tpm_create_primary_resp's) as
 * a serialized ESYS_TR of the SRK; its name, SHA-256 of the public area,
 * from Python's hashlib. */
static size_t srk_of_fake(uint8_t *out)
{
	static const char namehex[] = "000b5bac961abf341c33d17df9c39c5c1c063fac4af5038e5962667695f2b5cd826e";
	uint8_t cp[200];
	tpm_create_primary_resp(cp, 0);
	size_t n = 0;
	tpm_put32(out, TPM2_SRK_HANDLE);
	n = 4;
	out[n++] = 0;
	out[n++] = 34;
	for (size_t i = 0; i < 34; i++)
		sscanf(namehex + 2 * i, "%2hhx", &out[n++]);
	tpm_put32(out + n, 1);
	n += 4;
	memcpy(out + n, cp + 18, 92);
	return n + 92;
}

static void test_srk_parse(void)
{
	uint8_t ser[200];
	struct tpm2_srk k;
	size_t n = srk_of_fake(ser);

	tap_ok(hi_tpm2_srk_parse(ser, n, &k, why, sizeof why) == 0 && k.alg == TPM_ALG_ECC && k.namelen == 34,
	       "tpm2_srk: handle, name, key type, public area (%s)", why);
	tap_ok(hi_tpm2_srk_parse(ser, n - 1, &k, why, sizeof why) < 0, "tpm2_srk cut short: refused");
	ser[20] ^= 1;
	tap_ok(hi_tpm2_srk_parse(ser, n, &k, why, sizeof why) < 0, "tpm2_srk: a name that is not its public area's refused");
	tap_contains(why, "not the SHA-256 of its public area", "says so");
	ser[20] ^= 1;
	ser[3] = 2;
	tap_ok(hi_tpm2_srk_parse(ser, n, &k, why, sizeof why) < 0, "tpm2_srk: another persistent handle refused");
	tap_contains(why, "not the key at the SRK's handle 0x81000001", "says which handle it wants");
}

static void test_responses(void)
{
	uint32_t h = 0;
	uint8_t name[TPM2_NAME_MAX], nonce[TPM_DIGEST_MAX], secret[TPM2_SECRET_MAX];
	size_t nlen = 0;
	struct tpm2_primary_pub pub;
	uint8_t cp[200];
	size_t cplen = tpm_create_primary_resp(cp, 0x800000ff);
	tap_ok(hi_tpm2_resp_create_primary(cp, cplen, &h, &pub, why, sizeof why) == 0 && h == 0x800000ff &&
		       pub.type == TPM_ALG_ECC && pub.x[0] == 0x6b && pub.y[31] == 0xf5,
	       "CreatePrimary response: the handle and the primary's public point");
	tap_ok(hi_tpm2_resp_create_primary(cp, 12, &h, &pub, why, sizeof why) == -1, "CreatePrimary response cut: -1");
	cp[18 + 3] = 0;                   /* the type: neither ECC nor RSA */
	tap_ok(hi_tpm2_resp_create_primary(cp, cplen, &h, &pub, why, sizeof why) == -1, "CreatePrimary: a key of another type refused");
	tap_contains(why, "neither ECC nor RSA", "says so");
	const uint8_t err[] = { 0x80, 1, 0, 0, 0, 10, 0, 0, 0x09, 0x8b };
	tap_ok(hi_tpm2_resp_create_primary(err, sizeof err, &h, &pub, why, sizeof why) == 0x98b, "an error code comes back as is");
	const uint8_t ld[] = { 0x80, 2, 0, 0, 0, 0x16, 0, 0, 0, 0, 0x80, 0, 0, 1, 0, 0, 0, 4, 0, 2, 0, 0x0b };
	tap_ok(hi_tpm2_resp_load(ld, sizeof ld, &h, name, &nlen, why, sizeof why) == 0 && h == 0x80000001 && nlen == 2,
	       "Load response: handle and name");
	uint8_t ld2[sizeof ld];
	memcpy(ld2, ld, sizeof ld);
	ld2[19] = 0x60;            /* a name longer than the response */
	tap_ok(hi_tpm2_resp_load(ld2, sizeof ld2, &h, name, &nlen, why, sizeof why) == -1, "Load response: name past the end");
	const uint8_t ss[] = { 0x80, 1, 0, 0, 0, 0x12, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0xab, 0xcd };
	tap_ok(hi_tpm2_resp_start_session(ss, sizeof ss, &h, nonce, &nlen, why, sizeof why) == 0 && h == 0x03000000 &&
		       nlen == 2 && nonce[1] == 0xcd,
	       "StartAuthSession response: handle and nonceTPM");
	uint8_t big[2 + 200] = { 0, 200 };
	size_t slen = 0;
	tap_ok(hi_tpm2_unseal_params(big, sizeof big, secret, sizeof secret, &slen, why, sizeof why) == -1 && slen == 0,
	       "Unseal parameters: 200 bytes is more than a TPM2B_SENSITIVE_DATA, refused");
	uint8_t us[] = { 0, 2, 's', 'k' };
	tap_ok(hi_tpm2_unseal_params(us, sizeof us, secret, sizeof secret, &slen, why, sizeof why) == 0 && slen == 2 &&
		       secret[0] == 's',
	       "Unseal parameters: the secret");
}

static void test_hmac(void)
{
	uint8_t name[34], nc[32], nt[32], out[32];
	name[0] = 0;
	name[1] = 0x0b;
	memset(name + 2, 0x11, 32);
	memset(nc, 0x22, sizeof nc);
	memset(nt, 0x33, sizeof nt);
	/* An unsalted session (no session key): the HMAC is keyed by the
	 * PIN's authValue alone. */
	struct tpm2_session s = { .ntlen = sizeof nt };
	uint8_t cp[32];
	memcpy(s.nonce_caller, nc, sizeof nc);
	memcpy(s.nonce_tpm, nt, sizeof nt);
	hi_tpm2_pin_auth("1234", s.auth, &s.authlen);
	hi_tpm2_unseal_cphash(name, sizeof name, cp);
	hi_tpm2_session_cmd_hmac(&s, cp, 0, out);
	tpm_hex_is(out, 32, "d23c4aaa5de65175140008c9fa2e2cf385075471e38e80a3baf5ae387d828568",
	           "PIN HMAC: HMAC-SHA256(sha256(pin), cpHash || nonceCaller || nonceTPM || attributes), as Python's hmac");
}

/* A scripted TPM: answers by command code, records what was flushed. */
struct fake {
	int calls, nflushed;
	uint32_t flushed[4];
	bool dead, other_digest;
	int srk;                       /* ReadPublic: 0 the primary's public, 1 another key's, 2 no key there */
	uint32_t cc[16];               /* the command codes, in order */
	uint32_t load_parent, primary_attrs;
};


static int fake_xfer(void *ctx, const uint8_t *c, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		     size_t errlen)
{
	struct fake *f = ctx;
	uint32_t cc = (uint32_t)c[6] << 24 | (uint32_t)c[7] << 16 | (uint32_t)c[8] << 8 | c[9], code = 0;
	size_t n = 10;

	f->cc[f->calls & 15] = cc;
	f->calls++;
	if (f->dead && cc != 0x165) {
		snprintf(err, errlen, "no answer within 10 ms");
		return -1;
	}
	memset(resp, 0, cap);
	resp[0] = 0x80;
	resp[1] = c[1];
	if (cc == 0x131) {
		f->primary_attrs = tpm_get32(c + 10 + 4 + 4 + 9 + 2 + 4 + 2 + 2 + 2);
		n = tpm_create_primary_resp(resp, 0x80000000);
	} else if (cc == 0x173 && f->srk == 2) {     /* ReadPublic: TPM_RC_HANDLE, handle 1 */
		code = 0x18b;
	} else if (cc == 0x173) {
		uint8_t cp[200];
		tpm_create_primary_resp(cp, 0);
		memcpy(resp + 10, cp + 18, 92);
		if (f->srk == 1)
			resp[10 + 2 + 20] ^= 1;          /* a point of another key */
		resp[103] = 34;                      /* its name and qualifiedName: unchecked */
		resp[139] = 34;
		n = 10 + 92 + 36 + 36;
	} else if (cc == 0x157) {              /* Load */
		f->load_parent = tpm_get32(c + 10);
		n = tpm_load_resp(resp, 0x80000001);
	} else if (cc == 0x176) {               /* StartAuthSession */
		n = tpm_start_session_resp(resp, 0x03000000);
	} else if (cc == 0x189) {               /* PolicyGetDigest */
		n = tpm_policy_digest_resp(resp, f->other_digest ? 0xee : 0x5a);
	} else if (cc == 0x15e && f->other_digest) {   /* Unseal: TPM_RC_POLICY_FAIL, session 1 */
		code = 0x99d;
	} else if (cc == 0x165) {
		f->flushed[f->nflushed++ & 3] = tpm_get32(c + 10);
	}
	(void)len;
	*rlen = tpm_resp_finish(resp, n, code);
	return 0;
}

static void test_sequence(void)
{
	uint8_t blob[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3 }, policy[32], secret[TPM2_SECRET_MAX];
	memset(policy, 0x5a, sizeof policy);
	struct tpm2_unseal_req q = { .primary_alg = TPM_ALG_ECC, .pcr_bank = TPM_ALG_SHA256, .pcrs = 1u << 7,
				     .blob = blob, .blob_len = sizeof blob, .policy_hash = policy,
				     .policy_hash_len = sizeof policy };
	struct fake f = { .other_digest = true };
	size_t slen = 0;
	char err[256];

	int rc = hi_tpm2_unseal(fake_xfer, &f, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_POLICY_CHANGED, "a policy digest other than the token's: the Unseal refused, a changed PCR");
	tap_contains(err, "PCR 7 (sha256 bank) is not the one the key was sealed to", "the refusal names the PCR and bank");
	tap_ok(f.nflushed == 3 && f.flushed[0] == 0x03000000 && f.flushed[1] == 0x80000001 && f.flushed[2] == 0x80000000,
	       "session, object and primary flushed after the refusal");

	struct fake d = { .dead = true };
	rc = hi_tpm2_unseal(fake_xfer, &d, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_ERROR && d.nflushed == 0, "a TPM that does not answer: an error, nothing to flush");
	tap_contains(err, "CreatePrimary: no answer within 10 ms", "says which command got no answer");

	q.pubkey_pcrs = 1u << 11;
	struct fake s = { 0 };
	rc = hi_tpm2_unseal(fake_xfer, &s, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_ERROR && s.calls == 0, "a signed PCR policy whose tpm2_pubkey is no PEM key: refused before any command");
	tap_contains(err, "tpm2_pubkey: no \"-----BEGIN PUBLIC KEY-----\" line", "says the token's public key is not PEM");
}

static void test_srk_sequence(void)
{
	uint8_t blob[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3 }, policy[32], secret[TPM2_SECRET_MAX], ser[200];
	memset(policy, 0x5a, sizeof policy);
	struct tpm2_unseal_req q = { .primary_alg = TPM_ALG_ECC, .pcr_bank = TPM_ALG_SHA256, .pcrs = 1u << 7,
				     .blob = blob, .blob_len = sizeof blob, .policy_hash = policy,
				     .policy_hash_len = sizeof policy };
	size_t slen = 0;
	char err[256];

	q.srk = ser;
	q.srk_len = srk_of_fake(ser);
	struct fake a = { .other_digest = true };
	hi_tpm2_unseal(fake_xfer, &a, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(a.cc[0] == 0x173 && a.cc[1] == 0x157 && a.load_parent == TPM2_SRK_HANDLE,
	       "tpm2_srk: ReadPublic of 0x81000001, its name the token's: the Load under it, no CreatePrimary");
	tap_ok(a.nflushed == 2 && a.flushed[0] == 0x03000000 && a.flushed[1] == 0x80000001,
	       "the persistent SRK is not flushed; the session and object are");

	struct fake b = { .srk = 1 };
	int rc = hi_tpm2_unseal(fake_xfer, &b, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_ERROR && b.calls == 1 && b.cc[0] == 0x173,
	       "a key planted at 0x81000001 (another name): refused after ReadPublic, nothing loaded under it");
	tap_contains(err, "is not the token's tpm2_srk", "says the key there is not the token's SRK");

	struct fake c = { .srk = 2, .other_digest = true };
	hi_tpm2_unseal(fake_xfer, &c, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(c.cc[0] == 0x173 && c.cc[1] == 0x131 && c.primary_attrs == 0x00030472 && c.load_parent == 0x80000000,
	       "no key at 0x81000001: the SRK made again from systemd's noDA template (attributes 0x%08x), the Load under it",
	       c.primary_attrs);
	tap_ok(c.nflushed == 3 && c.flushed[2] == 0x80000000, "that primary is flushed after");

	ser[20] ^= 1;                                /* the token names another SRK */
	q.srk_len = srk_of_fake(ser) - 1;
	struct fake d = { 0 };
	rc = hi_tpm2_unseal(fake_xfer, &d, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_ERROR && d.calls == 0, "a tpm2_srk that does not parse: refused before any command");
}

int main(void)
{
	test_commands();
	test_blob();
	test_pin_salted();
	test_srk_parse();
	test_responses();
	test_hmac();
	test_sequence();
	test_srk_sequence();
	return tap_done();
}
