/* selinux_relabel.c's functions (one header per .c file). */
#ifndef HARDINIT_SELINUX_RELABEL_H
#define HARDINIT_SELINUX_RELABEL_H

#include <stddef.h>

#include "boot.h"
#include "selinux_types.h"

int hi_selinux_walk(const char *root, size_t limit, selinux_visit_fn visit, void *ctx,
		 struct selinux_walk_stats *st);

/* The relabel of the objects created before the policy (selinux_relabel.c):
 * b->dev, b->dev/shm and b->run, each once, with the file contexts at
 * fc_path. Reports counts, contexts_ms (opening the file contexts) and
 * relabel_ms (the open and the walk: our own work). Returns 0; every problem is a
 * warning, since a wrong label is fixed by the next relabel. */
int hi_selinux_relabel(struct boot *b, const char *fc_path);

#endif
