/* Unit tests: one TPM command over a file descriptor, bounded however long
 * the other side holds the thread that talks to it (tpm/tpm_dev.c). The
 * kernel's /dev/tpm0 holds a writer for the TPM's whole command; here a
 * socket stands in for it: one that answers, in pieces; one whose buffer
 * is full, so the write itself blocks; one that takes the command and
 * never answers. A late command is abandoned within the bound, the fd is
 * then stuck (no further command, not closed); an answer over the
 * caller's buffer is refused. The kernel's device itself: tests/vm/luks.bats
 * (a TPM that stops answering). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "tpm_bytes.h"
#include "tpm_dev.h"

static const uint8_t cmd[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7b, 0, 8 };

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The TPM's side: reads one command, answers a response of size bytes in
 * two pieces (size 0: reads and never answers). */
struct peer {
	int fd;
	uint32_t size;
};

static void *peer_run(void *arg)
{
	struct peer *p = arg;
	uint8_t in[64], out[64] = { 0x80, 0x01 };
	if (read(p->fd, in, sizeof in) <= 0 || p->size == 0)
		return NULL;
	tpm_put32(out + 2, p->size);
	if (write(p->fd, out, 4) != 4 || write(p->fd, out + 4, p->size - 4) != (ssize_t)(p->size - 4))
		return NULL;
	return NULL;
}

static void test_answer(void)
{
	int sv[2];
	uint8_t resp[TPM_CMD_MAX];
	size_t rlen = 0;
	char err[200] = "";
	pthread_t t;

	socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
	struct peer p = { sv[1], 14 };
	pthread_create(&t, NULL, peer_run, &p);
	struct tpm_dev d = { sv[0], 2000, false };
	int rc = hi_tpm_dev_xfer(&d, cmd, sizeof cmd, resp, sizeof resp, &rlen, err, sizeof err);
	pthread_join(t, NULL);
	tap_ok(rc == 0 && rlen == 14 && !d.stuck, "an answer in two pieces: all of it, by its own size (%s)", err);

	/* An answer over the caller's buffer. */
	p.size = 40;
	pthread_create(&t, NULL, peer_run, &p);
	rc = hi_tpm_dev_xfer(&d, cmd, sizeof cmd, resp, 20, &rlen, err, sizeof err);
	pthread_join(t, NULL);
	tap_ok(rc == -1 && rlen == 0 && strstr(err, "40 bytes is over 20"), "an answer over the buffer is refused: %s",
	       err);
	close(sv[0]);
	close(sv[1]);
}

/* A command the other side never lets go: returned within the bound, the
 * fd stuck, the next command refused at once, the fd left open. */
static void late(int fd, int peer, const char *what)
{
	uint8_t resp[TPM_CMD_MAX];
	size_t rlen = 7;
	char err[200] = "";
	struct tpm_dev d = { fd, 300, false };

	long long t0 = now_ms();
	int rc = hi_tpm_dev_xfer(&d, cmd, sizeof cmd, resp, sizeof resp, &rlen, err, sizeof err);
	long long took = now_ms() - t0;
	tap_ok(rc == -1 && d.stuck && rlen == 0 && !strcmp(err, "no answer within 300 ms"),
	       "%s: abandoned at the bound: %s", what, err);
	tap_ok(took >= 290 && took < 2000, "%s: the caller waited %lld ms for a bound of 300", what, took);
	t0 = now_ms();
	rc = hi_tpm_dev_xfer(&d, cmd, sizeof cmd, resp, sizeof resp, &rlen, err, sizeof err);
	tap_ok(rc == -1 && now_ms() - t0 < 100 && strstr(err, "an earlier command got no answer"),
	       "%s: the stuck fd takes no other command: %s", what, err);
	hi_tpm_dev_close(&d);
	tap_ok(d.fd == -1 && fcntl(fd, F_GETFD) >= 0, "%s: the stuck fd is left open (closing would wait)", what);
	(void)peer;
}

static void test_never_answers(void)
{
	int sv[2];
	pthread_t t;

	socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
	struct peer p = { sv[1], 0 };
	pthread_create(&t, NULL, peer_run, &p);
	late(sv[0], sv[1], "a TPM that takes the command and never answers");
	pthread_join(t, NULL);
}

static void test_write_blocks(void)
{
	int sv[2];
	uint8_t fill[4096] = { 0 };

	/* The writer held in write(), as the kernel's blocking /dev/tpm0 holds
	 * it for the TPM's whole command: a socket whose buffer is full. */
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	while (write(sv[0], fill, sizeof fill) > 0)
		;
	fcntl(sv[0], F_SETFL, 0);
	late(sv[0], sv[1], "a write the other side holds");
}

int main(void)
{
	test_answer();
	test_never_answers();
	test_write_blocks();
	return tap_done();
}
