/* The block devices carrying a LUKS2 volume's UUID, one pass over
 * SYS/class/block: what the luks stage's device wait looks for. Every
 * entry is read, up to LUKS_SCAN_MAX, so a second match is seen (a disk
 * planted under the volume's UUID must not be opened because readdir
 * listed it first). */
#ifndef HARDINIT_LUKS_SCAN_H
#define HARDINIT_LUKS_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "md_assemble.h"

/* n counts the devices whose LUKS2 header (the primary's magic, the whole
 * uuid field: hi_luks2_uuid_is) carries uuid; name holds the first
 * LUKS_SCAN_NAMES of them; fd is the first match's node DEV/NAME, open
 * read-only, when n is 1 (the caller closes it), else -1. Whether that
 * node is a block device is the caller's check. more is set when entries
 * were left unread at LUKS_SCAN_MAX: the one match seen is then no proof
 * there is no second (fd is -1). dm, loop and ram devices are not read.
 * A match that is an md array's member (hi_md_member: a 1.0 or 0.90
 * member shows the array's header at its start) is no match: the array
 * is; n_md counts those, md_name and md_what say the first, for the line
 * when no array carries the volume (md not in the image). */
#define LUKS_SCAN_MAX   4096     /* class/block entries read per pass */
#define LUKS_SCAN_NAMES 8        /* matching devices named in a refusal */
#define LUKS_SCAN_PATH_MAX 512   /* SYS/class/block, DEV/NAME */
struct luks_scan {
	size_t n;
	char name[LUKS_SCAN_NAMES][64];
	int fd;
	bool more;
	size_t n_md;
	char md_name[64];
	char md_what[MD_MEMBER_WHAT_MAX];
};
void hi_luks_scan(const char *sys, const char *dev, const char *uuid, struct luks_scan *s);

#endif
