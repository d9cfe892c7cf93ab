/* The hand-off stage's pure pieces, for tests/unit/test_handoff.c. */
#ifndef HARDINIT_HANDOFF_H
#define HARDINIT_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot.h"

/* systemd's serialization holding only the initrd's start, which systemd
 * (252 and later: src/core/manager-serialize.c) reads with --deserialize
 * after --switched-root, as it reads its own initrd's: one line
 * "initrd-timestamp=REALTIME MONOTONIC" (microseconds, systemd's
 * dual_timestamp) and the empty line that ends the manager's section; no
 * unit. start_ns is hardinit's first instruction (CLOCK_BOOTTIME, the same
 * as CLOCK_MONOTONIC before any suspend); the now_* are one reading of the
 * three clocks. Returns the length, or -1 when it does not fit. */
#define HANDOFF_SERIALIZATION_MAX 96
long hi_handoff_systemd_serialization(char *out, size_t cap, uint64_t start_ns, uint64_t now_boot_ns,
				      uint64_t now_mono_ns, uint64_t now_real_ns);

/* Whether init, as the root sees it (links resolved below b->newroot), is
 * systemd: a file named "systemd". Only systemd is given the arguments. */
bool hi_handoff_is_systemd(struct boot *b, const char *init);

/* The program the hand-off will exec: init= (unless the lock refused it),
 * [boot] init, then the kernel's list (/sbin/init, ...), the first the
 * root can run; NULL when none can. Quiet: the hand-off says why. */
const char *hi_handoff_program(struct boot *b);

/* The first of those named, whatever the root holds: the hand-off of a
 * root that has it (hardinit predict without --root). */
const char *hi_handoff_named(const struct boot *b);

/* The environment the real init gets: the kernel's (its HOME and TERM,
 * and each key=value word of the command line it did not know), or under
 * the lock (lock_cmdline = yes) only HOME and TERM: a word such as
 * LD_PRELOAD= would reach the real init unmeasured. Fills out (cap
 * entries, NULL-ended) and returns how many words were left out. */
#define HANDOFF_MAX_ENV 64
size_t hi_handoff_env(const struct boot *b, char **out, size_t cap);

/* The hand-off never returns on success; on failure it returns -1 with
 * b->err set, and the runner takes the failure action. */
int hi_handoff_exec(struct boot *b);     /* stages/handoff.c */

#endif
