/* Unit tests: the luks stage's TPM warm-up (tpm/tpm2_warmup.c) without a
 * TPM. Its two commands as bytes (a trial session; PolicySecret on the
 * SRK with the empty password), then the thread against a scripted TPM
 * whose primary is the P-256 generator (so the salt is made): the
 * primary, the DA mark and the salted session ready after the join; the
 * unseal started from them sends neither CreatePrimary nor
 * StartAuthSession and leaves the primary to the warm-up's flush; a TPM_RC_RETRY asked again; a refused authorization
 * and a TPM that does not answer, each a reason and nothing left loaded;
 * a warm-up not done within the join's bound abandoned, its thread then
 * flushing its primary and letting the TPM go by itself. swtpm's side is
 * tests/bats/luks_tpm2.bats; the boot's, tests/vm/luks.bats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "tpm_bytes.h"
#include "tpm2_warmup.h"

static uint8_t cmd[TPM_CMD_MAX];

static void test_commands(void)
{
	uint8_t nonce[TPM2_NONCE_BYTES];
	memset(nonce, 0x11, sizeof nonce);
	long n = hi_tpm2_cmd_start_trial_session(cmd, sizeof cmd, nonce);
	tpm_hex_is(cmd, n,
	           "80010000003b00000176" "40000007" "40000007" "0020"
	           "1111111111111111111111111111111111111111111111111111111111111111" "0000" "03" "0010" "000b",
	           "StartAuthSession: no salt, unbound, a trial session, no symmetric, SHA-256");
	n = hi_tpm2_cmd_policy_secret(cmd, sizeof cmd, 0x80000000, 0x03000000);
	tpm_hex_is(cmd, n,
	           "8002000000290000015180000000" "03000000" "00000009" "40000009" "0000" "00" "0000"
	           "0000" "0000" "0000" "00000000",
	           "PolicySecret: the SRK authorized by the empty password, empty nonce, cpHash, policyRef, no expiration");
	tap_ok(hi_tpm2_cmd_policy_secret(cmd, 20, 1, 2) == -1, "PolicySecret: too small a buffer is refused");
}

/* A scripted TPM: answers by command code, records the codes and what
 * was flushed; called from the warm-up's thread. */
struct fake {
	int ncc, nflushed, retries;      /* retries: TPM_RC_RETRY answers to PolicySecret left */
	uint32_t cc[32], flushed[8];
	int trial;                       /* trial sessions started */
	uint32_t salted_session;         /* the tpmKey of a salted one */
	uint32_t secret_auth;
	uint32_t refuse_secret;          /* PolicySecret's response code, 0: success */
	bool dead, other_digest;
	int slow_ms;                     /* CreatePrimary's delay */
	int released;
};

static int fake_xfer(void *ctx, const uint8_t *c, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		     size_t errlen)
{
	struct fake *f = ctx;
	uint32_t cc = tpm_get32(c + 6), code = 0;
	size_t n = 10;

	f->cc[f->ncc++ & 31] = cc;
	if (f->dead) {
		snprintf(err, errlen, "no answer within 10 ms");
		return -1;
	}
	memset(resp, 0, cap);
	resp[0] = 0x80;
	resp[1] = 1;
	if (cc == 0x131) {
		if (f->slow_ms) {
			struct timespec t = { 0, (long)f->slow_ms * 1000000 };
			nanosleep(&t, NULL);
		}
		n = tpm_create_primary_resp(resp, 0x80000000);
	} else if (cc == 0x176) {               /* StartAuthSession */
		if (c[10 + 4 + 4 + 2 + 32 + 2] == 0x03)
			f->trial++;
		else
			f->salted_session = tpm_get32(c + 10);
		n = tpm_start_session_resp(resp, 0x03000000);
	} else if (cc == 0x151) {               /* PolicySecret */
		f->secret_auth = tpm_get32(c + 10);
		code = f->retries-- > 0 ? 0x922 : f->refuse_secret;
	} else if (cc == 0x157) {               /* Load */
		resp[1] = 2;
		n = tpm_load_resp(resp, 0x80000001);
	} else if (cc == 0x189) {               /* PolicyGetDigest */
		n = tpm_policy_digest_resp(resp, f->other_digest ? 0xee : 0x5a);
	} else if (cc == 0x15e && f->other_digest) {   /* Unseal: TPM_RC_POLICY_FAIL, session 1 */
		code = 0x99d;
	} else if (cc == 0x165) {
		f->flushed[f->nflushed++ & 7] = tpm_get32(c + 10);
	}
	(void)len;
	*rlen = tpm_resp_finish(resp, n, code);
	return 0;
}

static void fake_release(void *ctx)
{
	__atomic_store_n(&((struct fake *)ctx)->released, 1, __ATOMIC_SEQ_CST);
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void test_ready(void)
{
	static struct tpm2_warm w;
	struct fake f = { .retries = 1, .other_digest = true };
	char why[200];

	tap_ok(hi_tpm2_warmup_start(&w, TPM_ALG_ECC, fake_xfer, &f, fake_release) == 0, "the warm-up starts its thread");
	tap_ok(hi_tpm2_warmup_join(&w, TPM2_WARMUP_JOIN_MS) == 0 && w.rc == 0, "joined: it is done, without an error");
	tap_ok(w.primary == 0x80000000 && w.pub.type == TPM_ALG_ECC, "the primary is loaded, its public point read");
	tap_ok(w.da_marked && f.secret_auth == 0x80000000 && f.trial == 1,
	       "the DA mark: PolicySecret on the primary in a trial session");
	tap_ok(f.ncc == 6 && f.cc[2] == 0x151 && f.cc[3] == 0x151 && f.cc[4] == 0x165,
	       "a TPM_RC_RETRY is asked again, then the trial session is flushed");
	tap_ok(f.cc[5] == 0x176 && f.salted_session == 0x80000000 && w.session.handle == 0x03000000 &&
	       w.session.keylen == 32, "then the unseal's policy session, salted to the primary, its key made");
	tap_ok(f.nflushed == 1 && f.flushed[0] == 0x03000000, "only the trial session is flushed: the primary stays");
	tap_ok(!w.salted && all_zero(&w.salt, sizeof w.salt), "its salt is spent and wiped");
	tap_ok(f.released == 1, "the thread let the TPM go");

	/* The unseal from the warm-up: no CreatePrimary, the primary left. */
	uint8_t blob[] = { 0, 2, 0xaa, 0xbb, 0, 3, 1, 2, 3 }, policy[32], secret[TPM2_SECRET_MAX];
	memset(policy, 0x5a, sizeof policy);
	struct tpm2_unseal_req q = { .primary_alg = TPM_ALG_ECC, .pcr_bank = TPM_ALG_SHA256, .pcrs = 1u << 7,
				     .blob = blob, .blob_len = sizeof blob, .policy_hash = policy,
				     .policy_hash_len = sizeof policy, .primary = w.primary, .primary_pub = &w.pub,
				     .salt = NULL, .session = &w.session };
	size_t slen;
	char err[256];
	f.ncc = f.nflushed = 0;
	int rc = hi_tpm2_unseal(fake_xfer, &f, &q, secret, sizeof secret, &slen, err, sizeof err);
	tap_ok(rc == TPM2_POLICY_CHANGED && f.cc[0] == 0x157 && f.cc[1] == 0x17f && f.cc[2] == 0x15e && f.cc[3] == 0x189,
	       "the unseal starts at Load, then PolicyPCR in the session given, the Unseal (the fake refuses its "
	       "policy), then the digest");
	tap_contains(err, "the policy of PCR 7 (sha256 bank) is not the one the key was sealed to", "named by the digest");
	tap_ok(f.nflushed == 2 && f.flushed[0] == 0x03000000 && f.flushed[1] == 0x80000001,
	       "the unseal flushes its session and object, not the warm-up's primary");
	tap_ok(all_zero(&w.session, sizeof w.session), "the session it was given is wiped after its one use");

	f.nflushed = 0;
	tap_ok(hi_tpm2_warmup_flush(&w, fake_xfer, &f, why, sizeof why) == 0 && f.nflushed == 1 &&
	       f.flushed[0] == 0x80000000 && w.primary == 0, "the warm-up's flush: its primary");
	tap_ok(hi_tpm2_warmup_flush(&w, fake_xfer, &f, why, sizeof why) == 0 && f.nflushed == 1,
	       "a second flush sends nothing");
}

static void test_refused(void)
{
	static struct tpm2_warm w;
	struct fake f = { .refuse_secret = 0x98e };

	hi_tpm2_warmup_start(&w, TPM_ALG_ECC, fake_xfer, &f, fake_release);
	tap_ok(hi_tpm2_warmup_join(&w, TPM2_WARMUP_JOIN_MS) == 0 && w.rc < 0, "PolicySecret refused: the warm-up failed");
	tap_contains(w.why, "PolicySecret (the SRK's authorization): ", "its reason names the command");
	tap_ok(w.primary == 0 && f.nflushed == 2 && f.flushed[1] == 0x80000000 && !w.salted,
	       "the thread flushed its primary itself: nothing loaded, no salt");

	static struct tpm2_warm d;
	struct fake dead = { .dead = true };
	hi_tpm2_warmup_start(&d, TPM_ALG_ECC, fake_xfer, &dead, fake_release);
	tap_ok(hi_tpm2_warmup_join(&d, TPM2_WARMUP_JOIN_MS) == 0 && d.rc < 0 && d.primary == 0 && dead.released == 1,
	       "a TPM that does not answer: failed, nothing loaded, the TPM let go");
	tap_contains(d.why, "CreatePrimary (ECC P-256): no answer within 10 ms", "its reason names the command and why");
}

static void test_abandoned(void)
{
	static struct tpm2_warm w;
	static struct fake f = { .slow_ms = 300 };

	hi_tpm2_warmup_start(&w, TPM_ALG_ECC, fake_xfer, &f, fake_release);
	tap_ok(hi_tpm2_warmup_join(&w, 20) == -1, "not done within the join's bound: abandoned");
	tap_contains(w.why, "not done within 20 ms", "it says so");
	tap_ok(hi_tpm2_warmup_join(&w, 20) == -1, "an abandoned warm-up stays abandoned");
	for (int i = 0; i < 1000 && !__atomic_load_n(&f.released, __ATOMIC_SEQ_CST); i++) {
		struct timespec t = { 0, 10 * 1000000 };
		nanosleep(&t, NULL);
	}
	tap_ok(__atomic_load_n(&f.released, __ATOMIC_SEQ_CST) == 1, "its thread let the TPM go when it was done");
	tap_ok(f.nflushed >= 2 && f.flushed[f.nflushed - 1] == 0x80000000,
	       "and flushed the primary it made first: no one else would");
}

int main(void)
{
	test_commands();
	test_ready();
	test_refused();
	test_abandoned();
	return tap_done();
}
