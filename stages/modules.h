/* The module list's parser, apart from stages/modules.c so that
 * tests/fuzz/fuzz_modules.c can run it on any bytes. The builder writes
 * the list; the initramfs may come from anyone who can write /boot. */
#ifndef HARDINIT_MODULES_H
#define HARDINIT_MODULES_H

#include <stddef.h>

#include "boot.h"

#define MODULES_LIST_MAX  (128 * 1024)  /* the whole list, bytes (hardinit limits prints it) */
/* A generic image (the builder's --target generic) lists every storage and
 * file system module of its kernel: about 400 for Debian's generic one. */
#define MODULES_MAX       1024

/* A generic image's device table, beside the list (LIST.devices): which of
 * the list's modules load only when a device present needs them, so that a
 * generic image loads the few drivers of the machine it boots on, not all
 * it carries. Lines:
 *   alias PATTERN NAME   NAME loads when a device's modalias matches the
 *                        glob PATTERN (as modules.alias writes it)
 *   needs NAME DEP...    when NAME loads, these on-demand modules (its
 *                        dependencies no other module needs) load first
 * Every module the table names is on demand; the others always load. */
#define MODULES_DEVICES_SUFFIX ".devices"
#define MODULES_DEVICES_MAX    (512 * 1024)   /* bytes of the table */
#define MODULES_ALIASES_MAX    16384          /* alias lines */
/* Passes over the devices: a driver's own devices may need another driver
 * (virtio_pci's virtio devices need virtio_blk or virtio_scsi). */
#define MODULES_ROUNDS         4
#define MODULES_SCAN_MAX       8192           /* devices read in one pass */
#define MODULES_BUSES_MAX      128            /* directories of SYS/bus */
#define MODULES_MODALIAS_MAX   512            /* bytes of one modalias */

struct module_ref {
	const char *path;     /* a module file, as the builder wrote it */
	const char *params;   /* "" when the line has none */
};

/* Split the list (modified in place: a line is "PATH[ PARAMS]", leading
 * blanks skipped, '#' starts a comment line, blank lines are skipped) into
 * at most cap modules, in order. Returns how many, or -1 when there are
 * more than cap. */
int hi_modules_list_parse(char *list, struct module_ref *mods, size_t cap);

/* The device table of the list mods[0..n) (parsed in place). */
struct modules_demand {
	size_t n_aliases;
	const char *pattern[MODULES_ALIASES_MAX];
	int owner[MODULES_ALIASES_MAX];        /* index into the list */
	const char *needs[MODULES_MAX];        /* per list entry: its needs line's names, or NULL */
	unsigned char ondemand[MODULES_MAX];   /* 1: loads only when wanted */
	unsigned char wanted[MODULES_MAX];     /* a device present needs it */
};

/* Parse the device table text (modified in place) against the list. Returns
 * the number of alias lines, or -1 with *line the bad line's number (1 up)
 * and *why what is wrong with it. */
int hi_modules_devices_parse(char *text, const struct module_ref *mods, int n, struct modules_demand *d,
			     int *line, const char **why);

/* A device's modalias: every on-demand module an alias of which matches it
 * becomes wanted, with its needs. Returns how many became wanted. */
int hi_modules_demand_match(struct modules_demand *d, const struct module_ref *mods, int n, const char *modalias);

int hi_stage_modules(struct boot *b);    /* stages/modules.c: finit_module the builder's list */

#endif
