/* The pure pieces of the hardening stages (memory, sysctl, caps, locks),
 * exposed so tests/unit/test_hardening.c can check them without a kernel.
 * The stage entry points themselves are in stages/stages.h. */
#ifndef HARDINIT_HARDENING_H
#define HARDINIT_HARDENING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch_types.h"
#include "boot.h"

/* ---- stages/memory.c ---- */

/* Linux 6.3 uapi; Debian 12's linux-libc-dev (6.1) lacks them. */
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_GET_MDWE
#define PR_GET_MDWE 66
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

/* The walk up vm.mmap_rnd_bits and vm.mmap_rnd_compat_bits starts at
 * the architecture's largest maximum (arch/: mmap_rnd_bits_max). */

/* ---- stages/caps.c ---- */

/* ---- stages/sysctl.c ---- */

/* The drop-in's name. systemd-sysctl applies every sysctl.d file sorted by
 * file name alone, whatever its directory, the last setting winning; the
 * directory only decides between files of the same name (sysctl.d(5)).
 * Debian 12 ships 99-protect-links.conf (procps: fs.protected_fifos=1) and
 * 99-sysctl.conf (systemd: /etc/sysctl.conf); "zz-" sorts after every
 * digit-prefixed name and after a vendor file without a number prefix. */
#define SYSCTL_DROPIN_NAME "zz-hardinit.conf"
#define SYSCTL_DROPIN_MAX  (16 * 1024)

/* ---- stages/locks.c ---- */

#endif
