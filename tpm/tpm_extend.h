/* Extending a PCR the way systemd does (systemd 252: systemd-pcrphase,
 * and the volume-key measurement of later systemd-cryptsetup): the data is
 * hashed here, in every bank systemd would pick, and the digests go to
 * the TPM in one TPM2_PCR_Extend. The banks (tpm2_get_good_pcr_banks):
 * those with all of PCRs 0-23 allocated whose value of the PCR is
 * neither all zeros nor all ones (something measured into it already);
 * when none is, every bank with PCRs 0-23. With a key, each bank's digest
 * is that bank's HMAC of the data under the key (so a volume key is not
 * revealed). A bank whose hash hardinit lacks (sm3_256) is an error, as
 * in systemd. */
#ifndef HARDINIT_TPM_EXTEND_H
#define HARDINIT_TPM_EXTEND_H

#include <stddef.h>
#include <stdint.h>

#include "tpm.h"
#include "tpm2_unseal.h"     /* tpm_xfer_fn */

/* The digest of data (or its HMAC under key, keylen > 0) in bank alg.
 * Returns 0, or -1 for a hash hardinit does not carry. */
int hi_tpm_bank_digest(uint16_t alg, const uint8_t *key, size_t keylen, const void *data, size_t len,
		    struct tpm_digest *out);

/* systemd's choice of banks for PCR pcr, from the active banks and each
 * one's value of the PCR (value[i] for banks->alg[i]; size 0: unread).
 * Writes the chosen algorithms to algs; returns how many. */
size_t hi_tpm_good_banks(const struct tpm_banks *banks, const struct tpm_digest *value, unsigned pcr, uint16_t *algs);

/* Extend PCR pcr through xfer with data (HMAC'd under key when keylen >
 * 0) in the banks above. done gets the digests extended. Returns 0; -1
 * (err says why: no answer, a response that does not parse, no bank, an
 * unknown hash) or a TPM response code > 0 (tpm_rc_text). */
long hi_tpm_extend_measure(tpm_xfer_fn xfer, void *ctx, unsigned pcr, const uint8_t *key, size_t keylen,
			const void *data, size_t len, struct tpm_digests *done, char *err, size_t errlen);

/* hi_tpm_extend_at's answer when no node could be opened: a value no TPM
 * response code can take (they are > 0), so a TPM that answers code 1 is
 * never taken for an absent one. */
#define TPM_EXTEND_NO_NODE (-2L)

/* hi_tpm_extend_measure through dev_dir's TPM_USE_EXTEND node
 * (tpm/tpm_dev.c), opened here and closed after, each command bounded by
 * timeout_ms; path gets the node. Returns 0 with done; TPM_EXTEND_NO_NODE
 * when no node could be opened (errno kept, err saying which and why); -1
 * or a TPM response code > 0 as hi_tpm_extend_measure. */
long hi_tpm_extend_at(const char *dev_dir, int timeout_ms, unsigned pcr, const uint8_t *key, size_t keylen,
		      const void *data, size_t len, struct tpm_digests *done, char *path, size_t pathcap, char *err,
		      size_t errlen);

/* "sha1, sha256": the banks of d, as systemd's log line names them. */
void hi_tpm_digests_banks(const struct tpm_digests *d, char *out, size_t cap);

#endif
