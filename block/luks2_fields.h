/* The field tables block/luks2_json.c reads the LUKS2 JSON area through:
 * each object LUKS2 writes (a keyslot, a segment, a digest, a token, the
 * config, a systemd-tpm2 token) is one table of its fields, each field with
 * its kind, its place in the struct and its limits, and one reader walks
 * them all (block/luks2_fields.c), so what a hostile header can make the
 * parser do is what the tables say. */
#ifndef HARDINIT_LUKS2_FIELDS_H
#define HARDINIT_LUKS2_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "luks2.h"

#define J_STR_MAX 512            /* the longest string value kept (base64 of 64 bytes is 88) */
#define J_B64_MAX (LUKS2_TPM2_PUBKEY_MAX / 3 * 4 + 8)  /* the longest base64 field (the blob, the PEM key) */

enum luks2_jkind {
	JF_SKIP,        /* read for form, thrown away */
	JF_STR,         /* a string into char[size] */
	JF_UINT,        /* an unsigned integer (number or string) up to max, stored in size bytes;
			 * with word: that exact string sets the bool at flag instead */
	JF_WORD,        /* one of words' names, stored as its value in size bytes */
	JF_IS,          /* a string that must be word, else the error "what 'x' is not word" */
	JF_IS_OR_FLAG,  /* a string that should be word, else the bool at flag is cleared */
	JF_BASE64,      /* base64 of at most max characters into uint8_t[size], its length at len */
	JF_HEX,         /* hex into uint8_t[size], its length at len */
	JF_BOOL,
	JF_IDLIST,      /* an array of ids below max (what: their name) into a uint32_t mask */
	JF_PCRS,        /* an array of PCR numbers into a uint32_t mask */
	JF_OBJECT,      /* an object through table sub, at off of the struct */
	JF_MAP,         /* an object of ids below max: elements of elem bytes at off, each through sub */
};

/* Names into values: systemd's banks and primary algorithms, LUKS2's kdfs. */
struct luks2_jwords {
	const char *const *names;
	const uint16_t *vals;
	size_t n;
	bool nocase;            /* compared without case (systemd's tpm2-util.c does) */
	bool strict;            /* a name not here is an error; else stored as other */
	uint16_t other;
};

struct luks2_jtable;

struct luks2_jfield {
	const char *name;
	enum luks2_jkind kind;
	size_t off, size;       /* the destination in the table's struct */
	size_t len;             /* JF_BASE64, JF_HEX: the size_t length's offset */
	size_t flag;            /* JF_UINT with word, JF_IS_OR_FLAG: a bool's offset */
	uint64_t max;
	const char *word, *what;
	const struct luks2_jwords *words;
	const struct luks2_jtable *sub;
	size_t elem;            /* JF_MAP: an element's size; its first member is bool used */
	void (*start)(struct hi_json *c, void *elem);                   /* JF_MAP: before its walk */
	int (*finish)(struct hi_json *c, void *elem, int id);           /* JF_MAP: after it */
	bool once;              /* a second one is refused */
	bool need;              /* the caller refuses an object without it */
	bool shards;            /* an array instead (systemd 255's shards): unsupported, len set to 1 */
	bool true_unsupported;  /* JF_BOOL: kept nowhere; true cannot be honoured */
};

struct luks2_jtable {
	const struct luks2_jfield *f;
	size_t n;               /* at most 32: each has a bit in seen */
	/* A field this reader cannot honour (shards, true_unsupported, an
	 * unknown key starting with one of foreign's prefixes: each may change
	 * what the object means) is named in the char[LUKS2_NAME_MAX] at
	 * unsupported (the first one) when names_unsupported is set. */
	bool names_unsupported;
	size_t unsupported;
	const char *const *foreign;
};

/* An object (open '{') through table t into the struct at base. Unknown
 * keys are skipped; which fields were there in *seen (NULL: not wanted),
 * bit k for t->f[k]. Returns 0, or -1 with the cursor's error. */
int hi_luks2_jtable_read(struct hi_json *c, const struct luks2_jtable *t, void *base, unsigned *seen);

/* The first field of t marked need that seen lacks, or NULL. */
const char *hi_luks2_jtable_missing(const struct luks2_jtable *t, unsigned seen);

/* Whether seen holds t's field name. */
bool hi_luks2_jtable_seen(const struct luks2_jtable *t, unsigned seen, const char *name);

#endif
