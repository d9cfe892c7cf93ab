#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"
#include "sink.h"

#define REPORT_FILE_MAX (REPORT_MAX_ITEMS * 512 + 8192)

uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void copy_field(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

void report_add(struct report *r, const char *stage, const char *key,
		const char *status, const char *fmt, ...)
{
	va_list ap;

	if (r->n_items >= REPORT_MAX_ITEMS) {
		r->dropped++;
		return;
	}
	struct report_item *it = &r->items[r->n_items++];
	copy_field(it->stage, sizeof it->stage, stage);
	copy_field(it->key, sizeof it->key, key);
	copy_field(it->status, sizeof it->status, status);
	va_start(ap, fmt);
	vsnprintf(it->value, sizeof it->value, fmt, ap);
	va_end(ap);
}

const struct report_item *report_find(const struct report *r, const char *stage, const char *key)
{
	for (size_t i = 0; i < r->n_items; i++)
		if (strcmp(r->items[i].stage, stage) == 0 && strcmp(r->items[i].key, key) == 0)
			return &r->items[i];
	return NULL;
}

static void put_json_string(struct sink *s, const char *str)
{
	sink_putc(s, '"');
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\') {
			sink_putc(s, '\\');
			sink_putc(s, (char)*p);
		} else if (*p < 0x20) {
			sink_printf(s, "\\u%04x", *p);
		} else {
			sink_putc(s, (char)*p);
		}
	}
	sink_putc(s, '"');
}

static void format_json(const struct report *r, struct sink *s)
{
	sink_printf(s, "{\n  \"version\": \"%s\",\n", HARDINIT_VERSION);
	sink_printf(s, "  \"start_ns\": %llu,\n  \"exec_ns\": %llu,\n",
	    (unsigned long long)r->start_ns, (unsigned long long)r->exec_ns);
	sink_printf(s, "  \"stages\": [\n");
	for (size_t i = 0; i < r->n_stages; i++) {
		const struct report_stage *st = &r->stages[i];
		sink_printf(s, "    {\"name\": ");
		put_json_string(s, st->name);
		sink_printf(s, ", \"result\": \"%s\", \"duration_us\": %llu}%s\n",
		    st->result == 0 ? "ok" : st->result > 0 ? "skipped" : "failed",
		    (unsigned long long)(st->duration_ns / 1000), i + 1 < r->n_stages ? "," : "");
	}
	sink_printf(s, "  ],\n  \"items\": [\n");
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		sink_printf(s, "    {\"stage\": ");
		put_json_string(s, it->stage);
		sink_printf(s, ", \"key\": ");
		put_json_string(s, it->key);
		sink_printf(s, ", \"value\": ");
		put_json_string(s, it->value);
		sink_printf(s, ", \"status\": ");
		put_json_string(s, it->status);
		sink_printf(s, "}%s\n", i + 1 < r->n_items ? "," : "");
	}
	sink_printf(s, "  ],\n  \"dropped_items\": %zu\n}\n", r->dropped);
}

static void format_text(const struct report *r, struct sink *s)
{
	for (size_t i = 0; i < r->n_stages; i++) {
		const struct report_stage *st = &r->stages[i];
		sink_printf(s, "stage %-11s %-7s %6llu.%03llu ms\n", st->name,
		    st->result == 0 ? "ok" : st->result > 0 ? "skipped" : "failed",
		    (unsigned long long)(st->duration_ns / 1000000),
		    (unsigned long long)(st->duration_ns / 1000 % 1000));
	}
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		sink_printf(s, "%s %s %s %s\n", it->stage, it->key, it->status, it->value);
	}
	if (r->dropped)
		sink_printf(s, "report dropped %zu items (limit %d)\n", r->dropped, REPORT_MAX_ITEMS);
}

static int write_one(const struct report *r, const char *dir, const char *name,
		     void (*format)(const struct report *, struct sink *))
{
	static char buf[REPORT_FILE_MAX];
	struct sink s;
	char path[512];

	sink_init(&s, buf, sizeof buf);
	format(r, &s);
	if (s.full) {
		errno = E2BIG;
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return fs_write_new(path, buf);
}

int report_write(const struct report *r, const char *dir)
{
	if (fs_mkdir_p(dir, 0755) < 0)
		return -1;
	if (write_one(r, dir, "report.json", format_json) < 0)
		return -1;
	return write_one(r, dir, "report.txt", format_text);
}
