#include "tpm2_pcrsig.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "json.h"
#include "sha256.h"
#include "tpm.h"

/* ---- the public key: PEM, then DER ---------------------------------------- */

static const char pem_begin[] = "-----BEGIN PUBLIC KEY-----";
static const char pem_end[] = "-----END PUBLIC KEY-----";

/* rsaEncryption, 1.2.840.113549.1.1.1, as DER. */
static const uint8_t oid_rsa[] = { 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };

struct der {
	const uint8_t *p;
	size_t len, pos;
};

/* One DER element of the given tag: its content's span. 0 or -1. */
static int der_take(struct der *d, uint8_t tag, struct der *in)
{
	if (d->len - d->pos < 2 || d->p[d->pos] != tag)
		return -1;
	size_t n = d->p[d->pos + 1], at = d->pos + 2;
	if (n & 0x80) {
		unsigned k = n & 0x7f;
		if (k == 0 || k > 2 || d->len - at < k)
			return -1;
		n = 0;
		for (unsigned i = 0; i < k; i++)
			n = n << 8 | d->p[at++];
		if (n < 0x80 || (k == 2 && n < 0x100))
			return -1;       /* not the shortest form: not DER */
	}
	if (n > d->len - at)
		return -1;
	in->p = d->p + at;
	in->len = n;
	in->pos = 0;
	d->pos = at + n;
	return 0;
}

/* A positive INTEGER's magnitude (leading zero bytes dropped). */
static int der_uint(struct der *d, const uint8_t **v, size_t *vlen)
{
	struct der i;
	if (der_take(d, 0x02, &i) < 0 || i.len == 0 || (i.p[0] & 0x80))
		return -1;
	while (i.len > 1 && i.p[0] == 0) {
		i.p++;
		i.len--;
	}
	*v = i.p;
	*vlen = i.len;
	return 0;
}

int hi_tpm2_rsa_spki_parse(const uint8_t *der, size_t len, struct tpm2_rsa_pub *k, char *why, size_t whylen)
{
	struct der top = { der, len, 0 }, spki, alg, bits, rsa;
	const uint8_t *n, *e;
	size_t nlen, elen;

	if (der_take(&top, 0x30, &spki) < 0 || top.pos != len || der_take(&spki, 0x30, &alg) < 0 ||
	    der_take(&spki, 0x03, &bits) < 0 || spki.pos != spki.len) {
		snprintf(why, whylen, "tpm2_pubkey: not a DER SubjectPublicKeyInfo");
		return -1;
	}
	if (alg.len < sizeof oid_rsa || memcmp(alg.p, oid_rsa, sizeof oid_rsa) != 0) {
		snprintf(why, whylen, "tpm2_pubkey: not an RSA key (systemd 252 signs PCR policies with RSA only)");
		return -1;
	}
	/* The parameters: NULL, or absent. */
	if (!(alg.len == sizeof oid_rsa || (alg.len == sizeof oid_rsa + 2 && alg.p[sizeof oid_rsa] == 0x05 &&
					    alg.p[sizeof oid_rsa + 1] == 0))) {
		snprintf(why, whylen, "tpm2_pubkey: the RSA algorithm's parameters are not NULL");
		return -1;
	}
	bits.pos = 1;
	if (bits.len < 1 || bits.p[0] != 0 || der_take(&bits, 0x30, &rsa) < 0 || bits.pos != bits.len ||
	    der_uint(&rsa, &n, &nlen) < 0 || der_uint(&rsa, &e, &elen) < 0 || rsa.pos != rsa.len) {
		snprintf(why, whylen, "tpm2_pubkey: its RSAPublicKey is not two DER integers");
		return -1;
	}
	if (nlen < TPM2_RSA_MIN || nlen > TPM2_RSA_MAX) {
		snprintf(why, whylen, "tpm2_pubkey: an RSA modulus of %zu bits (1024 to 4096 are accepted)", nlen * 8);
		return -1;
	}
	if (elen != 3 || e[0] != 1 || e[1] != 0 || e[2] != 1) {
		/* systemd 252 copies the exponent's big-endian bytes into a
		 * little-endian uint32, which is right for 65537 alone. */
		snprintf(why, whylen, "tpm2_pubkey: an RSA exponent other than 65537 (systemd 252 loads no other)");
		return -1;
	}
	memcpy(k->n, n, nlen);
	k->nlen = nlen;
	k->e = 65537;
	/* systemd's pkfp (pubkey_fingerprint, i2d_PublicKey): the SHA-256
	 * of the PKCS#1 RSAPublicKey DER, the BIT STRING's content. */
	hi_sha256(bits.p + 1, bits.len - 1, k->fp);
	return 0;
}

int hi_tpm2_rsa_pub_parse(const uint8_t *pem, size_t len, struct tpm2_rsa_pub *k, char *why, size_t whylen)
{
	char b64[TPM2_SPKI_MAX / 3 * 4 + 4];
	uint8_t der[TPM2_SPKI_MAX];
	size_t at = 0, n = 0;

	memset(k, 0, sizeof *k);
	/* The BEGIN line, at the start of a line. */
	for (;;) {
		if (len - at < sizeof pem_begin - 1) {
			snprintf(why, whylen, "tpm2_pubkey: no \"%s\" line (a PEM public key is expected)", pem_begin);
			return -1;
		}
		if ((at == 0 || pem[at - 1] == '\n') && !memcmp(pem + at, pem_begin, sizeof pem_begin - 1))
			break;
		at++;
	}
	at += sizeof pem_begin - 1;
	for (; at < len && pem[at] != '-'; at++) {
		char ch = (char)pem[at];
		if (ch == '\n' || ch == '\r' || ch == ' ' || ch == '\t')
			continue;
		if (n >= sizeof b64) {
			snprintf(why, whylen, "tpm2_pubkey: the PEM key is longer than %d bytes of DER", TPM2_SPKI_MAX);
			return -1;
		}
		b64[n++] = ch;
	}
	if (len - at < sizeof pem_end - 1 || memcmp(pem + at, pem_end, sizeof pem_end - 1) != 0) {
		snprintf(why, whylen, "tpm2_pubkey: no \"%s\" line after the key", pem_end);
		return -1;
	}
	int dlen = hi_base64_decode(b64, n, der, sizeof der);
	if (dlen <= 0) {
		snprintf(why, whylen, "tpm2_pubkey: the PEM body is not base64");
		return -1;
	}
	return hi_tpm2_rsa_spki_parse(der, (size_t)dlen, k, why, whylen);
}

/* ---- the signature JSON ------------------------------------------------------ */

#define PS_STR_MAX 1024          /* base64 of an RSA-4096 signature is 684 */

/* A non-negative integer up to max. */
static int uint_(struct hi_json *c, unsigned max, unsigned *out)
{
	unsigned v = 0;
	size_t at = c->i;

	if (hi_json_peek(c) < '0' || hi_json_peek(c) > '9')
		return hi_json_fail(c, "expected a number");
	while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
		v = v * 10 + (unsigned)(c->s[c->i++] - '0');
		if (v > max || c->i - at > 3)
			return hi_json_fail(c, "a number over %u", max);
	}
	if (c->i - at > 1 && c->s[at] == '0')
		return hi_json_fail(c, "a number with a leading zero");
	*out = v;
	return 0;
}

/* One entry of the bank's array, as it is read. */
struct entry {
	uint32_t pcrs;
	bool has_pcrs, has_fp, has_pol, has_sig;
	uint8_t fp[64], pol[TPM_DIGEST_MAX];
	size_t fp_len, pol_len;
	char sig[PS_STR_MAX];
};

static int pcr_item(struct hi_json *c, const char *key, void *ctx)
{
	unsigned v = 0;
	if (uint_(c, 23, &v) < 0)
		return -1;
	*(uint32_t *)ctx |= 1u << v;
	return 0;
}

static int entry_key(struct hi_json *c, const char *key, void *ctx)
{
	struct entry *e = ctx;

	if (!strcmp(key, "pcrs")) {
		if (hi_json_peek(c) != '[')
			return hi_json_fail(c, "\"pcrs\" is not an array");
		e->pcrs = 0;
		e->has_pcrs = true;
		return hi_json_walk(c, '[', pcr_item, &e->pcrs);
	}
	if (!strcmp(key, "pkfp")) {
		e->has_fp = true;
		return hi_json_hex(c, e->fp, sizeof e->fp, &e->fp_len, key);
	}
	if (!strcmp(key, "pol")) {
		e->has_pol = true;
		return hi_json_hex(c, e->pol, sizeof e->pol, &e->pol_len, key);
	}
	if (!strcmp(key, "sig")) {
		e->has_sig = true;
		return hi_json_string(c, e->sig, sizeof e->sig);
	}
	return hi_json_skip(c);
}

struct search {
	const struct tpm2_pcrsig_want *w;
	uint8_t *sig;
	size_t cap, *siglen;
	bool bank_seen;
	int entries, pcrs_match, fp_match;
};

static int bank_item(struct hi_json *c, const char *key, void *ctx)
{
	struct search *s = ctx;
	static struct entry e;     /* 1 KiB: off PID 1's stack */

	memset(&e, 0, sizeof e);
	if (hi_json_peek(c) != '{')
		return hi_json_fail(c, "an entry of the \"%s\" array is not an object", hi_tpm_alg_name(s->w->bank));
	if (hi_json_walk(c, '{', entry_key, &e) < 0)
		return -1;
	s->entries++;
	/* As systemd 252's find_signature: the mask, the key, the policy. */
	if (!e.has_pcrs || e.pcrs != s->w->pcrs)
		return 0;
	s->pcrs_match++;
	if (!e.has_fp || e.fp_len != 32 || memcmp(e.fp, s->w->fp, 32) != 0)
		return 0;
	s->fp_match++;
	if (!e.has_pol || e.pol_len != s->w->pol_len || memcmp(e.pol, s->w->pol, e.pol_len) != 0 || !e.has_sig)
		return 0;
	int n = hi_base64_decode(e.sig, strlen(e.sig), s->sig, s->cap);
	if (n <= 0)
		return hi_json_fail(c, "the matching entry's \"sig\" is not base64 of at most %zu bytes", s->cap);
	*s->siglen = (size_t)n;
	return 1;
}

static int top_key(struct hi_json *c, const char *key, void *ctx)
{
	struct search *s = ctx;

	if (s->bank_seen || strcmp(key, hi_tpm_alg_name(s->w->bank)) != 0)
		return hi_json_skip(c);
	s->bank_seen = true;
	if (hi_json_peek(c) != '[')
		return hi_json_fail(c, "\"%s\" is not an array", key);
	return hi_json_walk(c, '[', bank_item, s);
}

static void pcr_list(uint32_t pcrs, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < 24 && n < cap; i++)
		if (pcrs & 1u << i)
			n += (size_t)snprintf(out + n, cap - n, "%s%u", n ? "+" : "", i);
}

int hi_tpm2_pcrsig_find(const char *json, size_t len, const struct tpm2_pcrsig_want *w, uint8_t *sig, size_t cap,
			size_t *siglen, char *why, size_t whylen)
{
	struct hi_json c = { .s = json, .n = len, .err = why, .errlen = whylen, .depth_max = TPM2_PCRSIG_DEPTH_MAX,
			     .prefix = "tpm2-pcr-signature.json" };
	struct search s = { w, sig, cap, siglen, false, 0, 0, 0 };
	char pcrs[80];

	*siglen = 0;
	why[0] = '\0';
	if (len > TPM2_PCRSIG_JSON_MAX) {
		snprintf(why, whylen, "tpm2-pcr-signature.json: larger than %d bytes", TPM2_PCRSIG_JSON_MAX);
		return TPM2_PCRSIG_BAD;
	}
	if (hi_json_peek(&c) != '{') {
		hi_json_fail(&c, "not a JSON object");
		return TPM2_PCRSIG_BAD;
	}
	int r = hi_json_walk(&c, '{', top_key, &s);
	if (r < 0)
		return TPM2_PCRSIG_BAD;
	if (r == 1)
		return TPM2_PCRSIG_FOUND;
	if (hi_json_peek(&c) != -1) {
		hi_json_fail(&c, "text after the object");
		return TPM2_PCRSIG_BAD;
	}
	pcr_list(w->pcrs, pcrs, sizeof pcrs);
	const char *bank = hi_tpm_alg_name(w->bank);
	if (!s.bank_seen)
		snprintf(why, whylen, "tpm2-pcr-signature.json has no \"%s\" bank (the token's)", bank);
	else if (!s.pcrs_match)
		snprintf(why, whylen, "tpm2-pcr-signature.json has no %s signature for PCR%s %s (%d entries)", bank,
			 w->pcrs & (w->pcrs - 1) ? "s" : "", pcrs, s.entries);
	else if (!s.fp_match)
		snprintf(why, whylen, "tpm2-pcr-signature.json has no %s signature for PCR %s by the token's public key "
			 "(signed with another key)", bank, pcrs);
	else
		snprintf(why, whylen, "tpm2-pcr-signature.json signs no %s policy for PCR %s as it is now: the PCR "
			 "is not what the UKI was signed for (a changed kernel, command line or initrd)", bank, pcrs);
	return TPM2_PCRSIG_NONE;
}
