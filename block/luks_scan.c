#include "luks_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "luks2.h"
#include "luks2_hdr.h"

/* NAME carries the volume's header but is an md member: counted, the
 * first named, not a match. */
static bool md_member(const char *sys, const char *dev, const char *name, struct luks_scan *s)
{
	char what[MD_MEMBER_WHAT_MAX];

	/* 0: a LUKS volume's end is ciphertext, which no user of the file
	 * system on it can shape into an md superblock. */
	if (!hi_md_member(sys, dev, name, 0, what, sizeof what))
		return false;
	if (s->n_md++ == 0) {
		snprintf(s->md_name, sizeof s->md_name, "%s", name);
		snprintf(s->md_what, sizeof s->md_what, "%s", what);
	}
	return true;
}

void hi_luks_scan(const char *sys, const char *dev, const char *uuid, struct luks_scan *s)
{
	char dir[LUKS_SCAN_PATH_MAX], node[LUKS_SCAN_PATH_MAX];
	DIR *d = opendir(hi_boot_path(dir, sizeof dir, sys, "class/block") ? dir : "");
	struct dirent *e;

	s->n = 0;
	s->fd = -1;
	s->more = false;
	s->n_md = 0;
	if (!d)
		return;
	for (int count = 0; (e = readdir(d)); count++) {
		if (count == LUKS_SCAN_MAX) {
			s->more = true;
			break;
		}
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "dm-", 3) || !strncmp(e->d_name, "loop", 4) ||
		    !strncmp(e->d_name, "ram", 3))
			continue;
		if (!hi_boot_path(node, sizeof node, dev, e->d_name))
			continue;
		int fd = open(node, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		uint8_t hdr[LUKS2_BIN_SIZE];
		/* The primary's magic: the header the volume is opened by. */
		if (pread(fd, hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr && hi_luks2_is_luks2(hdr, sizeof hdr) &&
		    hdr[0] == 'L' && hi_luks2_uuid_is(hdr, sizeof hdr, uuid) && !md_member(sys, dev, e->d_name, s)) {
			if (s->n < LUKS_SCAN_NAMES)
				snprintf(s->name[s->n], sizeof s->name[0], "%s", e->d_name);
			if (s->n++ == 0) {
				s->fd = fd;
				continue;
			}
		}
		close(fd);
	}
	closedir(d);
	if ((s->n != 1 || s->more) && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}
