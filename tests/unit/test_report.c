/* Unit tests: the boot report's files (report.json, report.txt) written to a
 * temporary directory, with the JSON escaping of every string, and the
 * bounded sink they are formatted in. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "report.h"
#include "sink.h"
#include "sysctl_apply.h"
#include "tap.h"

static struct report rep;

static void test_sink(void)
{
	char buf[4];
	struct sink s;

	hi_sink_init(&s, buf, sizeof buf);
	hi_sink_putc(&s, 'a');
	hi_sink_putc(&s, 'b');
	hi_sink_putc(&s, 'c');
	tap_ok(!s.full && strcmp(buf, "abc") == 0, "sink_putc appends up to the last byte before the NUL");
	hi_sink_putc(&s, 'd');
	tap_ok(s.full && strcmp(buf, "abc") == 0, "a character past the end marks the sink full, text kept whole");
	hi_sink_init(&s, buf, sizeof buf);
	hi_sink_printf(&s, "%s", "ab");
	hi_sink_putc(&s, 'c');
	tap_ok(!s.full && strcmp(buf, "abc") == 0, "printf and putc mix");
}

static void test_files(void)
{
	char dir[] = "/tmp/hardinit-test-report.XXXXXX";
	static char json[65536], text[65536];
	char path[128];

	if (!mkdtemp(dir)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	memset(&rep, 0, sizeof rep);
	snprintf(rep.stages[0].name, sizeof rep.stages[0].name, "sysctl");
	rep.stages[0].duration_ns = 1234567;
	rep.n_stages = 1;
	hi_report_add(&rep, "sysctl", "kernel.sysrq", "applied", "%s", "0");
	hi_report_add(&rep, "mounts", "quote\"back\\slash", "warn", "tab\there\x01");
	tap_ok(hi_report_write(&rep, dir) == 0, "report_write succeeds");

	snprintf(path, sizeof path, "%s/report.json", dir);
	tap_ok(hi_fs_read(path, json, sizeof json, NULL) == 0, "report.json is there");
	tap_contains(json, "{\"stage\": \"sysctl\", \"key\": \"kernel.sysrq\", \"value\": \"0\", \"status\": \"applied\"},",
		     "an item is one JSON object on its line");
	tap_contains(json, "\"key\": \"quote\\\"back\\\\slash\"", "quotes and backslashes are escaped");
	tap_contains(json, "\"value\": \"tab\\u0009here\\u0001\"", "control characters are \\u escapes");
	tap_contains(json, "{\"name\": \"sysctl\", \"result\": \"ok\", \"duration_us\": 1234}", "the stage with its time");
	tap_contains(json, "\"dropped_items\": 0\n}\n", "the file ends with the dropped count");

	snprintf(path, sizeof path, "%s/report.txt", dir);
	tap_ok(hi_fs_read(path, text, sizeof text, NULL) == 0, "report.txt is there");
	tap_contains(text, "sysctl kernel.sysrq applied 0\n", "the text report has the item");
	tap_contains(text, "stage sysctl", "and the stage");

	snprintf(path, sizeof path, "%s/report.json", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/report.txt", dir);
	unlink(path);
	rmdir(dir);
}

/* One name per status, all distinct, found back by report_status_of; the
 * words the sysctl, memory, tty and locks stages pass through
 * sysctl_outcome_name are among them. */
static void test_status_table(void)
{
	int ok = hi_report_status_names[N_REPORT_STATUS] == NULL;
	for (int i = 0; i < N_REPORT_STATUS; i++) {
		ok = ok && hi_report_status_names[i] && hi_report_status_of(hi_report_status_names[i]) == i;
		for (int j = 0; ok && j < i; j++)
			ok = strcmp(hi_report_status_names[i], hi_report_status_names[j]) != 0;
	}
	tap_ok(ok, "every status has one distinct name");
	tap_ok(hi_report_status_of("fail") < 0 && hi_report_status_of("") < 0 && hi_report_status_of(NULL) < 0,
	       "a word not in the table is -1");
	tap_ok(hi_report_status_of("off") == REPORT_OFF && hi_report_status_of("failed") == REPORT_FAILED,
	       "off (verity) and failed are statuses");
	static const enum sysctl_outcome outcomes[] = { SYSCTL_APPLIED, SYSCTL_ALREADY, SYSCTL_ABSENT, SYSCTL_REFUSED };
	ok = 1;
	for (size_t i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++)
		ok = ok && hi_report_status_of(hi_sysctl_outcome_name(outcomes[i])) >= 0;
	tap_ok(ok, "every sysctl outcome's name is a status");
	/* A word outside it is still kept (the report loses nothing). */
	memset(&rep, 0, sizeof rep);
	hi_report_add(&rep, "test", "k", "bogus", "v");
	tap_ok(rep.n_items == 1 && strcmp(rep.items[0].status, "bogus") == 0, "an unknown word is kept, with a warning");
}

int main(void)
{
	test_sink();
	test_files();
	test_status_table();
	return tap_done();
}
