/* libFuzzer target for audit_read_boot_json, the reader of
 * /run/hardinit/report.json's stage times in hardinit audit: any bytes
 * (a damaged or hand-edited file) must give a bounded, NUL-terminated
 * result or a refusal, never a crash; the Prometheus and JSON outputs of
 * what it read must fit their bound. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_export.h"
#include "audit_types.h"
#include "config_types.h"
#include "report.h"
#include "sha256.h"

static struct audit a;
static char text[64 * 1024];
static char out[AUDIT_OUTPUT_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink s;

	if (size >= sizeof text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&a, 0, sizeof a);
	snprintf(a.profile, sizeof a.profile, "custom");
	if (hi_audit_read_boot_json(&a, text) < 0)
		return 0;
	if (a.n_stages > AUDIT_MAX_STAGES)
		abort();
	for (size_t i = 0; i < a.n_stages; i++)
		if (!memchr(a.stages[i].name, '\0', sizeof a.stages[i].name) ||
		    !memchr(a.stages[i].result, '\0', sizeof a.stages[i].result))
			abort();
	hi_sink_init(&s, out, sizeof out);
	hi_audit_format_prometheus(&a, &s);
	hi_sink_init(&s, out, sizeof out);
	hi_audit_format_json(&a, &s);
	if (s.full)
		abort();
	return 0;
}
