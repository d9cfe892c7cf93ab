/* LVM2 on disk, read without lvm2: the physical volume's label and its
 * metadata area (lvm2_label.c), the volume group's text metadata and the
 * device-mapper table of one logical volume (lvm2_meta.c). Pure functions
 * over bytes: the LVM stage reads the disks, the unit tests and fuzz
 * targets feed them memory. Only what a root on LVM needs: linear and
 * striped LVs; every other segment type is named and refused. */
#ifndef HARDINIT_BLOCK_LVM2_H
#define HARDINIT_BLOCK_LVM2_H

#include <stddef.h>
#include <stdint.h>

#define LVM2_SECTOR            512u
#define LVM2_LABEL_SCAN_BYTES  (4 * LVM2_SECTOR)  /* the label sits in one of sectors 0-3 */
#define LVM2_MDA_HEADER_SIZE   512u
#define LVM2_ID_LEN            32     /* a PV, VG or LV id without its dashes */
#define LVM2_NAME_MAX          128    /* lvm2's NAME_LEN */
#define LVM2_META_MAX          (1024 * 1024)  /* text metadata of one VG */
#define LVM2_MAX_MDAS          2      /* metadata areas per PV (lvm2 makes 1 or 2) */
#define LVM2_MAX_PVS           32     /* PVs of one VG */
#define LVM2_MAX_LVS           256    /* LVs of one VG, hidden ones included */
#define LVM2_MAX_SEGS          1024   /* segments of all LVs of one VG */
#define LVM2_MAX_STRIPES       16     /* stripes of one segment */
#define LVM2_MAX_DEPTH         8      /* nesting of sections and arrays */
#define LVM2_MAX_NODES         65536  /* sections, keys and values of one text */
#define LVM2_TYPE_MAX          32     /* a segment type's name */
#define LVM2_PARAMS_MAX        (LVM2_MAX_STRIPES * 48 + 64)  /* one dm target's params */
#define LVM2_ERR_MAX           320

/* The label of one PV and where its metadata text is. */
struct lvm2_mda {
	uint64_t start;     /* byte offset of the metadata area on the PV */
	uint64_t size;      /* its size, the 512-byte header included */
};

struct lvm2_label {
	uint64_t sector;                /* where LABELONE was */
	char pv_id[LVM2_ID_LEN + 1];
	uint64_t dev_size;              /* bytes, as pvcreate saw it */
	unsigned n_mdas;
	struct lvm2_mda mdas[LVM2_MAX_MDAS];
};

/* The current metadata text in one area (the mda_header's raw_locn[0]). */
struct lvm2_text_locn {
	uint64_t offset;    /* from the area's start; past the header */
	uint64_t size;      /* bytes of text */
	uint32_t checksum;  /* lvm2's CRC of the text */
};

/* lvm2's CRC32 (reflected, polynomial 0xedb88320, no final inversion),
 * started from LVM2_CRC_INITIAL for a new checksum. */
#define LVM2_CRC_INITIAL 0xf597a6cfu

/* Reads len bytes at offset of a PV: 0 or -1. */
typedef int (*lvm2_read_fn)(void *ctx, uint64_t offset, void *buf, size_t len);

/* ---- the text metadata (lvm2_meta.c) ---- */
struct lvm2_pv {
	char name[LVM2_NAME_MAX];       /* "pv0": the stripes' reference */
	char id[LVM2_ID_LEN + 1];       /* without dashes */
	uint64_t dev_size, pe_start, pe_count;   /* sectors, sectors, extents */
};

struct lvm2_stripe {
	unsigned pv;                    /* index in vg->pvs */
	uint64_t extent;                /* first extent on that PV */
};

struct lvm2_seg {
	uint64_t start_extent, extent_count;
	uint64_t stripe_size;           /* sectors; 0 for one stripe */
	unsigned stripe_count;
	struct lvm2_stripe stripes[LVM2_MAX_STRIPES];
};

struct lvm2_lv {
	char name[LVM2_NAME_MAX];
	char id[LVM2_ID_LEN + 1];
	int visible, readable, writable;
	char unsupported[LVM2_TYPE_MAX];  /* the first segment type not "striped"; "" when all are */
	unsigned first_seg, n_segs;       /* in vg->segs, sorted by start_extent */
	uint64_t extents;                 /* sum of its segments */
};

struct lvm2_vg {
	char name[LVM2_NAME_MAX];
	char id[LVM2_ID_LEN + 1];
	uint64_t seqno, extent_size;      /* extent_size in sectors */
	unsigned n_pvs, n_lvs, n_segs;
	struct lvm2_pv pvs[LVM2_MAX_PVS];
	struct lvm2_lv lvs[LVM2_MAX_LVS];
	struct lvm2_seg segs[LVM2_MAX_SEGS];
};

/* One device-mapper target of an LV's table. */
struct lvm2_target {
	uint64_t start, length;           /* sectors in the LV */
	char type[16];                    /* "linear" or "striped" */
	char params[LVM2_PARAMS_MAX];
};

#endif
