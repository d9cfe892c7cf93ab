/* Standard base64 (RFC 4648 section 4, with padding): the encoding of
 * LUKS2's salts and digests, of a systemd-tpm2 token's blob and key, and
 * of the salted PIN systemd hands the TPM. Strict: no whitespace, no
 * padding but at the end. */
#include "base64.h"

static int b64val(char ch)
{
	if (ch >= 'A' && ch <= 'Z') return ch - 'A';
	if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9') return ch - '0' + 52;
	if (ch == '+') return 62;
	if (ch == '/') return 63;
	return -1;
}

int hi_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			char ch = text[i + k];
			if (ch == '=' && i + 4 == len && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad || (v[k] = b64val(ch)) < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		uint8_t b[3] = { (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w };
		for (int k = 0; k < 3 - pad; k++) {
			if (n >= cap)
				return -1;
			out[n++] = b[k];
		}
	}
	return (int)n;
}

int hi_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;

	if ((len + 2) / 3 * 4 + 1 > cap)
		return -1;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);
		out[n++] = abc[w >> 18 & 63];
		out[n++] = abc[w >> 12 & 63];
		out[n++] = i + 1 < len ? abc[w >> 6 & 63] : '=';
		out[n++] = i + 2 < len ? abc[w & 63] : '=';
	}
	out[n] = '\0';
	return (int)n;
}
