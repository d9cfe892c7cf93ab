#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"
#include "log.h"
#include "sink.h"

#define REPORT_FILE_MAX (REPORT_MAX_ITEMS * 512 + 8192)

/* Cut at cap - 1 bytes, as snprintf would, without parsing a format: a
 * boot adds a few hundred facts of three or four fields each. */
static void copy_field(char *dst, size_t cap, const char *src)
{
	size_t n = src ? strnlen(src, cap - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

const char *const hi_report_status_names[N_REPORT_STATUS + 1] = {
	[REPORT_OK] = "ok", [REPORT_APPLIED] = "applied", [REPORT_ALREADY] = "already",
	[REPORT_ABSENT] = "absent", [REPORT_REFUSED] = "refused", [REPORT_FAILED] = "failed",
	[REPORT_WARN] = "warn", [REPORT_SKIPPED] = "skipped", [REPORT_INFO] = "info",
	[REPORT_CREATED] = "created", [REPORT_DEFERRED] = "deferred", [REPORT_MISSING] = "missing",
	[REPORT_WRONG] = "wrong", [REPORT_INVALID] = "invalid", [REPORT_DUPLICATE] = "duplicate",
	[REPORT_REMOVED] = "removed", [REPORT_OFF] = "off", [REPORT_TAKEN] = "taken",
	[REPORT_OPENED] = "opened", [REPORT_EXTENDED] = "extended",
	[REPORT_HYPERVISOR] = "hypervisor", [N_REPORT_STATUS] = NULL,
};

int hi_report_status_of(const char *word)
{
	for (int i = 0; word && i < N_REPORT_STATUS; i++)
		if (strcmp(word, hi_report_status_names[i]) == 0)
			return i;
	return -1;
}

void hi_report_add(struct report *r, const char *stage, const char *key,
		const char *status, const char *fmt, ...)
{
	va_list ap;

	if (r->n_items >= REPORT_MAX_ITEMS) {
		r->dropped++;
		return;
	}
	if (hi_report_status_of(status) < 0)
		log_warn("report: %s %s has the status '%s', which is not in report_status_names "
			 "(init/report.c); this is a bug of hardinit, report it", stage, key, status ? status : "");
	struct report_item *it = &r->items[r->n_items++];
	copy_field(it->stage, sizeof it->stage, stage);
	copy_field(it->key, sizeof it->key, key);
	copy_field(it->status, sizeof it->status, status);
	va_start(ap, fmt);
	if (strcmp(fmt, "%s") == 0) {   /* the commonest value: a word as it is */
		const char *v = va_arg(ap, const char *);
		copy_field(it->value, sizeof it->value, v ? v : "(null)");
	} else {
		vsnprintf(it->value, sizeof it->value, fmt, ap);
	}
	va_end(ap);
}

const struct report_item *hi_report_find(const struct report *r, const char *stage, const char *key)
{
	for (size_t i = 0; i < r->n_items; i++)
		if (strcmp(r->items[i].stage, stage) == 0 && strcmp(r->items[i].key, key) == 0)
			return &r->items[i];
	return NULL;
}

static void format_json(const struct report *r, struct sink *s)
{
	hi_sink_printf(s, "{\n  \"version\": \"%s\",\n", HARDINIT_VERSION);
	hi_sink_printf(s, "  \"start_ns\": %llu,\n  \"exec_ns\": %llu,\n",
	    (unsigned long long)r->start_ns, (unsigned long long)r->exec_ns);
	hi_sink_printf(s, "  \"stages\": [\n");
	for (size_t i = 0; i < r->n_stages; i++) {
		const struct report_stage *st = &r->stages[i];
		hi_sink_printf(s, "    {\"name\": ");
		hi_sink_json_string(s, st->name);
		hi_sink_printf(s, ", \"result\": \"%s\", \"duration_us\": %llu}%s\n",
		    st->result == 0 ? "ok" : "failed",
		    (unsigned long long)(st->duration_ns / 1000), i + 1 < r->n_stages ? "," : "");
	}
	hi_sink_printf(s, "  ],\n  \"items\": [\n");
	/* The facts (a few hundred) by copies, not printf: formatting them
	 * was most of the report's cost under -icount. */
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		hi_sink_puts(s, "    {\"stage\": ");
		hi_sink_json_string(s, it->stage);
		hi_sink_puts(s, ", \"key\": ");
		hi_sink_json_string(s, it->key);
		hi_sink_puts(s, ", \"value\": ");
		hi_sink_json_string(s, it->value);
		hi_sink_puts(s, ", \"status\": ");
		hi_sink_json_string(s, it->status);
		hi_sink_puts(s, i + 1 < r->n_items ? "},\n" : "}\n");
	}
	hi_sink_printf(s, "  ],\n  \"dropped_items\": %zu\n}\n", r->dropped);
}

static void format_text(const struct report *r, struct sink *s)
{
	for (size_t i = 0; i < r->n_stages; i++) {
		const struct report_stage *st = &r->stages[i];
		char ms[CLOCK_MS_MAX];
		hi_sink_printf(s, "stage %-11s %-7s %10s ms\n", st->name, st->result == 0 ? "ok" : "failed",
			    hi_clock_format_ms(ms, sizeof ms, st->duration_ns));
	}
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		const char *const words[] = { it->stage, " ", it->key, " ", it->status, " ", it->value, "\n" };
		for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
			hi_sink_puts(s, words[w]);
	}
	if (r->dropped)
		hi_sink_printf(s, "report dropped %zu items (limit %d)\n", r->dropped, REPORT_MAX_ITEMS);
}

static int write_one(const struct report *r, const char *dir, const char *name,
		     void (*format)(const struct report *, struct sink *))
{
	static char buf[REPORT_FILE_MAX];
	struct sink s;
	char path[512];

	hi_sink_init(&s, buf, sizeof buf);
	format(r, &s);
	if (s.full) {
		errno = E2BIG;
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return hi_fs_write_new(path, buf);
}

int hi_report_write(const struct report *r, const char *dir)
{
	if (hi_fs_mkdir_p(dir, 0755) < 0)
		return -1;
	if (write_one(r, dir, "report.json", format_json) < 0)
		return -1;
	return write_one(r, dir, "report.txt", format_text);
}
