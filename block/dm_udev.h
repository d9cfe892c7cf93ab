/* The udev database entry of a device-mapper device made before udev
 * runs. udev's 10-dm.rules ignore a dm device's coldplug "add" event
 * unless its database says libdevmapper set it up (DM_UDEV_PRIMARY_SOURCE_FLAG):
 * without the entry the real root's udev makes no /dev/disk links and
 * systemd never sees the device ready (SYSTEMD_READY=0), so fstab units
 * naming it (a swap LV, the root's fsck) wait and fail. initramfs-tools
 * and dracut keep their udev's database across the switch; hardinit
 * writes the entry udev would have, under RUN/udev/data/bMAJ:MIN, which
 * moves to the real root with /run. */
#ifndef HARDINIT_DM_UDEV_H
#define HARDINIT_DM_UDEV_H

#include <stddef.h>

/* RUN/udev/data/bMAJ:MIN with the flags 10-dm.rules import. 0, or -1
 * with errno and err set. */
int hi_dm_udev_db_write(const char *run, unsigned major, unsigned minor, char *err, size_t errlen);

#endif
