/* The luks stage's TPM2 tokens (stages/luks_tpm2.c): systemd-tpm2 tokens
 * unsealed and their keyslots opened. */
#ifndef HARDINIT_LUKS_TPM2_H
#define HARDINIT_LUKS_TPM2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luks2.h"
#include "tpm2_unseal.h"

struct tpm2_warm;

/* The systemd-tpm2 tokens of h, tried in order (stages/luks_tpm2.c): each
 * unsealed through xfer, the secret base64-encoded as systemd-cryptenroll
 * enrolled it (the keyslot's passphrase), and the token's keyslot opened
 * with it. pin: NULL, or the PIN for a token with tpm2-pin. Returns 0
 * with vk, *slot and *token set; 1 when h has no systemd-tpm2 token; 2
 * when the TPM refused every token (err: why, for the fallback's
 * warning); -1 error (err). *pcrs gets the PCRs the opening token binds
 * by value, *signed_pcrs those of its signed policy (PolicyAuthorize).
 * pcrsig: tpm2-pcr-signature.json's text (pcrsig_len bytes), NULL when
 * none was found; a token with a signed policy is refused without it.
 * warm: a joined warm-up (tpm/tpm2_warmup.h) whose primary was made
 * through the same TPM device as xfer, or NULL: a token of its primary's
 * algorithm starts from it, the first one with its salt. A token is
 * skipped before any TPM command (err saying why; -1 when no other
 * opens) when it has a field block/ could not honour, wants a PIN and pin
 * is NULL or empty, or names no keyslot segment 0's digest names; the key
 * a keyslot gives must pass segment 0's digest. */
int hi_luks_tpm2_open(const struct luks2_hdr *h, tpm_xfer_fn xfer, void *xctx, struct tpm2_warm *warm, const char *pin,
		   const char *pcrsig,
		   size_t pcrsig_len, luks2_read_fn rd, void *rctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
		   int *slot, int *token, uint32_t *pcrs, uint32_t *signed_pcrs, char *err, size_t errlen);

/* The time the last token's unseal took at the TPM (ns), the keyslot's
 * KDF not included: the report's luks unseal_ms. */
uint64_t hi_luks_tpm2_unseal_ns(void);
/* Did the last token's unseal start from the warm-up's primary? */
bool hi_luks_tpm2_unseal_warm(void);

/* The signature file of a signed PCR policy, where systemd 252 finds it
 * in an initrd: systemd-stub's /.extra/ (from the UKI's .pcrsig section),
 * then RUN/systemd/, then the initramfs's /etc/systemd/ and
 * /usr/lib/systemd/ (a builder that embedded one); the initramfs's root is
 * the directory above config_path's /etc. The file is untrusted: the TPM
 * checks its signature. Its text into buf and its length, with found its
 * path, or -1 (none). */
#define LUKS_PCRSIG "tpm2-pcr-signature.json"
long hi_luks_tpm2_pcrsig_read(const char *config_path, const char *run, char *buf, size_t cap, char *found,
			      size_t foundcap);

/* How a token opened the volume, for the log and the report: "tpm2 (token
 * 0, PCRs 7, signed policy PCRs 11)". */
void hi_luks_tpm2_how(char *how, size_t howcap, int token, uint32_t pcrs, uint32_t signed_pcrs);

/* Does h have a systemd-tpm2 token that wants a PIN? */
bool hi_luks_tpm2_wants_pin(const struct luks2_hdr *h);

#endif
