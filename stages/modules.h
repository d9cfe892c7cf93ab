/* The module list's parser, apart from stages/modules.c so that
 * tests/fuzz/fuzz_modules.c can run it on any bytes. The builder writes
 * the list; the initramfs may come from anyone who can write /boot. */
#ifndef HARDINIT_MODULES_H
#define HARDINIT_MODULES_H

#include <stddef.h>

#include "boot.h"

#define MODULES_LIST_MAX  (32 * 1024)   /* the whole list, bytes (hardinit limits prints it) */
#define MODULES_MAX       128

struct module_ref {
	const char *path;     /* a module file, as the builder wrote it */
	const char *params;   /* "" when the line has none */
};

/* Split the list (modified in place: a line is "PATH[ PARAMS]", leading
 * blanks skipped, '#' starts a comment line, blank lines are skipped) into
 * at most cap modules, in order. Returns how many, or -1 when there are
 * more than cap. */
int hi_modules_list_parse(char *list, struct module_ref *mods, size_t cap);

int hi_stage_modules(struct boot *b);    /* stages/modules.c: finit_module the builder's list */

#endif
