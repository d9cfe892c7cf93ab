/* Fuzz target: an LVM2 physical volume's label, metadata area header and
 * ring-buffered text (block/lvm2_label.c), bytes an attacker who can
 * write a disk controls. Input: the first bytes of a device; its metadata
 * area must lie inside them to be read. */
#include <stdint.h>
#include <string.h>

#include "lvm2.h"
#include "lvm2_label.h"

struct mem { const uint8_t *data; size_t size; };

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;
	if (off > m->size || len > m->size - off)
		return -1;
	memcpy(buf, m->data + off, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[LVM2_META_MAX];
	struct mem m = { data, size };
	struct lvm2_label l;
	char why[LVM2_ERR_MAX];

	int rc = hi_lvm2_pv_read(mem_read, &m, &l, text, sizeof text, why, sizeof why);
	if (rc == 1) {
		if (strnlen(text, sizeof text) == sizeof text || strlen(l.pv_id) != LVM2_ID_LEN || l.n_mdas > LVM2_MAX_MDAS)
			__builtin_trap();
	} else if (rc == -1 && strnlen(why, sizeof why) == sizeof why) {
		__builtin_trap();
	}
	return 0;
}
