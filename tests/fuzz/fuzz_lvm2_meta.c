/* Fuzz target: LVM2's text metadata (block/lvm2_meta.c) and the tables
 * built from it, with the invariants the LVM stage relies on: bounded
 * counts, every stripe naming a PV of the VG, targets that follow each
 * other without a hole. */
#include <stdint.h>
#include <string.h>

#include "lvm2.h"
#include "lvm2_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lvm2_vg vg;
	static struct lvm2_target t[LVM2_MAX_SEGS];
	static const char *dev[LVM2_MAX_PVS];
	char why[LVM2_ERR_MAX];

	if (hi_lvm2_meta_parse((const char *)data, size, &vg, why, sizeof why) < 0)
		return 0;
	if (vg.n_pvs > LVM2_MAX_PVS || vg.n_lvs > LVM2_MAX_LVS || vg.n_segs > LVM2_MAX_SEGS || vg.extent_size == 0)
		__builtin_trap();
	for (unsigned i = 0; i < vg.n_pvs; i++)
		dev[i] = "254:0";
	for (unsigned i = 0; i < vg.n_segs; i++)
		for (unsigned k = 0; k < vg.segs[i].stripe_count; k++)
			if (vg.segs[i].stripes[k].pv >= vg.n_pvs)
				__builtin_trap();
	for (unsigned i = 0; i < vg.n_lvs; i++) {
		const struct lvm2_lv *lv = &vg.lvs[i];
		char name[2 * LVM2_NAME_MAX + 2], a[LVM2_NAME_MAX], b[LVM2_NAME_MAX];
		if (hi_lvm2_dm_name(vg.name, lv->name, name, sizeof name) == 0 &&
		    (hi_lvm2_dm_name_split(name, a, sizeof a, b, sizeof b) < 0 || strcmp(a, vg.name) || strcmp(b, lv->name)))
			__builtin_trap();
		int n = hi_lvm2_lv_table(&vg, lv, dev, t, LVM2_MAX_SEGS, why, sizeof why);
		uint64_t at = 0;
		for (int k = 0; k < n; k++) {
			if (t[k].start != at || strnlen(t[k].params, sizeof t[k].params) == sizeof t[k].params)
				__builtin_trap();
			at += t[k].length;
		}
	}
	return 0;
}
