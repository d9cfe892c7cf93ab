/* Whether the kernel applied an early microcode update (the initrd's
 * kernel/x86/microcode/, hardinit-mkinitramfs --microcode): the sysctl
 * stage's CPU-vulnerability report. The kernel exposes the revision the
 * CPU runs (sysfs cpu0/microcode/version, /proc/cpuinfo's "microcode"),
 * but not whether it changed at boot: only its log says that. */
#ifndef HARDINIT_SYSCTL_MICROCODE_H
#define HARDINIT_SYSCTL_MICROCODE_H

#include <stddef.h>

#include "boot.h"

#define MICROCODE_KMSG_RECORDS 8192   /* kernel log records read at most */
#define MICROCODE_WHAT_MAX     96

/* One kernel log line (a /dev/kmsg record "prio,seq,ts,flags;text" or
 * plain text): 1 when it is the kernel's early-update line, with the
 * text after "microcode: " (printable, bounded) in what; else 0.
 * Kernels say "updated early: 0xOLD -> 0xNEW" (Intel, 6.1-6.6),
 * "microcode updated early to revision 0xNEW" (Intel, older),
 * "microcode updated early to new patch_level=0xNEW" (AMD, to 6.6),
 * "Updated early from: 0xOLD" (both, 6.7 on). */
int hi_microcode_early_line(const char *line, char *what, size_t cap);

/* DEV/kmsg read from its first record, bounded, without waiting: 1 with
 * what filled when the early-update line is there, 0 when not, -1 when
 * the log cannot be read. */
int hi_microcode_early_seen(const struct boot *b, char *what, size_t cap);

#endif
