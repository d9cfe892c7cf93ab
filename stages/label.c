#include "label.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <selinux/label.h>
#include <selinux/selinux.h>

#include "fsutil.h"

bool selinux_policy_loaded(const struct boot *b)
{
	char path[BOOT_PATH_MAX + 32], con[256];

	if (!boot_path(path, sizeof path, b->sys, "fs/selinux/enforce") || access(path, R_OK) < 0)
		return false;
	if (!boot_path(path, sizeof path, b->proc, "self/attr/current") ||
	    fs_read(path, con, sizeof con, NULL) < 0)
		return false;
	con[strcspn(con, "\n")] = '\0';
	return con[0] && strcmp(con, "kernel") != 0;
}

struct selabel_handle *label_handle(struct boot *b)
{
	if (b->selabel)
		return b->selabel;
	if (!selinux_policy_loaded(b))
		return NULL;
	b->selabel = selabel_open(SELABEL_CTX_FILE, NULL, 0);
	return b->selabel;
}

int label_path_as(struct boot *b, const char *fspath, const char *policy_path, mode_t mode)
{
	char *want = NULL;

	if (!selinux_policy_loaded(b))
		return 0;
	struct selabel_handle *h = label_handle(b);
	if (!h)
		return -1;
	if (selabel_lookup(h, &want, policy_path, mode) < 0)
		return errno == ENOENT ? 0 : -1;   /* <<none>>: the kernel's label stands */
	int rc = lsetfilecon(fspath, want);
	freecon(want);
	return rc;
}
