/* What stages/root.c offers: the pure parts, for tests/unit/test_hostile.c
 * (which kernel log line explains a failed root mount, and what to tell
 * the user), and its device finding, which the verity stage uses for its
 * data and hash devices. */
#ifndef HARDINIT_ROOT_H
#define HARDINIT_ROOT_H

#include <stddef.h>

#include "boot.h"

#define ROOT_KMSG_MAX_BYTES    (128 * 1024)   /* of /dev/kmsg read after a failed mount */
#define ROOT_KMSG_MAX_RECORDS  4096

/* From /dev/kmsg records ("prio,seq,usec,flags;text\n", continuation lines
 * starting with a blank), the text of the last one that names the device
 * ("vda", as in "EXT4-fs (vda): ..."). Returns 1 with out filled, 0 none. */
int hi_root_kmsg_pick(const char *records, const char *devname, char *out, size_t outlen);

/* The one line for a root that did not mount: a damaged file system
 * (EUCLEAN, EIO, EBADMSG, or a kernel line about its journal, checksums,
 * superblock...) points to the kernel log and fsck, not to rootfstype= and
 * rootflags=; klog (may be NULL) is quoted when the kernel said why. */
void hi_root_mount_message(char *out, size_t outlen, const char *dev, const char *types, int err,
			const char *klog);

/* Wait, bounded as for root=, for the device spec_text names (path, UUID=,
 * PARTUUID=, LABEL=, PARTLABEL=, MAJ:MIN); found gets its node. Returns 0,
 * or -1 after hi_boot_error(). */
int hi_root_device_wait(struct boot *b, const char *spec_text, char *found, size_t cap);

int hi_stage_root(struct boot *b);       /* stages/root.c: wait for and mount root= */

#endif
