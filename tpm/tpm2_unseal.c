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

#define TPM_RC_POLICY_FAIL        0x09D    /* format one, without its number (0x99d: session 1's) */
#define TPM_RC_AUTH_FAIL          0x08E
#define TPM_RC_BAD_AUTH           0x0A2
#define TPM_RC_VALUE              0x084
#define TPM_RC_HANDLE             0x08B
#define TPM_RC_SIGNATURE          0x09B

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

/* What the request must hold before any TPM command: the signed
 * policy's key and signature file, the bank, the PIN's length, the blob
 * and the SRK parsed. 0, or -1 with err. */
static int request_check(const struct tpm2_unseal_req *q, size_t cap, struct tpm2_rsa_pub *key,
			 struct tpm2_sealed *sealed, struct tpm2_srk *srk, char *err, size_t errlen)
{
	if (q->pubkey_pcrs) {
		if (hi_tpm2_rsa_pub_parse(q->pubkey, q->pubkey_len, key, err, errlen) < 0)
			return -1;
		if (!q->pcrsig) {
			snprintf(err, errlen, "the token has a signed PCR policy but there is no tpm2-pcr-signature.json "
				 "(systemd-stub writes it from the UKI's .pcrsig section: build the UKI with hardinit-mkinitramfs "
				 "--pcrsig or --pcr-sign-key)");
			return -1;
		}
	}
	if (!hi_tpm_alg_size(q->pcr_bank) || (q->pin && strlen(q->pin) > TPM2_PIN_MAX) || cap < TPM2_SECRET_MAX) {
		snprintf(err, errlen, "the token's PCR bank %s, its PIN or the secret's buffer is out of range",
			 hi_tpm_alg_name(q->pcr_bank));
		return -1;
	}
	if (hi_tpm2_blob_split(q->blob, q->blob_len, sealed, err, errlen) < 0)
		return -1;
	if (q->srk_len && hi_tpm2_srk_parse(q->srk, q->srk_len, srk, err, errlen) < 0)
		return -1;
	return 0;
}

/* The blob's parent: the SRK the token names (srk, else NULL), the
 * primary made beforehand (its maker flushes it), or one made here with
 * systemd's template (*made: the caller flushes it). 0, or -1 with r's
 * err. */
static int parent_get(struct run *r, const struct tpm2_unseal_req *q, const struct tpm2_srk *srk, uint32_t *parent,
		      uint32_t *made, struct tpm2_primary_pub *pub)
{
	char why[160];

	if (srk)
		return srk_parent(r, srk, parent, made, pub);
	if (q->primary) {
		*parent = q->primary;
		*pub = *q->primary_pub;
		return 0;
	}
	if (tpm_send(r, hi_tpm2_cmd_create_primary(r->cmd, sizeof r->cmd, q->primary_alg), "CreatePrimary") < 0)
		return -1;
	long rc = hi_tpm2_resp_create_primary(r->resp, r->rlen, made, pub, why, sizeof why);
	if (rc != 0) {
		*made = 0;
		return failed(r, rc, q->primary_alg == TPM_ALG_ECC ? "CreatePrimary (ECC P-256)" : "CreatePrimary (RSA 2048)",
			      why);
	}
	*parent = *made;
	return 0;
}

/* Load of the sealed object under parent while the salt is made on a
 * thread (or taken from the request; none when its session is made). 0
 * with *item, its name and salt; -1 with r's err (*item set when the
 * Load went through, for the caller's flush). */
static int load_salted(struct run *r, const struct tpm2_unseal_req *q, uint32_t parent, const struct tpm2_sealed *sealed,
		       const struct tpm2_primary_pub *pub, struct tpm2_salt *salt, uint32_t *item,
		       uint8_t name[TPM2_NAME_MAX], size_t *namelen)
{
	struct salt_job *sj = NULL;
	char why[160], salt_why[160] = "";

	if (q->session)
		memset(salt, 0, sizeof *salt);
	else if (q->salt)
		*salt = *q->salt;
	else if (!(sj = salt_begin(pub, salt_why, sizeof salt_why)))
		return failed(r, -1, "StartAuthSession (the salt)", salt_why);
	int sent = tpm_send(r, hi_tpm2_cmd_load(r->cmd, sizeof r->cmd, parent, sealed), "Load");
	int salted = sj ? salt_end(sj, salt, salt_why, sizeof salt_why) : 0;
	if (sent < 0)
		return -1;
	long rc = hi_tpm2_resp_load(r->resp, r->rlen, item, name, namelen, why, sizeof why);
	if (rc != 0) {
		*item = 0;
		/* The blob is not this TPM's (another TPM, or it was cleared). */
		return failed(r, rc, "Load (the sealed key is not this TPM's, or the TPM was cleared)", why);
	}
	if (salted < 0)
		return failed(r, -1, "StartAuthSession (the salt)", salt_why);
	return 0;
}

/* The sealed item unsealed in the authorized session (with the PIN's
 * authValue); a refusal without a PIN is checked against the PCRs' digest
 * so that it names them. A secret not unsealed is wiped. */
static int unseal_item(struct run *r, const struct tpm2_unseal_req *q, uint32_t item, const uint8_t *name,
		       size_t namelen, struct tpm2_session *s, uint8_t *secret, size_t cap, size_t *slen)
{
	if (q->pin)
		hi_tpm2_pin_auth(q->pin, s->auth, &s->authlen);
	int ret = unseal(r, item, name, namelen, s, secret, cap, slen);
	if (ret == TPM2_POLICY_CHANGED && !q->pin && s->handle) {
		/* Its text replaces the generic one only when they differ. */
		static char generic[256];
		snprintf(generic, sizeof generic, "%s", r->err);
		if (digest_check(r, q, s->handle) != 1)
			snprintf(r->err, r->errlen, "%s", generic);
	}
	if (ret != TPM2_UNSEALED) {
		explicit_bzero(secret, cap);
		*slen = 0;
	}
	return ret;
}

/* What an unseal held, let go however it ended: the salt and the
 * session's keys wiped, every handle it made flushed (the warm-up's
 * session too, when it was handed over and not reached). */
static void release(struct run *r, const struct tpm2_unseal_req *q, struct tpm2_session *s, struct tpm2_salt *salt,
		    uint32_t item, uint32_t primary)
{
	explicit_bzero(salt, sizeof *salt);
	if (q->salt)
		explicit_bzero(q->salt, sizeof *q->salt);
	if (q->session && q->session->handle) {   /* not reached: ours to flush */
		s->handle = q->session->handle;
		explicit_bzero(q->session, sizeof *q->session);
	}
	flush(r, r->external);
	flush(r, s->handle);
	flush(r, item);
	flush(r, primary);
	explicit_bzero(s, sizeof *s);
	explicit_bzero(r, sizeof *r);
}

int hi_tpm2_unseal(tpm_xfer_fn xfer, void *ctx, const struct tpm2_unseal_req *q, uint8_t *secret, size_t cap,
		size_t *slen, char *err, size_t errlen)
{
	static struct run r;        /* 8 KiB of buffers: not on PID 1's stack */
	static struct tpm2_primary_pub pub;
	static struct tpm2_salt salt;
	static struct tpm2_srk srk;
	static struct tpm2_rsa_pub key;
	struct tpm2_sealed sealed;
	struct tpm2_session s;
	uint32_t primary = 0, parent = 0, item = 0;
	uint8_t name[TPM2_NAME_MAX];
	size_t namelen = 0;
	int ret = TPM2_ERROR;

	memset(&r, 0, sizeof r);
	memset(&s, 0, sizeof s);
	r.xfer = xfer;
	r.ctx = ctx;
	r.err = err;
	r.errlen = errlen;
	err[0] = '\0';
	*slen = 0;
	if (request_check(q, cap, &key, &sealed, &srk, err, errlen) < 0 ||
	    parent_get(&r, q, q->srk_len ? &srk : NULL, &parent, &primary, &pub) < 0 ||
	    load_salted(&r, q, parent, &sealed, &pub, &salt, &item, name, &namelen) < 0)
		goto out;
	int p = policy(&r, q, &key, parent, &salt, &s);
	if (p != 0) {
		ret = p > 0 ? TPM2_POLICY_CHANGED : TPM2_ERROR;
		goto out;
	}
	ret = unseal_item(&r, q, item, name, namelen, &s, secret, cap, slen);
out:
	release(&r, q, &s, &salt, item, primary);
	return ret;
}
