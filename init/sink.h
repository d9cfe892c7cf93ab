/* A bounded text buffer: formatted appends until it is full, then a flag
 * instead of a cut-off text, so a writer can refuse to emit half a file. */
#ifndef HARDINIT_SINK_H
#define HARDINIT_SINK_H

#include <stdbool.h>
#include <stddef.h>

struct sink {
	char *buf;
	size_t cap, len;
	bool full;
};

void hi_sink_init(struct sink *s, char *buf, size_t cap);
void hi_sink_printf(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One character, without a printf per character (the report's JSON
 * strings: a vsnprintf each cost about 5 ms of a boot under -icount). */
void hi_sink_putc(struct sink *s, char c);
/* A string as it is: one copy, where a printf would parse a format (the
 * report writes every fact's words this way). */
void hi_sink_puts(struct sink *s, const char *str);

/* str as a JSON string, quotes included: '"' and '\\' escaped, control
 * bytes as \u00XX. The one JSON escaper (report.json, audit --json). */
void hi_sink_json_string(struct sink *s, const char *str);

#endif
