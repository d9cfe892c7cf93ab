/* libFuzzer target for a generic image's device table (stages/modules.c,
 * hi_modules_devices_parse and hi_modules_demand_match). The builder
 * writes it, but the initramfs sits on /boot where it is as trusted as
 * whoever can write there.
 *
 * Input: the module list, a NUL byte, the table. Invariants: at most
 * MODULES_ALIASES_MAX aliases; every alias owner is a list entry and on
 * demand, its pattern inside the buffer and without a blank; matching any
 * pattern as a modalias wants only on-demand entries, and a second match
 * of the same string wants nothing new. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modules.h"

static struct module_ref mods[MODULES_MAX];
static struct modules_demand d;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > MODULES_DEVICES_MAX)
		return 0;
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	size_t listlen = strlen(buf);
	char *table = listlen < size ? buf + listlen + 1 : buf + size;
	int n = hi_modules_list_parse(buf, mods, MODULES_MAX);
	if (n < 0)
		n = 0;
	int line = 0;
	const char *why = NULL;
	int a = hi_modules_devices_parse(table, mods, n, &d, &line, &why);
	if (a < -1 || a > MODULES_ALIASES_MAX || (a == -1 && (!why || line < 1)))
		abort();
	if (a >= 0) {
		for (size_t i = 0; i < d.n_aliases; i++) {
			const char *p = d.pattern[i];
			if (d.owner[i] < 0 || d.owner[i] >= n || !d.ondemand[d.owner[i]])
				abort();
			if (p < table || p > buf + size || !p[0] || strpbrk(p, " \t\n"))
				abort();
		}
		for (size_t i = 0; i < d.n_aliases && i < 64; i++) {
			hi_modules_demand_match(&d, mods, n, d.pattern[i]);
			if (hi_modules_demand_match(&d, mods, n, d.pattern[i]) != 0)
				abort();
		}
		for (int i = 0; i < n; i++)
			if (d.wanted[i] && !d.ondemand[i])
				abort();
	}
	free(buf);
	return 0;
}
