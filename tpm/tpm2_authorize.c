#include "tpm2_authorize.h"

#include <stdio.h>
#include <string.h>

#include "sha256.h"
#include "tpm_wire.h"

#define TPM_CC_LOAD_EXTERNAL     0x00000167
#define TPM_CC_POLICY_AUTHORIZE  0x0000016A
#define TPM_CC_VERIFY_SIGNATURE  0x00000177
#define TPM_ALG_RSASSA           0x0014
#define TPM_ALG_NULL             0x0010
#define TPM_RH_OWNER             0x40000001u
#define TPM_ST_VERIFIED          0x8022

/* TPMA_OBJECT of systemd 252's openssl_pubkey_to_tpm2_pubkey:
 * userWithAuth, decrypt, sign. The name, and so the sealed policy,
 * depends on every bit. */
#define PUBKEY_ATTRS (1u << 6 | 1u << 17 | 1u << 18)

static void public_area(struct buf *b, const struct tpm2_rsa_pub *k)
{
	put(b, TPM_ALG_RSA, 2);
	put(b, TPM_ALG_SHA256, 2);       /* nameAlg */
	put(b, PUBKEY_ATTRS, 4);
	put(b, 0, 2);                    /* authPolicy: empty */
	put(b, TPM_ALG_NULL, 2);         /* symmetric */
	put(b, TPM_ALG_NULL, 2);         /* scheme */
	put(b, k->nlen * 8, 2);          /* keyBits */
	put(b, k->e, 4);                 /* 65537 written out, not 0: as systemd */
	put(b, k->nlen, 2);
	put_bytes(b, k->n, k->nlen);
}

long hi_tpm2_rsa_public_area(uint8_t *out, size_t cap, const struct tpm2_rsa_pub *k)
{
	struct buf b = { out, 0, cap, false };

	if (k->nlen < TPM2_RSA_MIN || k->nlen > TPM2_RSA_MAX)
		return -1;
	public_area(&b, k);
	return b.bad ? -1 : (long)b.len;
}

int hi_tpm2_rsa_name(const struct tpm2_rsa_pub *k, uint8_t name[34])
{
	uint8_t area[TPM2_RSA_MAX + 64];
	long n = hi_tpm2_rsa_public_area(area, sizeof area, k);

	if (n < 0)
		return -1;
	name[0] = TPM_ALG_SHA256 >> 8;
	name[1] = TPM_ALG_SHA256 & 0xff;
	hi_sha256(area, (size_t)n, name + 2);
	return 0;
}

long hi_tpm2_cmd_load_external(uint8_t *out, size_t cap, const struct tpm2_rsa_pub *k)
{
	struct buf b = { out, 0, cap, false };

	if (k->nlen < TPM2_RSA_MIN || k->nlen > TPM2_RSA_MAX)
		return -1;
	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_LOAD_EXTERNAL);
	put(&b, 0, 2);                   /* inPrivate: none, a public key only */
	size_t at = b.len;
	put(&b, 0, 2);                   /* inPublic's size, below */
	public_area(&b, k);
	if (!b.bad) {
		size_t n = b.len - at - 2;
		b.p[at] = (uint8_t)(n >> 8);
		b.p[at + 1] = (uint8_t)n;
	}
	/* The owner hierarchy: VerifySignature gives a real ticket there,
	 * where the null hierarchy's is one PolicyAuthorize refuses. */
	put(&b, TPM_RH_OWNER, 4);
	return finish(&b);
}

long hi_tpm2_cmd_verify_signature(uint8_t *out, size_t cap, uint32_t key, const uint8_t digest[32], const uint8_t *sig,
				  size_t siglen)
{
	struct buf b = { out, 0, cap, false };

	if (siglen == 0 || siglen > TPM2_RSA_MAX)
		return -1;
	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_VERIFY_SIGNATURE);
	put(&b, key, 4);
	put(&b, 32, 2);
	put_bytes(&b, digest, 32);
	put(&b, TPM_ALG_RSASSA, 2);      /* TPMT_SIGNATURE: RSA PKCS#1 v1.5 */
	put(&b, TPM_ALG_SHA256, 2);
	put(&b, siglen, 2);
	put_bytes(&b, sig, siglen);
	return finish(&b);
}

long hi_tpm2_cmd_policy_authorize(uint8_t *out, size_t cap, uint32_t session, const uint8_t *approved, size_t alen,
				  const uint8_t *name, size_t namelen, const struct tpm2_ticket *t)
{
	struct buf b = { out, 0, cap, false };

	if (alen > TPM_DIGEST_MAX || namelen > 2 + TPM_DIGEST_MAX || t->len > TPM2_TICKET_DIGEST_MAX)
		return -1;
	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_POLICY_AUTHORIZE);
	put(&b, session, 4);
	put(&b, alen, 2);
	put_bytes(&b, approved, alen);
	put(&b, 0, 2);                   /* policyRef: empty, as systemd */
	put(&b, namelen, 2);
	put_bytes(&b, name, namelen);
	put(&b, t->tag, 2);
	put(&b, t->hierarchy, 4);
	put(&b, t->len, 2);
	put_bytes(&b, t->digest, t->len);
	return finish(&b);
}

static long cut(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "the %s response is cut short or its sizes do not add up", what);
	return -1;
}

/* After the header: a response with sessions has parameterSize, checked
 * against what is left (these commands are sent without sessions). */
static int params(struct reader *r, const uint8_t *in)
{
	if ((in[0] << 8 | in[1]) != TPM_ST_SESSIONS)
		return 0;
	uint32_t n = (uint32_t)get(r, 4);
	return r->bad || n > r->len - r->pos ? -1 : 0;
}

long hi_tpm2_resp_load_external(const uint8_t *in, size_t len, uint32_t *handle, uint8_t *name, size_t namecap,
				size_t *namelen, char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	*handle = (uint32_t)get(&r, 4);
	if (r.bad || params(&r, in) < 0)
		return cut(why, whylen, "LoadExternal");
	size_t n = (size_t)get(&r, 2);
	if (r.bad || n < 2 || n > namecap || n > r.len - r.pos)
		return cut(why, whylen, "LoadExternal");
	memcpy(name, in + r.pos, n);
	*namelen = n;
	return 0;
}

long hi_tpm2_resp_verify_signature(const uint8_t *in, size_t len, struct tpm2_ticket *t, char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	if (params(&r, in) < 0)
		return cut(why, whylen, "VerifySignature");
	t->tag = (uint16_t)get(&r, 2);
	t->hierarchy = (uint32_t)get(&r, 4);
	t->len = (size_t)get(&r, 2);
	if (r.bad || t->len > TPM2_TICKET_DIGEST_MAX || t->len > r.len - r.pos)
		return cut(why, whylen, "VerifySignature");
	memcpy(t->digest, in + r.pos, t->len);
	if (t->tag != TPM_ST_VERIFIED) {
		snprintf(why, whylen, "VerifySignature returned a ticket of tag 0x%04x, not TPM_ST_VERIFIED", t->tag);
		return -1;
	}
	return 0;
}
