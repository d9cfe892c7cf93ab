/* libFuzzer target for the initramfs's module list (stages/modules.c,
 * modules_list_parse). The builder writes it, but the initramfs sits on
 * /boot where it is as trusted as whoever can write there.
 *
 * Invariants: never more than the cap it is given (-1 past it, with a cap
 * taken from the input so both sides of the limit are reached); every path
 * is inside the buffer, non-empty, without a blank, a newline, a leading
 * tab or '#'; params have no newline. Round trip: the modules written back
 * one "PATH PARAMS" line each parse to the same list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modules.h"

static struct module_ref mods[MODULES_MAX], again[MODULES_MAX];
static char text[MODULES_LIST_MAX * 2];

static void check_ref(const struct module_ref *m, const char *buf, size_t size)
{
	if (m->path < buf || m->path > buf + size)
		abort();
	if (!m->path[0] || strpbrk(m->path, " \n") || strchr(" \t#", m->path[0]) || strchr(m->params, '\n'))
		abort();
	if (m->params[0] && (m->params < buf || m->params > buf + size))
		abort();
}

static void check_round_trip(int n)
{
	size_t used = 0;

	for (int i = 0; i < n; i++) {
		size_t pl = strlen(mods[i].path), ql = strlen(mods[i].params);
		if (used + pl + ql + 3 > sizeof text)
			return;
		memcpy(text + used, mods[i].path, pl);
		used += pl;
		if (ql) {
			text[used++] = ' ';
			memcpy(text + used, mods[i].params, ql);
			used += ql;
		}
		text[used++] = '\n';
	}
	text[used] = '\0';
	int m = hi_modules_list_parse(text, again, MODULES_MAX);
	if (m != n)
		abort();
	for (int i = 0; i < n; i++)
		if (strcmp(again[i].path, mods[i].path) != 0 || strcmp(again[i].params, mods[i].params) != 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > MODULES_LIST_MAX)
		return 0;
	/* The first byte picks the cap: small ones reach the limit. */
	size_t cap = data[0] % 8 == 0 ? MODULES_MAX : data[0] % 8;
	char *buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	int n = hi_modules_list_parse(buf, mods, cap);
	if (n < -1 || n > (int)cap)
		abort();
	for (int i = 0; i < n; i++)
		check_ref(&mods[i], buf, size);
	if (n >= 0)
		check_round_trip(n);
	free(buf);
	return 0;
}
