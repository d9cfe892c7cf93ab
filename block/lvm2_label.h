/* LVM2 physical volumes (block/lvm2_label.c): the label, the metadata
 * area, its ring buffer, lvm2's CRC; the types are block/lvm2.h. */
#ifndef HARDINIT_LVM2_LABEL_H
#define HARDINIT_LVM2_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include "lvm2.h"

uint32_t hi_lvm2_crc(uint32_t crc, const void *buf, size_t len);

/* The first LVM2_LABEL_SCAN_BYTES of a device (len may be less: then only
 * the sectors it holds are looked at). Returns 1 with *out filled, 0 when
 * there is no LVM2 label, -1 with why when a label is there but damaged. */
int hi_lvm2_label_parse(const uint8_t *buf, size_t len, struct lvm2_label *out, char *why, size_t whylen);

/* The 512-byte mda_header of the area *mda. Returns 1 with *out the
 * current text, 0 when the area holds no text (ignored or empty), -1 with
 * why when damaged (checksum, magic, version, start, a text out of the
 * area or bigger than LVM2_META_MAX). */
int hi_lvm2_mda_header_parse(const uint8_t *hdr, const struct lvm2_mda *mda, struct lvm2_text_locn *out,
			  char *why, size_t whylen);

/* The byte ranges of the text on the PV: the ring buffer wraps past the
 * area's end to just after its header. Returns the number of pieces
 * (1 or 2): pieces[i] = { offset on the PV, length }. */
unsigned hi_lvm2_text_pieces(const struct lvm2_mda *mda, const struct lvm2_text_locn *l, uint64_t pieces[2][2]);

/* Label, header and text of one PV, read through rd: text (cap bytes,
 * NUL-terminated) gets its current metadata, "" when the PV carries none
 * (--metadatacopies 0, an ignored area). Returns 1 (a PV), 0 (not a PV),
 * -1 with why (a damaged label, or no area whose text reads and checks). */
int hi_lvm2_pv_read(lvm2_read_fn rd, void *ctx, struct lvm2_label *label, char *text, size_t cap,
		 char *why, size_t whylen);

#endif
