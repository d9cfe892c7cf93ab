/* libFuzzer target for what the SELinux stage reads from the root
 * (stages/selinux.c): /etc/selinux/config (selinux_config_parse) and the
 * header of a binary policy file (selinux_policy_header), both on the
 * same bytes.
 *
 * Invariants, config: 0 or -1 with err set; on 0 the file is present, the
 * mode is one of the enum's, mode_text and type are NUL-terminated, type
 * has no blank at either end; round trip: SELINUX=mode_text and
 * SELINUXTYPE=type written back parse to the same mode and type (and
 * mode_text, unless it was cut to fit). Policy: 0 only for at least SELINUX_POLICY_HEADER_MIN bytes that
 * start with the magic and "SE Linux", the version being the header's;
 * -1 with err set and the version untouched otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selinux_config.h"
#include "selinux_types.h"

static char text[2 * (SELINUX_CONFIG_MAX_LINE + 16)];

static void check_terminated(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static void check_round_trip(const struct selinux_file_config *c)
{
	struct selinux_file_config again;
	char err[CONFIG_ERR_MAX];
	int n = 0;

	if (c->mode != SEFILE_ABSENT)
		n += snprintf(text + n, sizeof text - (size_t)n, "SELINUX=%s\n", c->mode_text);
	if (c->type[0])
		n += snprintf(text + n, sizeof text - (size_t)n, "SELINUXTYPE=%s\n", c->type);
	if (n < 0 || (size_t)n >= sizeof text)
		abort();
	if (hi_selinux_config_parse(text, (size_t)n, &again, err, sizeof err) != 0)
		abort();
	/* mode_text is for messages and may be cut (to a prefix, the mode
	 * stays): compared only when whole. */
	if (again.mode != c->mode || strcmp(again.type, c->type) != 0 ||
	    (strlen(c->mode_text) + 1 < sizeof c->mode_text && strcmp(again.mode_text, c->mode_text) != 0))
		abort();
}

static void check_config(const uint8_t *data, size_t size)
{
	struct selinux_file_config c;
	char err[CONFIG_ERR_MAX];

	err[0] = '\0';
	int rc = hi_selinux_config_parse((const char *)data, size, &c, err, sizeof err);
	if (rc != 0 && rc != -1)
		abort();
	if (rc < 0) {
		if (!err[0])
			abort();
		return;
	}
	if (!c.present || (unsigned)c.mode > SEFILE_UNKNOWN)
		abort();
	check_terminated(c.mode_text, sizeof c.mode_text);
	check_terminated(c.type, sizeof c.type);
	size_t tl = strlen(c.type);
	if (tl && (is_blank(c.type[0]) || is_blank(c.type[tl - 1])))
		abort();
	if (c.mode == SEFILE_ABSENT && c.mode_text[0])
		abort();
	check_round_trip(&c);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_policy(const uint8_t *data, size_t size)
{
	unsigned version = 0xdeadbeef;
	char err[CONFIG_ERR_MAX];

	err[0] = '\0';
	/* An exact-size copy, so a read past len is seen. */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return;
	memcpy(copy, data, size);
	int rc = hi_selinux_policy_header(copy, size, &version, err, sizeof err);
	if (rc == 0) {
		if (size < SELINUX_POLICY_HEADER_MIN || le32(copy) != SELINUX_POLICYDB_MAGIC ||
		    memcmp(copy + 8, "SE Linux", 8) != 0 || version != le32(copy + 16))
			abort();
	} else if (rc != -1 || !err[0] || version != 0xdeadbeef) {
		abort();
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_config(data, size);
	check_policy(data, size);
	return 0;
}
