/* stages/fstab.c: the real root's /etc/fstab as the stages read it (the
 * usr stage's /usr line, the mounts stage's file systems mounted later):
 * its lines split into fields, mount options turned into mount(2)'s flags
 * and data, a device named as udev names it turned into what the root
 * stage's device wait finds. Pure; fuzzed by tests/fuzz/fuzz_fstab.c. */
#ifndef HARDINIT_FSTAB_H
#define HARDINIT_FSTAB_H

#include <stdbool.h>
#include <stddef.h>

#define FSTAB_MAX_BYTES     (64 * 1024)   /* of the root's /etc/fstab read */
#define FSTAB_LINE_MAX      1024          /* a longer line is skipped */
#define FSTAB_DATA_MAX      512           /* the options mount(2) passes to the file system */

/* One line: its fields point into buf, unescaped (\040 is a blank); opts
 * is "defaults" when the line has none. file has no trailing slash ("/"
 * stays). */
struct fstab_line {
	char buf[FSTAB_LINE_MAX];
	char *spec, *file, *type, *opts;
};

/* The next line at *cursor with at least a device, a mount point and a
 * type, *cursor moved past it; comments, blank, short and over-long lines
 * are skipped. Returns 1, or 0 at the end of the text. */
int hi_fstab_next(const char **cursor, struct fstab_line *out);

/* The last line whose mount point is point ("/usr"); it is the one
 * mount -a leaves on top. Returns 1 found, 0 none. */
int hi_fstab_find(const char *fstab, const char *point, struct fstab_line *out);

/* fstab options ("defaults,nosuid,subvol=@usr,x-systemd.device-timeout=5")
 * as mount(2) takes them: the flag words into *flags (MS_RDONLY unless rw,
 * as a root is mounted), the file system's own options comma-separated
 * into data; what only mount(8), systemd or the fstab's readers act on
 * (auto, noauto, nofail, user, _netdev, x-*, comment=) is left out.
 * Returns 0, or -1 when data would not fit in cap. */
int hi_fstab_mount_opts(const char *opts, unsigned long *flags, char *data, size_t cap);

/* The fstab's device as the root stage's device wait takes it:
 * /dev/disk/by-uuid/X is UUID=X (and by-label, by-partuuid, by-partlabel
 * alike, their \x2f escapes undone as udev writes them); other forms as
 * they are. Returns 0, or -1 when it does not fit in cap. */
int hi_fstab_device_spec(const char *spec, char *out, size_t cap);

#endif
