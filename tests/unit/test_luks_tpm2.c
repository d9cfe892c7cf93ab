/* Unit tests: the luks stage's TPM2 tokens (stages/luks_tpm2.c) against a
 * scripted TPM that counts what it is sent. What must never reach the
 * TPM, because a policy that cannot succeed would still spend a try of
 * its dictionary-attack lockout (or unseal a key for the wrong keyslot):
 * a token with a field this reader cannot honour, a PIN token with no
 * PIN or an empty one, a token whose keyslot segment 0's digest does not
 * name. A token that passes those checks does reach it (the control).
 * The token is systemd-cryptenroll 257's (tests/unit/test_luks2_token.c). */
#include <stdio.h>
#include <string.h>

#include "luks2.h"
#include "luks2_json.h"
#include "luks_tpm2.h"
#include "tap.h"

static const char token257[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AJ4AIIeOi20vOnFUMd1/L67RLst8RRci4Q9Dum6/UUzN"
	"fiEWABCSnrMD1p4AaRDjEsSZMRMjbs2VMW0wvgVmw+q7Kz1BzFQ3OyuXlketOcArAa/q3w+q/lvDiIwiZHJJ66wERFI1ANYQqZuo0D1a5hIfOHZM"
	"haYVDdmk02S/4Q5AR1rE6oyM1XIdJjm718Sz7ZE71ZOGXXR5SDJk0PLAWgBOAAgACwAAABIAILjbkvrnweDFiOc1LS/BDyfHs4TjL3BqUgyxC/f/"
	"7olwABAAILJz2t6n7b38VIS/VdBfrmiHjf7liRbjuXEWQ0vycWsj\",\"tpm2-pcrs\":[7],\"tpm2-pcr-bank\":\"sha256\","
	"\"tpm2-primary-alg\":\"ecc\",\"tpm2-policy-hash\":\"b8db92fae7c1e0c588e7352d2fc10f27c7b384e32f706a520cb10bf7ffee8970\","
	"\"tpm2-pin\":true%s,\"tpm2_salt\":\"zkkxdM+xRsfWZujUacGvk6DqpuDZwuWqvnVm3u1exUg=\",\"tpm2_srk\":\"gQAAAQAiAAutdl8A0P"
	"hQOM89qoWcVkAwsrdL1wmJI/+d7ECgGC73gwAAAAEAWgAjAAsAAwRyAAAABgCAAEMAEAADABAAIAzwFhe+PS59LPLyOnn5JgzCCpzQwzfxmtWISz4m"
	"QD+jACDD3jYbiOi450eYMl/j43d0gCvQsnJtE5N2FCSVowIu0g==\"}";

/* A TPM that answers every command with TPM_RC_FAILURE and counts them. */
static int calls;

static int count_xfer(void *ctx, const uint8_t *c, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		      size_t errlen)
{
	static const uint8_t failure[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x01 };
	(void)ctx, (void)c, (void)len, (void)cap, (void)err, (void)errlen;
	calls++;
	memcpy(resp, failure, sizeof failure);
	*rlen = sizeof failure;
	return 0;
}

static int no_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx, (void)off, (void)buf, (void)len;
	return -1;
}

static int no_decrypt(const char *spec, const uint8_t *key, size_t keylen, uint8_t *buf, size_t len, char *err,
		      size_t errlen)
{
	(void)spec, (void)key, (void)keylen, (void)buf, (void)len;
	snprintf(err, errlen, "no cipher here");
	return -1;
}

static struct luks2_hdr h;
static char json[4096], err[LUKS2_ERR_MAX];

/* A header of keyslots 0 and 1, token 0 (token257 with extra fields in
 * place of %s), digest 0 over segment 0 naming the keyslots seg0_slots. */
static void header(const char *extra, uint32_t seg0_slots)
{
	memset(&h, 0, sizeof h);
	snprintf(json, sizeof json, token257, extra);
	h.json = json;
	h.json_len = strlen(json);
	h.token[0].used = true;
	snprintf(h.token[0].type, sizeof h.token[0].type, "systemd-tpm2");
	h.token[0].off = 0;
	h.token[0].len = h.json_len;
	for (int k = 0; k < 2; k++) {
		h.keyslot[k].used = h.keyslot[k].usable = true;
		h.keyslot[k].priority = 1;
	}
	h.segment[0].used = true;
	h.digest[0].used = true;
	h.digest[0].segments = 1;
	h.digest[0].keyslots = seg0_slots;
	if (seg0_slots != 3) {               /* the token's keyslot in a digest of no segment */
		h.digest[1].used = true;
		h.digest[1].keyslots = 3 & ~seg0_slots;
	}
}

static int open_with(const char *pin)
{
	uint8_t vk[LUKS2_KEY_MAX];
	size_t vklen = 0;
	int slot = -1, token = -1;
	uint32_t pcrs = 0, signed_pcrs = 0;

	calls = 0;
	return hi_luks_tpm2_open(&h, count_xfer, NULL, NULL, pin, NULL, 0, no_read, NULL, no_decrypt, vk, &vklen, &slot,
				 &token, &pcrs, &signed_pcrs, err, sizeof err);
}

int main(void)
{
	int rc;

	header("", 3);
	rc = open_with("1234");
	tap_ok(rc < 0 && calls > 0, "control: systemd 257's PIN token with a PIN reaches the TPM (%d commands)",
	       calls);
	tap_ok(hi_luks_tpm2_wants_pin(&h), "control: it wants a PIN");

	rc = open_with(NULL);
	tap_ok(rc < 0 && calls == 0, "a PIN token and no PIN typed: skipped, no command sent (%d)", calls);
	tap_contains(err, "token 0: skipped: it wants a PIN and none was typed", "says so");
	rc = open_with("");
	tap_ok(rc < 0 && calls == 0, "an empty PIN: skipped, not sent (%d)", calls);

	header(",\"tpm2_pcrlock\":true", 3);
	rc = open_with("1234");
	tap_ok(rc < 0 && calls == 0, "tpm2_pcrlock true: skipped, no command sent (%d)", calls);
	tap_contains(err, "token 0: skipped: its field \"tpm2_pcrlock\"", "names the field");
	tap_ok(!hi_luks_tpm2_wants_pin(&h), "a token that is skipped asks for no PIN");

	header(",\"tpm2_policy_future\":{\"x\":1}", 3);
	rc = open_with("1234");
	tap_ok(rc < 0 && calls == 0, "an unknown tpm2_ field: skipped, no command sent (%d)", calls);
	tap_contains(err, "its field \"tpm2_policy_future\"", "names the field");

	header("", 1);                        /* segment 0's digest names keyslot 0 only; the token has keyslot 1 */
	rc = open_with("1234");
	tap_ok(rc < 0 && calls == 0,
	       "the token's keyslot is not one segment 0's digest names: skipped, no command sent (%d)", calls);
	tap_contains(err, "none of its keyslots is one segment 0's digest names", "says so");
	tap_ok(!hi_luks_tpm2_wants_pin(&h), "and no PIN is asked for it");
	return tap_done();
}
