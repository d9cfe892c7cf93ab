/* config_format: the effective config written as hardinit.conf text that
 * config_parse takes back to the same struct (saved by the report stage as
 * /run/hardinit/config for hardinit audit); the lists' own formatters
 * are config_lists.c's. */
#include <cap-ng.h>
#include <stdio.h>
#include <string.h>

#include "config_format.h"
#include "config_keys.h"
#include "config_table.h"

/* An enum value the names do not cover is written as "" and marks the
 * sink full: config_format must fail rather than write what does not parse. */
void hi_config_format_value(char *out, size_t cap, const struct config *c, const struct key_def *d)
{
	const char *f = (const char *)c + d->offset;
	int v;

	out[0] = '\0';
	switch (d->kind) {
	case K_BOOL:
		snprintf(out, cap, "%s", *(const bool *)f ? "yes" : "no");
		break;
	case K_NAMED_BOOL:
		snprintf(out, cap, "%s", d->names[*(const bool *)f ? 1 : 0]);
		break;
	case K_ENUM: {
		int n = 0;
		v = *(const int *)f;
		while (d->names[n])
			n++;
		if (v >= 0 && v < n)
			snprintf(out, cap, "%s", d->names[v]);
		break;
	}
	case K_INT:
		v = *(const int *)f;
		if (d->none_is_minus_one && v < 0)
			snprintf(out, cap, "none");
		else
			snprintf(out, cap, "%d", v);
		break;
	case K_STRING:
		snprintf(out, cap, "%s", d->off_is_empty && !*f ? "off" : f);
		break;
	case K_LIST:
		break;
	}
}

static void format_scalar(struct sink *o, const struct config *c, const struct key_def *d)
{
	char value[CONFIG_PATH_MAX];

	if (d->kind == K_LIST)
		return;
	hi_config_format_value(value, sizeof value, c, d);
	if (!value[0] && d->kind == K_ENUM)
		o->full = true;   /* not a value the parser takes back: fail */
	else if (!value[0])
		hi_sink_printf(o, "%s =\n", d->key);
	else
		hi_sink_printf(o, "%s = %s\n", d->key, value);
}

int hi_config_format(const struct config *c, char *out, size_t cap)
{
	struct sink o;

	if (cap == 0)
		return -1;
	hi_sink_init(&o, out, cap);
	hi_sink_printf(&o, "# hardinit.conf: the effective configuration (see hardinit.conf(5))\n");
	for (int s = 0; s < N_SECTIONS; s++) {
		hi_sink_printf(&o, "\n[%s]\n", hi_config_section_names[s]);
		for (size_t k = 0; k < hi_config_n_keys; k++)
			if ((int)hi_config_key_table[k].section == s)
				format_scalar(&o, c, &hi_config_key_table[k]);
		for (size_t l = 0; l < hi_config_n_lists; l++)
			if ((int)hi_config_list_table[l].section == s)
				hi_config_list_table[l].format(&o, c);
	}
	if (o.full)
		return -1;
	return (int)o.len;
}
