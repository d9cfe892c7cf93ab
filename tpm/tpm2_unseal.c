#include "tpm2_unseal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base64.h"
#include "pbkdf2.h"
#include "sha256.h"
#include "tpm2_authorize.h"
#include "tpm2_pcrsig.h"
#include "tpm2_session.h"
#include "tpm_wire.h"
#include "worker.h"

#define TPM_CC_CREATE_PRIMARY     0x00000131
#define TPM_CC_LOAD               0x00000157
#define TPM_CC_UNSEAL             0x0000015E
#define TPM_CC_FLUSH_CONTEXT      0x00000165
#define TPM_CC_POLICY_AUTH_VALUE  0x0000016B
#define TPM_CC_START_AUTH_SESSION 0x00000176
#define TPM_CC_POLICY_PCR         0x0000017F
#define TPM_CC_POLICY_GET_DIGEST  0x00000189
#define TPM_CC_READ_PUBLIC        0x00000173
#define TPM_SE_POLICY             0x01
#define TPM_ALG_AES               0x0006
#define TPM_ALG_NULL              0x0010
#define TPM_ALG_CFB               0x0043
#define TPM_ECC_NIST_P256         0x0003
#define TPM_RC_POLICY_FAIL        0x09D    /* format one, without its number (0x99d: session 1's) */
#define TPM_RC_AUTH_FAIL          0x08E
#define TPM_RC_BAD_AUTH           0x0A2
#define TPM_RC_VALUE              0x084
#define TPM_RC_HANDLE             0x08B
#define TPM_RC_SIGNATURE          0x09B

/* TPMA_OBJECT of systemd's primary (tpm2-util.c, tpm2_make_primary):
 * fixedTPM, fixedParent, sensitiveDataOrigin, userWithAuth, restricted,
 * decrypt: a storage key. */
#define SRK_ATTRS (1u << 1 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 16 | 1u << 17)
/* systemd 255's SRK (tpm2_get_srk_template, after TCG's provisioning
 * guidance): the same with noDA, so its use never counts against the
 * dictionary-attack lockout. */
#define SRK_NODA  (1u << 10)
#define IESYS_KEY_RSRC 1u                /* tpm2-tss's resource type of a key */

/* ---- the blob ------------------------------------------------------------ */

int hi_tpm2_blob_split(const uint8_t *blob, size_t len, struct tpm2_sealed *s, char *why, size_t whylen)
{
	struct reader r = { blob, len, 0, false };

	size_t priv = (size_t)get(&r, 2);
	if (!r.bad && (priv == 0 || priv > len - r.pos)) {
		snprintf(why, whylen, "tpm2-blob: its TPM2B_PRIVATE of %zu bytes is empty or runs past the blob", priv);
		return -1;
	}
	r.pos += priv;
	size_t pub = (size_t)get(&r, 2);
	if (r.bad || pub == 0 || pub > len - r.pos) {
		snprintf(why, whylen, "tpm2-blob: no TPM2B_PUBLIC after its TPM2B_PRIVATE");
		return -1;
	}
	size_t rest = len - r.pos - pub;
	const uint8_t *tail = blob + r.pos + pub;
	if (rest && !(rest == 2 && !tail[0] && !tail[1])) {
		/* systemd 255's third part: the seed of an object sealed
		 * offline (--tpm2-device-key=), to be imported first; an
		 * empty one is no seed. */
		snprintf(why, whylen, "tpm2-blob: %zu bytes after its TPM2B_PUBLIC (the import seed of a key sealed "
			 "offline, which this reader does not import)", rest);
		return -1;
	}
	s->priv = blob;
	s->priv_len = 2 + priv;
	s->pub = blob + 2 + priv;
	s->pub_len = 2 + pub;
	return 0;
}

/* ---- commands ------------------------------------------------------------- */

/* systemd 252's template: ECC NIST P-256 or RSA 2048, SHA-256 names,
 * AES-128-CFB for its children, no scheme, empty unique and authPolicy. */
static void srk_template(struct buf *b, uint16_t alg, uint32_t attrs)
{
	size_t at = b->len;

	put(b, 0, 2);                    /* TPM2B_PUBLIC size, below */
	put(b, alg, 2);
	put(b, TPM_ALG_SHA256, 2);
	put(b, attrs, 4);
	put(b, 0, 2);                    /* authPolicy */
	put(b, TPM_ALG_AES, 2);
	put(b, 128, 2);
	put(b, TPM_ALG_CFB, 2);
	put(b, TPM_ALG_NULL, 2);         /* scheme */
	if (alg == TPM_ALG_ECC) {
		put(b, TPM_ECC_NIST_P256, 2);
		put(b, TPM_ALG_NULL, 2); /* kdf */
		put(b, 0, 2);            /* unique.x */
		put(b, 0, 2);            /* unique.y */
	} else {
		put(b, 2048, 2);
		put(b, 0, 4);            /* exponent: the default 65537 */
		put(b, 0, 2);            /* unique.n */
	}
	if (!b->bad) {
		size_t n = b->len - at - 2;
		b->p[at] = (uint8_t)(n >> 8);
		b->p[at + 1] = (uint8_t)n;
	}
}

static long create_primary(uint8_t *out, size_t cap, uint16_t alg, uint32_t attrs)
{
	struct buf b = { out, 0, cap, false };

	if (alg != TPM_ALG_ECC && alg != TPM_ALG_RSA)
		return -1;
	header(&b, TPM_ST_SESSIONS, TPM_CC_CREATE_PRIMARY);
	put(&b, TPM_RH_OWNER, 4);
	password_session(&b);
	put(&b, 4, 2);                   /* TPM2B_SENSITIVE_CREATE: */
	put(&b, 0, 2);                   /* empty userAuth */
	put(&b, 0, 2);                   /* and data */
	srk_template(&b, alg, attrs);
	put(&b, 0, 2);                   /* outsideInfo */
	put(&b, 0, 4);                   /* creationPCR: none */
	return finish(&b);
}

long hi_tpm2_cmd_create_primary(uint8_t *out, size_t cap, uint16_t alg)
{
	return create_primary(out, cap, alg, SRK_ATTRS);
}

long hi_tpm2_cmd_create_srk(uint8_t *out, size_t cap, uint16_t alg)
{
	return create_primary(out, cap, alg, SRK_ATTRS | SRK_NODA);
}

long hi_tpm2_cmd_load(uint8_t *out, size_t cap, uint32_t parent, const struct tpm2_sealed *s)
{
	struct buf b = { out, 0, cap, false };

	header(&b, TPM_ST_SESSIONS, TPM_CC_LOAD);
	put(&b, parent, 4);
	password_session(&b);
	put_bytes(&b, s->priv, s->priv_len);
	put_bytes(&b, s->pub, s->pub_len);
	return finish(&b);
}

long hi_tpm2_cmd_start_policy_session(uint8_t *out, size_t cap, uint32_t tpm_key, const uint8_t nonce[TPM2_NONCE_BYTES],
				   const uint8_t *salt, size_t salt_len)
{
	struct buf b = { out, 0, cap, false };

	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_START_AUTH_SESSION);
	put(&b, salt ? tpm_key : TPM_RH_NULL, 4);   /* tpmKey: the salt's decrypter */
	put(&b, TPM_RH_NULL, 4);         /* bind: not bound */
	put(&b, TPM2_NONCE_BYTES, 2);
	put_bytes(&b, nonce, TPM2_NONCE_BYTES);
	put(&b, salt ? salt_len : 0, 2); /* encryptedSalt */
	if (salt)
		put_bytes(&b, salt, salt_len);
	put(&b, TPM_SE_POLICY, 1);
	if (salt) {                      /* symmetric: AES-128-CFB parameter encryption */
		put(&b, TPM_ALG_AES, 2);
		put(&b, 128, 2);
		put(&b, TPM_ALG_CFB, 2);
	} else {
		put(&b, TPM_ALG_NULL, 2);
	}
	put(&b, TPM_ALG_SHA256, 2);      /* authHash */
	return finish(&b);
}

long hi_tpm2_cmd_policy_pcr(uint8_t *out, size_t cap, uint32_t session, uint16_t bank, uint32_t pcrs)
{
	struct buf b = { out, 0, cap, false };

	if (pcrs >> TPM2_PCRS)
		return -1;
	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_POLICY_PCR);
	put(&b, session, 4);
	put(&b, 0, 2);                   /* pcrDigest: the TPM takes its PCRs' */
	put(&b, 1, 4);                   /* TPML_PCR_SELECTION: one bank */
	put(&b, bank, 2);
	put(&b, 3, 1);                   /* sizeofSelect: 24 PCRs, as systemd */
	put(&b, pcrs & 0xff, 1);
	put(&b, pcrs >> 8 & 0xff, 1);
	put(&b, pcrs >> 16 & 0xff, 1);
	return finish(&b);
}

static long session_only(uint8_t *out, size_t cap, uint32_t cc, uint32_t handle)
{
	struct buf b = { out, 0, cap, false };

	header(&b, TPM_ST_NO_SESSIONS, cc);
	put(&b, handle, 4);
	return finish(&b);
}

long hi_tpm2_cmd_policy_auth_value(uint8_t *out, size_t cap, uint32_t session)
{
	return session_only(out, cap, TPM_CC_POLICY_AUTH_VALUE, session);
}

long hi_tpm2_cmd_policy_get_digest(uint8_t *out, size_t cap, uint32_t session)
{
	return session_only(out, cap, TPM_CC_POLICY_GET_DIGEST, session);
}

long hi_tpm2_cmd_read_public(uint8_t *out, size_t cap, uint32_t handle)
{
	return session_only(out, cap, TPM_CC_READ_PUBLIC, handle);
}

/* FlushContext's handle is a parameter, not a handle: the same bytes. */
long hi_tpm2_cmd_flush(uint8_t *out, size_t cap, uint32_t handle)
{
	return session_only(out, cap, TPM_CC_FLUSH_CONTEXT, handle);
}

long hi_tpm2_cmd_unseal(uint8_t *out, size_t cap, uint32_t item, uint32_t session, const uint8_t *nonce, size_t nlen,
		     uint8_t attrs, const uint8_t *hmac)
{
	struct buf b = { out, 0, cap, false };

	if (nlen > TPM_DIGEST_MAX)
		return -1;
	header(&b, TPM_ST_SESSIONS, TPM_CC_UNSEAL);
	put(&b, item, 4);
	put(&b, 4 + 2 + nlen + 1 + 2 + (hmac ? 32 : 0), 4);
	put(&b, session, 4);
	put(&b, nlen, 2);
	put_bytes(&b, nonce, nlen);
	put(&b, attrs, 1);               /* no continueSession: it ends with the command */
	put(&b, hmac ? 32 : 0, 2);
	if (hmac)
		put_bytes(&b, hmac, 32);
	return finish(&b);
}

/* ---- responses ------------------------------------------------------------ */

/* A TPM2B of at most max bytes into out (NULL: skipped). */
static size_t get2b(struct reader *r, uint8_t *out, size_t max)
{
	size_t n = (size_t)get(r, 2);
	if (r->bad || n > max || n > r->len - r->pos) {
		r->bad = true;
		return 0;
	}
	if (out)
		memcpy(out, r->p + r->pos, n);
	r->pos += n;
	return n;
}

/* After the header: parameterSize when the response has sessions, checked
 * against what is left. */
static bool param_size(struct reader *r, const uint8_t *in)
{
	if ((in[0] << 8 | in[1]) != TPM_ST_SESSIONS)
		return true;
	uint32_t n = (uint32_t)get(r, 4);
	return !r->bad && n <= r->len - r->pos;
}

static long cut(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "the %s response is cut short or its sizes do not add up", what);
	return -1;
}

long hi_tpm2_resp_create_primary(const uint8_t *in, size_t len, uint32_t *handle, struct tpm2_primary_pub *pub,
			      char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	*handle = (uint32_t)get(&r, 4);
	if (r.bad || !param_size(&r, in))
		return cut(why, whylen, "CreatePrimary");
	size_t at = r.pos, n = get2b(&r, NULL, TPM_CMD_MAX);      /* outPublic */
	if (r.bad)
		return cut(why, whylen, "CreatePrimary");
	char what[120];
	if (hi_tpm2_primary_pub_parse(in + at, 2 + n, pub, what, sizeof what) < 0) {
		snprintf(why, whylen, "CreatePrimary: %s", what);
		return -1;
	}
	return 0;
}

long hi_tpm2_resp_load(const uint8_t *in, size_t len, uint32_t *handle, uint8_t name[TPM2_NAME_MAX], size_t *namelen,
		    char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	*handle = (uint32_t)get(&r, 4);
	if (r.bad || !param_size(&r, in))
		return cut(why, whylen, "Load");
	*namelen = get2b(&r, name, TPM2_NAME_MAX);
	if (r.bad || *namelen < 2)
		return cut(why, whylen, "Load");
	return 0;
}

long hi_tpm2_resp_start_session(const uint8_t *in, size_t len, uint32_t *handle, uint8_t nonce[TPM_DIGEST_MAX],
			     size_t *nlen, char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	*handle = (uint32_t)get(&r, 4);
	if (r.bad || !param_size(&r, in))
		return cut(why, whylen, "StartAuthSession");
	*nlen = get2b(&r, nonce, TPM_DIGEST_MAX);
	if (r.bad)
		return cut(why, whylen, "StartAuthSession");
	return 0;
}

long hi_tpm2_resp_policy_digest(const uint8_t *in, size_t len, uint8_t digest[TPM_DIGEST_MAX], size_t *dlen, char *why,
			     size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	if (!param_size(&r, in))
		return cut(why, whylen, "PolicyGetDigest");
	*dlen = get2b(&r, digest, TPM_DIGEST_MAX);
	if (r.bad)
		return cut(why, whylen, "PolicyGetDigest");
	return 0;
}

long hi_tpm2_resp_read_public(const uint8_t *in, size_t len, const uint8_t **pub, size_t *publen, char *why,
			      size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	if (rc != 0)
		return rc;
	if (!param_size(&r, in))
		return cut(why, whylen, "ReadPublic");
	size_t at = r.pos, n = get2b(&r, NULL, TPM_CMD_MAX);
	if (r.bad || n == 0)
		return cut(why, whylen, "ReadPublic");
	*pub = in + at;
	*publen = 2 + n;
	return 0;
}

int hi_tpm2_public_name(const uint8_t *pub, size_t len, uint8_t name[TPM2_NAME_MAX], size_t *namelen)
{
	/* TPM2B_PUBLIC: its size, then type and nameAlg. */
	if (len < 6 || (size_t)(pub[0] << 8 | pub[1]) != len - 2 || (pub[4] << 8 | pub[5]) != TPM_ALG_SHA256)
		return -1;
	name[0] = TPM_ALG_SHA256 >> 8;
	name[1] = TPM_ALG_SHA256 & 0xff;
	hi_sha256(pub + 2, len - 2, name + 2);
	*namelen = 2 + 32;
	return 0;
}

int hi_tpm2_srk_parse(const uint8_t *ser, size_t len, struct tpm2_srk *k, char *why, size_t whylen)
{
	struct reader r = { ser, len, 0, false };
	uint8_t name[TPM2_NAME_MAX];
	size_t namelen;

	uint32_t handle = (uint32_t)get(&r, 4);
	k->namelen = get2b(&r, k->name, sizeof k->name);
	uint32_t type = (uint32_t)get(&r, 4);
	size_t at = r.pos, n = get2b(&r, NULL, TPM_CMD_MAX);
	if (r.bad || r.pos != len || n < 4) {
		snprintf(why, whylen, "tpm2_srk: not a serialized key (handle, name, type, public area) of %zu bytes", len);
		return -1;
	}
	if (handle != TPM2_SRK_HANDLE || type != IESYS_KEY_RSRC) {
		snprintf(why, whylen, "tpm2_srk: handle 0x%08x, type %u: not the key at the SRK's handle 0x%08x",
			 (unsigned)handle, (unsigned)type, (unsigned)TPM2_SRK_HANDLE);
		return -1;
	}
	if (hi_tpm2_public_name(ser + at, 2 + n, name, &namelen) < 0 || namelen != k->namelen ||
	    memcmp(name, k->name, namelen) != 0) {
		snprintf(why, whylen, "tpm2_srk: its name is not the SHA-256 of its public area");
		return -1;
	}
	k->alg = (uint16_t)(ser[at + 2] << 8 | ser[at + 3]);
	if (k->alg != TPM_ALG_ECC && k->alg != TPM_ALG_RSA) {
		snprintf(why, whylen, "tpm2_srk: a key of type 0x%04x, neither ECC nor RSA", k->alg);
		return -1;
	}
	return 0;
}

int hi_tpm2_unseal_params(const uint8_t *params, size_t plen, uint8_t *secret, size_t cap, size_t *slen, char *why,
		       size_t whylen)
{
	struct reader r = { params, plen, 0, false };

	*slen = 0;
	size_t n = get2b(&r, NULL, cap < TPM2_SECRET_MAX ? cap : TPM2_SECRET_MAX);
	if (r.bad || n == 0) {
		cut(why, whylen, "Unseal");
		return -1;
	}
	memcpy(secret, params + r.pos - n, n);
	*slen = n;
	return 0;
}

/* ---- the authorization --------------------------------------------------- */

void hi_tpm2_unseal_cphash(const uint8_t *name, size_t namelen, uint8_t out[32])
{
	uint8_t cc[4] = { 0, 0, TPM_CC_UNSEAL >> 8 & 0xff, TPM_CC_UNSEAL & 0xff };
	struct sha256 s;

	/* The command code, the item's name; Unseal has no parameters. */
	hi_sha256_init(&s);
	hi_sha256_update(&s, cc, sizeof cc);
	hi_sha256_update(&s, name, namelen);
	hi_sha256_final(&s, out);
}

void hi_tpm2_pin_auth(const char *pin, uint8_t out[32], size_t *len)
{
	/* systemd 252 sets the object's authValue to the PIN's SHA-256; the
	 * TPM drops an authValue's trailing zero bytes. */
	hi_sha256(pin, strlen(pin), out);
	*len = 32;
	while (*len && out[*len - 1] == 0)
		(*len)--;
}

int hi_tpm2_pin_salted(const char *pin, const uint8_t *salt, size_t saltlen, char out[TPM2_PIN_SALTED_LEN + 1])
{
	uint8_t dk[32];

	out[0] = '\0';
	if (!pin[0] || !saltlen ||
	    hi_pbkdf2("sha256", (const uint8_t *)pin, strlen(pin), salt, saltlen, TPM2_PIN_ITERATIONS, dk, sizeof dk) < 0)
		return -1;
	int n = hi_base64_encode(dk, sizeof dk, out, TPM2_PIN_SALTED_LEN + 1);
	explicit_bzero(dk, sizeof dk);
	return n == TPM2_PIN_SALTED_LEN ? 0 : -1;
}

/* ---- the sequence --------------------------------------------------------- */

struct run {
	tpm_xfer_fn xfer;
	void *ctx;
	uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
	size_t rlen;
	char *err;
	size_t errlen;
	uint32_t external;          /* the signing key LoadExternal loaded */
};

int hi_tpm2_send(tpm_xfer_fn xfer, void *ctx, const uint8_t *cmd, long len, uint8_t *resp, size_t cap, size_t *rlen,
		 long *code, char *why, size_t whylen)
{
	if (len < 0) {
		snprintf(why, whylen, "the command does not fit in %d bytes", TPM_CMD_MAX);
		return -1;
	}
	for (int t = 0; t < TPM_ASK_AGAIN_MAX; t++) {
		if (xfer(ctx, cmd, (size_t)len, resp, cap, rlen, why, whylen) < 0)
			return -1;
		*code = hi_tpm_resp_code(resp, *rlen, why, whylen);
		if (!hi_tpm_rc_asks_again(*code))
			break;
	}
	return 0;
}

/* One command; 0 with the response in r->resp (its code for the caller's
 * decoder), -1 with err. */
static int tpm_send(struct run *r, long len, const char *what)
{
	char why[160];
	long code;

	if (hi_tpm2_send(r->xfer, r->ctx, r->cmd, len, r->resp, sizeof r->resp, &r->rlen, &code, why, sizeof why) < 0) {
		snprintf(r->err, r->errlen, "%s: %s", what, why);
		return -1;
	}
	return 0;
}

static int failed(struct run *r, long rc, const char *what, const char *why)
{
	char text[120];
	if (rc < 0) {
		snprintf(r->err, r->errlen, "%s: %s", what, why);
		return -1;
	}
	hi_tpm_rc_text((uint32_t)rc, text, sizeof text);
	snprintf(r->err, r->errlen, "%s: %s", what, text);
	return -1;
}

static void flush(struct run *r, uint32_t handle)
{
	if (handle)
		tpm_send(r, hi_tpm2_cmd_flush(r->cmd, sizeof r->cmd, handle), "FlushContext");
}

static void pcr_list(uint32_t pcrs, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < TPM2_PCRS && n < cap; i++)
		if (pcrs & 1u << i)
			n += (size_t)snprintf(out + n, cap - n, "%s%u", n ? "+" : "", i);
}

static int nonce_new(uint8_t *out, size_t n)
{
	/* GRND_INSECURE (Linux 5.6): a nonce needs freshness, not secrecy,
	 * and must not wait for the pool early in the boot. */
	if (getrandom(out, n, 0x0004) == (ssize_t)n)
		return 0;
	return getrandom(out, n, GRND_NONBLOCK) == (ssize_t)n ? 0 : -1;
}

/* The seed of the salt's ephemeral key: secret, so from the initialized
 * pool. If it is not yet, the call waits for it; since Linux 5.4 a
 * waiting getrandom() seeds the pool from CPU timing jitter itself, so
 * the wait is the kernel's and short (about a second). */
static int seed_new(uint8_t *out, size_t n)
{
	ssize_t got = getrandom(out, n, GRND_NONBLOCK);
	if (got != (ssize_t)n)
		got = getrandom(out, n, 0);
	return got == (ssize_t)n ? 0 : -1;
}

/* The salt of the session (hi_tpm2_salt_make: an ephemeral P-256 key
 * and ECDH, or RSA-OAEP), made on a thread while the main one waits for
 * the Load: about 10 ms of guest instructions under TCG that would
 * otherwise run between two TPM commands while the TPM idles, and the
 * Load is the longest wait of the unseal (a TPM built on the reference
 * code answers the first authorization of a DA-protected key after
 * Startup, the SRK's in Load, with TPM_RC_RETRY once it has noted that in
 * NV, and the kernel sleeps 20 ms before it sends the command again).
 * The thread only computes (bounded, no I/O, no wait): the seed is drawn
 * here first, on the caller's thread, as it may wait for the kernel's
 * pool. The salt stays in this static job, wiped after the session key is
 * made from it, on every path. */
/* The salt (an ECDH or RSA-OAEP to the primary: milliseconds) made on a
 * thread while the TPM loads the sealed object. The job is the thread's
 * own copy of what it reads and writes, so a late one, abandoned, never
 * writes into the unseal's memory; it wipes and frees the job itself. */
#define TPM2_SALT_JOIN_MS 5000
struct salt_job {
	struct hi_worker worker;
	struct tpm2_primary_pub pub;
	uint8_t seed[32];
	struct tpm2_salt salt;
	char why[160];
	int rc;
};

static void salt_free(void *arg)
{
	explicit_bzero(arg, sizeof(struct salt_job));
	free(arg);
}

static void salt_run(void *arg)
{
	struct salt_job *j = arg;

	j->rc = hi_tpm2_salt_make(&j->pub, j->seed, &j->salt, j->why, sizeof j->why);
	explicit_bzero(j->seed, sizeof j->seed);
}

/* The salt under way (on a thread, or made here if no thread could be
 * started), or NULL with why: no memory, or no random seed. */
static struct salt_job *salt_begin(const struct tpm2_primary_pub *pub, char *why, size_t whylen)
{
	struct salt_job *j = calloc(1, sizeof *j);

	if (!j) {
		snprintf(why, whylen, "no memory for the salt");
		return NULL;
	}
	j->pub = *pub;
	j->rc = -1;
	if (seed_new(j->seed, sizeof j->seed) < 0) {
		snprintf(why, whylen, "no random salt from the kernel");
		salt_free(j);
		return NULL;
	}
	if (hi_worker_start(&j->worker, salt_run, j, 0, salt_free) != 0)
		salt_run(j);
	return j;
}

/* The salt into out: 0, or -1 with why. The job is gone after: freed,
 * or its late thread's. */
static int salt_end(struct salt_job *j, struct tpm2_salt *out, char *why, size_t whylen)
{
	if (j->worker.started && hi_worker_join(&j->worker, TPM2_SALT_JOIN_MS) != 0) {
		snprintf(why, whylen, "not made within %d ms", TPM2_SALT_JOIN_MS);
		return -1;
	}
	int rc = j->rc;
	if (rc == 0)
		*out = j->salt;
	else
		snprintf(why, whylen, "%s", j->why);
	salt_free(j);
	return rc;
}

/* systemd 252's signed PCR policy in the session: the signing key
 * loaded, PolicyPCR of the signed PCRs, that digest's signature found in
 * the signature file and checked by the TPM (VerifySignature's ticket),
 * PolicyAuthorize. 0, 1 (no signature for these PCR values: refused), -1. */
static int authorize(struct run *r, const struct tpm2_unseal_req *q, const struct tpm2_rsa_pub *k, uint32_t session)
{
	uint8_t name[2 + TPM_DIGEST_MAX], approved[TPM_DIGEST_MAX], digest[32], sig[TPM2_RSA_MAX];
	size_t namelen, alen, siglen;
	static struct tpm2_ticket t;
	char why[200];
	long rc;

	if (tpm_send(r, hi_tpm2_cmd_load_external(r->cmd, sizeof r->cmd, k), "LoadExternal") < 0)
		return -1;
	rc = hi_tpm2_resp_load_external(r->resp, r->rlen, &r->external, name, sizeof name, &namelen, why, sizeof why);
	if (rc != 0) {
		r->external = 0;
		return failed(r, rc, "LoadExternal (the token's tpm2_pubkey)", why);
	}
	if (tpm_send(r, hi_tpm2_cmd_policy_pcr(r->cmd, sizeof r->cmd, session, q->pcr_bank, q->pubkey_pcrs),
		     "PolicyPCR (signed)") < 0)
		return -1;
	rc = hi_tpm_resp_code(r->resp, r->rlen, why, sizeof why);
	if (rc != 0)
		return failed(r, rc, "PolicyPCR (signed)", why);
	if (tpm_send(r, hi_tpm2_cmd_policy_get_digest(r->cmd, sizeof r->cmd, session), "PolicyGetDigest") < 0)
		return -1;
	rc = hi_tpm2_resp_policy_digest(r->resp, r->rlen, approved, &alen, why, sizeof why);
	if (rc != 0)
		return failed(r, rc, "PolicyGetDigest (signed)", why);
	struct tpm2_pcrsig_want w = { q->pcr_bank, q->pubkey_pcrs, k->fp, approved, alen };
	int f = hi_tpm2_pcrsig_find(q->pcrsig, q->pcrsig_len, &w, sig, sizeof sig, &siglen, why, sizeof why);
	if (f != TPM2_PCRSIG_FOUND) {
		snprintf(r->err, r->errlen, "%s", why);
		return f == TPM2_PCRSIG_NONE ? 1 : -1;
	}
	/* VerifySignature checks the RSA part; the SHA-256 of the signed
	 * policy digest is ours to make, as systemd's. */
	hi_sha256(approved, alen, digest);
	if (tpm_send(r, hi_tpm2_cmd_verify_signature(r->cmd, sizeof r->cmd, r->external, digest, sig, siglen),
		     "VerifySignature") < 0)
		return -1;
	rc = hi_tpm2_resp_verify_signature(r->resp, r->rlen, &t, why, sizeof why);
	if (rc > 0 && (rc & 0xBF) == TPM_RC_SIGNATURE) {
		snprintf(r->err, r->errlen, "the signature in tpm2-pcr-signature.json for this PCR policy does not "
			 "verify with the token's public key: the file was altered, or made for another key");
		return 1;
	}
	if (rc != 0)
		return failed(r, rc, "VerifySignature", why);
	rc = tpm_send(r, hi_tpm2_cmd_policy_authorize(r->cmd, sizeof r->cmd, session, approved, alen, name, namelen, &t),
		      "PolicyAuthorize");
	if (rc < 0)
		return -1;
	rc = hi_tpm_resp_code(r->resp, r->rlen, why, sizeof why);
	if (rc != 0)
		return failed(r, rc, "PolicyAuthorize", why);
	flush(r, r->external);
	r->external = 0;
	return 0;
}

/* The session's policy digest against the token's: 0 the same, 1 not (err
 * names the PCRs: a PCR changed), -1 error. */
static int digest_check(struct run *r, const struct tpm2_unseal_req *q, uint32_t session)
{
	uint8_t digest[TPM_DIGEST_MAX];
	size_t dlen;
	char why[160], pcrs[80];

	if (tpm_send(r, hi_tpm2_cmd_policy_get_digest(r->cmd, sizeof r->cmd, session), "PolicyGetDigest") < 0)
		return -1;
	long rc = hi_tpm2_resp_policy_digest(r->resp, r->rlen, digest, &dlen, why, sizeof why);
	if (rc != 0)
		return failed(r, rc, "PolicyGetDigest", why);
	if (dlen != q->policy_hash_len || memcmp(digest, q->policy_hash, dlen) != 0) {
		pcr_list(q->pcrs, pcrs, sizeof pcrs);
		snprintf(r->err, r->errlen, "the policy of PCR%s %s (%s bank)%s is not the one the key was sealed to: "
			 "a PCR changed since the enrollment", q->pcrs & (q->pcrs - 1) ? "s" : "", pcrs[0] ? pcrs : "-",
			 hi_tpm_alg_name(q->pcr_bank), q->pin ? " with a PIN" : "");
		return 1;
	}
	return 0;
}

/* The salted policy session with the token's policy; 0 with the session
 * in *s, 1 when its digest is not the token's (checked here with a PIN
 * only), -1 error. */
static int policy(struct run *r, const struct tpm2_unseal_req *q, const struct tpm2_rsa_pub *k, uint32_t primary,
		  const struct tpm2_salt *salt, struct tpm2_session *s)
{
	char why[160];
	long rc;

	if (q->session) {                /* started beforehand to this primary */
		*s = *q->session;
		explicit_bzero(q->session, sizeof *q->session);
		rc = 0;
	} else if (nonce_new(s->nonce_caller, sizeof s->nonce_caller) < 0) {
		snprintf(r->err, r->errlen, "StartAuthSession: no random nonce from the kernel");
		return -1;
	} else {
		rc = tpm_send(r, hi_tpm2_cmd_start_policy_session(r->cmd, sizeof r->cmd, primary, s->nonce_caller,
							       salt->enc, salt->enc_len), "StartAuthSession");
	}
	if (rc == 0 && !q->session) {
		rc = hi_tpm2_resp_start_session(r->resp, r->rlen, &s->handle, s->nonce_tpm, &s->ntlen, why, sizeof why);
		if (rc != 0) {
			s->handle = 0;
			failed(r, rc, "StartAuthSession (salted with the primary key)", why);
		} else {
			hi_tpm2_session_key(s, salt->salt);
		}
	}
	if (rc != 0)
		return -1;
	if (q->pubkey_pcrs) {
		int a = authorize(r, q, k, s->handle);
		if (a != 0)
			return a;
	}
	if (q->pcrs) {
		if (tpm_send(r, hi_tpm2_cmd_policy_pcr(r->cmd, sizeof r->cmd, s->handle, q->pcr_bank, q->pcrs), "PolicyPCR") < 0)
			return -1;
		rc = hi_tpm_resp_code(r->resp, r->rlen, why, sizeof why);
		if (rc != 0)
			return failed(r, rc, "PolicyPCR", why);
	}
	if (q->pin) {
		if (tpm_send(r, hi_tpm2_cmd_policy_auth_value(r->cmd, sizeof r->cmd, s->handle), "PolicyAuthValue") < 0)
			return -1;
		rc = hi_tpm_resp_code(r->resp, r->rlen, why, sizeof why);
		if (rc != 0)
			return failed(r, rc, "PolicyAuthValue", why);
	}
	/* With a PIN, the session's digest is checked before the Unseal, as
	 * systemd does: an Unseal the policy would refuse must not count
	 * against the PIN's dictionary-attack tries. Without one the Unseal
	 * goes first and the digest is read only when it is refused (one
	 * command fewer on the way that opens the volume). */
	return q->pin ? digest_check(r, q, s->handle) : 0;
}

/* The Unseal under the session: its HMAC, the response's checked and its
 * secret decrypted. An enum tpm2_unseal_rc. */
static int unseal(struct run *r, uint32_t item, const uint8_t *name,
		  size_t namelen, struct tpm2_session *s, uint8_t *secret, size_t cap, size_t *slen)
{
	uint8_t cp[32], hmac[32], *params;
	size_t plen;
	char why[160];
	const uint8_t attrs = TPMA_SESSION_ENCRYPT;   /* the secret comes back encrypted */

	if (nonce_new(s->nonce_caller, sizeof s->nonce_caller) < 0) {
		snprintf(r->err, r->errlen, "Unseal: no random nonce from the kernel");
		return TPM2_ERROR;
	}
	hi_tpm2_unseal_cphash(name, namelen, cp);
	hi_tpm2_session_cmd_hmac(s, cp, attrs, hmac);
	if (tpm_send(r, hi_tpm2_cmd_unseal(r->cmd, sizeof r->cmd, item, s->handle, s->nonce_caller,
					sizeof s->nonce_caller, attrs, hmac), "Unseal") < 0)
		return TPM2_ERROR;
	long rc = hi_tpm_resp_code(r->resp, r->rlen, why, sizeof why);
	if (rc == 0) {
		s->handle = 0;           /* ended with the command, whatever its response says */
		if (hi_tpm2_session_resp(s, TPM_CC_UNSEAL, r->resp, r->rlen, &params, &plen, why, sizeof why) < 0) {
			snprintf(r->err, r->errlen, "Unseal: %s (or the TPM is not the one the session was salted to)", why);
			return TPM2_ERROR;
		}
		if (hi_tpm2_unseal_params(params, plen, secret, cap, slen, why, sizeof why) < 0) {
			snprintf(r->err, r->errlen, "Unseal: %s", why);
			return TPM2_ERROR;
		}
		return TPM2_UNSEALED;
	}
	if (rc > 0 && ((rc & 0xBF) == TPM_RC_AUTH_FAIL || (rc & 0xBF) == TPM_RC_BAD_AUTH)) {
		snprintf(r->err, r->errlen, "the TPM refused the PIN");
		return TPM2_PIN_WRONG;
	}
	if (rc > 0 && (rc & 0xBF) == TPM_RC_POLICY_FAIL) {
		snprintf(r->err, r->errlen, "the TPM refused the policy: a PCR changed since the enrollment");
		return TPM2_POLICY_CHANGED;
	}
	failed(r, rc, "Unseal", why);
	return TPM2_ERROR;
}

/* The parent of a token with tpm2_srk: the key at TPM2_SRK_HANDLE when its
 * name is the token's (*parent, persistent: not flushed), else, when no
 * key is there, the primary made from systemd's SRK template (*made, to
 * flush), its name checked too. Only then the Load: a key planted at the
 * handle is never the blob's parent. 0, or -1 with r->err. */
static int srk_parent(struct run *r, const struct tpm2_srk *k, uint32_t *parent, uint32_t *made,
		      struct tpm2_primary_pub *pub)
{
	uint8_t name[TPM2_NAME_MAX];
	const uint8_t *p = NULL;
	size_t namelen = 0, plen = 0;
	char why[160];

	if (tpm_send(r, hi_tpm2_cmd_read_public(r->cmd, sizeof r->cmd, TPM2_SRK_HANDLE), "ReadPublic (the SRK)") < 0)
		return -1;
	long rc = hi_tpm2_resp_read_public(r->resp, r->rlen, &p, &plen, why, sizeof why);
	const char *whose = "the key at the SRK's persistent handle 0x81000001";
	if (rc > 0 && (rc & 0xBF) == TPM_RC_HANDLE) {
		/* No SRK persisted (the TPM's owner evicted it): the same
		 * template under the same seed gives the same key again. */
		if (tpm_send(r, hi_tpm2_cmd_create_srk(r->cmd, sizeof r->cmd, k->alg), "CreatePrimary (the SRK)") < 0)
			return -1;
		rc = hi_tpm2_resp_create_primary(r->resp, r->rlen, made, pub, why, sizeof why);
		if (rc != 0) {
			*made = 0;
			return failed(r, rc, "CreatePrimary (systemd's SRK template)", why);
		}
		/* outPublic follows the handle and parameterSize. */
		p = r->resp + TPM_HEADER + 8;
		plen = 2 + (size_t)(p[0] << 8 | p[1]);
		whose = "the primary made from systemd's SRK template";
	} else if (rc != 0) {
		return failed(r, rc, "ReadPublic (the SRK at 0x81000001)", why);
	}
	if (hi_tpm2_public_name(p, plen, name, &namelen) < 0 || namelen != k->namelen ||
	    memcmp(name, k->name, namelen) != 0) {
		snprintf(r->err, r->errlen, "%s is not the token's tpm2_srk (another name): not used as the sealed key's "
			 "parent; the TPM was cleared, or that key is not systemd's", whose);
		return -1;
	}
	if (!*made) {
		if (hi_tpm2_primary_pub_parse(p, plen, pub, why, sizeof why) < 0)
			return failed(r, -1, "ReadPublic (the SRK)", why);
		*parent = TPM2_SRK_HANDLE;
	} else {
		*parent = *made;
	}
	return 0;
}

int hi_tpm2_unseal(tpm_xfer_fn xfer, void *ctx, const struct tpm2_unseal_req *q, uint8_t *secret, size_t cap,
		size_t *slen, char *err, size_t errlen)
{
	static struct run r;        /* 8 KiB of buffers: not on PID 1's stack */
	static struct tpm2_primary_pub pub;
	static struct tpm2_salt salt;
	struct tpm2_sealed sealed;
	struct tpm2_session s;
	static struct tpm2_srk srk;
	uint32_t primary = 0, parent = 0, item = 0;
	uint8_t name[TPM2_NAME_MAX];
	size_t namelen = 0;
	char why[160];
	int ret = TPM2_ERROR;
	long rc;

	memset(&r, 0, sizeof r);
	memset(&s, 0, sizeof s);
	r.xfer = xfer;
	r.ctx = ctx;
	r.err = err;
	r.errlen = errlen;
	err[0] = '\0';
	*slen = 0;
	static struct tpm2_rsa_pub key;
	if (q->pubkey_pcrs) {
		if (hi_tpm2_rsa_pub_parse(q->pubkey, q->pubkey_len, &key, err, errlen) < 0)
			goto out;
		if (!q->pcrsig) {
			snprintf(err, errlen, "the token has a signed PCR policy but there is no tpm2-pcr-signature.json "
				 "(systemd-stub writes it from the UKI's .pcrsig section: build the UKI with hardinit-mkinitramfs "
				 "--pcrsig or --pcr-sign-key)");
			goto out;
		}
	}
	if (!hi_tpm_alg_size(q->pcr_bank) || (q->pin && strlen(q->pin) > TPM2_PIN_MAX) || cap < TPM2_SECRET_MAX) {
		snprintf(err, errlen, "the token's PCR bank %s, its PIN or the secret's buffer is out of range",
			 hi_tpm_alg_name(q->pcr_bank));
		goto out;
	}
	if (hi_tpm2_blob_split(q->blob, q->blob_len, &sealed, err, errlen) < 0)
		goto out;
	if (q->srk_len && hi_tpm2_srk_parse(q->srk, q->srk_len, &srk, err, errlen) < 0)
		goto out;
	if (q->srk_len) {
		if (srk_parent(&r, &srk, &parent, &primary, &pub) < 0)
			goto out;
	} else if (q->primary) {         /* made beforehand: its maker flushes it */
		parent = q->primary;
		pub = *q->primary_pub;
	} else {
		if (tpm_send(&r, hi_tpm2_cmd_create_primary(r.cmd, sizeof r.cmd, q->primary_alg), "CreatePrimary") < 0)
			goto out;
		rc = hi_tpm2_resp_create_primary(r.resp, r.rlen, &primary, &pub, why, sizeof why);
		if (rc != 0) {
			primary = 0;
			failed(&r, rc, q->primary_alg == TPM_ALG_ECC ? "CreatePrimary (ECC P-256)" : "CreatePrimary (RSA 2048)",
			       why);
			goto out;
		}
		parent = primary;
	}
	struct salt_job *sj = NULL;
	char salt_why[160] = "";
	if (q->session)                  /* the session is made: no salt */
		memset(&salt, 0, sizeof salt);
	else if (q->salt)                /* made beforehand, for this session only */
		salt = *q->salt;
	else if (!(sj = salt_begin(&pub, salt_why, sizeof salt_why))) {
		failed(&r, -1, "StartAuthSession (the salt)", salt_why);
		goto out;
	}
	int sent = tpm_send(&r, hi_tpm2_cmd_load(r.cmd, sizeof r.cmd, parent, &sealed), "Load");
	int salted = sj ? salt_end(sj, &salt, salt_why, sizeof salt_why) : 0;
	if (sent < 0)
		goto out;
	rc = hi_tpm2_resp_load(r.resp, r.rlen, &item, name, &namelen, why, sizeof why);
	if (rc != 0) {
		item = 0;
		/* The blob is not this TPM's (another TPM, or it was cleared). */
		failed(&r, rc, "Load (the sealed key is not this TPM's, or the TPM was cleared)", why);
		goto out;
	}
	if (salted < 0) {
		failed(&r, -1, "StartAuthSession (the salt)", salt_why);
		goto out;
	}
	int p = policy(&r, q, &key, parent, &salt, &s);
	if (p != 0) {
		ret = p > 0 ? TPM2_POLICY_CHANGED : TPM2_ERROR;
		goto out;
	}
	if (q->pin)
		hi_tpm2_pin_auth(q->pin, s.auth, &s.authlen);
	ret = unseal(&r, item, name, namelen, &s, secret, cap, slen);
	if (ret == TPM2_POLICY_CHANGED && !q->pin && s.handle) {
		/* Refused without a PIN: the digest says which PCRs (its text
		 * replaces the generic one only when they differ). */
		static char generic[256];
		snprintf(generic, sizeof generic, "%s", err);
		if (digest_check(&r, q, s.handle) != 1)
			snprintf(err, errlen, "%s", generic);
	}
	if (ret != TPM2_UNSEALED) {
		explicit_bzero(secret, cap);
		*slen = 0;
	}
out:
	explicit_bzero(&salt, sizeof salt);
	if (q->salt)
		explicit_bzero(q->salt, sizeof *q->salt);
	if (q->session && q->session->handle) {   /* not reached: ours to flush */
		s.handle = q->session->handle;
		explicit_bzero(q->session, sizeof *q->session);
	}
	flush(&r, r.external);
	flush(&r, s.handle);
	flush(&r, item);
	flush(&r, primary);
	explicit_bzero(&s, sizeof s);
	explicit_bzero(&r, sizeof r);
	return ret;
}
