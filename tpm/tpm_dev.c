#include "tpm_dev.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int hi_tpm_dev_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		 size_t errlen)
{
	struct tpm_dev *d = ctx;
	long long end = now_ms() + d->timeout_ms;
	size_t done = 0, want = 10;

	*rlen = 0;
	while (done < len) {
		ssize_t n = write(d->fd, cmd + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "it took no command: %s", n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		done += (size_t)n;
	}
	done = 0;
	while (done < want) {
		long long left = end - now_ms();
		struct pollfd p = { d->fd, POLLIN, 0 };
		int r = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "no answer within %d ms", d->timeout_ms);
			return -1;
		}
		ssize_t n = read(d->fd, resp + done, cap - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "reading its answer failed: %s", n < 0 ? strerror(errno) : "end of file");
			return -1;
		}
		done += (size_t)n;
		if (done >= 10) {
			want = (size_t)resp[2] << 24 | (size_t)resp[3] << 16 | (size_t)resp[4] << 8 | resp[5];
			if (want < 10 || want > cap) {
				snprintf(err, errlen, "its answer says %zu bytes (at most %zu)", want, cap);
				return -1;
			}
		}
	}
	*rlen = done;
	return 0;
}
