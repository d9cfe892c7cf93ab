/* The TPM's one home: which of the kernel's nodes of the first TPM a
 * caller opens, in which order, for what (enum tpm_use, each order's
 * reason in tpm_dev.c's table), and one TPM2 command and its response
 * over the fd: one write, one read on the kernel's nodes, or a stream
 * that may return the response in pieces (swtpm's socket, in tests).
 * Bounded: the response's own size, at most cap bytes, within timeout_ms,
 * however long the kernel holds the thread that talks to the TPM
 * (tpm_dev.c: each command on a thread of its own, abandoned when it is
 * late). Nothing else in hardinit names a TPM node. */
#ifndef HARDINIT_TPM_DEV_H
#define HARDINIT_TPM_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPM_DEV_TIMEOUT_MS 10000    /* an RSA-2048 CreatePrimary takes seconds on slow TPMs */

/* What a caller wants the TPM for; each has its own order of the first
 * TPM's two nodes, DEV/tpm0 (the TPM itself) and DEV/tpmrm0 (through the
 * kernel's resource manager). */
enum tpm_use {
	TPM_USE_MEASURE,   /* the measuring thread (stages/measure_queue.c): tpmrm0, then tpm0 */
	TPM_USE_EXTEND,    /* systemd's extends: the boot phases (PCR 11), a LUKS volume's identity: tpmrm0 only */
	TPM_USE_UNSEAL,    /* a systemd-tpm2 token's unseal: tpm0, then tpmrm0 */
	TPM_USE_WARMUP,    /* the unseal's warm-up (tpm/tpm2_warmup.h): tpm0 only */
	TPM_USE_COUNT
};

struct tpm_dev {
	int fd;
	int timeout_ms;
	/* A command got no answer within timeout_ms: the kernel may still
	 * run it on the abandoned thread; this fd takes no other command. */
	bool stuck;
	/* Opened through tpm0, the TPM itself: a transient object it loads
	 * outlives the fd (through tpmrm0 the resource manager flushes it
	 * with the fd, and no other fd sees it). */
	bool direct;
	/* Since the open: the commands sent and the time spent in them (the
	 * kernel driver's waits and the TPM's own work), for the report. */
	unsigned cmds;
	uint64_t busy_ns;
};

/* The first node of use's order under dev_dir that exists, into path:
 * true; false when none does (path then names the order's first). For a
 * caller that asks whether there is a TPM without opening it. */
bool hi_tpm_dev_path(const char *dev_dir, enum tpm_use use, char *path, size_t cap);

/* The first node of use's order under dev_dir that opens, read-write and
 * close-on-exec, for hi_tpm_dev_xfer bounded by timeout_ms; path names it.
 * 0, or -1 with errno and path naming the last node tried (d->fd -1). */
int hi_tpm_dev_open(struct tpm_dev *d, const char *dev_dir, enum tpm_use use, int timeout_ms, char *path, size_t cap);

/* use's nodes under dev_dir joined by sep ("DEV/tpmrm0 or DEV/tpm0"): a
 * message saying where no TPM was found. */
void hi_tpm_dev_order_text(const char *dev_dir, enum tpm_use use, const char *sep, char *out, size_t cap);

/* The first TPM's SHA-256 value of PCR pcr in sysfs (Linux 5.12 and
 * later): SYS/class/tpm/tpm0/pcr-sha256/PCR. path, or NULL when it does
 * not fit. */
char *hi_tpm_dev_sysfs_pcr(const char *sys_dir, unsigned pcr, char *path, size_t cap);

/* The fd closed, unless stuck (closing it would wait for the kernel's
 * command, tpm_common_release flushing its worker): left open,
 * close-on-exec. */
void hi_tpm_dev_close(struct tpm_dev *d);

/* A tpm_xfer_fn (tpm/tpm2_unseal.h) over ctx, a struct tpm_dev. */
int hi_tpm_dev_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		 size_t errlen);

#endif
