/* The LVM2 physical volume on disk (lvm2's lib/format_text layout):
 *   a 512-byte label in one of sectors 0-3: "LABELONE", its sector, a CRC
 *   of the rest of the sector, the pv_header's offset, "LVM2 001";
 *   the pv_header: the PV id (32 chars), the device size, then two lists
 *   of {offset, size} ended by a zero offset: data areas, metadata areas;
 *   each metadata area starts with a 512-byte mda_header (CRC, magic,
 *   version 1, its own start and size, raw_locns); raw_locn[0] is the
 *   current text, in a ring buffer after the header.
 * Every number is little-endian; every offset is checked before use. */
#include <stdio.h>
#include <string.h>

#include "lvm2.h"
#include "lvm2_label.h"

#define LABEL_ID        "LABELONE"
#define LABEL_TYPE      "LVM2 001"
#define LABEL_HDR_SIZE  32u
#define PVH_ID_OFF      0u
#define PVH_SIZE_OFF    32u
#define PVH_LISTS_OFF   40u
#define DISK_LOCN_SIZE  16u
#define MDA_MAGIC       " LVM2 x[5A%r0N*>"
#define MDA_MAGIC_LEN   16u
#define MDA_VERSION     1u
#define RAW_LOCN_OFF    40u
#define RAW_LOCN_IGNORED 0x1u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The CRC four bits a step: entry n is n run through four of the
 * bit-by-bit steps (crc >> 1, xor 0xedb88320 when the low bit was set).
 * Bit by bit, the scan's checksums (each PV's label, mda header and text)
 * were about 0.6 ms of a 3.4 ms activation under -icount; this
 * takes a third of the instructions for 64 bytes of table. */
static const uint32_t crc_nibble[16] = {
	0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
	0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu, 0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

uint32_t hi_lvm2_crc(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ crc_nibble[crc & 0xfu];
		crc = (crc >> 4) ^ crc_nibble[crc & 0xfu];
	}
	return crc;
}

/* The {offset, size} list at *pos inside the sector; ends at a zero
 * offset. Keeps up to cap entries in out (may be NULL), counts all. */
static int locn_list(const uint8_t *sec, size_t *pos, struct lvm2_mda *out, unsigned cap, unsigned *n,
		     char *why, size_t whylen)
{
	*n = 0;
	for (;;) {
		if (*pos + DISK_LOCN_SIZE > LVM2_SECTOR) {
			snprintf(why, whylen, "its area list runs past the label sector");
			return -1;
		}
		uint64_t off = le64(sec + *pos), size = le64(sec + *pos + 8);
		*pos += DISK_LOCN_SIZE;
		if (off == 0)
			return 0;
		if (out && *n < cap) {
			out[*n].start = off;
			out[*n].size = size;
		}
		(*n)++;
	}
}

static int id_valid(const uint8_t *id)
{
	for (unsigned i = 0; i < LVM2_ID_LEN; i++) {
		uint8_t c = id[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '!' || c == '#'))
			return 0;
	}
	return 1;
}

static int label_sector(const uint8_t *sec, unsigned s, struct lvm2_label *out, char *why, size_t whylen)
{
	if (memcmp(sec + 24, LABEL_TYPE, 8) != 0) {
		snprintf(why, whylen, "label in sector %u has type \"%.8s\", not \"%s\"", s, (const char *)sec + 24,
			 LABEL_TYPE);
		return -1;
	}
	if (le64(sec + 8) != s) {
		snprintf(why, whylen, "label in sector %u says it is in sector %llu", s,
			 (unsigned long long)le64(sec + 8));
		return -1;
	}
	uint32_t crc = hi_lvm2_crc(LVM2_CRC_INITIAL, sec + 20, LVM2_SECTOR - 20);
	if (crc != le32(sec + 16)) {
		snprintf(why, whylen, "label in sector %u has a bad checksum (0x%08x, computed 0x%08x)", s,
			 le32(sec + 16), crc);
		return -1;
	}
	uint32_t off = le32(sec + 20);
	if (off < LABEL_HDR_SIZE || off > LVM2_SECTOR - PVH_LISTS_OFF - 2 * DISK_LOCN_SIZE) {
		snprintf(why, whylen, "label in sector %u puts its pv_header at %u, outside the sector", s, off);
		return -1;
	}
	const uint8_t *pvh = sec + off;
	if (!id_valid(pvh + PVH_ID_OFF)) {
		snprintf(why, whylen, "label in sector %u has a PV id with characters lvm2 never writes", s);
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->sector = s;
	memcpy(out->pv_id, pvh + PVH_ID_OFF, LVM2_ID_LEN);
	out->dev_size = le64(pvh + PVH_SIZE_OFF);
	size_t pos = off + PVH_LISTS_OFF;
	unsigned n_data;
	if (locn_list(sec, &pos, NULL, 0, &n_data, why, whylen) < 0 ||
	    locn_list(sec, &pos, out->mdas, LVM2_MAX_MDAS, &out->n_mdas, why, whylen) < 0)
		return -1;
	if (out->n_mdas > LVM2_MAX_MDAS)
		out->n_mdas = LVM2_MAX_MDAS;
	return 1;
}

int hi_lvm2_label_parse(const uint8_t *buf, size_t len, struct lvm2_label *out, char *why, size_t whylen)
{
	for (unsigned s = 0; s < 4 && (size_t)(s + 1) * LVM2_SECTOR <= len; s++) {
		const uint8_t *sec = buf + (size_t)s * LVM2_SECTOR;
		if (memcmp(sec, LABEL_ID, 8) == 0)
			return label_sector(sec, s, out, why, whylen);
	}
	return 0;
}

int hi_lvm2_mda_header_parse(const uint8_t *hdr, const struct lvm2_mda *mda, struct lvm2_text_locn *out,
			  char *why, size_t whylen)
{
	uint32_t crc = hi_lvm2_crc(LVM2_CRC_INITIAL, hdr + 4, LVM2_MDA_HEADER_SIZE - 4);

	if (memcmp(hdr + 4, MDA_MAGIC, MDA_MAGIC_LEN) != 0) {
		snprintf(why, whylen, "metadata area at %llu has no LVM2 magic", (unsigned long long)mda->start);
		return -1;
	}
	if (crc != le32(hdr)) {
		snprintf(why, whylen, "metadata area at %llu has a bad header checksum (0x%08x, computed 0x%08x)",
			 (unsigned long long)mda->start, le32(hdr), crc);
		return -1;
	}
	if (le32(hdr + 20) != MDA_VERSION) {
		snprintf(why, whylen, "metadata area at %llu has version %u (hardinit reads version %u)",
			 (unsigned long long)mda->start, le32(hdr + 20), MDA_VERSION);
		return -1;
	}
	if (le64(hdr + 24) != mda->start || le64(hdr + 32) != mda->size || mda->size <= LVM2_MDA_HEADER_SIZE) {
		snprintf(why, whylen, "metadata area at %llu (%llu bytes) has a header for %llu (%llu bytes)",
			 (unsigned long long)mda->start, (unsigned long long)mda->size,
			 (unsigned long long)le64(hdr + 24), (unsigned long long)le64(hdr + 32));
		return -1;
	}
	const uint8_t *rl = hdr + RAW_LOCN_OFF;
	out->offset = le64(rl);
	out->size = le64(rl + 8);
	out->checksum = le32(rl + 16);
	if (out->offset == 0 || out->size == 0 || (le32(rl + 20) & RAW_LOCN_IGNORED))
		return 0;
	uint64_t room = mda->size - LVM2_MDA_HEADER_SIZE;
	if (out->offset < LVM2_MDA_HEADER_SIZE || out->offset >= mda->size || out->size > room) {
		snprintf(why, whylen, "metadata area at %llu points its text at %llu (%llu bytes), outside the area",
			 (unsigned long long)mda->start, (unsigned long long)out->offset,
			 (unsigned long long)out->size);
		return -1;
	}
	if (out->size >= LVM2_META_MAX) {
		snprintf(why, whylen, "metadata text of %llu bytes is larger than hardinit's limit of %u",
			 (unsigned long long)out->size, LVM2_META_MAX - 1);
		return -1;
	}
	return 1;
}

unsigned hi_lvm2_text_pieces(const struct lvm2_mda *mda, const struct lvm2_text_locn *l, uint64_t pieces[2][2])
{
	uint64_t first = mda->size - l->offset;   /* header parse: offset < size */

	pieces[0][0] = mda->start + l->offset;
	if (l->size <= first) {
		pieces[0][1] = l->size;
		return 1;
	}
	pieces[0][1] = first;
	pieces[1][0] = mda->start + LVM2_MDA_HEADER_SIZE;
	pieces[1][1] = l->size - first;
	return 2;
}

static int read_text(lvm2_read_fn rd, void *ctx, const struct lvm2_mda *mda, char *text, size_t cap,
		     char *why, size_t whylen)
{
	uint8_t hdr[LVM2_MDA_HEADER_SIZE];
	struct lvm2_text_locn l;
	uint64_t pieces[2][2];

	if (rd(ctx, mda->start, hdr, sizeof hdr) < 0) {
		snprintf(why, whylen, "cannot read the metadata area header at %llu", (unsigned long long)mda->start);
		return -1;
	}
	int rc = hi_lvm2_mda_header_parse(hdr, mda, &l, why, whylen);
	if (rc <= 0)
		return rc;
	if (l.size >= cap) {
		snprintf(why, whylen, "metadata text of %llu bytes does not fit in %zu", (unsigned long long)l.size, cap);
		return -1;
	}
	unsigned n = hi_lvm2_text_pieces(mda, &l, pieces);
	size_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		if (rd(ctx, pieces[i][0], text + at, (size_t)pieces[i][1]) < 0) {
			snprintf(why, whylen, "cannot read %llu bytes of metadata text at %llu",
				 (unsigned long long)pieces[i][1], (unsigned long long)pieces[i][0]);
			return -1;
		}
		at += (size_t)pieces[i][1];
	}
	text[at] = '\0';
	uint32_t crc = hi_lvm2_crc(LVM2_CRC_INITIAL, text, at);
	if (crc != l.checksum) {
		snprintf(why, whylen, "metadata text at %llu has a bad checksum (0x%08x, computed 0x%08x)",
			 (unsigned long long)pieces[0][0], l.checksum, crc);
		return -1;
	}
	return 1;
}

int hi_lvm2_pv_read(lvm2_read_fn rd, void *ctx, struct lvm2_label *label, char *text, size_t cap,
		 char *why, size_t whylen)
{
	uint8_t head[LVM2_LABEL_SCAN_BYTES];

	if (rd(ctx, 0, head, sizeof head) < 0)
		return 0;   /* smaller than a label: not a PV */
	int rc = hi_lvm2_label_parse(head, sizeof head, label, why, whylen);
	if (rc <= 0)
		return rc;
	/* The first area whose text reads and checks: lvm2 writes the same
	 * text to each, so a second area is a spare for a damaged first. A PV
	 * without text (--metadatacopies 0, an ignored area) is still one of
	 * its VG's: text is left empty and another PV carries the metadata. */
	char first_why[LVM2_ERR_MAX] = "";
	text[0] = '\0';
	for (unsigned i = 0; i < label->n_mdas; i++) {
		rc = read_text(rd, ctx, &label->mdas[i], text, cap, why, whylen);
		if (rc > 0)
			return 1;
		text[0] = '\0';
		if (rc < 0 && !first_why[0])
			snprintf(first_why, sizeof first_why, "%s", why);
	}
	if (!first_why[0])
		return 1;
	snprintf(why, whylen, "PV %s: %s", label->pv_id, first_why);
	return -1;
}
