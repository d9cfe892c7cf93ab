#include "tpm2_warmup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "clock.h"
#include "worker.h"
#include "tpm_wire.h"

#define TPM_CC_POLICY_SECRET      0x00000151
#define TPM_CC_START_AUTH_SESSION 0x00000176
#define TPM_SE_TRIAL              0x03
#define TPM_ALG_NULL              0x0010

long hi_tpm2_cmd_start_trial_session(uint8_t *out, size_t cap, const uint8_t nonce[TPM2_NONCE_BYTES])
{
	struct buf b = { out, 0, cap, false };

	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_START_AUTH_SESSION);
	put(&b, TPM_RH_NULL, 4);         /* tpmKey: no salt */
	put(&b, TPM_RH_NULL, 4);         /* bind: none */
	put(&b, TPM2_NONCE_BYTES, 2);
	put_bytes(&b, nonce, TPM2_NONCE_BYTES);
	put(&b, 0, 2);                   /* encryptedSalt: none */
	put(&b, TPM_SE_TRIAL, 1);
	put(&b, TPM_ALG_NULL, 2);        /* symmetric: none */
	put(&b, TPM_ALG_SHA256, 2);
	return finish(&b);
}

long hi_tpm2_cmd_policy_secret(uint8_t *out, size_t cap, uint32_t auth, uint32_t session)
{
	struct buf b = { out, 0, cap, false };

	header(&b, TPM_ST_SESSIONS, TPM_CC_POLICY_SECRET);
	put(&b, auth, 4);
	put(&b, session, 4);
	password_session(&b);            /* auth's empty authValue: systemd's SRK has none */
	put(&b, 0, 2);                   /* nonceTPM */
	put(&b, 0, 2);                   /* cpHashA */
	put(&b, 0, 2);                   /* policyRef */
	put(&b, 0, 4);                   /* expiration */
	return finish(&b);
}

/* Out of line: gcc 12 misjudges the size of a member's address passed
 * straight to explicit_bzero (-Wstringop-overflow). */
__attribute__((noinline)) static void wipe(void *p, size_t n)
{
	explicit_bzero(p, n);
}

/* One command; its response code (>= 0), or -1 with why (no answer, or
 * a response that does not parse). */
static long send_cmd(struct tpm2_warm *w, tpm_xfer_fn xfer, void *ctx, long len, size_t *rlen, char *why,
		     size_t whylen)
{
	long code = -1;

	if (hi_tpm2_send(xfer, ctx, w->cmd, len, w->resp, sizeof w->resp, rlen, &code, why, whylen) < 0)
		return -1;
	return code;
}

static void flush_handle(struct tpm2_warm *w, tpm_xfer_fn xfer, void *ctx, uint32_t h)
{
	char why[160];
	size_t rlen;
	if (h)
		send_cmd(w, xfer, ctx, hi_tpm2_cmd_flush(w->cmd, sizeof w->cmd, h), &rlen, why, sizeof why);
}

static int fail(struct tpm2_warm *w, const char *what, long rc, const char *why)
{
	char text[120];
	if (rc > 0) {
		hi_tpm_rc_text((uint32_t)rc, text, sizeof text);
		why = text;
	}
	snprintf(w->why, sizeof w->why, "%s: %s", what, why);
	return -1;
}

/* The DA mark: one authorization of the SRK, with nothing else done.
 * PolicySecret is the TPM's command for "prove you know this object's
 * authValue" and nothing more; in a trial session nothing it yields can
 * authorize anything, and the session is flushed at once. The commands
 * that authorize the SRK otherwise create or load something under it
 * (Create, Load: a key or a blob to make first), or are refused for the
 * SRK's attributes (a restricted decryption key) at a point a TPM may
 * take after or before the authorization, which is not the spec's to
 * promise. */
static int da_mark(struct tpm2_warm *w)
{
	uint8_t nonce[TPM2_NONCE_BYTES], tpm_nonce[TPM_DIGEST_MAX];
	uint32_t session = 0;
	size_t rlen, nlen;
	char why[160];

	/* A nonce needs freshness, not secrecy: GRND_INSECURE (5.6). */
	if (getrandom(nonce, sizeof nonce, 0x0004) != (ssize_t)sizeof nonce &&
	    getrandom(nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		return fail(w, "StartAuthSession (trial)", -1, "no random nonce from the kernel");
	long rc = send_cmd(w, w->xfer, w->ctx, hi_tpm2_cmd_start_trial_session(w->cmd, sizeof w->cmd, nonce), &rlen, why,
			   sizeof why);
	if (rc == 0)
		rc = hi_tpm2_resp_start_session(w->resp, rlen, &session, tpm_nonce, &nlen, why, sizeof why);
	if (rc != 0)
		return fail(w, "StartAuthSession (trial)", rc, why);
	rc = send_cmd(w, w->xfer, w->ctx, hi_tpm2_cmd_policy_secret(w->cmd, sizeof w->cmd, w->primary, session), &rlen,
		      why, sizeof why);
	flush_handle(w, w->xfer, w->ctx, session);
	if (rc != 0)
		return fail(w, "PolicySecret (the SRK's authorization)", rc, why);
	return 0;
}

/* The salt for the first unseal's session: an ephemeral P-256 key and
 * its ECDH with the primary (or RSA-OAEP to it). Its seed is secret, so
 * from the initialized pool; if it is not yet, this thread waits for it
 * (since Linux 5.4 the kernel seeds it from CPU timing jitter, about a
 * second), off PID 1's path: the unseal would wait for the same pool. A
 * wait past the join's bound abandons the warm-up, as any other. */
static void salt(struct tpm2_warm *w)
{
	uint8_t seed[32];
	char why[160];
	ssize_t got = getrandom(seed, sizeof seed, GRND_NONBLOCK);

	if (got != (ssize_t)sizeof seed)
		got = getrandom(seed, sizeof seed, 0);
	if (got == (ssize_t)sizeof seed && hi_tpm2_salt_make(&w->pub, seed, &w->salt, why, sizeof why) == 0)
		w->salted = true;
	else
		wipe(&w->salt, sizeof w->salt);
	explicit_bzero(seed, sizeof seed);
}

/* The unseal's policy session, salted with the salt above, started now;
 * the salt is then spent. A failure leaves the salt for the unseal to
 * start its own session with. */
static void session(struct tpm2_warm *w)
{
	struct tpm2_session *s = &w->session;
	size_t rlen;
	char why[160];

	if (!w->salted || (getrandom(s->nonce_caller, sizeof s->nonce_caller, 0x0004) != (ssize_t)sizeof s->nonce_caller &&
			   getrandom(s->nonce_caller, sizeof s->nonce_caller, GRND_NONBLOCK) !=
				   (ssize_t)sizeof s->nonce_caller))
		return;
	long rc = send_cmd(w, w->xfer, w->ctx, hi_tpm2_cmd_start_policy_session(w->cmd, sizeof w->cmd, w->primary,
									 s->nonce_caller, w->salt.enc,
									 w->salt.enc_len),
			   &rlen, why, sizeof why);
	if (rc == 0)
		rc = hi_tpm2_resp_start_session(w->resp, rlen, &s->handle, s->nonce_tpm, &s->ntlen, why, sizeof why);
	if (rc != 0 || !s->handle) {
		wipe(s, sizeof *s);
		return;
	}
	hi_tpm2_session_key(s, w->salt.salt);
	wipe(&w->salt, sizeof w->salt);
	w->salted = false;
}

static void forget(struct tpm2_warm *w, tpm_xfer_fn xfer, void *ctx)
{
	flush_handle(w, xfer, ctx, w->session.handle);
	flush_handle(w, xfer, ctx, w->primary);
	w->primary = 0;
	wipe(&w->session, sizeof w->session);
	wipe(&w->salt, sizeof w->salt);
	w->salted = false;
}

static int warm(struct tpm2_warm *w)
{
	size_t rlen;
	char why[160];
	uint64_t t0 = hi_boottime_ns();

	long rc = send_cmd(w, w->xfer, w->ctx, hi_tpm2_cmd_create_primary(w->cmd, sizeof w->cmd, w->alg), &rlen, why,
			   sizeof why);
	if (rc == 0)
		rc = hi_tpm2_resp_create_primary(w->resp, rlen, &w->primary, &w->pub, why, sizeof why);
	if (rc != 0) {
		w->primary = 0;
		return fail(w, w->alg == TPM_ALG_ECC ? "CreatePrimary (ECC P-256)" : "CreatePrimary (RSA 2048)", rc, why);
	}
	uint64_t t1 = hi_boottime_ns();
	w->primary_ns = t1 - t0;
	int d = da_mark(w);
	uint64_t t2 = hi_boottime_ns();
	w->da_ns = t2 - t1;
	if (d < 0)
		return -1;
	w->da_marked = true;
	salt(w);
	uint64_t t3 = hi_boottime_ns();
	w->salt_ns = t3 - t2;
	session(w);
	w->session_ns = hi_boottime_ns() - t3;
	return 0;
}

static void run(void *arg)
{
	struct tpm2_warm *w = arg;

	w->rc = warm(w);
	if (w->rc < 0)                   /* the primary is of no use now */
		forget(w, w->xfer, w->ctx);
	if (!hi_worker_claim(&w->worker))   /* abandoned: no one will flush them, do it here */
		forget(w, w->xfer, w->ctx);
	if (w->release)
		w->release(w->ctx);
}

int hi_tpm2_warmup_start(struct tpm2_warm *w, uint16_t alg, tpm_xfer_fn xfer, void *ctx, void (*release)(void *ctx))
{
	memset(w, 0, sizeof *w);
	w->alg = alg;
	w->rc = -1;
	w->xfer = xfer;
	w->ctx = ctx;
	w->release = release;
	int rc = hi_worker_start(&w->worker, run, w, 0, NULL);
	if (rc != 0) {
		snprintf(w->why, sizeof w->why, "no thread: %s", strerror(rc));
		return -1;
	}
	return 0;
}

int hi_tpm2_warmup_join(struct tpm2_warm *w, int timeout_ms)
{
	if (!w->worker.started || w->worker.abandoned)
		return w->worker.joined ? 0 : -1;
	if (hi_worker_join(&w->worker, timeout_ms) == 0)
		return 0;
	snprintf(w->why, sizeof w->why, "not done within %d ms", timeout_ms);
	return -1;
}

int hi_tpm2_warmup_flush(struct tpm2_warm *w, tpm_xfer_fn xfer, void *ctx, char *why, size_t whylen)
{
	int ret = 0;

	wipe(&w->salt, sizeof w->salt);
	w->salted = false;
	why[0] = '\0';
	if (!w->worker.joined)
		return 0;
	flush_handle(w, xfer, ctx, w->session.handle);   /* unused: no unseal took it */
	wipe(&w->session, sizeof w->session);
	if (!w->primary)
		return 0;
	size_t rlen;
	long rc = send_cmd(w, xfer, ctx, hi_tpm2_cmd_flush(w->cmd, sizeof w->cmd, w->primary), &rlen, why, whylen);
	if (rc > 0) {
		char text[120];
		hi_tpm_rc_text((uint32_t)rc, text, sizeof text);
		snprintf(why, whylen, "%s", text);
	}
	if (rc != 0)
		ret = -1;
	w->primary = 0;
	explicit_bzero(w->resp, sizeof w->resp);
	return ret;
}

static void release_dev(void *ctx)
{
	hi_tpm_dev_close(ctx);
}

int hi_tpm2_warmup_open(struct tpm2_warmup_tpm *u, const char *dev_dir, uint16_t alg, char *why, size_t whylen)
{
	if (hi_tpm_dev_open(&u->d, dev_dir, TPM_USE_WARMUP, TPM_DEV_TIMEOUT_MS, u->path, sizeof u->path) < 0) {
		snprintf(why, whylen, "%s: %s", u->path, strerror(errno));
		return -1;
	}
	if (hi_tpm2_warmup_start(&u->w, alg, hi_tpm_dev_xfer, &u->d, release_dev) < 0) {
		hi_tpm_dev_close(&u->d);
		snprintf(why, whylen, "%s", u->w.why);
		return -1;
	}
	return 0;
}

int hi_tpm2_warmup_close(struct tpm2_warmup_tpm *u, const char *dev_dir, char *why, size_t whylen)
{
	int rc = -1;

	why[0] = '\0';
	if (!u->w.primary) {               /* its salt and session only: nothing to report */
		hi_tpm2_warmup_flush(&u->w, hi_tpm_dev_xfer, &u->d, why, whylen);
		return 0;
	}
	/* The same node as the warm-up's: TPM_USE_WARMUP's order names one. */
	if (hi_tpm_dev_open(&u->d, dev_dir, TPM_USE_WARMUP, TPM_DEV_TIMEOUT_MS, u->path, sizeof u->path) < 0)
		snprintf(why, whylen, "%s: %s", u->path, strerror(errno));
	else
		rc = hi_tpm2_warmup_flush(&u->w, hi_tpm_dev_xfer, &u->d, why, whylen);
	if (u->d.fd >= 0)
		hi_tpm_dev_close(&u->d);
	wipe(&u->w.salt, sizeof u->w.salt);
	return rc;
}
