#include "selinux_label.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <selinux/label.h>
#include <selinux/selinux.h>

#include "fsutil.h"
#include "log.h"

bool hi_selinux_policy_loaded(const struct boot *b)
{
	char path[BOOT_PATH_MAX + 32], con[256];

	if (!hi_boot_path(path, sizeof path, b->sys, "fs/selinux/enforce") || access(path, R_OK) < 0)
		return false;
	if (!hi_boot_path(path, sizeof path, b->proc, "self/attr/current") ||
	    hi_fs_read(path, con, sizeof con, NULL) < 0)
		return false;
	con[strcspn(con, "\n")] = '\0';
	return con[0] && strcmp(con, "kernel") != 0;
}

struct selabel_handle *hi_label_handle(struct boot *b)
{
	static bool warned;

	if (b->selabel)
		return b->selabel;
	if (!hi_selinux_policy_loaded(b))
		return NULL;
	b->selabel = selabel_open(SELABEL_CTX_FILE, NULL, 0);
	if (!b->selabel && !warned) {
		warned = true;
		log_warn("SELinux file contexts not loaded (%s): what hardinit creates keeps the label "
			 "of its parent; run restorecon on it", strerror(errno));
	}
	return b->selabel;
}

/* Through the fd (fgetfilecon, fsetfilecon), never a path: the directory
 * labelled is the one hardinit resolved without links. */
int hi_label_dir(struct boot *b, int fd, const char *policy_path, bool fix, char *got, size_t gotlen)
{
	char *want = NULL, *have = NULL;
	int rc = 0;

	snprintf(got, gotlen, "selinux off");
	if (!hi_selinux_policy_loaded(b))
		return 2;
	struct selabel_handle *h = hi_label_handle(b);
	if (!h) {
		snprintf(got, gotlen, "file contexts not loaded");
		return -1;
	}
	if (selabel_lookup(h, &want, policy_path, S_IFDIR) < 0) {
		int e = errno;
		/* ENOENT: file_contexts says <<none>> (Debian's refpolicy for
		 * everything below /tmp and /var/tmp): the policy leaves the
		 * label the kernel gave at creation, which restorecon keeps. */
		if (e == ENOENT && fgetfilecon(fd, &have) >= 0) {
			snprintf(got, gotlen, "%s (file_contexts: <<none>>, kept)", have);
			freecon(have);
			return 0;
		}
		snprintf(got, gotlen, "no label in the policy (%s)", strerror(e));
		return -1;
	}
	if (fgetfilecon(fd, &have) >= 0 && strcmp(have, want) == 0) {
		snprintf(got, gotlen, "%s", want);
	} else if (!fix) {
		snprintf(got, gotlen, "%s, policy says %s", have ? have : "unlabelled", want);
		rc = 1;
	} else if (fsetfilecon(fd, want) < 0) {
		snprintf(got, gotlen, "setting %s failed: %s", want, strerror(errno));
		rc = -1;
	} else {
		snprintf(got, gotlen, "%s", want);
	}
	freecon(have);
	freecon(want);
	return rc;
}

int hi_label_path_as(struct boot *b, const char *fspath, const char *policy_path, mode_t mode)
{
	char *want = NULL;

	if (!hi_selinux_policy_loaded(b))
		return 0;
	struct selabel_handle *h = hi_label_handle(b);
	if (!h)
		return -1;
	if (selabel_lookup(h, &want, policy_path, mode) < 0)
		return errno == ENOENT ? 0 : -1;   /* <<none>>: the kernel's label stands */
	int rc = lsetfilecon(fspath, want);
	freecon(want);
	return rc;
}
