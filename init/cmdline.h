/* The kernel command line, parsed once: root options, init options and the
 * words and environment the kernel would hand to init. Pure logic. */
#ifndef HARDINIT_CMDLINE_H
#define HARDINIT_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CMDLINE_MAX_BYTES   4096   /* COMMAND_LINE_SIZE is 2048 on x86; leave room */
#define CMDLINE_MAX_WORDS   128
/* Every word can be one for init: the measured hand-off names them all, so
 * none may fall off a shorter list (the kernel consumes words hardinit
 * counts, so its own limit of 32 does not bound this one). */
#define CMDLINE_MAX_INIT_ARGS CMDLINE_MAX_WORDS
#define CMDLINE_MAX_OVERRIDES 64

struct cmdline_word {
	char *key;      /* points into cmdline.buf */
	char *value;    /* NULL when the word has no '=' */
};

struct cmdline {
	char buf[CMDLINE_MAX_BYTES];           /* words, NUL-separated, unquoted */
	struct cmdline_word words[CMDLINE_MAX_WORDS];
	size_t n_words;

	/* Root and init options (NULL when absent). */
	const char *root;
	const char *rootfstype;
	const char *rootflags;
	const char *init;
	bool rw;                 /* last of ro/rw wins, as in the kernel */
	bool rootwait;
	int rootdelay;           /* seconds, 0 when absent */

	/* What the kernel passes to init: words without '=' (and everything
	 * after "--"); key=value words without a dot become environment. */
	const char *init_args[CMDLINE_MAX_INIT_ARGS];
	size_t n_init_args;

	/* hardinit.<key>=<value> words, key without the "hardinit." prefix. */
	struct cmdline_word overrides[CMDLINE_MAX_OVERRIDES];
	size_t n_overrides;
};

/* Parse text (not necessarily NUL-terminated, len bytes). Returns 0, or -1
 * with err set ("why; what to do") for input that cannot be trusted:
 * overlong, too many words, an unterminated quote, a NUL byte. */
int hi_cmdline_parse(struct cmdline *c, const char *text, size_t len,
		  char *err, size_t errlen);

/* Value of the last word named key, or NULL; *present says whether a bare
 * word of that name occurred. */
const char *hi_cmdline_get(const struct cmdline *c, const char *key, bool *present);

/* Root specifications, as the kernel's name_to_dev_t accepts them:
 * /dev/NAME, UUID=, LABEL=, PARTUUID=, PARTLABEL=, decimal MAJ:MIN
 * ("254:1"), or a bare hexadecimal old-style dev_t ("fe01"). */
enum root_kind { ROOT_PATH, ROOT_UUID, ROOT_LABEL, ROOT_PARTUUID, ROOT_PARTLABEL, ROOT_DEVNUM };

struct root_spec {
	enum root_kind kind;
	char value[256];         /* path, UUID (lower-case), label */
	unsigned major, minor;   /* ROOT_DEVNUM */
};

int hi_root_spec_parse(struct root_spec *r, const char *text, char *err, size_t errlen);

#endif
