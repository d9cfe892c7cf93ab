/* Unit tests: the bounded JSON cursor (init/json.c) that the LUKS2
 * header's parser and the tpm2-pcr-signature.json reader share. Strings
 * and their escapes (\u for ASCII only, the buffer's cap), skipping every
 * kind of value (numbers of bounded length), the depth cap, the walker's
 * keys and its stop value, and the error line: its prefix, its byte
 * offset, first-error-wins or the last one kept. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "tap.h"

static char err[256];

static struct hi_json cur(const char *text, int depth_max, const char *prefix, bool first)
{
	struct hi_json c = { .s = text, .n = strlen(text), .err = err, .errlen = sizeof err,
			     .depth_max = depth_max, .prefix = prefix, .first_error = first };
	err[0] = '\0';
	return c;
}

/* text read as one string into a buffer of cap bytes. */
static int string(const char *text, char *out, size_t cap)
{
	struct hi_json c = cur(text, 4, NULL, false);
	return hi_json_string(&c, out, cap);
}

static int skip(const char *text, int depth_max)
{
	struct hi_json c = cur(text, depth_max, "t.json", false);
	if (hi_json_skip(&c) < 0)
		return -1;
	return hi_json_peek(&c) == -1 ? 0 : 1;
}

struct seen {
	char keys[128];
	int items, stop_at;
};

static int member(struct hi_json *c, const char *key, void *ctx)
{
	struct seen *s = ctx;
	if (key) {
		strncat(s->keys, key, sizeof s->keys - strlen(s->keys) - 2);
		strcat(s->keys, ",");
	}
	if (++s->items == s->stop_at)
		return 7;
	return hi_json_skip(c);
}

int main(void)
{
	char out[32];

	/* Strings. */
	tap_ok(string("  \"abc\"", out, sizeof out) == 0, "a string after white space");
	tap_streq(out, "abc", "its text");
	tap_ok(string("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", out, sizeof out) == 0, "every simple escape");
	tap_streq(out, "a\"b\\c/d\b\f\n\r\t", "each escape as its byte");
	tap_ok(string("\"\\u0041\\u007a\\u007E\"", out, sizeof out) == 0, "\\u escapes for ASCII");
	tap_streq(out, "Az~", "\\u0041 \\u007a \\u007E: A z ~");
	tap_ok(string("\"\"", out, sizeof out) == 0 && out[0] == '\0', "the empty string");
	tap_ok(string("\"\\u00e9\"", out, sizeof out) < 0, "\\u00e9 refused");
	tap_contains(err, "\\u escape outside ASCII", "says outside ASCII");
	tap_ok(string("\"\\u0000\"", out, sizeof out) < 0, "\\u0000 refused (no NUL inside a string)");
	tap_ok(string("\"\\u00g1\"", out, sizeof out) < 0, "a bad hex digit in \\u refused");
	tap_contains(err, "bad \\u escape", "says bad \\u escape");
	tap_ok(string("\"\\u00\"", out, sizeof out) < 0, "a short \\u refused");
	tap_ok(string("\"\\x\"", out, sizeof out) < 0, "an unknown escape refused");
	tap_contains(err, "bad escape \\x", "names the escape");
	tap_ok(string("\"a\x01\"", out, sizeof out) < 0, "a control byte refused");
	tap_contains(err, "control character in a string (at byte 3)", "says so, with the byte");
	tap_ok(string("\"abc", out, sizeof out) < 0, "an unterminated string refused");
	tap_contains(err, "unterminated string", "says unterminated");
	tap_ok(string("\"ab\\", out, sizeof out) < 0, "a string ending in a backslash refused");
	tap_ok(string("\"abcd\"", out, 5) == 0, "4 bytes fit a buffer of 5");
	tap_ok(string("\"abcde\"", out, 5) < 0, "5 bytes do not");
	tap_contains(err, "string longer than 4 bytes", "names the cap");
	tap_ok(string("abc", out, sizeof out) < 0, "not a string refused");
	tap_contains(err, "expected '\"'", "says a string was expected");
	tap_ok(string("\"not kept\"", NULL, 0) == 0, "a string skipped (out NULL)");

	/* Skipping values. */
	tap_ok(skip("{\"a\":[1,-2.5e+3,\"x\",true,false,null,{}],\"b\":{\"c\":[]}}", 4) == 0, "an object of every kind skipped");
	tap_ok(skip(" 12 ", 4) == 0 && skip("-0.5", 4) == 0, "numbers skipped");
	tap_ok(skip("12345678901234567890123456789012", 4) == 0, "a number of 32 characters skipped");
	tap_ok(skip("123456789012345678901234567890123", 4) < 0, "33 refused");
	tap_contains(err, "t.json: a number longer than 32 characters", "says so, with the prefix");
	tap_ok(skip("-", 4) < 0, "a lone minus refused");
	tap_ok(skip("tru", 4) < 0, "a cut word refused");
	tap_contains(err, "not a JSON value", "says not a JSON value");
	tap_ok(skip("", 4) < 0, "nothing refused");
	tap_ok(skip("[1 2]", 4) < 0, "a missing comma refused");
	tap_contains(err, "expected ',' or ']'", "says so");
	tap_ok(skip("{\"a\" 1}", 4) < 0, "a missing colon refused");
	tap_ok(skip("{1:2}", 4) < 0, "a key not a string refused");
	tap_ok(skip("{\"a\":1", 4) < 0, "a cut object refused");
	tap_contains(err, "expected ',' or '}' (at byte 7)", "says so, past its end");

	/* The depth cap. */
	tap_ok(skip("[[[[1]]]]", 4) == 0, "4 deep with a cap of 4");
	tap_ok(skip("[[[[[1]]]]]", 4) < 0, "5 deep refused");
	tap_contains(err, "t.json: nested deeper than 4 (at byte 4)", "names the cap and the byte");
	static char deep[4096];
	memset(deep, '[', sizeof deep - 1);
	tap_ok(skip(deep, 12) < 0, "4095 '[' refused at the cap, no recursion beyond it");

	/* The walker. */
	struct seen s = { .stop_at = 0 };
	struct hi_json c = cur("{\"a\":1,\"b\":{\"x\":[]},\"c\":\"z\"}", 4, NULL, false);
	tap_ok(hi_json_walk(&c, '{', member, &s) == 0 && c.depth == 0, "an object walked");
	tap_streq(s.keys, "a,b,c,", "each key, in order");
	s = (struct seen){ .stop_at = 0 };
	c = cur("[1, \"two\", [3]]", 4, NULL, false);
	tap_ok(hi_json_walk(&c, '[', member, &s) == 0 && s.items == 3 && !s.keys[0], "an array walked, no keys");
	s = (struct seen){ .stop_at = 2 };
	c = cur("[1, 2, 3]", 4, NULL, false);
	tap_ok(hi_json_walk(&c, '[', member, &s) == 7 && s.items == 2, "a callback's positive value stops the walk");
	c = cur("[]", 4, NULL, false);
	tap_ok(hi_json_walk(&c, '{', member, &s) < 0, "an array where an object is expected");
	tap_contains(err, "expected an object", "says so");
	c = cur("{}", 4, NULL, false);
	tap_ok(hi_json_walk(&c, '[', member, &s) < 0, "an object where an array is expected");
	tap_contains(err, "expected an array", "says so");
	char longkey[100];
	snprintf(longkey, sizeof longkey, "{\"%070d\":1}", 0);
	c = cur(longkey, 4, NULL, false);
	tap_ok(hi_json_walk(&c, '{', member, &s) < 0, "a key over 63 bytes refused");
	tap_contains(err, "string longer than 63 bytes", "names the key cap");

	/* The error line: the first wins, or the last. */
	c = cur("x", 4, "pre", true);
	hi_json_fail(&c, "first %d", 1);
	hi_json_fail(&c, "second");
	tap_streq(err, "pre: first 1 (at byte 0)", "first_error: the first kept");
	c = cur("x", 4, NULL, false);
	hi_json_fail(&c, "first");
	c.i = 1;
	hi_json_fail(&c, "second");
	tap_streq(err, "second (at byte 1)", "otherwise the last, no prefix when there is none");
	tap_ok(hi_json_hexval('f') == 15 && hi_json_hexval('A') == 10 && hi_json_hexval('9') == 9 &&
	       hi_json_hexval('g') < 0, "hex digits");
	/* Hex strings (hi_json_hex): bytes and their count, odd length, a
	 * non-hex digit, over the caller's cap, the key named in the error. */
	{
		uint8_t b[4];
		size_t n = 0;
		struct hi_json h = cur("\"00fFa1\"", 4, NULL, false);
		tap_ok(hi_json_hex(&h, b, sizeof b, &n, NULL) == 0 && n == 3 && b[0] == 0 && b[1] == 0xff && b[2] == 0xa1,
		       "hex: three bytes, either case");
		h = cur("\"abc\"", 4, NULL, false);
		tap_ok(hi_json_hex(&h, b, sizeof b, &n, NULL) < 0 && strstr(err, "not hex of at most 4 bytes"),
		       "hex: an odd count of digits is refused");
		h = cur("\"0g\"", 4, NULL, false);
		tap_ok(hi_json_hex(&h, b, sizeof b, &n, "pol") < 0 && strstr(err, "\"pol\" is not hex"),
		       "hex: a non-hex digit is refused, naming the key");
		h = cur("\"0011223344\"", 4, NULL, false);
		tap_ok(hi_json_hex(&h, b, sizeof b, &n, NULL) < 0, "hex: five bytes do not fit a cap of four");
	}

	return tap_done();
}
