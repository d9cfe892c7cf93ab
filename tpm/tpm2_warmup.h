/* The TPM's fixed costs of an unseal taken off PID 1's path
 * (tpm/tpm2_warmup.c): on a thread, while the boot does other work, the
 * primary key systemd-cryptenroll seals under is made and kept loaded
 * (CreatePrimary with systemd's SRK template), the TPM's first
 * dictionary-attack mark of this power cycle is made on it (one
 * authorization of the SRK: a TPM built on the reference code answers
 * that with TPM_RC_RETRY while it writes its NV, and Linux sleeps 20 ms
 * before sending it again), and the unseal's salted policy session is
 * started to it (the salt encrypted to it: an ECDH on each side, the
 * slowest command left). tpm2_unseal then starts at Load with that
 * primary and session (struct tpm2_unseal_req's primary, primary_pub,
 * session; or the salt alone when the session could not start). The thread
 * talks through a tpm_xfer_fn, so a test drives it against swtpm's socket
 * or a stand-in, and the luks stage against /dev/tpm0, where a transient
 * object outlives the fd (it would not through tpmrm0's resource
 * manager). The join is bounded: a warm-up not done by then is abandoned,
 * and its thread flushes what it made itself before it lets the TPM go. */
#ifndef HARDINIT_TPM2_WARMUP_H
#define HARDINIT_TPM2_WARMUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm.h"
#include "worker.h"
#include "tpm2_session.h"
#include "tpm2_unseal.h"
#include "tpm_dev.h"

#define TPM2_WARMUP_PATH_MAX 256
#define TPM2_WARMUP_JOIN_MS 2000    /* a healthy warm-up takes tens of ms against swtpm */

struct tpm2_warm {
	/* The results, read once hi_tpm2_warmup_join returned 0. */
	int rc;                         /* 0: the primary is loaded */
	char why[200];                  /* rc -1: what failed */
	uint16_t alg;                   /* the primary's: TPM_ALG_ECC */
	uint32_t primary;               /* its handle; 0: none loaded */
	struct tpm2_primary_pub pub;
	bool da_marked;                 /* the SRK's one authorization went through */
	bool salted;                    /* salt holds a salt to the primary, unused */
	struct tpm2_salt salt;
	struct tpm2_session session;    /* handle != 0: the salted policy session, started, unused */
	uint64_t primary_ns, da_ns, salt_ns, session_ns;   /* each step's time on the thread */

	/* The thread and its TPM. */
	tpm_xfer_fn xfer;
	void *ctx;
	void (*release)(void *ctx);     /* called by the thread when it no longer needs the TPM */
	struct hi_worker worker;         /* the thread; joined, bounded, by hi_tpm2_warmup_join */
	uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
};

/* Start the warm-up of alg's primary through xfer on a thread. release
 * (may be NULL) is called on the thread when it is done with the TPM,
 * whatever happened. 0, or -1 when no thread could start (release was
 * not called: the caller still holds the TPM). */
int hi_tpm2_warmup_start(struct tpm2_warm *w, uint16_t alg, tpm_xfer_fn xfer, void *ctx, void (*release)(void *ctx));

/* Wait at most timeout_ms for the warm-up. 0: done (w->rc says how); -1:
 * not done, abandoned: its thread flushes what it made and releases the
 * TPM by itself, and w is never to be used again but for this call and
 * hi_tpm2_warmup_wipe (w must stay allocated: it is the thread's). */
int hi_tpm2_warmup_join(struct tpm2_warm *w, int timeout_ms);

/* What a joined warm-up left in the TPM flushed through xfer (an unused
 * session, the primary), its salt and session wiped. 0, or -1 with why (the flush failed). */
int hi_tpm2_warmup_flush(struct tpm2_warm *w, tpm_xfer_fn xfer, void *ctx, char *why, size_t whylen);

/* The warm-up with the TPM it runs through: TPM_USE_WARMUP's node
 * (tpm/tpm_dev.c: the TPM itself, so the primary outlives the fd), held
 * by the thread until it is done. */
struct tpm2_warmup_tpm {
	struct tpm2_warm w;             /* the thread's: never on a stack */
	struct tpm_dev d;
	char path[TPM2_WARMUP_PATH_MAX];  /* the node opened, for messages */
};

/* Opens dev_dir's TPM_USE_WARMUP node and starts the warm-up of alg's
 * primary through it. 0, or -1 with why (no TPM there, or no thread). */
int hi_tpm2_warmup_open(struct tpm2_warmup_tpm *u, const char *dev_dir, uint16_t alg, char *why, size_t whylen);

/* After hi_tpm2_warmup_join returned 0: what the warm-up left in the TPM
 * flushed (its unused session, its primary) through the same node opened
 * again, its salt wiped. 0, or -1 with why (no node, or the flush
 * failed: the primary stays loaded until the TPM resets). */
int hi_tpm2_warmup_close(struct tpm2_warmup_tpm *u, const char *dev_dir, char *why, size_t whylen);

/* Encoders of the warm-up's own commands: a trial policy session
 * (unsalted, unbound) and PolicySecret on auth (its empty password) in
 * it. The command's length, or -1. */
long hi_tpm2_cmd_start_trial_session(uint8_t *out, size_t cap, const uint8_t nonce[TPM2_NONCE_BYTES]);
long hi_tpm2_cmd_policy_secret(uint8_t *out, size_t cap, uint32_t auth, uint32_t session);

#endif
