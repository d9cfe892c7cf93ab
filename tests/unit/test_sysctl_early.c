/* Unit tests: the slow sysctl writes started early on a thread (the
 * sysctl_start stage) and their collection by the sysctl stage, against a
 * temporary tree standing in for /proc. A FIFO in place of a sysctl file
 * stands in for a kernel that does not finish a write: opening it blocks
 * the writer, so the bounded wait is exercised for real; the test then
 * plays the kernel's part on the FIFO to let the writer end. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "fixture.h"
#include "sysctl.h"
#include "sysctl_start.h"
#include "tap.h"
#include "sysctl_early.h"

static char root[128];
static struct boot b;

static void put(const char *rel, const char *content)
{
	fixture_put(root, rel, content);
}

static const char *get(const char *rel)
{
	static char buf[4096];
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void fresh_boot(enum boot_mode mode)
{
	fixture_rmtree(root);
	snprintf(root, sizeof root, "/tmp/hardinit-test-sysctl-early.XXXXXX");
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	boot_at(&b, root, mode);
	snprintf(b.newroot, sizeof b.newroot, "%s/newroot", root);
	b.cfg.sysctl_persist = false;
	put("proc/sys/kernel/kptr_restrict", "0\n");
	put("proc/sys/kernel/sysrq", "1\n");
}

static void add_sysctl(const char *key, const char *value, bool required)
{
	struct sysctl_setting *s = &b.cfg.sysctls[b.cfg.n_sysctls++];
	snprintf(s->key, sizeof s->key, "%s", key);
	snprintf(s->value, sizeof s->value, "%s", value);
	s->required = required;
}

static const char *status_of(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "sysctl", key);
	return it ? it->status : NULL;
}

static const char *value_of(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "sysctl", key);
	return it ? it->value : NULL;
}

static void test_slow_table(void)
{
	tap_ok(hi_sysctl_slow_reason("kernel.sysrq") != NULL, "kernel.sysrq is a slow write");
	tap_ok(hi_sysctl_slow_reason("kernel.kptr_restrict") == NULL, "kernel.kptr_restrict is not");
	tap_ok(hi_sysctl_early_collect(NULL) == 0, "collecting nothing succeeds");
	tap_ok(hi_sysctl_early_find(NULL, "kernel.sysrq", "0") == NULL, "finding in nothing finds nothing");
}

static void test_started_and_collected(void)
{
	fresh_boot(MODE_ON_ROOT);
	add_sysctl("kernel.kptr_restrict", "2", false);
	add_sysctl("kernel.sysrq", "0", false);

	tap_ok(hi_stage_sysctl_start(&b) == 0, "sysctl_start succeeds");
	struct sysctl_early *e = b.sysctl_early;
	tap_ok(e && e->n == 1 && e->writer.started, "only the slow write goes to a writer thread");
	tap_streq(e ? e->slots[0].key : NULL, "kernel.sysrq", "the writer has kernel.sysrq");

	tap_ok(hi_stage_sysctl(&b) == 0, "the sysctl stage succeeds");
	tap_ok(e->collected && !e->timed_out, "the writer was collected in time");
	tap_ok(e->writer.joined && e->proc_fd < 0, "the writer thread is joined and its proc fd closed");
	tap_streq(status_of("kernel.sysrq"), "applied", "the early write is reported as applied");
	tap_streq(value_of("kernel.sysrq"), "0", "with its read-back");
	tap_streq(get("proc/sys/kernel/sysrq"), "0", "the file holds the value");
	tap_streq(status_of("kernel.kptr_restrict"), "applied", "the ordinary write is made by the stage");
	const struct sysctl_early_slot *s = hi_sysctl_early_find(e, "kernel.sysrq", "0");
	tap_ok(s && s->took_ns > 0 && s->judged.outcome == SYSCTL_APPLIED, "the slot has its outcome and time");
	tap_ok(hi_sysctl_early_find(e, "kernel.sysrq", "1") == NULL, "another value is not the early result");
	tap_ok(hi_sysctl_early_collect(e) == 0, "collecting twice is harmless");
}

/* The order of the report is the config's, whoever made the write. */
static void test_report_order(void)
{
	fresh_boot(MODE_ON_ROOT);
	add_sysctl("kernel.sysrq", "0", false);
	add_sysctl("kernel.kptr_restrict", "2", false);
	hi_stage_sysctl_start(&b);
	tap_ok(hi_stage_sysctl(&b) == 0, "stage succeeds with the slow write first");
	tap_ok(b.rep.n_items >= 2 && strcmp(b.rep.items[0].key, "kernel.sysrq") == 0 &&
	       strcmp(b.rep.items[1].key, "kernel.kptr_restrict") == 0, "report items in config order");
}

/* Absent when the writer ran (a module not loaded yet): tried again. */
static void test_absent_retried(void)
{
	fresh_boot(MODE_ON_ROOT);
	char path[512];
	snprintf(path, sizeof path, "%s/proc/sys/kernel/sysrq", root);
	unlink(path);
	add_sysctl("kernel.sysrq", "0", false);
	hi_stage_sysctl_start(&b);
	struct sysctl_early *e = b.sysctl_early;
	hi_sysctl_early_collect(e);
	const struct sysctl_early_slot *s = hi_sysctl_early_find(e, "kernel.sysrq", "0");
	tap_ok(s && s->judged.outcome == SYSCTL_ABSENT, "the writer found kernel.sysrq absent");
	put("proc/sys/kernel/sysrq", "1\n");
	tap_ok(hi_stage_sysctl(&b) == 0, "stage succeeds");
	tap_streq(status_of("kernel.sysrq"), "applied", "an early absent write is made again by the stage");
	tap_streq(get("proc/sys/kernel/sysrq"), "0", "and holds");
}

static void make_fifo(const char *rel, char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s", root, rel);
	unlink(path);
	if (mkfifo(path, 0600) < 0) {
		printf("# mkfifo %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

static void fifo_put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);   /* returns when the writer opens to read */
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			printf("# write %s: %s\n", path, strerror(errno));
		close(fd);
	}
}

static void fifo_take(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);   /* returns when the writer opens to write */
	if (fd >= 0) {
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
}

/* The kernel's part, late: the read before, the write, the read back. */
static void let_writer_end(struct sysctl_early *e, const char *fifo)
{
	fifo_put(fifo, "1\n");
	fifo_take(fifo);
	fifo_put(fifo, "0\n");
	/* Abandoned, the writer is nobody's to join: wait until it ended. */
	while (hi_worker_running(&e->writer))
		usleep(1000);
}

static void test_timeout(bool required)
{
	char fifo[512];
	const char *what = required ? "required" : "optional";

	fresh_boot(MODE_ON_ROOT);
	make_fifo("proc/sys/kernel/sysrq", fifo, sizeof fifo);
	add_sysctl("kernel.sysrq", "0", required);
	add_sysctl("kernel.kptr_restrict", "2", false);
	hi_stage_sysctl_start(&b);
	struct sysctl_early *e = b.sysctl_early;
	e->timeout_ms = 200;

	uint64_t start = hi_boottime_ns();
	int rc = hi_stage_sysctl(&b);
	uint64_t took_ms = (hi_boottime_ns() - start) / 1000000;
	tap_ok(took_ms >= 190 && took_ms < 2000, "%s: the wait is bounded by the timeout (%llu ms)",
	       what, (unsigned long long)took_ms);
	tap_ok(e->timed_out && !e->writer.joined, "%s: the stuck writer is reported as timed out", what);
	if (required) {
		tap_ok(rc == -1, "a required slow write that does not finish is fatal");
		tap_contains(b.err, "kernel.sysrq", "the error names the sysctl");
		tap_contains(b.err, strerror(ETIMEDOUT), "and says it timed out");
	} else {
		tap_ok(rc == 0, "an optional slow write that does not finish: warning only");
		tap_streq(status_of("kernel.sysrq"), "refused", "reported as refused");
		tap_streq(status_of("kernel.kptr_restrict"), "applied", "the other writes are still made");
	}
	tap_ok(hi_stage_sysctl_start(&b) == 0 && b.sysctl_early->n == e->n && !e->writer.joined,
	       "%s: a new start leaves the slots of a writer that has not ended alone", what);
	let_writer_end(e, fifo);
	tap_ok(e->slots[0].done && e->slots[0].res.outcome == SYSCTL_APPLIED,
	       "%s: the late writer ended with its own result", what);
}

static void test_not_started(void)
{
	fresh_boot(MODE_DRY_RUN);
	add_sysctl("kernel.sysrq", "0", false);
	hi_stage_sysctl_start(&b);
	tap_ok(b.sysctl_early && !b.sysctl_early->writer.started, "a dry run starts no writer");
	tap_ok(hi_stage_sysctl(&b) == 0, "dry run stage succeeds");
	tap_streq(get("proc/sys/kernel/sysrq"), "1", "and writes nothing");

	fresh_boot(MODE_ON_ROOT);
	b.cfg.read_root_config = true;
	add_sysctl("kernel.sysrq", "0", false);
	hi_stage_sysctl_start(&b);
	tap_ok(b.sysctl_early && !b.sysctl_early->writer.started,
	       "with read_root_config nothing starts before the final config is known");
	tap_ok(hi_stage_sysctl(&b) == 0, "stage succeeds");
	tap_streq(status_of("kernel.sysrq"), "applied", "the write is made by the sysctl stage");

	fresh_boot(MODE_ON_ROOT);
	add_sysctl("kernel.kptr_restrict", "2", false);
	hi_stage_sysctl_start(&b);
	tap_ok(b.sysctl_early && !b.sysctl_early->writer.started, "no slow write, no writer");
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);
	test_slow_table();
	test_started_and_collected();
	test_report_order();
	test_absent_retried();
	test_timeout(false);
	test_timeout(true);
	test_not_started();
	fixture_rmtree(root);
	return tap_done();
}
