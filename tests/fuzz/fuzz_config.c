/* libFuzzer target for hardinit.conf: config_parse on the bytes, and, when
 * they parse, the round trip parse(format(c)) == c and config_edit (config-set)
 * giving what it is asked; then config_override
 * with the input split into key and value, locked and unlocked. Any crash,
 * sanitizer report or broken invariant (abort) is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_edit.h"
#include "config_format.h"
#include "config_lock.h"

/* include = lines must not read this machine's files: a root that does not
 * exist makes every include a clean error. */
#define FUZZ_ROOT "/nonexistent-hardinit-fuzz-root"
#define FORMAT_CAP (128 * 1024)

static struct config parsed, again;
static char text[FORMAT_CAP];

static void check_round_trip(void)
{
	char err[CONFIG_ERR_MAX];
	int n = hi_config_format(&parsed, text, sizeof text);

	if (n < 0)
		abort();   /* every parsed config must be writable */
	hi_config_defaults(&again);
	if (hi_config_parse(&again, text, (size_t)n, "formatted", FUZZ_ROOT, err, sizeof err) != 0)
		abort();
	if (memcmp(&again, &parsed, sizeof again) != 0)
		abort();
}

/* Errors are one line "NAME:LINE: ..." that names the file. */
static void check_error(const char *err)
{
	if (strncmp(err, "fuzz.conf:", 10) != 0 || strchr(err, '\n'))
		abort();
}

static void try_overrides(const uint8_t *data, size_t size)
{
	char key[CONFIG_MAX_LINE], value[CONFIG_MAX_LINE], err[CONFIG_ERR_MAX];
	const uint8_t *eq = memchr(data, '=', size);
	size_t klen = eq ? (size_t)(eq - data) : size;
	size_t vlen = eq ? size - klen - 1 : 0;

	if (klen >= sizeof key || vlen >= sizeof value)
		return;
	memcpy(key, data, klen);
	key[klen] = '\0';
	memcpy(value, eq ? eq + 1 : data, vlen);
	value[vlen] = '\0';

	for (int locked = 0; locked < 2; locked++) {
		hi_config_defaults(&parsed);
		parsed.lock_cmdline = locked;
		int rc = hi_config_override(&parsed, key, value, err, sizeof err);
		if (rc < -1 || rc > 1 || (locked == 0 && rc == 1))
			abort();   /* refusals only under the lock */
		if (rc == 0)
			check_round_trip();
	}
}

/* config-set (config_edit) on a file that parses: it must give the asked
 * values (it checks that itself) unless the file grows past the maximum. */
static void try_edit(const uint8_t *data, size_t size)
{
	static char out[2 * CONFIG_MAX_FILE_BYTES];
	static const char *const assign[] = { "verity.enabled=yes", "verity.roothash=abcd", "tpm.pcr=13",
					      "boot.failure_action=halt" };
	char err[CONFIG_ERR_MAX];

	if (hi_config_edit((const char *)data, size, "fuzz.conf", FUZZ_ROOT, assign, 4, out, sizeof out,
			err, sizeof err) < 0 && !strstr(err, "CONFIG_MAX_FILE_BYTES"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CONFIG_ERR_MAX];

	hi_config_defaults(&parsed);
	err[0] = '\0';
	if (hi_config_parse(&parsed, (const char *)data, size, "fuzz.conf", FUZZ_ROOT, err, sizeof err) == 0) {
		check_round_trip();
		try_edit(data, size);
	} else
		check_error(err);
	if (size < 2 * CONFIG_MAX_LINE)
		try_overrides(data, size);
	return 0;
}
