#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int hi_json_fail(struct hi_json *c, const char *fmt, ...)
{
	va_list ap;
	char what[160];

	if (c->first_error && c->err[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s%s%s (at byte %zu)", c->prefix ? c->prefix : "", c->prefix ? ": " : "", what,
		 c->i);
	return -1;
}

int hi_json_peek(struct hi_json *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
		c->i++;
	return c->i < c->n ? (unsigned char)c->s[c->i] : -1;
}

int hi_json_expect(struct hi_json *c, char ch)
{
	if (hi_json_peek(c) != ch)
		return hi_json_fail(c, "expected '%c'", ch);
	c->i++;
	return 0;
}

int hi_json_hexval(char ch)
{
	if (ch >= '0' && ch <= '9') return ch - '0';
	if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
	return -1;
}

int hi_json_string(struct hi_json *c, char *out, size_t cap)
{
	size_t k = 0;

	if (hi_json_expect(c, '"') < 0)
		return -1;
	while (c->i < c->n) {
		unsigned char ch = (unsigned char)c->s[c->i++];
		if (ch == '"') {
			if (out)
				out[k] = '\0';
			return 0;
		}
		if (ch < 0x20)
			return hi_json_fail(c, "control character in a string");
		if (ch == '\\') {
			if (c->i >= c->n)
				break;
			char e = c->s[c->i++];
			switch (e) {
			case '"': case '\\': case '/': ch = (unsigned char)e; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'u': {
				unsigned v = 0;
				if (c->n - c->i < 4)
					return hi_json_fail(c, "short \\u escape");
				for (int d = 0; d < 4; d++) {
					int h = hi_json_hexval(c->s[c->i++]);
					if (h < 0)
						return hi_json_fail(c, "bad \\u escape");
					v = v << 4 | (unsigned)h;
				}
				if (v == 0 || v > 0x7f)
					return hi_json_fail(c, "\\u escape outside ASCII");
				ch = (unsigned char)v;
				break;
			}
			default:
				return hi_json_fail(c, "bad escape \\%c", e);
			}
		}
		if (out) {
			if (k + 1 >= cap)
				return hi_json_fail(c, "string longer than %zu bytes", cap - 1);
			out[k++] = (char)ch;
		}
	}
	return hi_json_fail(c, "unterminated string");
}

int hi_json_hex(struct hi_json *c, uint8_t *out, size_t cap, size_t *len, const char *what)
{
	char text[2 * JSON_HEX_MAX + 2];

	if (cap > JSON_HEX_MAX)
		cap = JSON_HEX_MAX;
	if (hi_json_string(c, text, sizeof text) < 0)
		return -1;
	size_t n = strlen(text);
	if (n % 2 || n / 2 > cap)
		return what ? hi_json_fail(c, "\"%s\" is not hex of at most %zu bytes", what, cap)
			    : hi_json_fail(c, "not hex of at most %zu bytes", cap);
	for (size_t k = 0; k < n; k += 2) {
		int hi = hi_json_hexval(text[k]), lo = hi_json_hexval(text[k + 1]);
		if (hi < 0 || lo < 0)
			return what ? hi_json_fail(c, "\"%s\" is not hex", what) : hi_json_fail(c, "not hex");
		out[k / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

static int skip_item(struct hi_json *c, const char *key, void *ctx)
{
	return hi_json_skip(c);
}

int hi_json_skip(struct hi_json *c)
{
	int ch = hi_json_peek(c);

	if (ch == '{' || ch == '[')
		return hi_json_walk(c, (char)ch, skip_item, NULL);
	if (ch == '"')
		return hi_json_string(c, NULL, 0);
	static const char *const words[] = { "true", "false", "null" };
	for (size_t w = 0; w < 3; w++) {
		size_t len = strlen(words[w]);
		if (c->n - c->i >= len && !memcmp(c->s + c->i, words[w], len)) {
			c->i += len;
			return 0;
		}
	}
	size_t start = c->i;
	if (ch == '-')
		c->i++;
	while (c->i < c->n && c->s[c->i] && strchr("0123456789.eE+-", c->s[c->i]))
		c->i++;
	if (c->i == start || (c->i == start + 1 && ch == '-'))
		return hi_json_fail(c, "not a JSON value");
	if (c->i - start > JSON_NUMBER_MAX)
		return hi_json_fail(c, "a number longer than %d characters", JSON_NUMBER_MAX);
	return 0;
}

int hi_json_walk(struct hi_json *c, char open, hi_json_fn fn, void *ctx)
{
	bool object = open == '{';
	char close = object ? '}' : ']', key[JSON_KEY_MAX];

	if (hi_json_peek(c) != open)
		return hi_json_fail(c, object ? "expected an object" : "expected an array");
	if (++c->depth > c->depth_max)
		return hi_json_fail(c, "nested deeper than %d", c->depth_max);
	c->i++;
	if (hi_json_peek(c) == close) {
		c->i++;
		c->depth--;
		return 0;
	}
	for (;;) {
		if (object && (hi_json_string(c, key, sizeof key) < 0 || hi_json_expect(c, ':') < 0))
			return -1;
		int r = fn(c, object ? key : NULL, ctx);
		if (r != 0)
			return r;
		int ch = hi_json_peek(c);
		c->i++;
		if (ch == close)
			break;
		if (ch != ',')
			return hi_json_fail(c, "expected ',' or '%c'", close);
	}
	c->depth--;
	return 0;
}
