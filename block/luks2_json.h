/* The LUKS2 JSON area (block/luks2_json.c): the bounded parser, base64,
 * the systemd-tpm2 token; the types are block/luks2.h. */
#ifndef HARDINIT_LUKS2_JSON_H
#define HARDINIT_LUKS2_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luks2.h"

/* The JSON area's text (len bytes, not necessarily NUL-terminated: it
 * stops at the first NUL) into h's tables. Returns 0 or -1 with err. */
int hi_luks2_json_parse(const char *text, size_t len, struct luks2_hdr *h, char *err, size_t errlen);

/* Standard base64 (with padding) of text into out; returns the byte
 * count, or -1 when not base64 or longer than cap. */
int hi_luks2_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap);

/* Standard base64 (with padding) of len bytes into out, NUL-terminated;
 * returns the text's length, or -1 when cap is too small. */
int hi_luks2_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap);

/* Token id of h (type systemd-tpm2) into t. Returns 0, or -1 with err
 * naming the field that is missing or wrong. */
int hi_luks2_tpm2_token(const struct luks2_hdr *h, int id, struct hi_luks2_tpm2_token *t, char *err, size_t errlen);

/* The same for a token's JSON text of len bytes. */
int hi_luks2_tpm2_token_parse(const char *text, size_t len, struct hi_luks2_tpm2_token *t, char *err, size_t errlen);

#endif
