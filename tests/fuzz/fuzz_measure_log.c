/* libFuzzer target for the measurement log hardinit audit checks
 * (measure_log_check, stages/measure.c): /run/hardinit/measurements is
 * read after the boot, when anyone with root may have written it. Input:
 * byte 0 picks the config's PCR (8 + byte % 7), byte 1 fills the 32-byte
 * start value, the rest is the log. Invariants: the result is 0 or -1;
 * a refusal says why in a NUL-terminated, non-empty text; a log that
 * passes has exactly one initial line and the five events, and the same
 * log fails for any other PCR (the PCR is the config's, never the log's);
 * checking it again gives the same value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "measure_event.h"

static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, prefix, len) == 0;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[MEASURE_LOG_MAX], copy[MEASURE_LOG_MAX];
	uint8_t start[32], value[32], again[32];
	char why[200];

	if (size < 2)
		return 0;
	unsigned pcr = 8 + data[0] % 7;
	memset(start, data[1], sizeof start);
	size_t len = size - 2 < sizeof text - 1 ? size - 2 : sizeof text - 1;
	memcpy(text, data + 2, len);
	text[len] = '\0';
	memcpy(copy, text, len + 1);

	int rc = hi_measure_log_check(text, pcr, start, value, why, sizeof why);
	if (rc != 0 && rc != -1)
		abort();
	if (rc < 0) {
		if (!memchr(why, '\0', sizeof why) || !why[0])
			abort();
		return 0;
	}
	if (count_lines(copy, "initial ") != 1 || count_lines(copy, "event ") != EV_COUNT)
		abort();
	memcpy(text, copy, len + 1);
	if (hi_measure_log_check(text, pcr, start, again, why, sizeof why) != 0 || memcmp(value, again, 32) != 0)
		abort();
	memcpy(text, copy, len + 1);
	if (hi_measure_log_check(text, pcr == 14 ? 8 : pcr + 1, start, again, why, sizeof why) == 0)
		abort();
	return 0;
}
