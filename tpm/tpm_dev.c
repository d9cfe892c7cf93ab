#include "tpm_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fsutil.h"
#include "tpm.h"
#include "worker.h"

/* One command on a thread of its own. The kernel's TPM devices hold the
 * thread that talks to them for as long as the TPM takes, up to the
 * kernel's own timeout for the command (two minutes for most, five for
 * CreatePrimary): in write() on a blocking fd, and in poll() or read() on
 * a non-blocking one too, whose worker keeps the file's buffer mutex
 * while the TPM runs the command (tpm-dev-common.c). So the caller waits
 * for this thread, bounded; a thread not done by then is abandoned: it
 * frees its job when the kernel lets it go, and the fd, stuck, takes no
 * other command. The job owns both buffers, so an abandoned thread
 * never writes into the caller's memory; they are wiped before they are
 * freed (an Unseal's answer is in them, encrypted by its session). */
struct tpm_job {
	struct hi_worker worker;
	int fd, rc;
	size_t len, rlen;
	char err[160];
	uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
};

/* The first TPM's nodes. tpm0 is the TPM itself: one opener at a time
 * (a second open gets EBUSY), and a transient object outlives the fd that
 * loaded it. tpmrm0 goes through the kernel's resource manager (4.12 and
 * later, a TPM 2.0 only): any number of openers, each fd seeing only its
 * own objects and sessions, which the kernel saves, flushes and reloads
 * around every command, and flushes when the fd closes. */
#define NODE_DIRECT "tpm0"
#define NODE_RM     "tpmrm0"
#define ORDER_MAX   2

/* Each use's order, and why. */
static const char *const orders[TPM_USE_COUNT][ORDER_MAX] = {
	/* The measuring thread holds its fd from the first measure stage to
	 * the last, while other stages open the TPM: tpmrm0 excludes none of
	 * them. tpm0 when the kernel shows only that: whatever answers there,
	 * the thread's first command says what it is (a TPM 1.2 fails it),
	 * so [tpm] require fails with its words rather than "no TPM". */
	[TPM_USE_MEASURE] = { NODE_RM, NODE_DIRECT },
	/* As systemd-pcrphase --graceful, which counts a kernel without the
	 * resource manager as no TPM 2.0: no tpmrm0, nothing extended. And
	 * the boot's enter-initrd phase runs while the luks warm-up holds
	 * tpm0, whose one opener would refuse it anyway. */
	[TPM_USE_EXTEND] = { NODE_RM, NULL },
	/* The luks stage has tpm0 to itself (the warm-up's thread, its one
	 * other user, is joined first). Through tpmrm0 the resource manager
	 * saves, flushes and reloads the unseal's primary, sealed object and
	 * session around each command: about five more round trips a command
	 * (bench/run's LUKS row); through tpm0 the unseal flushes its own, and
	 * can use the warm-up's primary. tpmrm0 when tpm0 is busy or absent. */
	[TPM_USE_UNSEAL] = { NODE_DIRECT, NODE_RM },
	/* The warm-up loads the unseal's primary on a thread and closes its
	 * fd; the primary must outlive that fd, which only tpm0 allows. */
	[TPM_USE_WARMUP] = { NODE_DIRECT, NULL },
};

bool hi_tpm_dev_path(const char *dev_dir, enum tpm_use use, char *path, size_t cap)
{
	struct stat st;

	for (size_t i = 0; i < ORDER_MAX && orders[use][i]; i++)
		if (hi_boot_path(path, cap, dev_dir, orders[use][i]) && stat(path, &st) == 0)
			return true;
	if (!hi_boot_path(path, cap, dev_dir, orders[use][0]) && cap)
		path[0] = '\0';
	return false;
}

int hi_tpm_dev_open(struct tpm_dev *d, const char *dev_dir, enum tpm_use use, int timeout_ms, char *path, size_t cap)
{
	d->timeout_ms = timeout_ms;
	d->stuck = false;
	d->direct = false;
	d->fd = -1;
	d->cmds = 0;
	d->busy_ns = 0;
	errno = ENOENT;
	for (size_t i = 0; i < ORDER_MAX && orders[use][i] && d->fd < 0; i++) {
		if (!hi_boot_path(path, cap, dev_dir, orders[use][i])) {
			errno = ENAMETOOLONG;
			continue;
		}
		d->fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
		d->direct = d->fd >= 0 && !strcmp(orders[use][i], NODE_DIRECT);
	}
	return d->fd < 0 ? -1 : 0;
}

void hi_tpm_dev_order_text(const char *dev_dir, enum tpm_use use, const char *sep, char *out, size_t cap)
{
	size_t n = 0;

	if (cap)
		out[0] = '\0';
	for (size_t i = 0; i < ORDER_MAX && orders[use][i] && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s/%s", i ? sep : "", dev_dir, orders[use][i]);
}

char *hi_tpm_dev_sysfs_pcr(const char *sys_dir, unsigned pcr, char *path, size_t cap)
{
	char rel[64];

	snprintf(rel, sizeof rel, "class/tpm/" NODE_DIRECT "/pcr-sha256/%u", pcr);
	return hi_boot_path(path, cap, sys_dir, rel);
}

void hi_tpm_dev_close(struct tpm_dev *d)
{
	if (d->fd >= 0 && !d->stuck)
		close(d->fd);
	d->fd = -1;
}

/* The command out and its answer in (a stream may answer in pieces): the
 * response's own size, at most TPM_CMD_MAX bytes. */
static int exchange(struct tpm_job *j)
{
	size_t done = 0, want = 10;

	while (done < j->len) {
		ssize_t n = write(j->fd, j->cmd + done, j->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(j->err, sizeof j->err, "it took no command: %s", n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		done += (size_t)n;
	}
	done = 0;
	while (done < want) {
		ssize_t n = read(j->fd, j->resp + done, sizeof j->resp - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(j->err, sizeof j->err, "reading its answer failed: %s",
				 n < 0 ? strerror(errno) : "end of file");
			return -1;
		}
		done += (size_t)n;
		if (done >= 10) {
			want = (size_t)j->resp[2] << 24 | (size_t)j->resp[3] << 16 | (size_t)j->resp[4] << 8 | j->resp[5];
			if (want < 10 || want > sizeof j->resp) {
				snprintf(j->err, sizeof j->err, "its answer says %zu bytes (at most %zu)", want,
					 sizeof j->resp);
				return -1;
			}
		}
	}
	j->rlen = done;
	return 0;
}

/* The job's end: by its caller, or by its own thread when abandoned. */
static void job_free(void *arg)
{
	explicit_bzero(arg, sizeof(struct tpm_job));
	free(arg);
}

static void job_run(void *arg)
{
	struct tpm_job *j = arg;

	j->rc = exchange(j);
}

static int xfer_one(struct tpm_dev *d, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen,
		    char *err, size_t errlen)
{
	struct tpm_job *j;

	*rlen = 0;
	if (d->stuck) {
		snprintf(err, errlen, "an earlier command got no answer within %d ms", d->timeout_ms);
		return -1;
	}
	if (len > TPM_CMD_MAX || !(j = calloc(1, sizeof *j))) {
		snprintf(err, errlen, len > TPM_CMD_MAX ? "the command is over %d bytes" : "no memory", TPM_CMD_MAX);
		return -1;
	}
	memcpy(j->cmd, cmd, len);
	j->len = len;
	j->fd = d->fd;
	int rc = hi_worker_start(&j->worker, job_run, j, 0, job_free);
	if (rc != 0) {
		snprintf(err, errlen, "no thread for it: %s", strerror(rc));
		job_free(j);
		return -1;
	}
	if (hi_worker_join(&j->worker, d->timeout_ms) != 0) {
		d->stuck = true;          /* the thread frees the job when the kernel lets it go */
		snprintf(err, errlen, "no answer within %d ms", d->timeout_ms);
		return -1;
	}
	if (j->rc == 0 && j->rlen > cap) {
		snprintf(err, errlen, "its answer of %zu bytes is over %zu", j->rlen, cap);
		j->rc = -1;
	} else if (j->rc == 0) {
		memcpy(resp, j->resp, j->rlen);
		*rlen = j->rlen;
	} else {
		snprintf(err, errlen, "%s", j->err);
	}
	rc = j->rc;
	job_free(j);
	return rc;
}

int hi_tpm_dev_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		 size_t errlen)
{
	struct tpm_dev *d = ctx;
	uint64_t start = hi_boottime_ns();
	int rc = xfer_one(d, cmd, len, resp, cap, rlen, err, errlen);

	d->busy_ns += hi_boottime_ns() - start;
	d->cmds++;
	return rc;
}
