#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"

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

/* Appends to a fixed buffer; once full, further text is dropped and the
 * overflow flag makes the writer fail rather than write a cut file. */
struct sink {
	char *buf;
	size_t cap, len;
	int overflow;
};

static void put(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct sink *s, const char *fmt, ...)
{
	va_list ap;

	if (s->overflow)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->cap - s->len) {
		s->overflow = 1;
		return;
	}
	s->len += (size_t)n;
}

static void put_json_string(struct sink *s, const char *str)
{
	put(s, "\"");
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			put(s, "\\%c", *p);
		else if (*p < 0x20)
			put(s, "\\u%04x", *p);
		else
			put(s, "%c", *p);
	}
	put(s, "\"");
}

static void format_json(const struct report *r, struct sink *s)
{
	put(s, "{\n  \"version\": \"%s\",\n", HARDINIT_VERSION);
	put(s, "  \"start_ns\": %llu,\n  \"exec_ns\": %llu,\n",
	    (unsigned long long)r->start_ns, (unsigned long long)r->exec_ns);
	put(s, "  \"stages\": [\n");
	for (size_t i = 0; i < r->n_stages; i++) {
		const struct report_stage *st = &r->stages[i];
		put(s, "    {\"name\": ");
		put_json_string(s, st->name);
		put(s, ", \"result\": \"%s\", \"duration_us\": %llu}%s\n",
		    st->result == 0 ? "ok" : st->result > 0 ? "skipped" : "failed",
		    (unsigned long long)(st->duration_ns / 1000), i + 1 < r->n_stages ? "," : "");
	}
	put(s, "  ],\n  \"items\": [\n");
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		put(s, "    {\"stage\": ");
		put_json_string(s, it->stage);
		put(s, ", \"key\": ");
		put_json_string(s, it->key);
		put(s, ", \"value\": ");
		put_json_string(s, it->value);
		put(s, ", \"status\": ");
		put_json_string(s, it->status);
		put(s, "}%s\n", i + 1 < r->n_items ? "," : "");
	}
	put(s, "  ],\n  \"dropped_items\": %zu\n}\n", r->dropped);
}

static void format_text(const struct report *r, struct sink *s)
{
	for (size_t i = 0; i < r->n_stages; i++) {
		const struct report_stage *st = &r->stages[i];
		put(s, "stage %-11s %-7s %6llu.%03llu ms\n", st->name,
		    st->result == 0 ? "ok" : st->result > 0 ? "skipped" : "failed",
		    (unsigned long long)(st->duration_ns / 1000000),
		    (unsigned long long)(st->duration_ns / 1000 % 1000));
	}
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		put(s, "%s %s %s %s\n", it->stage, it->key, it->status, it->value);
	}
	if (r->dropped)
		put(s, "report dropped %zu items (limit %d)\n", r->dropped, REPORT_MAX_ITEMS);
}

static int write_one(const struct report *r, const char *dir, const char *name,
		     void (*format)(const struct report *, struct sink *))
{
	static char buf[REPORT_FILE_MAX];
	struct sink s = { buf, sizeof buf, 0, 0 };
	char path[512];

	format(r, &s);
	if (s.overflow) {
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
