/* The kernel's own command-line words under the lock (init/cmdline_lock.c):
 * the one table of words, not hardinit.*, that change what hardinit does
 * or what it hands off to, each decided with its reason. Pure. */
#ifndef HARDINIT_CMDLINE_LOCK_H
#define HARDINIT_CMDLINE_LOCK_H

#include <stdbool.h>
#include <stddef.h>

/* What lock_cmdline = yes does with a word of the table. */
enum kernel_word_action {
	/* hardinit alone acts on it: ignored with a warning and reported
	 * "refused", as a weakening hardinit.* word is */
	KWORD_IGNORED,
	/* the kernel or the real init acts on it whatever hardinit does:
	 * the boot is refused (the failure action) */
	KWORD_FATAL,
	/* decided and allowed: it cannot weaken (the reason says why) */
	KWORD_ALLOWED,
};

struct kernel_word {
	const char *key;        /* the word's name; ending in '*', a prefix */
	bool bare;              /* the word has no '=' ("single"); else key=value */
	const char *ok_value;   /* the one value that is allowed; NULL: none is */
	enum kernel_word_action action;
	const char *why;
};

extern const struct kernel_word hi_kernel_words[];
extern const size_t hi_kernel_n_words;

/* The row a command-line word (key, value: NULL for a bare word) falls
 * under when it is refused under the lock; NULL when it is not (absent from
 * the table, an allowed row, or the allowed value). */
const struct kernel_word *hi_kernel_word_refused(const char *key, const char *value);

#endif
