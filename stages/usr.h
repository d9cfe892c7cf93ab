/* stages/usr.c: a separate /usr, mounted from the root's /etc/fstab
 * before the switch (Debian is merged-/usr: /sbin/init lives there). */
#ifndef HARDINIT_USR_H
#define HARDINIT_USR_H

#include "boot.h"

int hi_stage_usr(struct boot *b);       /* stages/usr.c */

#endif
