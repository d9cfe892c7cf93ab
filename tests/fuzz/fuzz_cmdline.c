/* libFuzzer target for the kernel command line and root specifications:
 * cmdline_parse on the bytes, cmdline_get on every word it found, and
 * root_spec_parse on root= and on the raw bytes as one string, and the
 * ima stage's reading of ima_appraise= (stages/ima.h). The kernel
 * command line is written by whoever controls the bootloader: none of it
 * may crash PID 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "ima.h"

#define CHECKED_WORDS 8

static struct cmdline cmd;

static void check_words(void)
{
	bool present;

	if (cmd.n_words > CMDLINE_MAX_WORDS || cmd.n_overrides > CMDLINE_MAX_OVERRIDES ||
	    cmd.n_init_args > CMDLINE_MAX_INIT_ARGS)
		abort();
	for (size_t i = 0; i < cmd.n_words; i++) {
		const char *key = cmd.words[i].key;
		/* Every word points into the parsed buffer. */
		if (!key || key < cmd.buf || key >= cmd.buf + sizeof cmd.buf)
			abort();
		/* cmdline_get reads every word: checking the first few and
		 * the last keeps a run linear (make fuzz's 10 million). */
		if (i >= CHECKED_WORDS && i + 1 < cmd.n_words)
			continue;
		hi_cmdline_get(&cmd, key, &present);
		if (!present && !cmd.words[i].value)
			abort();   /* a bare word that cmdline_get cannot see */
	}
}

/* The deciding word is one of the parsed words' text, and a disarming
 * mode is only ever read from off, log or fix. */
static void check_ima_appraise(void)
{
	const char *word = NULL;
	enum ima_appraise_mode m = hi_ima_appraise_cmdline(&cmd, &word);

	if ((word == NULL) != (m == IMA_APPRAISE_NOT_GIVEN))
		abort();
	if (word && (word < cmd.buf || word >= cmd.buf + sizeof cmd.buf))
		abort();
	if (hi_ima_appraise_disarmed(m) && strncmp(word, "off", 3) && strncmp(word, "log", 3) && strncmp(word, "fix", 3))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], text[512];
	struct root_spec spec;

	if (hi_cmdline_parse(&cmd, (const char *)data, size, err, sizeof err) == 0) {
		check_words();
		check_ima_appraise();
		if (cmd.root)
			hi_root_spec_parse(&spec, cmd.root, err, sizeof err);
	}
	size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
	memcpy(text, data, n);
	text[n] = '\0';
	hi_root_spec_parse(&spec, text, err, sizeof err);
	return 0;
}
