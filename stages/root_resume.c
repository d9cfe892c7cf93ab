/* resume=: hardinit does not resume a hibernated system (under Secure Boot
 * the kernel's lockdown forbids it anyway, and resuming needs the swap's
 * image read before any file system is mounted). What it must never do is
 * boot over one: the session would be lost, and the file systems it had
 * mounted would be written under it. So before root is mounted, when the
 * command line names resume= (and not noresume), the device is found as
 * root= is (bounded) and its swap signature read (block/root_probe.c):
 * a hibernation image there stops the boot with the way out. A resume=
 * that names an LV was activated by the lvm stage.
 * Called by the root stage. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "log.h"
#include "lvm.h"
#include "root_probe.h"
#include "root_resume.h"

int hi_resume_check(struct boot *b, int (*wait)(struct boot *b, const char *spec, char *found,
							       size_t cap))
{
	bool noresume = false;
	const char *spec = hi_cmdline_get(&b->cmd, "resume", NULL);
	char node[BOOT_PATH_MAX], mapper[BOOT_PATH_MAX];
	struct fs_info fi;

	hi_cmdline_get(&b->cmd, "noresume", &noresume);
	if (!spec || !spec[0])
		return 0;
	if (noresume) {
		hi_report_add(&b->rep, "resume", "hibernation", "skipped", "noresume: %s not checked", spec);
		return 0;
	}
	if (hi_cmdline_get(&b->cmd, "resume_offset", NULL)) {
		/* A swap file: its header is inside a file system hardinit
		 * would have to mount first. */
		log_warn("resume=%s with resume_offset= (a swap file): not checked for a hibernated system; hardinit never resumes one", spec);
		hi_report_add(&b->rep, "resume", "hibernation", "warn", "swap file on %s not checked", spec);
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would check resume=%s for a hibernated system before mounting root", spec);
		return 0;
	}
	/* resume=/dev/VG/LV: the lvm stage activated it as lvm2 names it. */
	if (wait(b, hi_lvm_spec_mapper(spec, mapper, sizeof mapper) ? mapper : spec, node, sizeof node) < 0)
		return -1;
	int fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hi_boot_error(b, "cannot open resume device %s (resume=%s): %s; fix resume= or boot with noresume",
				  node, spec, strerror(errno));
	int found = hi_probe_fs(fd, &fi) == 0;
	close(fd);
	if (found && strcmp(fi.type, "swsuspend") == 0)
		return hi_boot_error(b, "resume=%s (%s) holds a hibernated system: hardinit does not resume hibernation, "
				  "and booting over it would lose that session and write its file systems under it; "
				  "boot an initramfs that resumes it (Debian's initrd.img), or add noresume to discard it",
				  spec, node);
	hi_report_add(&b->rep, "resume", "hibernation", "ok", "%s (%s): %s", spec, node,
		   found ? (strcmp(fi.type, "swap") == 0 ? "swap, no hibernated system" : fi.type) : "no swap signature");
	return 0;
}
