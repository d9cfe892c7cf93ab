/* The luks stage's TPM2 unlock (systemd-cryptenroll's systemd-tpm2 token):
 * the token is block/'s (luks2_tpm2_token), the unseal tpm/'s
 * (tpm2_unseal); here they meet the keyslot. systemd-cryptenroll enrolls
 * the base64 of the sealed secret as the keyslot's passphrase, and
 * systemd-cryptsetup unlocks with that text: so does this. Pure of the
 * boot context (the TPM comes through a transfer callback), so
 * build/tools/luks2-tool runs it against swtpm. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base64.h"
#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "luks2.h"
#include "luks2_hdr.h"
#include "luks2_json.h"
#include "luks2_keyslot.h"
#include "luks_plan.h"
#include "luks_tpm2.h"
#include "report.h"
#include "tpm2_unseal.h"
#include "tpm2_warmup.h"

/* The last tpm2_unseal's time (CreatePrimary to Unseal), for the report,
 * and whether it started from the warm-up's primary. */
static uint64_t unseal_ns;
static bool unseal_warm;

uint64_t hi_luks_tpm2_unseal_ns(void)
{
	return unseal_ns;
}

bool hi_luks_tpm2_unseal_warm(void)
{
	return unseal_warm;
}

/* How a token reaches the TPM and the volume's keyslot area. */
struct luks_tpm2_io {
	tpm_xfer_fn xfer;
	void *xctx;
	luks2_read_fn rd;
	void *rctx;
	luks2_decrypt_fn dec;
};

/* Refusals before any TPM command, none of which may spend a try of the
 * TPM's dictionary-attack lockout: segment 0's digest when the token may
 * be tried, else NULL with err. */
static const struct luks2_digest *token_usable(const struct luks2_hdr *h, const struct hi_luks2_tpm2_token *t,
					       const char *pin, char *err, size_t errlen)
{
	const struct luks2_digest *seg = hi_luks2_segment_digest(h, 0);

	if (!seg || !(seg->keyslots & t->keyslots)) {
		snprintf(err, errlen, "skipped: none of its keyslots is one segment 0's digest names, so no key it "
			 "unseals could open the volume");
		return NULL;
	}
	if (t->pin && (!pin || !pin[0])) {
		snprintf(err, errlen, "skipped: it wants a PIN and none was typed (an empty PIN would spend a try of "
			 "the TPM's lockout)");
		return NULL;
	}
	return seg;
}

/* The warm-up's primary when it is the token's (systemd 252 makes an
 * ECC one first; an RSA token takes the whole path; a token sealed under
 * the SRK has its own parent), and its session (or salt) for the first
 * unseal only. */
static void from_warmup(struct tpm2_unseal_req *q, struct tpm2_warm *warm, const struct hi_luks2_tpm2_token *t)
{
	if (!warm || !warm->primary || warm->alg != t->primary_alg || t->srk_len)
		return;
	q->primary = warm->primary;
	q->primary_pub = &warm->pub;
	q->salt = warm->salted ? &warm->salt : NULL;
	q->session = warm->session.handle ? &warm->session : NULL;
	warm->salted = false;
}

/* The token's keyslots opened with the unsealed secret's base64 (pass):
 * 0 with *slot, -1 with err. The key is segment 0's only if its digest
 * says so (the keyslot's own digest may be another one). */
static int open_keyslots(const struct luks2_hdr *h, const struct hi_luks2_tpm2_token *t, const struct luks2_digest *seg,
			 const char *pass, size_t plen, const struct luks_tpm2_io *io, uint8_t *vk, size_t *vklen,
			 int *slot, char *err, size_t errlen)
{
	for (int k = 0; k < LUKS2_KEYSLOTS_MAX && plen > 0; k++) {
		if (!(t->keyslots & seg->keyslots & 1u << k))
			continue;
		int o = hi_luks2_keyslot_open(h, k, (const uint8_t *)pass, plen, io->rd, io->rctx, io->dec, vk, vklen, err,
					   errlen);
		if (o == 0 && hi_luks2_digest_check(seg, vk, *vklen) != 1) {
			explicit_bzero(vk, LUKS2_KEY_MAX);
			*vklen = 0;
			snprintf(err, errlen, "keyslot %d opened, but its key is not the one segment 0's digest describes", k);
			continue;
		}
		if (o == 0) {
			*slot = k;
			return 0;
		}
		if (o > 0)
			snprintf(err, errlen, "the unsealed key does not open keyslot %d: the token is stale", k);
	}
	return -1;
}

/* The unseal, timed for the report; the warm-up's salt and session wiped
 * after, used or not. */
static int unseal(struct tpm2_unseal_req *q, const struct luks_tpm2_io *io, uint8_t *secret, size_t *slen, char *err,
		  size_t errlen)
{
	uint64_t start = hi_boottime_ns();
	int u = hi_tpm2_unseal(io->xfer, io->xctx, q, secret, TPM2_SECRET_MAX, slen, err, errlen);

	unseal_ns = hi_boottime_ns() - start;
	unseal_warm = q->primary != 0;
	if (q->salt)                     /* tpm2_unseal wiped them; so does this */
		explicit_bzero(q->salt, sizeof *q->salt);
	if (q->session)
		explicit_bzero(q->session, sizeof *q->session);
	return u;
}

/* One token: 0 opened, 2 refused by the TPM, -1 error. */
static int try_token(const struct luks2_hdr *h, const struct hi_luks2_tpm2_token *t, const struct luks_tpm2_io *io,
		     struct tpm2_warm *warm, const char *pin, const char *pcrsig, size_t pcrsig_len, uint8_t *vk,
		     size_t *vklen, int *slot, char *err, size_t errlen)
{
	struct tpm2_unseal_req q = {
		.primary_alg = t->primary_alg, .pcr_bank = t->pcr_bank, .pcrs = t->pcrs, .pubkey_pcrs = t->pubkey_pcrs,
		.blob = t->blob, .blob_len = t->blob_len, .policy_hash = t->policy_hash,
		.policy_hash_len = t->policy_hash_len, .pin = t->pin ? pin : NULL,
		.pubkey = t->pubkey, .pubkey_len = t->pubkey_len, .pcrsig = pcrsig, .pcrsig_len = pcrsig_len,
		.srk = t->srk, .srk_len = t->srk_len,
	};
	const struct luks2_digest *seg = token_usable(h, t, pin, err, errlen);

	if (!seg)
		return -1;
	from_warmup(&q, warm, t);
	/* The secret and its base64 in one locked page, never swapped or dumped. */
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t slen = 0;
	int rc = -1;

	if (page == MAP_FAILED) {
		snprintf(err, errlen, "no memory for the secret");
		return -1;
	}
	mlock(page, 4096);
	madvise(page, 4096, MADV_DONTDUMP);
	uint8_t *secret = page;
	char *pass = (char *)page + 1024;
	char *salted = (char *)page + 3072;
	/* systemd 254 and later: the PIN through PBKDF2 with the token's
	 * salt; that text is what the TPM's authValue hashes. */
	if (q.pin && t->salt_len && hi_tpm2_pin_salted(q.pin, t->salt, t->salt_len, salted) < 0)
		snprintf(err, errlen, "the PIN could not be derived with the token's tpm2_salt");
	else {
		if (q.pin && t->salt_len)
			q.pin = salted;
		int u = unseal(&q, io, secret, &slen, err, errlen);
		if (u == TPM2_POLICY_CHANGED || u == TPM2_PIN_WRONG)
			rc = 2;
		else if (u == TPM2_UNSEALED) {
			int plen = hi_base64_encode(secret, slen, pass, 1024);
			rc = plen > 0 ? open_keyslots(h, t, seg, pass, (size_t)plen, io, vk, vklen, slot, err, errlen) : -1;
		}
	}
	explicit_bzero(page, 4096);
	munlock(page, 4096);
	munmap(page, 4096);
	return rc;
}

bool hi_luks_tpm2_wants_pin(const struct luks2_hdr *h)
{
	static struct hi_luks2_tpm2_token t;
	char err[LUKS2_ERR_MAX];
	const struct luks2_digest *seg = hi_luks2_segment_digest(h, 0);
	/* Only for a token that would be tried (try_token's own checks). */
	for (int i = 0; i < LUKS2_TOKENS_MAX; i++)
		if (h->token[i].used && !strcmp(h->token[i].type, "systemd-tpm2") &&
		    hi_luks2_tpm2_token(h, i, &t, err, sizeof err) == 0 && t.pin && !t.unsupported[0] && seg &&
		    (seg->keyslots & t.keyslots))
			return true;
	return false;
}

int hi_luks_tpm2_open(const struct luks2_hdr *h, tpm_xfer_fn xfer, void *xctx, struct tpm2_warm *warm, const char *pin,
		   const char *pcrsig,
		   size_t pcrsig_len, luks2_read_fn rd, void *rctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
		   int *slot, int *token, uint32_t *pcrs, uint32_t *signed_pcrs, char *err, size_t errlen)
{
	static struct hi_luks2_tpm2_token t;    /* 3 KiB: not on PID 1's stack */
	const struct luks_tpm2_io io = { xfer, xctx, rd, rctx, dec };
	char why[LUKS2_ERR_MAX];
	int rc = 1;

	err[0] = '\0';
	for (int i = 0; i < LUKS2_TOKENS_MAX; i++) {
		if (!h->token[i].used || strcmp(h->token[i].type, "systemd-tpm2") != 0)
			continue;
		if (hi_luks2_tpm2_token(h, i, &t, why, sizeof why) < 0) {
			snprintf(err, errlen, "token %d: %s", i, why);
			rc = -1;
			continue;
		}
		if (t.unsupported[0]) {
			snprintf(err, errlen, "token %d: skipped: its field \"%s\" asks for a policy hardinit cannot "
				 "satisfy (no TPM command sent, no lockout try spent)", i, t.unsupported);
			rc = -1;
			continue;
		}
		int r = try_token(h, &t, &io, warm, pin, pcrsig, pcrsig_len, vk, vklen, slot, why, sizeof why);
		if (r == 0) {
			*token = i;
			*pcrs = t.pcrs;
			*signed_pcrs = t.pubkey_pcrs;
			return 0;
		}
		snprintf(err, errlen, "token %d: %s", i, why);
		rc = r == 2 && rc != -1 ? 2 : -1;
	}
	return rc;
}

long hi_luks_tpm2_pcrsig_read(const char *config_path, const char *run, char *buf, size_t cap, char *found,
			      size_t foundcap)
{
	const char *slash = strrchr(config_path, '/');
	int etc = slash ? (int)(slash - config_path) : 0;
	int root = etc;
	while (root > 0 && config_path[root - 1] != '/')
		root--;
	root = root > 0 ? root - 1 : 0;
	char paths[4][BOOT_PATH_MAX];
	snprintf(paths[0], sizeof paths[0], "%.*s/.extra/%s", root, config_path, LUKS_PCRSIG);
	snprintf(paths[1], sizeof paths[1], "%s/systemd/%s", run, LUKS_PCRSIG);
	snprintf(paths[2], sizeof paths[2], "%.*s/systemd/%s", etc, config_path, LUKS_PCRSIG);
	snprintf(paths[3], sizeof paths[3], "%.*s/usr/lib/systemd/%s", root, config_path, LUKS_PCRSIG);
	for (int i = 0; i < 4; i++) {
		size_t len = 0;
		if (hi_fs_read(paths[i], buf, cap, &len) == 0) {
			snprintf(found, foundcap, "%s", paths[i]);
			return (long)len;
		}
		if (errno != ENOENT)
			log_warn("luks: cannot read %s: %s; the signed PCR policy looks for the next file",
				 paths[i], errno == E2BIG ? "larger than 64 KiB" : strerror(errno));
	}
	return -1;
}

void hi_luks_tpm2_how(char *how, size_t howcap, int token, uint32_t pcrs, uint32_t signed_pcrs)
{
	size_t n = (size_t)snprintf(how, howcap, "tpm2 (token %d, PCRs", token);

	for (unsigned i = 0; i < 24 && n < howcap; i++)
		if (pcrs & 1u << i)
			n += (size_t)snprintf(how + n, howcap - n, " %u", i);
	if (n < howcap)
		n += (size_t)snprintf(how + n, howcap - n, "%s", pcrs ? "" : " none");
	if (signed_pcrs && n < howcap) {
		/* systemd 252's signed policy: PolicyAuthorize over these PCRs. */
		n += (size_t)snprintf(how + n, howcap - n, ", signed policy PCRs");
		for (unsigned i = 0; i < 24 && n < howcap; i++)
			if (signed_pcrs & 1u << i)
				n += (size_t)snprintf(how + n, howcap - n, " %u", i);
	}
	if (n < howcap)
		snprintf(how + n, howcap - n, ")");
}
