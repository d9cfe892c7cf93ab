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
	hi_sink_init(&s, buf, sizeof buf);
	hi_sink_puts(&s, "ab");
	hi_sink_puts(&s, "");
	hi_sink_puts(&s, "c");
	tap_ok(!s.full && strcmp(buf, "abc") == 0, "sink_puts appends whole strings, the empty one too");
	hi_sink_puts(&s, "d");
	tap_ok(s.full && strcmp(buf, "abc") == 0, "a string past the end marks the sink full, text kept whole");
	hi_sink_init(&s, buf, sizeof buf);
	hi_sink_puts(&s, "abcd");
	tap_ok(s.full && buf[0] == '\0', "a string that does not fit is not cut: nothing of it is written");

	char big[64];
	hi_sink_init(&s, big, sizeof big);
	hi_sink_json_string(&s, "\"plain run\\\x1f\x7f\xc3\xa9" "end\"");
	tap_streq(big, "\"\\\"plain run\\\\\\u001f\x7f\xc3\xa9" "end\\\"\"",
		  "json_string: runs between escapes kept, escapes at both ends, bytes >= 0x7f as they are");
	hi_sink_init(&s, big, sizeof big);
	hi_sink_json_string(&s, "");
	tap_streq(big, "\"\"", "json_string of the empty string");
}

/* hi_report_add's plain "%s" value is copied, not formatted: the same
 * value, cut where vsnprintf would cut it. */
static void test_add_plain(void)
{
	char longv[REPORT_VALUE_MAX + 20];

	memset(longv, 'v', sizeof longv - 1);
	longv[sizeof longv - 1] = '\0';
	memset(&rep, 0, sizeof rep);
	hi_report_add(&rep, "sysctl", "k", "info", "%s", longv);
	const char *volatile none = NULL;
	hi_report_add(&rep, "sysctl", "n", "info", "%s", none);
	hi_report_add(&rep, "sysctl", "f", "info", "%s=%d", "x", 3);
	tap_ok(strlen(rep.items[0].value) == REPORT_VALUE_MAX - 1 && rep.items[0].value[0] == 'v',
	       "a long value is cut to the field, NUL-terminated");
	tap_streq(rep.items[1].value, "(null)", "a NULL word reads as printf writes it");
	tap_streq(rep.items[2].value, "x=3", "any other format is formatted");
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
	test_add_plain();
	test_files();
	test_status_table();
	return tap_done();
}
