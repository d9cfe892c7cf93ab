/* One TPM2 command and its response over a file descriptor: /dev/tpmrm0
 * (the kernel's resource manager: one write, one read) or a stream that
 * may return the response in pieces (swtpm's socket, in tests). Bounded:
 * the response's own size, at most cap bytes, within timeout_ms. */
#ifndef HARDINIT_TPM_DEV_H
#define HARDINIT_TPM_DEV_H

#include <stddef.h>
#include <stdint.h>

#define TPM_DEV_TIMEOUT_MS 10000    /* an RSA-2048 CreatePrimary takes seconds on slow TPMs */

struct tpm_dev {
	int fd;
	int timeout_ms;
};

/* A tpm_xfer_fn (tpm/tpm2_unseal.h) over ctx, a struct tpm_dev. */
int hi_tpm_dev_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		 size_t errlen);

#endif
