/* LVM2 text metadata (block/lvm2_meta.c): the VG, its LVs' tables, lvm2's
 * dm names; the types are block/lvm2.h. */
#ifndef HARDINIT_LVM2_META_H
#define HARDINIT_LVM2_META_H

#include <stddef.h>
#include <stdint.h>

#include "lvm2.h"

/* One VG's text metadata (len bytes, need not be NUL-terminated). Returns
 * 0 with *vg filled, -1 with why. A segment type other than striped is
 * not an error here: it is kept in lv->unsupported, so a VG holding a
 * thin pool still activates its linear root LV. */
int hi_lvm2_meta_parse(const char *text, size_t len, struct lvm2_vg *vg, char *why, size_t whylen);

/* The id as lvm2 prints it (6-4-4-4-4-4-6 with dashes) from 32 chars. */
void hi_lvm2_id_format(const char *id, char *out, size_t cap);

/* The LV named name, or NULL. */
const struct lvm2_lv *hi_lvm2_lv_find(const struct lvm2_vg *vg, const char *name);

/* The table of lv: dev[i] names PV i of the VG ("MAJ:MIN"). Returns the
 * number of targets (at most cap), -1 with why: an unsupported segment
 * type (naming the LV and the type), segments with holes, extents out of
 * a PV, a table bigger than cap. */
int hi_lvm2_lv_table(const struct lvm2_vg *vg, const struct lvm2_lv *lv, const char *const dev[],
		  struct lvm2_target *out, unsigned cap, char *why, size_t whylen);

/* lvm2's device-mapper names. The dm name of VG/LV: each '-' of either
 * doubled, joined by one '-' ("my-vg"/"root" -> "my--vg-root"). Returns 0,
 * -1 when it does not fit. */
int hi_lvm2_dm_name(const char *vg, const char *lv, char *out, size_t cap);

/* The reverse: "my--vg-root" -> "my-vg", "root". Returns 0, or -1 when
 * name is not one lvm2 makes (no single '-', an empty part). */
int hi_lvm2_dm_name_split(const char *name, char *vg, size_t vgcap, char *lv, size_t lvcap);

/* "LVM-" + the VG id + the LV id, without dashes: lvm2's dm uuid. */
int hi_lvm2_dm_uuid(const struct lvm2_vg *vg, const struct lvm2_lv *lv, char *out, size_t cap);

/* A VG or LV name lvm2 accepts: [A-Za-z0-9+_.-], not starting with '-',
 * not "." or "..", shorter than LVM2_NAME_MAX. */
int hi_lvm2_name_valid(const char *name);

#endif
