#include "tpm2_unseal_cmd.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "base64.h"
#include "pbkdf2.h"
#include "sha256.h"
#include "tpm2_session.h"
#include "tpm_wire.h"

#define TPM_CC_CREATE_PRIMARY     0x00000131
#define TPM_CC_LOAD               0x00000157
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
	int rc = -1;

	/* dk is the PIN's derived key: wiped on every path, a failed
	 * derivation's partial output too, and out is empty on failure. */
	if (pin[0] && saltlen &&
	    hi_pbkdf2("sha256", (const uint8_t *)pin, strlen(pin), salt, saltlen, TPM2_PIN_ITERATIONS, dk, sizeof dk) == 0)
		rc = hi_base64_encode(dk, sizeof dk, out, TPM2_PIN_SALTED_LEN + 1) == TPM2_PIN_SALTED_LEN ? 0 : -1;
	explicit_bzero(dk, sizeof dk);
	if (rc < 0)
		explicit_bzero(out, TPM2_PIN_SALTED_LEN + 1);
	return rc;
}
