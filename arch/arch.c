/* The architecture tables' lookups, and the one place that knows which
 * table this binary was compiled for. */
#include <string.h>

#include "arch.h"
#include "aarch64.h"
#include "x86_64.h"

static const struct arch *const all[] = { &hi_arch_x86_64, &hi_arch_aarch64 };
#define N_ARCH (sizeof all / sizeof all[0])

const struct arch *hi_arch_native(void)
{
#if defined(__x86_64__)
	return &hi_arch_x86_64;
#elif defined(__aarch64__)
	return &hi_arch_aarch64;
#else
#error "hardinit has no arch/ table for this architecture"
#endif
}

const struct arch *hi_arch_by_name(const char *name)
{
	for (size_t i = 0; i < N_ARCH; i++)
		if (strcmp(name, all[i]->name) == 0 || strcmp(name, all[i]->deb) == 0)
			return all[i];
	return NULL;
}

static bool word_matches(const char *entry, const char *word)
{
	if (strchr(entry, '='))
		return strcmp(entry, word) == 0;
	size_t k = strlen(entry);
	return strncmp(word, entry, k) == 0 && (word[k] == '\0' || word[k] == '=');
}

const struct arch *hi_arch_of_word(const char *word)
{
	for (size_t i = 0; i < N_ARCH; i++)
		for (size_t j = 0; j < all[i]->n_words; j++)
			if (word_matches(all[i]->words[j], word))
				return all[i];
	return NULL;
}

bool hi_arch_reads_word(const struct arch *a, const char *word)
{
	const struct arch *owner = hi_arch_of_word(word);
	return owner == NULL || owner == a;
}
