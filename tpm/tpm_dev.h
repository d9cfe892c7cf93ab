/* One TPM2 command and its response over a file descriptor: /dev/tpm0 or
 * /dev/tpmrm0 (one write, one read) or a stream that may return the
 * response in pieces (swtpm's socket, in tests). Bounded: the response's
 * own size, at most cap bytes, within timeout_ms, however long the kernel
 * holds the thread that talks to the TPM (tpm_dev.c: each command on a
 * thread of its own, abandoned when it is late). */
#ifndef HARDINIT_TPM_DEV_H
#define HARDINIT_TPM_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPM_DEV_TIMEOUT_MS 10000    /* an RSA-2048 CreatePrimary takes seconds on slow TPMs */

struct tpm_dev {
	int fd;
	int timeout_ms;
	/* A command got no answer within timeout_ms: the kernel may still
	 * run it on the abandoned thread; this fd takes no other command. */
	bool stuck;
};

/* path opened read-write, close-on-exec, for hi_tpm_dev_xfer. 0, or -1
 * with errno. */
int hi_tpm_dev_open(struct tpm_dev *d, const char *path, int timeout_ms);
/* The fd closed, unless stuck (closing it would wait for the kernel's
 * command, tpm_common_release flushing its worker): left open,
 * close-on-exec. */
void hi_tpm_dev_close(struct tpm_dev *d);

/* A tpm_xfer_fn (tpm/tpm2_unseal.h) over ctx, a struct tpm_dev. */
int hi_tpm_dev_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		 size_t errlen);

#endif
