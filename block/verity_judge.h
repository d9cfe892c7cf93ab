/* The kernel command line against an embedded root hash
 * (block/verity_judge.c): when the initramfs carries a root hash (the
 * builder's --verity-roothash), the command line may not change or weaken
 * verity, whatever lock_cmdline says: each word the verity stage reads is
 * judged against what the initramfs embeds, by one table. Pure, fuzzed
 * (tests/fuzz/fuzz_verity.c). */
#ifndef HARDINIT_VERITY_JUDGE_H
#define HARDINIT_VERITY_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "verity_sb.h"

enum verity_effect {
	VW_OTHER,          /* not a word the verity stage reads */
	VW_SAME,           /* says what is embedded: taken, changes nothing */
	VW_ADDS,           /* fills what the embedded config leaves open: taken */
	VW_STRENGTHENS,    /* taken */
	VW_IGNORED,        /* read, but has no effect on a verity root */
	VW_CHANGES,        /* refused */
	VW_WEAKENS,        /* refused */
};

struct verity_anchor {
	const char *roothash, *data, *hash;   /* the embedded config's; "" when unset */
	struct verity_params p;               /* its options and corruption mode */
};

/* Judge one command-line word (value NULL for a bare word). For
 * systemd.verity_root_options= every option word is judged and the worst
 * decides: the word that decided is copied into word. *why is the table's
 * reason (static text). */
enum verity_effect hi_verity_word_judge(const struct verity_anchor *a, const char *key, const char *value,
				     char *word, size_t wordcap, const char **why);

static inline bool verity_effect_refused(enum verity_effect e)
{
	return e >= VW_CHANGES;
}

#endif
