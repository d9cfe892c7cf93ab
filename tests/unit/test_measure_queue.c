/* The measuring thread against a TPM stand-in: a pseudo-terminal in raw
 * mode is the "device" (ROOT/dev/tpmrm0 links to its slave), and a thread
 * of this test answers on the master side with TPM 2.0 responses, keeping
 * its own PCR. What is checked: the events reach the TPM in hardinit's
 * order whichever stage queued them, the log replays to the PCR the
 * stand-in computed, and a TPM error code mid-way keeps the events before
 * it and follows [tpm] require. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "fixture.h"
#include "measure.h"
#include "measure_queue.h"
#include "sha256.h"
#include "stages.h"
#include "tap.h"

struct fake_tpm {
	int master;
	int fail_at;          /* the PCR_Event that gets TPM_RC_LOCALITY (1-based), 0: none */
	int events;
	uint8_t pcr[32];
	char seen[8][96];     /* the event names, in the order they arrived */
	volatile int stop;
	pthread_t thread;
};

static uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static size_t put_be(uint8_t *p, uint32_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	return (size_t)n;
}

/* Read exactly n bytes, or give up when stopped or after a second. */
static int read_full(struct fake_tpm *t, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = t->master, .events = POLLIN };
		if (t->stop || poll(&p, 1, 1000) <= 0)
			return -1;
		ssize_t r = read(t->master, buf + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static void respond(struct fake_tpm *t, const uint8_t *cmd)
{
	uint8_t out[256];
	size_t n = 0;
	uint32_t cc = be(cmd + 6, 4);

	if (cc == 0x17A) {                                   /* GetCapability(PCRS): one sha256 bank */
		n += put_be(out + n, 0x8001, 2);
		n += 4;
		n += put_be(out + n, 0, 4);
		out[n++] = 0;                                    /* moreData */
		n += put_be(out + n, 5, 4);
		n += put_be(out + n, 1, 4);
		n += put_be(out + n, 0x000B, 2);
		out[n++] = 3;
		out[n++] = 0xff, out[n++] = 0xff, out[n++] = 0xff;
	} else if (cc == 0x13C && ++t->events == t->fail_at) {
		n += put_be(out + n, 0x8002, 2);
		n += 4;
		n += put_be(out + n, 0x907, 4);                  /* TPM_RC_LOCALITY */
	} else if (cc == 0x13C) {
		/* handle(4) at 10, authorization size(4) at 14 and its bytes,
		 * then the TPM2B_EVENT. */
		size_t at = 18 + be(cmd + 14, 4);
		size_t len = be(cmd + at, 2);
		uint8_t digest[32], both[64];
		sha256(cmd + at + 2, len, digest);
		memcpy(both, t->pcr, 32);
		memcpy(both + 32, digest, 32);
		sha256(both, 64, t->pcr);
		if (t->events <= 8)
			snprintf(t->seen[t->events - 1], sizeof t->seen[0], "%.*s", (int)len, (const char *)cmd + at + 2);
		n += put_be(out + n, 0x8002, 2);
		n += 4;
		n += put_be(out + n, 0, 4);
		n += put_be(out + n, 4 + 2 + 32, 4);             /* parameterSize */
		n += put_be(out + n, 1, 4);
		n += put_be(out + n, 0x000B, 2);
		memcpy(out + n, digest, 32);
		n += 32;
		n += put_be(out + n, 0, 2);                      /* the session's answer */
		out[n++] = 0;
		n += put_be(out + n, 0, 2);
	} else {
		n += put_be(out + n, 0x8001, 2);
		n += 4;
		n += put_be(out + n, 0x143, 4);                  /* TPM_RC_COMMAND_CODE */
	}
	put_be(out + 2, (uint32_t)n, 4);
	if (write(t->master, out, n) != (ssize_t)n)
		t->stop = 1;
}

static void *fake_main(void *arg)
{
	struct fake_tpm *t = arg;
	uint8_t cmd[4096];

	while (!t->stop) {
		if (read_full(t, cmd, 10) < 0)
			continue;
		uint32_t size = be(cmd + 2, 4);
		if (size < 10 || size > sizeof cmd || read_full(t, cmd + 10, size - 10) < 0)
			continue;
		respond(t, cmd);
	}
	return NULL;
}

/* A fresh stand-in at ROOT/dev/tpmrm0, and PCR 12 at zero in sysfs. */
static void fake_start(struct fake_tpm *t, const char *root, int fail_at)
{
	char link[512];
	struct termios raw;

	memset(t, 0, sizeof *t);
	t->fail_at = fail_at;
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0)
		fixture_die("posix_openpt", "/dev/ptmx");
	const char *slave = ptsname(t->master);
	int sfd = open(slave, O_RDWR | O_NOCTTY);
	if (sfd < 0 || tcgetattr(sfd, &raw) < 0)
		fixture_die("open", slave);
	cfmakeraw(&raw);
	if (tcsetattr(sfd, TCSANOW, &raw) < 0)
		fixture_die("tcsetattr", slave);
	/* The master keeps the settings; the slave is opened again by the
	 * stage, as /dev/tpmrm0 would be. */
	fixture_mkdir(root, "dev", 0755);
	fixture_path(link, sizeof link, root, "dev/tpmrm0");
	unlink(link);
	if (symlink(slave, link) < 0)
		fixture_die("symlink", link);
	fixture_put(root, "sys/class/tpm/tpm0/pcr-sha256/12",
		    "0000000000000000000000000000000000000000000000000000000000000000\n");
	if (pthread_create(&t->thread, NULL, fake_main, t) != 0)
		fixture_die("pthread_create", "fake TPM");
	(void)sfd;   /* left open: closing the last slave fd would hang up the master */
}

static void fake_stop(struct fake_tpm *t)
{
	t->stop = 1;
	pthread_join(t->thread, NULL);
	close(t->master);
}

static void boot_with_tpm(struct boot *b, const char *root)
{
	boot_at(b, root, MODE_INITRAMFS);
	b->cfg.tpm_measure = true;
	b->ima_policy_loaded = true;
	memset(b->ima_policy_sha256, 0xab, sizeof b->ima_policy_sha256);
	snprintf(b->root_hash, sizeof b->root_hash, "00ff");
	fixture_mkdir(root, "run", 0755);
	char p[512];
	fixture_path(p, sizeof p, root, "run/hardinit/measurements");
	unlink(p);
	fixture_path(p, sizeof p, root, "run/log/systemd/tpm2-measure.log");
	unlink(p);
}

static const char *const order[] = { "ima-policy", "verity-root-hash", "config", "selinux-policy", "handoff" };

static void check_order(const struct fake_tpm *t, int n, const char *how)
{
	for (int i = 0; i < n; i++) {
		char want[64];
		snprintf(want, sizeof want, "hardinit:%s:", order[i]);
		tap_ok(strncmp(t->seen[i], want, strlen(want)) == 0, "%s: event %d is %s (got '%.40s')", how, i + 1,
		       order[i], t->seen[i]);
	}
}

static void test_in_order(void)
{
	static struct boot b;
	struct fake_tpm t;
	const char *root = fixture_tree("hardinit-mqueue");
	char path[512], why[160];
	uint8_t value[32];
	unsigned pcr = 0;

	/* The stages as the table runs them. */
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	tap_ok(stage_measure_root(&b) == 0, "measure_root: the thread starts");
	tap_ok(measure_queue_get()->started, "  a thread was started");
	tap_ok(stage_measure_policy(&b) == 0, "measure_policy: queued");
	tap_ok(stage_measure(&b) == 0, "measure: joined, logged");
	fake_stop(&t);
	tap_ok(t.events == 5, "five events reached the TPM (%d)", t.events);
	check_order(&t, 5, "stages");
	fixture_path(path, sizeof path, root, "run/hardinit/measurements");
	tap_ok(measure_log_replay(path, &pcr, value, why, sizeof why) == 0 && pcr == 12, "the log replays (%s)", why);
	tap_ok(memcmp(value, t.pcr, 32) == 0, "to the PCR the TPM holds");
	const struct report_item *it = report_find(&b.rep, "measure", "handoff");
	tap_ok(it && strcmp(it->status, "ok") == 0, "the report has the handoff event");
	tap_ok(report_find(&b.rep, "measure", "tpm_ms") != NULL, "and the thread's time");

	/* A root config still to be read: nothing starts before it, and the
	 * order is the same. */
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	b.cfg.read_root_config = true;
	tap_ok(stage_measure_root(&b) == 0 && !measure_queue_get()->active,
	       "measure_root: with read_root_config nothing starts before the root's config");
	tap_ok(stage_measure_policy(&b) == 0 && stage_measure(&b) == 0, "measure_policy and measure: done");
	fake_stop(&t);
	check_order(&t, 5, "read_root_config");

	/* Only the final stage (a mode without the others): the same order. */
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	tap_ok(stage_measure(&b) == 0, "measure alone: done");
	fake_stop(&t);
	check_order(&t, 5, "measure alone");
}

static void test_tpm_error(void)
{
	static struct boot b;
	struct fake_tpm t;
	const char *root = fixture_tree("hardinit-mqueue-err");

	fake_start(&t, root, 3);
	boot_with_tpm(&b, root);
	stage_measure_root(&b);
	stage_measure_policy(&b);
	tap_ok(stage_measure(&b) == 0, "a TPM error without require: the boot goes on");
	fake_stop(&t);
	const struct report_item *it = report_find(&b.rep, "measure", "tpm");
	tap_ok(it && strcmp(it->status, "warn") == 0, "  reported as a warning");
	tap_contains(it ? it->value : NULL, "extending PCR 12 with config failed: TPM_RC_LOCALITY",
		     "  naming the event and the decoded code");
	const char *log = fixture_get(root, "run/hardinit/measurements");
	int lines = 0;
	for (const char *p = log; p && (p = strstr(p, "\nevent ")); p++)
		lines++;
	tap_ok(lines == 2, "  the log keeps the two events before it (%d)", lines);

	fake_start(&t, root, 1);
	boot_with_tpm(&b, root);
	b.cfg.tpm_require = true;
	stage_measure_root(&b);
	tap_ok(stage_measure(&b) == -1, "with [tpm] require = yes: the failure action");
	fake_stop(&t);
	tap_contains(b.err, "ima-policy failed: TPM_RC_LOCALITY", "  one line naming what failed");
}

int main(void)
{
	test_in_order();
	test_tpm_error();
	return tap_done();
}
