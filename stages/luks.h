/* The luks stage's console reader (stages/luks.c), for
 * tests/unit/test_luks2_stage.c: the passphrase line read from the
 * console. Which volumes to open is block/luks_plan.h's; the dm-crypt
 * table is block/luks2_dm.c's. */
#ifndef HARDINIT_LUKS_H
#define HARDINIT_LUKS_H

#include <stddef.h>

#include "luks2.h"
#include "luks_plan.h"
#include "tpm2_unseal.h"

/* One passphrase line from fd (up to '\n' or '\r', at most cap-1 bytes,
 * waiting at most timeout_ms for each byte). Returns its length, or -1
 * (timeout, end of input, too long). The bytes read are wiped from every
 * other buffer. */
int hi_luks_read_line(int fd, char *out, size_t cap, int timeout_ms);

/* The systemd-tpm2 tokens of h, tried in order (stages/luks_tpm2.c): each
 * unsealed through xfer, the secret base64-encoded as systemd-cryptenroll
 * enrolled it (the keyslot's passphrase), and the token's keyslot opened
 * with it. pin: NULL, or the PIN for a token with tpm2-pin. Returns 0
 * with vk, *slot and *token set; 1 when h has no systemd-tpm2 token; 2
 * when the TPM refused every token (err: why, for the fallback's
 * warning); -1 error (err). *pcrs gets the PCRs the opening token binds
 * by value, *signed_pcrs those of its signed policy (PolicyAuthorize).
 * pcrsig: tpm2-pcr-signature.json's text (pcrsig_len bytes), NULL when
 * none was found; a token with a signed policy is refused without it. */
int hi_luks_tpm2_open(const struct luks2_hdr *h, tpm_xfer_fn xfer, void *xctx, const char *pin, const char *pcrsig,
		   size_t pcrsig_len, luks2_read_fn rd, void *rctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
		   int *slot, int *token, uint32_t *pcrs, uint32_t *signed_pcrs, char *err, size_t errlen);
/* The time the last token's unseal took at the TPM (ns), the keyslot's
 * KDF not included: the report's luks unseal_ms. */
uint64_t hi_luks_tpm2_unseal_ns(void);
/* Does h have a systemd-tpm2 token that wants a PIN? */
bool hi_luks_tpm2_wants_pin(const struct luks2_hdr *h);

#endif
