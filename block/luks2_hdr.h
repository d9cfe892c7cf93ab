/* LUKS2 headers (block/luks2_hdr.c): both copies read and checked, the
 * segment's digest; the types are block/luks2.h. */
#ifndef HARDINIT_LUKS2_HDR_H
#define HARDINIT_LUKS2_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luks2.h"

/* Both copies read and checked, the newer valid one parsed into h.
 * Returns 0, or -1 with err saying which copy is wrong and how. A copy
 * that is damaged while the other is good is named in note (may be
 * NULL) for the caller to warn about. h->json is to be freed with
 * luks2_hdr_free (also after an error). */
int hi_luks2_hdr_read(luks2_read_fn rd, void *ctx, struct luks2_hdr *h,
		   char *note, size_t notelen, char *err, size_t errlen);

void hi_luks2_hdr_free(struct luks2_hdr *h);

/* True when the 6 bytes at p are the primary's (or secondary's) magic. */
bool hi_luks2_is_luks2(const uint8_t *p, size_t len);

/* True when the binary header at p (len bytes, LUKS2_BIN_SIZE for its
 * uuid field) carries uuid: its whole uuid field, whose text must end
 * (NUL) within the field's LUKS2_UUID_MAX bytes, equal to uuid (case
 * aside). A prefix is no match: "<uuid>X" is another volume's UUID. */
bool hi_luks2_uuid_is(const uint8_t *p, size_t len, const char *uuid);

/* The digest that covers segment 0 (the one dm-crypt maps), or NULL. */
const struct luks2_digest *hi_luks2_segment_digest(const struct luks2_hdr *h, int segment);

#endif
