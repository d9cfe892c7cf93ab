/* Standard base64 with padding (crypto/base64.c). */
#ifndef HARDINIT_BASE64_H
#define HARDINIT_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Standard base64 (with padding) of text into out; returns the byte
 * count, or -1 when not base64 or longer than cap. */
int hi_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap);

/* Standard base64 (with padding) of len bytes into out, NUL-terminated;
 * returns the text's length, or -1 when cap is too small. */
int hi_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap);

#endif
