/* libFuzzer target for the small parsers of kernel-supplied text, all on
 * the same bytes: the usermode-helper capability words (umh_parse and
 * umh_format, stages/caps.c), the lockdown file (lockdown_parse_current,
 * stages/locks.c), /proc/cpuinfo's flags (cpuinfo_has_flag,
 * stages/memory.c), /proc/filesystems (selinux_fs_listed,
 * stages/selinux.c), and sysctl keys and values (sysctl_path and
 * sysctl_value_equal, init/fsutil.c: the keys come from configs). A
 * kernel can be odd, and a dry run or a test points these at any tree.
 *
 * Invariants: umh round trip (format(parse(t)) parses to the same words);
 * a lockdown level is one of the three names, in brackets in the text;
 * the nx flag is only found where "nx" is written; every name a
 * /proc/filesystems line ends with is listed (the first 16 lines); a sysctl path stays under
 * PROC/sys/ with no empty, "." or ".." component; value equality is
 * reflexive and symmetric. */
#define _GNU_SOURCE   /* memrchr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "fsutil.h"
#include "hardening.h"
#include "locks.h"
#include "memory.h"
#include "selinux_config.h"
#include "selinux_types.h"

#define PROC "/proc"

static const char *const lockdown_words[] = { "none", "integrity", "confidentiality" };

static void check_umh(const char *text)
{
	uint32_t words[2], again[2];
	char out[32];

	if (hi_umh_parse(text, words) != 0)
		return;
	hi_umh_format(words, out, sizeof out);
	if (hi_umh_parse(out, again) != 0 || again[0] != words[0] || again[1] != words[1])
		abort();
}

static void check_lockdown(const char *text)
{
	char want[32];
	int level = hi_lockdown_parse_current(text);

	if (level < -1 || level > 2)
		abort();
	if (level < 0)
		return;
	snprintf(want, sizeof want, "[%s]", lockdown_words[level]);
	if (!strstr(text, want))
		abort();
}

/* The first lines only: each check reads the whole text again. */
#define FILESYSTEMS_CHECKED_LINES 16

static void check_filesystems(const char *text)
{
	int lines = 0;

	for (const char *line = text; *line && lines++ < FILESYSTEMS_CHECKED_LINES;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char name[256];
		const char *tab = memrchr(line, '\t', len);
		const char *start = tab ? tab + 1 : line;
		size_t nlen = len - (size_t)(start - line);
		if (nlen > 0 && nlen < sizeof name) {
			memcpy(name, start, nlen);
			name[nlen] = '\0';
			if (!hi_selinux_fs_listed(text, name))
				abort();
		}
		if (!nl)
			break;
		line = nl + 1;
	}
}

static void check_sysctl_path(const char *key)
{
	char out[512];

	if (hi_sysctl_path(out, sizeof out, PROC, key) != 0)
		return;
	if (memchr(out, '\0', sizeof out) == NULL || strncmp(out, PROC "/sys/", 10) != 0)
		abort();
	for (const char *part = out + 10;;) {
		const char *slash = strchr(part, '/');
		size_t plen = slash ? (size_t)(slash - part) : strlen(part);
		if (plen == 0 || (plen == 1 && part[0] == '.') ||
		    (plen == 2 && part[0] == '.' && part[1] == '.'))
			abort();
		if (!slash)
			break;
		part = slash + 1;
	}
}

static void check_values(const char *text)
{
	const char *half = text + strlen(text) / 2;

	if (!hi_sysctl_value_equal(text, text) || !hi_sysctl_value_equal(half, half))
		abort();
	if (hi_sysctl_value_equal(text, half) != hi_sysctl_value_equal(half, text))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_umh(text);
	check_lockdown(text);
	if (hi_cpuinfo_has_flag(text, "nx") && !strstr(text, "nx"))
		abort();
	check_filesystems(text);
	check_sysctl_path(text);
	check_values(text);
	free(text);
	return 0;
}
