/* The LUKS2 JSON area (block/luks2_json.c): the bounded parser and
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

/* Token id of h (type systemd-tpm2) into t. Returns 0, or -1 with err
 * naming the field that is missing or wrong. */
int hi_luks2_tpm2_token(const struct luks2_hdr *h, int id, struct hi_luks2_tpm2_token *t, char *err, size_t errlen);

/* The same for a token's JSON text of len bytes. */
int hi_luks2_tpm2_token_parse(const char *text, size_t len, struct hi_luks2_tpm2_token *t, char *err, size_t errlen);

#endif
