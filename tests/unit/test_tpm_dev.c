/* Unit tests: which TPM node each use opens, in its order, against a
 * temporary /dev (every mix of tpm0 and tpmrm0 present, absent, or not
 * openable); and one TPM command over a file descriptor, bounded however long
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
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
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
	struct tpm_dev d = { .fd = sv[0], .timeout_ms = 2000 };
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
	/* The report's share of the TPM in an unseal (unseal_tpm_ms): every
	 * command counted, with its time. */
	tap_ok(d.cmds == 2 && d.busy_ns > 0, "both commands counted, with their time at the TPM (%u)", d.cmds);
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
	struct tpm_dev d = { .fd = fd, .timeout_ms = 300 };

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

/* Each use's order, and why it is that one (tpm/tpm_dev.c's table). */
static const struct {
	enum tpm_use use;
	const char *name;
	const char *first, *second;   /* the order; NULL: no second */
} uses[] = {
	{ TPM_USE_MEASURE, "the measuring thread", "tpmrm0", "tpm0" },
	{ TPM_USE_EXTEND, "systemd's extends", "tpmrm0", NULL },
	{ TPM_USE_UNSEAL, "the unseal", "tpm0", "tpmrm0" },
	{ TPM_USE_WARMUP, "the warm-up", "tpm0", NULL },
};

/* ROOT/dev with the nodes given: "y" a file, "-" there but not opening
 * (a directory: as tpm0 refusing a second opener), NULL absent. */
static const char *dev_with(const char *root, const char *tpm0, const char *tpmrm0)
{
	static char dev[512];
	char p[600];

	fixture_path(dev, sizeof dev, root, "dev");
	fixture_mkdir(root, "dev", 0755);
	const char *nodes[2][2] = { { "tpm0", tpm0 }, { "tpmrm0", tpmrm0 } };
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/%s", dev, nodes[i][0]);
		unlink(p);
		rmdir(p);
		if (!nodes[i][1])
			continue;
		if (!strcmp(nodes[i][1], "-")) {
			if (mkdir(p, 0755) < 0)
				fixture_die("mkdir", p);
			continue;
		}
		int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			fixture_die("open", p);
		close(fd);
	}
	return dev;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void test_order(void)
{
	const char *root = fixture_tree("hardinit-tpmdev");
	char path[600], text[1200], want[1200];
	struct tpm_dev d;

	for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
		enum tpm_use u = uses[i].use;
		const char *dev;

		/* Both there: the first of the order. */
		dev = dev_with(root, "y", "y");
		int rc = hi_tpm_dev_open(&d, dev, u, 1234, path, sizeof path);
		tap_ok(rc == 0 && d.fd >= 0 && !strcmp(base(path), uses[i].first) && d.timeout_ms == 1234 && !d.stuck,
		       "%s: both nodes there: opens %s (%s)", uses[i].name, uses[i].first, path);
		tap_ok(d.direct == !strcmp(uses[i].first, "tpm0"), "%s:   direct only through tpm0", uses[i].name);
		int fl = fcntl(d.fd, F_GETFL), fdfl = fcntl(d.fd, F_GETFD);
		tap_ok((fl & O_ACCMODE) == O_RDWR && !(fl & O_NONBLOCK) && (fdfl & FD_CLOEXEC),
		       "%s:   read-write, blocking (the transport's thread bounds it), close-on-exec", uses[i].name);
		hi_tpm_dev_close(&d);
		tap_ok(hi_tpm_dev_path(dev, u, path, sizeof path) && !strcmp(base(path), uses[i].first),
		       "%s:   and the node asked for without opening is the same (%s)", uses[i].name, path);

		/* Only the other one. */
		const char *other = !strcmp(uses[i].first, "tpm0") ? "tpmrm0" : "tpm0";
		dev = !strcmp(other, "tpm0") ? dev_with(root, "y", NULL) : dev_with(root, NULL, "y");
		rc = hi_tpm_dev_open(&d, dev, u, 1234, path, sizeof path);
		if (uses[i].second) {
			tap_ok(rc == 0 && !strcmp(base(path), other), "%s: only %s there: opens it", uses[i].name, other);
			tap_ok(hi_tpm_dev_path(dev, u, path, sizeof path) && !strcmp(base(path), other),
			       "%s:   and names it", uses[i].name);
		} else {
			tap_ok(rc == -1 && d.fd == -1 && errno == ENOENT && !strcmp(base(path), uses[i].first),
			       "%s: only %s there: no TPM, ENOENT naming %s", uses[i].name, other, uses[i].first);
			tap_ok(!hi_tpm_dev_path(dev, u, path, sizeof path) && !strcmp(base(path), uses[i].first),
			       "%s:   none there, naming %s", uses[i].name, uses[i].first);
		}
		hi_tpm_dev_close(&d);

		/* The first there but not openable (busy, as tpm0's second
		 * opener): the second, when the order has one. */
		dev = !strcmp(uses[i].first, "tpm0") ? dev_with(root, "-", "y") : dev_with(root, "y", "-");
		rc = hi_tpm_dev_open(&d, dev, u, 1234, path, sizeof path);
		if (uses[i].second)
			tap_ok(rc == 0 && !strcmp(base(path), uses[i].second),
			       "%s: the first does not open: the second (%s)", uses[i].name, path);
		else
			tap_ok(rc == -1 && errno == EISDIR, "%s: the only one does not open: -1, its errno",
			       uses[i].name);
		hi_tpm_dev_close(&d);

		/* Neither: no TPM, ENOENT. */
		dev = dev_with(root, NULL, NULL);
		rc = hi_tpm_dev_open(&d, dev, u, 1234, path, sizeof path);
		tap_ok(rc == -1 && d.fd == -1 && errno == ENOENT, "%s: no node: -1, ENOENT (%s)", uses[i].name, path);
		tap_ok(!hi_tpm_dev_path(dev, u, path, sizeof path) && !strcmp(base(path), uses[i].first),
		       "%s:   none there, naming the order's first", uses[i].name);

		/* The message naming where no TPM was found. */
		hi_tpm_dev_order_text("/dev", u, " or ", text, sizeof text);
		if (uses[i].second)
			snprintf(want, sizeof want, "/dev/%s or /dev/%s", uses[i].first, uses[i].second);
		else
			snprintf(want, sizeof want, "/dev/%s", uses[i].first);
		tap_ok(!strcmp(text, want), "%s: its order in words: %s", uses[i].name, text);
	}
	tap_ok(hi_tpm_dev_sysfs_pcr("/sys", 12, path, sizeof path) && !strcmp(path, "/sys/class/tpm/tpm0/pcr-sha256/12"),
	       "the first TPM's PCR in sysfs: %s", path);
}

int main(void)
{
	test_order();
	test_answer();
	test_never_answers();
	test_write_blocks();
	return tap_done();
}
