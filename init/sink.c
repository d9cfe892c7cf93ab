#include "sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hi_sink_init(struct sink *s, char *buf, size_t cap)
{
	s->buf = buf;
	s->cap = cap;
	s->len = 0;
	s->full = false;
	if (cap)
		buf[0] = '\0';
}

void hi_sink_printf(struct sink *s, const char *fmt, ...)
{
	va_list ap;

	if (s->full)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->cap - s->len) {
		s->full = true;
		return;
	}
	s->len += (size_t)n;
}

static void sink_write(struct sink *s, const char *p, size_t n)
{
	if (s->full)
		return;
	if (s->cap - s->len < n + 1) {
		s->full = true;
		return;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

void hi_sink_puts(struct sink *s, const char *str)
{
	sink_write(s, str, strlen(str));
}

void hi_sink_json_string(struct sink *s, const char *str)
{
	/* Runs of plain bytes copied at once, not a printf or a call per
	 * byte: report.json has thousands. */
	hi_sink_putc(s, '"');
	for (const unsigned char *p = (const unsigned char *)str; *p;) {
		const unsigned char *run = p;
		while (*p && *p != '"' && *p != '\\' && *p >= 0x20)
			p++;
		sink_write(s, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			hi_sink_putc(s, '\\');
			hi_sink_putc(s, (char)*p);
		} else {
			hi_sink_printf(s, "\\u%04x", *p);
		}
		p++;
	}
	hi_sink_putc(s, '"');
}

void hi_sink_putc(struct sink *s, char c)
{
	if (s->full)
		return;
	if (s->cap - s->len < 2) {
		s->full = true;
		return;
	}
	s->buf[s->len++] = c;
	s->buf[s->len] = '\0';
}
