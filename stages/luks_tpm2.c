/* The luks stage's TPM2 unlock (systemd-cryptenroll's systemd-tpm2 token):
 * the token is block/'s (luks2_tpm2_token), the unseal tpm/'s
 * (tpm2_unseal); here they meet the keyslot. systemd-cryptenroll enrolls
 * the base64 of the sealed secret as the keyslot's passphrase, and
 * systemd-cryptsetup unlocks with that text: so does this. Pure of the
 * boot context (the TPM comes through a transfer callback), so
 * build/tools/luks2-tool runs it against swtpm. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base64.h"
#include "boot.h"
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

/* One token: 0 opened, 2 refused by the TPM, -1 error. */
static int try_token(const struct luks2_hdr *h, const struct hi_luks2_tpm2_token *t, tpm_xfer_fn xfer, void *xctx,
		     struct tpm2_warm *warm, const char *pin, const char *pcrsig, size_t pcrsig_len, luks2_read_fn rd, void *rctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
		     int *slot, char *err, size_t errlen)
{
	struct tpm2_unseal_req q = {
		.primary_alg = t->primary_alg, .pcr_bank = t->pcr_bank, .pcrs = t->pcrs, .pubkey_pcrs = t->pubkey_pcrs,
		.blob = t->blob, .blob_len = t->blob_len, .policy_hash = t->policy_hash,
		.policy_hash_len = t->policy_hash_len, .pin = t->pin ? pin : NULL,
		.pubkey = t->pubkey, .pubkey_len = t->pubkey_len, .pcrsig = pcrsig, .pcrsig_len = pcrsig_len,
		.srk = t->srk, .srk_len = t->srk_len,
	};
	const struct luks2_digest *seg = hi_luks2_segment_digest(h, 0);

	/* Refusals before any TPM command: none of them may spend a try of
	 * the TPM's dictionary-attack lockout. */
	if (!seg || !(seg->keyslots & t->keyslots)) {
		snprintf(err, errlen, "skipped: none of its keyslots is one segment 0's digest names, so no key it "
			 "unseals could open the volume");
		return -1;
	}
	if (t->pin && (!pin || !pin[0])) {
		snprintf(err, errlen, "skipped: it wants a PIN and none was typed (an empty PIN would spend a try of "
			 "the TPM's lockout)");
		return -1;
	}
	/* The warm-up's primary when it is the token's (systemd 252 makes an
	 * ECC one first; an RSA token takes the whole path; a token sealed
	 * under the SRK has its own parent), and its session (or salt) for
	 * the first unseal only. */
	if (warm && warm->primary && warm->alg == t->primary_alg && !t->srk_len) {
		q.primary = warm->primary;
		q.primary_pub = &warm->pub;
		q.salt = warm->salted ? &warm->salt : NULL;
		q.session = warm->session.handle ? &warm->session : NULL;
		warm->salted = false;
	}
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
	if (q.pin && t->salt_len) {
		/* systemd 254 and later: the PIN through PBKDF2 with the
		 * token's salt; that text is what the TPM's authValue hashes. */
		if (hi_tpm2_pin_salted(q.pin, t->salt, t->salt_len, salted) < 0) {
			snprintf(err, errlen, "the PIN could not be derived with the token's tpm2_salt");
			goto out;
		}
		q.pin = salted;
	}
	uint64_t start = hi_boottime_ns();
	int u = hi_tpm2_unseal(xfer, xctx, &q, secret, TPM2_SECRET_MAX, &slen, err, errlen);
	unseal_ns = hi_boottime_ns() - start;
	unseal_warm = q.primary != 0;
	if (q.salt)                      /* tpm2_unseal wiped them; so does this */
		explicit_bzero(q.salt, sizeof *q.salt);
	if (q.session)
		explicit_bzero(q.session, sizeof *q.session);
	if (u == TPM2_POLICY_CHANGED || u == TPM2_PIN_WRONG) {
		rc = 2;
	} else if (u == TPM2_UNSEALED) {
		int plen = hi_base64_encode(secret, slen, pass, 1024);
		rc = -1;
		for (int k = 0; k < LUKS2_KEYSLOTS_MAX && plen > 0; k++) {
			if (!(t->keyslots & seg->keyslots & 1u << k))
				continue;
			int o = hi_luks2_keyslot_open(h, k, (const uint8_t *)pass, (size_t)plen, rd, rctx, dec, vk, vklen, err,
						   errlen);
			/* The key is segment 0's only if its digest says so
			 * (the keyslot's own digest may be another one). */
			if (o == 0 && hi_luks2_digest_check(seg, vk, *vklen) != 1) {
				explicit_bzero(vk, LUKS2_KEY_MAX);
				*vklen = 0;
				snprintf(err, errlen, "keyslot %d opened, but its key is not the one segment 0's digest "
					 "describes", k);
				continue;
			}
			if (o == 0) {
				*slot = k;
				rc = 0;
				break;
			}
			if (o > 0)
				snprintf(err, errlen, "the unsealed key does not open keyslot %d: the token is stale", k);
		}
	}
out:
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
		int r = try_token(h, &t, xfer, xctx, warm, pin, pcrsig, pcrsig_len, rd, rctx, dec, vk, vklen, slot, why, sizeof why);
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
