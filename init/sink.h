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

void sink_init(struct sink *s, char *buf, size_t cap);
void sink_printf(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* str as a JSON string, quotes included: '"' and '\\' escaped, control
 * bytes as \u00XX. The one JSON escaper (report.json, audit --json). */
void sink_json_string(struct sink *s, const char *str);

#endif
