#include "tpm_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tpm.h"

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
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done, abandoned;
	int fd, rc;
	size_t len, rlen;
	char err[160];
	uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
};

int hi_tpm_dev_open(struct tpm_dev *d, const char *path, int timeout_ms)
{
	d->timeout_ms = timeout_ms;
	d->stuck = false;
	d->fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	return d->fd < 0 ? -1 : 0;
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

static void job_free(struct tpm_job *j)
{
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	explicit_bzero(j, sizeof *j);
	free(j);
}

static void *job_run(void *arg)
{
	struct tpm_job *j = arg;
	int rc = exchange(j);

	pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->done = true;
	bool abandoned = j->abandoned;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	if (abandoned)
		job_free(j);
	return NULL;
}

static void deadline_in(struct timespec *t, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

int hi_tpm_dev_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		 size_t errlen)
{
	struct tpm_dev *d = ctx;
	struct tpm_job *j;
	pthread_condattr_t ca;
	pthread_t t;
	struct timespec end;
	int rc = 0;

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
	pthread_mutex_init(&j->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&t, NULL, job_run, j) != 0) {
		snprintf(err, errlen, "no thread for it: %s", strerror(errno));
		job_free(j);
		return -1;
	}
	deadline_in(&end, d->timeout_ms);
	pthread_mutex_lock(&j->mu);
	while (!j->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&j->cv, &j->mu, &end);
	if (!j->done) {
		j->abandoned = true;      /* the thread frees the job when the kernel lets it go */
		pthread_mutex_unlock(&j->mu);
		pthread_detach(t);
		d->stuck = true;
		snprintf(err, errlen, "no answer within %d ms", d->timeout_ms);
		return -1;
	}
	pthread_mutex_unlock(&j->mu);
	pthread_join(t, NULL);
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
