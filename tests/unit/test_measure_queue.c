/* The measuring thread against a TPM stand-in: a pseudo-terminal in raw
 * mode is the "device" (ROOT/dev/tpmrm0 links to its slave), and a thread
 * of this test answers on the master side with TPM 2.0 responses, keeping
 * its own PCR. What is checked: the events reach the TPM in hardinit's
 * order whichever stage queued them, the log replays to the PCR the
 * stand-in computed, the root's two events are extended before the root
 * stage may mount, and a TPM that errs mid-way, never answers, never takes
 * the command, answers with a digest that is not sha256 of the text, or
 * has no SHA-256 bank, keeps the events before it and follows [tpm]
 * require, within the (shortened) per-command bound of tpm/tpm_dev.c's
 * transport, which the thread talks through. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <termios.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "fixture.h"
#include "measure.h"
#include "measure_queue.h"
#include "sha256.h"
#include "tap.h"

enum fake_mode {
	FAKE_LOCALITY,        /* event fail_at gets TPM_RC_LOCALITY */
	FAKE_SILENT,          /* event fail_at (and all after) is never answered */
	FAKE_BAD_DIGEST,      /* event fail_at is hashed as something else */
	FAKE_SHA1_ONLY,       /* the SHA-256 bank is there but not active */
	FAKE_STALLED,         /* takes no command: the pty's output is stopped */
	FAKE_SLOW,            /* answers each command after delay_ms */
};

/* The bound of each command in these tests (MEASURE_TPM_TIMEOUT_MS at boot):
 * long enough that the fake TPM's prompt answers arrive inside it on a host
 * busy with other test lanes; a silent TPM costs it once per case. */
#define TEST_TIMEOUT_MS 1000
#define TEST_TIMEOUT_TEXT "1000 ms"
/* The slow TPM: each answer SLOW_ANSWER_MS late, 700 ms inside the
 * per-command bound, while the root's three (5400 ms) outlast its wait of
 * twice that bound (5000 ms). A busy host only makes the answers later, so
 * the root's wait still ends first. */
#define SLOW_TIMEOUT_MS 2500
#define SLOW_ANSWER_MS 1800
#define SLOW_ROOT_WAIT_TEXT "5000 ms"

struct fake_tpm {
	int master, slave;
	enum fake_mode mode;
	int fail_at;          /* the PCR_Event (1-based) the mode applies to, 0: none */
	volatile int delay_ms;   /* FAKE_SLOW; the test sets it to 0 to finish */
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

/* Read exactly n bytes, or give up when stopped or after 50 ms. */
static int read_full(struct fake_tpm *t, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = t->master, .events = POLLIN };
		if (t->stop || poll(&p, 1, 50) <= 0)
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

	if (t->mode == FAKE_SLOW)
		poll(NULL, 0, t->delay_ms);

	if (cc == 0x17A) {                                   /* GetCapability(PCRS): one sha256 bank */
		n += put_be(out + n, 0x8001, 2);
		n += 4;
		n += put_be(out + n, 0, 4);
		out[n++] = 0;                                    /* moreData */
		n += put_be(out + n, 5, 4);
		if (t->mode == FAKE_SHA1_ONLY) {
			n += put_be(out + n, 2, 4);
			n += put_be(out + n, 0x0004, 2);         /* sha1: active */
			out[n++] = 3;
			out[n++] = 0xff, out[n++] = 0xff, out[n++] = 0xff;
			n += put_be(out + n, 0x000B, 2);         /* sha256: allocated, no PCR selected */
			out[n++] = 3;
			out[n++] = 0, out[n++] = 0, out[n++] = 0;
		} else {
			n += put_be(out + n, 1, 4);
			n += put_be(out + n, 0x000B, 2);
			out[n++] = 3;
			out[n++] = 0xff, out[n++] = 0xff, out[n++] = 0xff;
		}
	} else if (cc == 0x13C && t->mode == FAKE_SILENT && ++t->events >= t->fail_at) {
		return;
	} else if (cc == 0x13C && t->mode == FAKE_LOCALITY && ++t->events == t->fail_at) {
		n += put_be(out + n, 0x8002, 2);
		n += 4;
		n += put_be(out + n, 0x907, 4);                  /* TPM_RC_LOCALITY */
	} else if (cc == 0x13C) {
		/* handle(4) at 10, authorization size(4) at 14 and its bytes,
		 * then the TPM2B_EVENT. */
		size_t at = 18 + be(cmd + 14, 4);
		size_t len = be(cmd + at, 2);
		uint8_t digest[32], both[64];
		if (t->mode != FAKE_SILENT && t->mode != FAKE_LOCALITY)
			t->events++;
		hi_sha256(cmd + at + 2, len, digest);
		if (t->mode == FAKE_BAD_DIGEST && t->events == t->fail_at)
			hi_sha256(cmd + at + 2, len - 1, digest);       /* one byte short */
		memcpy(both, t->pcr, 32);
		memcpy(both + 32, digest, 32);
		hi_sha256(both, 64, t->pcr);
		if (t->events <= 8)
			snprintf(t->seen[t->events - 1], sizeof t->seen[0], "%.*s", (int)len, (const char *)cmd + at + 2);
		n += put_be(out + n, 0x8002, 2);
		n += 4;
		n += put_be(out + n, 0, 4);
		/* As a real TPM: a digest for every hash it implements, here
		 * also sha1, whose bank GetCapability says is not allocated. */
		n += put_be(out + n, 4 + 2 + 32 + 2 + 20, 4);   /* parameterSize */
		n += put_be(out + n, 2, 4);
		n += put_be(out + n, 0x000B, 2);
		memcpy(out + n, digest, 32);
		n += 32;
		n += put_be(out + n, 0x0004, 2);
		memset(out + n, 0x5a, 20);
		n += 20;
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
static void fake_start_mode(struct fake_tpm *t, const char *root, enum fake_mode mode, int fail_at)
{
	char link[512];
	struct termios raw;

	memset(t, 0, sizeof *t);
	t->mode = mode;
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
	/* Output stopped: a write to the slave blocks, as a write to a TPM
	 * whose driver never takes the command would. */
	if (mode == FAKE_STALLED && tcflow(sfd, TCOOFF) < 0)
		fixture_die("tcflow", slave);
	t->slave = sfd;
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
	/* The slave stays open (fake_stop closes it): closing the last slave
	 * fd would hang up the master. */
}

static void fake_start(struct fake_tpm *t, const char *root, int fail_at)
{
	fake_start_mode(t, root, FAKE_LOCALITY, fail_at);
}

static void fake_stop(struct fake_tpm *t)
{
	t->stop = 1;
	pthread_join(t->thread, NULL);
	if (t->mode == FAKE_STALLED)
		tcflow(t->slave, TCOON);
	close(t->master);
	close(t->slave);
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
	uint8_t value[32], zero[32] = { 0 };

	/* The stages as the table runs them. */
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	tap_ok(hi_stage_measure_root(&b) == 0, "measure_root: the thread starts");
	tap_ok(hi_measure_queue_get()->worker.started, "  a thread was started");
	const struct tpm_dev *dev = &hi_measure_queue_get()->tpm;
	tap_ok(dev->fd >= 0 && dev->timeout_ms == MEASURE_TPM_TIMEOUT_MS && !strcmp(hi_measure_queue_get()->dev + strlen(root), "/dev/tpmrm0"),
	       "  the TPM is tpm/tpm_dev.c's, TPM_USE_MEASURE's node, each command bounded by MEASURE_TPM_TIMEOUT_MS (%s)",
	       hi_measure_queue_get()->dev);
	tap_ok(hi_measure_queue_wait_root(&b) == 0, "the root stage's wait: done");
	tap_ok(t.events >= 2 && strncmp(t.seen[1], "hardinit:verity-root-hash:", 26) == 0,
	       "  the ima-policy and verity-root-hash events were extended before it returned (%d)", t.events);
	tap_ok(hi_report_find(&b.rep, "measure", "root_wait_ms") != NULL, "  and its cost is in the report");
	tap_ok(hi_stage_measure_policy(&b) == 0, "measure_policy: queued");
	tap_ok(hi_stage_measure(&b) == 0, "measure: joined, logged");
	fake_stop(&t);
	tap_ok(t.events == 5, "five events reached the TPM (%d)", t.events);
	check_order(&t, 5, "stages");
	fixture_path(path, sizeof path, root, "run/hardinit/measurements");
	tap_ok(hi_measure_log_replay(path, 12, zero, value, why, sizeof why) == 0, "the log replays (%s)", why);
	tap_ok(memcmp(value, t.pcr, 32) == 0, "to the PCR the TPM holds");
	const struct report_item *it = hi_report_find(&b.rep, "measure", "handoff");
	tap_ok(it && strcmp(it->status, "ok") == 0, "the report has the handoff event");
	tap_ok(hi_report_find(&b.rep, "measure", "tpm_ms") != NULL, "and the thread's time");
	it = hi_report_find(&b.rep, "measure", "initial");
	tap_ok(it && strcmp(it->value, "0000000000000000000000000000000000000000000000000000000000000000") == 0,
	       "and the PCR's value before the first event, for audit");

	/* systemd's log names the banks extended: sha256, not the sha1 the
	 * TPM answered for a bank it has not allocated. */
	const char *log = fixture_get(root, "run/log/systemd/tpm2-measure.log");
	tap_ok(log && strstr(log, "\"hashAlg\":\"sha256\"") && !strstr(log, "sha1"),
	       "systemd's log: the allocated bank's digest only (%.80s)", log ? log : "(none)");

	/* systemd's convention: the CEL-JSON log is appended under an
	 * exclusive flock. Held by another writer for good, the append gives
	 * up (bounded) and says so; the boot goes on. */
	fixture_path(path, sizeof path, root, "run/log/systemd/tpm2-measure.log");
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	int holder = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	tap_ok(holder >= 0 && flock(holder, LOCK_EX) == 0, "another writer holds the systemd log's flock");
	tap_ok(hi_stage_measure(&b) == 0, "measure with the log locked: the boot goes on");
	fake_stop(&t);
	it = hi_report_find(&b.rep, "measure", "tpm");
	tap_contains(it ? it->value : NULL, "the event log could not be written", "  and the report says the log was not written");
	struct stat st;
	tap_ok(stat(path, &st) == 0 && st.st_size == 0, "  nothing was appended under another writer's lock");
	close(holder);

	/* A root config still to be read: nothing starts before it, and the
	 * order is the same. */
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	b.cfg.read_root_config = true;
	tap_ok(hi_stage_measure_root(&b) == 0 && !hi_measure_queue_get()->active,
	       "measure_root: with read_root_config nothing starts before the root's config");
	tap_ok(hi_stage_measure_policy(&b) == 0 && hi_stage_measure(&b) == 0, "measure_policy and measure: done");
	fake_stop(&t);
	check_order(&t, 5, "read_root_config");

	/* Only the final stage (a mode without the others): the same order. */
	fake_start(&t, root, 0);
	boot_with_tpm(&b, root);
	tap_ok(hi_stage_measure(&b) == 0, "measure alone: done");
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
	hi_stage_measure_root(&b);
	hi_stage_measure_policy(&b);
	tap_ok(hi_stage_measure(&b) == 0, "a TPM error without require: the boot goes on");
	fake_stop(&t);
	const struct report_item *it = hi_report_find(&b.rep, "measure", "tpm");
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
	hi_stage_measure_root(&b);
	tap_ok(hi_stage_measure(&b) == -1, "with [tpm] require = yes: the failure action");
	fake_stop(&t);
	tap_contains(b.err, "ima-policy failed: TPM_RC_LOCALITY", "  one line naming what failed");
}

/* One boot against a faulty stand-in: measure_root, the root's wait,
 * measure_policy, measure. Returns the measure stage's result (or the
 * root wait's, when it failed). */
static int faulty_boot(struct boot *b, struct fake_tpm *t, const char *root, enum fake_mode mode, int fail_at,
		       bool require)
{
	fake_start_mode(t, root, mode, fail_at);
	boot_with_tpm(b, root);
	b->cfg.tpm_require = require;
	hi_stage_measure_root(b);
	int rc = hi_measure_queue_wait_root(b);
	if (rc == 0) {
		hi_stage_measure_policy(b);
		rc = hi_stage_measure(b);
	} else {
		hi_measure_queue_finish(b);   /* the failure action would follow; the test joins */
	}
	fake_stop(t);
	return rc;
}

static void says(const struct boot *b, int rc, bool require, const char *want)
{
	const struct report_item *it = hi_report_find(&b->rep, "measure", "tpm");

	if (require) {
		tap_ok(rc == -1, "  with [tpm] require = yes: the failure action");
		tap_contains(b->err, want, "  one line saying what failed and why");
	} else {
		tap_ok(rc == 0, "  without require: the boot goes on");
		tap_ok(it && strcmp(it->status, "warn") == 0, "  reported as a warning");
		tap_contains(it ? it->value : NULL, want, "  saying what failed and why");
	}
}

static void test_faulty_tpms(void)
{
	static struct boot b;
	struct fake_tpm t;
	const char *root = fixture_tree("hardinit-mqueue-faults");

	hi_measure_queue_set_timeout_ms(TEST_TIMEOUT_MS);
	for (int require = 0; require < 2; require++) {
		const char *how = require ? "require = yes" : "require = no";
		int rc;

		/* Never answers the config event: the thread's own deadline ends it. */
		rc = faulty_boot(&b, &t, root, FAKE_SILENT, 3, require);
		tap_ok(hi_measure_queue_get()->worker.joined && hi_measure_queue_get()->tpm.stuck,
		       "a TPM that never answers (%s): the thread ended by its deadline", how);
		says(&b, rc, require, "extending PCR 12 with config failed: no answer within " TEST_TIMEOUT_TEXT);
		if (!require) {
			const char *log = fixture_get(root, "run/hardinit/measurements");
			tap_ok(log && strstr(log, "hardinit:verity-root-hash:") && !strstr(log, "hardinit:config:"),
			       "  the log keeps the two events before it");
		}

		/* Never answers the first root event: the root is not mounted
		 * unmeasured under require. */
		rc = faulty_boot(&b, &t, root, FAKE_SILENT, 1, require);
		tap_ok(hi_measure_queue_get()->worker.joined, "a TPM silent from the first event (%s): the thread ended", how);
		if (require)
			tap_contains(b.err, "the root is not mounted unmeasured", "  the root stage's wait stops the boot");
		says(&b, rc, require, "extending PCR 12 with ima-policy failed: no answer within " TEST_TIMEOUT_TEXT);

		/* Never takes the command: the write is bounded too. */
		rc = faulty_boot(&b, &t, root, FAKE_STALLED, 0, require);
		tap_ok(hi_measure_queue_get()->worker.joined && hi_measure_queue_get()->tpm.stuck,
		       "a TPM that never takes a command (%s): the thread ended by its deadline", how);
		says(&b, rc, require, "reading its PCR banks failed: no answer within " TEST_TIMEOUT_TEXT);

		/* Hashes the verity event as something else. */
		rc = faulty_boot(&b, &t, root, FAKE_BAD_DIGEST, 2, require);
		tap_ok(t.events == 2, "a TPM whose digest is not sha256(text) (%s): nothing after it (%d)", how, t.events);
		says(&b, rc, require, "extending PCR 12 with verity-root-hash failed: its SHA-256 digest");
		if (!require) {
			tap_ok(hi_report_find(&b.rep, "measure", "ima-policy") && !hi_report_find(&b.rep, "measure", "verity-root-hash"),
			       "  the event before it is ok, that one is not");
		}

		/* Slow: each answer within the bound, the root's three commands
		 * (banks, ima-policy, verity-root-hash) past the root's wait. */
		hi_measure_queue_set_timeout_ms(SLOW_TIMEOUT_MS);
		fake_start_mode(&t, root, FAKE_SLOW, 0);
		t.delay_ms = SLOW_ANSWER_MS;
		boot_with_tpm(&b, root);
		b.cfg.tpm_require = require;
		hi_stage_measure_root(&b);
		rc = hi_measure_queue_wait_root(&b);
		const struct report_item *it = hi_report_find(&b.rep, "measure", "root_wait");
		tap_ok(it && strcmp(it->status, require ? "failed" : "warn") == 0,
		       "a slow TPM (%s): the root's wait ends at its bound, %s", how, require ? "failed" : "a warning");
		tap_contains(require ? b.err : it ? it->value : NULL, require ? "require = yes: the root is not mounted "
			     "unmeasured" : "not extended within " SLOW_ROOT_WAIT_TEXT "; the root is mounted unmeasured", "  saying so");
		tap_ok(rc == (require ? -1 : 0), "  %s", require ? "the failure action" : "the boot goes on");
		t.delay_ms = 0;   /* the rest fast: the test joins the thread */
		hi_measure_queue_finish(&b);
		fake_stop(&t);
		hi_measure_queue_set_timeout_ms(TEST_TIMEOUT_MS);

		/* No active SHA-256 bank. */
		rc = faulty_boot(&b, &t, root, FAKE_SHA1_ONLY, 0, require);
		tap_ok(t.events == 0, "a TPM without a SHA-256 bank (%s): no event extended (%d)", how, t.events);
		says(&b, rc, require, "reading its PCR banks failed: it has no active SHA-256 bank");
	}
	hi_measure_queue_set_timeout_ms(0);
}

int main(void)
{
	test_in_order();
	test_tpm_error();
	test_faulty_tpms();
	return tap_done();
}
