/* A dm device's udev database entry (block/dm_udev.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dm_udev.h"

/* What libdevmapper's udev rules leave in the database of a device it
 * activated: the primary-source flag and the rules' version. */
static const char dm_udev_db[] = "E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_UDEV_RULES_VSN=2\n";

int hi_dm_udev_db_write(const char *run, unsigned major, unsigned minor, char *err, size_t errlen)
{
	char path[4096];
	const char *dirs[] = { "udev", "udev/data" };

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if ((size_t)snprintf(path, sizeof path, "%s/%s", run, dirs[i]) >= sizeof path) {
			errno = ENAMETOOLONG;
			snprintf(err, errlen, "%s/%s: path too long", run, dirs[i]);
			return -1;
		}
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
	}
	snprintf(path, sizeof path, "%s/udev/data/b%u:%u", run, major, minor);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	ssize_t w = write(fd, dm_udev_db, sizeof dm_udev_db - 1);
	int e = errno;
	close(fd);
	if (w != (ssize_t)(sizeof dm_udev_db - 1)) {
		errno = w < 0 ? e : EIO;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
