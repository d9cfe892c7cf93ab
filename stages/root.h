/* What the root stage's device finding offers other stages (the verity
 * stage finds its data and hash devices the same way). */
#ifndef HARDINIT_ROOT_H
#define HARDINIT_ROOT_H

#include <stddef.h>

#include "boot.h"

/* Wait, bounded as for root=, for the device spec_text names (path, UUID=,
 * PARTUUID=, LABEL=, PARTLABEL=, MAJ:MIN); found gets its node. Returns 0,
 * or -1 after boot_error(). */
int root_device_wait(struct boot *b, const char *spec_text, char *found, size_t cap);

#endif
