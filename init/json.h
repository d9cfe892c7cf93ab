/* One bounded JSON cursor for the parsers of untrusted JSON: the LUKS2
 * header's JSON area (block/luks2_json.c) and systemd's
 * tpm2-pcr-signature.json (tpm/tpm2_pcrsig.c). It exists so that the
 * reading of strings, escapes, nesting and skipped values is written (and
 * fuzzed) once, not once per parser. It is in init/, the lowest floor, so
 * block/ and tpm/ may both include it.
 *
 * The cursor reads text[0..len) and never past it; every string is read
 * into a buffer of a given size, a skipped number is at most
 * JSON_NUMBER_MAX characters, and objects and arrays nest at most
 * depth_max deep. A failure writes one line into err:
 * "PREFIX: what (at byte N)" (no "PREFIX: " when prefix is NULL); with
 * first_error set, an error already in err is kept (the first wins),
 * otherwise the last one overwrites it. Every function returns 0 or -1
 * (the walker also passes on a callback's positive value). */
#ifndef HARDINIT_JSON_H
#define HARDINIT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_KEY_MAX    64       /* the longest object key, with its NUL */
#define JSON_NUMBER_MAX 32       /* the longest number hi_json_skip takes */

struct hi_json {
	const char *s;           /* the text */
	size_t n, i;             /* its length; the position */
	int depth, depth_max;    /* objects and arrays open; their cap */
	char *err;               /* the error line */
	size_t errlen;
	const char *prefix;      /* the error's "PREFIX: " (NULL: none) */
	bool first_error;        /* keep the first error, not the last */
};

/* Formats an error at the cursor's position into c->err; returns -1. */
__attribute__((format(printf, 2, 3))) int hi_json_fail(struct hi_json *c, const char *fmt, ...);

/* Skips white space; the next byte, or -1 at the end. */
int hi_json_peek(struct hi_json *c);

/* The next byte (after white space) is ch: takes it. */
int hi_json_expect(struct hi_json *c, char ch);

/* A hex digit's value, or -1. */
int hi_json_hexval(char ch);

/* A string into out (cap bytes, NUL-terminated; out NULL: checked and
 * skipped). The escapes of JSON; \u only for ASCII (no NUL). */
int hi_json_string(struct hi_json *c, char *out, size_t cap);

#define JSON_HEX_MAX 64          /* the most bytes hi_json_hex decodes (a SHA-512 digest) */

/* A string of hex digits into out: at most cap (<= JSON_HEX_MAX) bytes,
 * their count in len. what (or NULL) names the key in the error. */
int hi_json_hex(struct hi_json *c, uint8_t *out, size_t cap, size_t *len, const char *what);

/* Any value, checked for form and thrown away. */
int hi_json_skip(struct hi_json *c);

/* The members of an object (open '{') or the items of an array (open
 * '['), each through fn (an object's key in key, an array's NULL), which
 * consumes the value. fn returns 0 to go on, -1 for an error, or a
 * positive value to stop the walk there (hi_json_walk returns it). */
typedef int (*hi_json_fn)(struct hi_json *c, const char *key, void *ctx);
int hi_json_walk(struct hi_json *c, char open, hi_json_fn fn, void *ctx);

#endif
