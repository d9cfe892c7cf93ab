/* dmtable: what device-mapper holds, asked directly with DM_TABLE_STATUS
 * on /dev/mapper/control, for tests/vm/verity.bats. Independent of
 * hardinit's own dm code: its own ioctl buffer and parsing.
 *   dmtable NAME   prints  target=TYPE  sectors=N  table=PARAMS
 *                  status=STATUS  readonly=0|1  (or error=ERRNO-NAME)
 *                  then targets=N and target.I=START LENGTH TYPE PARAMS
 *                  for each target of the table (an LV has several)
 * dmsetup is not in the test root, so this is the independent reader. */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static union {
	struct dm_ioctl io;
	char raw[16384];
} buf;

static int status(int fd, const char *name, unsigned flags)
{
	memset(&buf, 0, sizeof buf);
	buf.io.version[0] = DM_VERSION_MAJOR;
	buf.io.data_size = sizeof buf;
	buf.io.data_start = sizeof buf.io;
	buf.io.flags = flags;
	snprintf(buf.io.name, sizeof buf.io.name, "%s", name);
	return ioctl(fd, DM_TABLE_STATUS, &buf.io);
}

static void print_target(const char *key)
{
	const struct dm_target_spec *t = (const void *)(buf.raw + buf.io.data_start);
	if (buf.io.target_count < 1) {
		printf("%s=none\n", key);
		return;
	}
	if (key[0] == 't')
		printf("target=%.16s\nsectors=%llu\n", t->target_type, (unsigned long long)t->length);
	printf("%s=%s\n", key, (const char *)(t + 1));
}

/* Every target of the table just read: each spec's next is the offset
 * from this spec to the following one. */
static void print_all_targets(void)
{
	size_t at = buf.io.data_start;

	printf("targets=%u\n", buf.io.target_count);
	for (unsigned i = 0; i < buf.io.target_count; i++) {
		if (at + sizeof(struct dm_target_spec) > buf.io.data_size || at + sizeof(struct dm_target_spec) > sizeof buf)
			break;
		const struct dm_target_spec *t = (const void *)(buf.raw + at);
		const char *params = (const char *)(t + 1);
		printf("target.%u=%llu %llu %.16s %.*s\n", i, (unsigned long long)t->sector_start,
		       (unsigned long long)t->length, t->target_type,
		       (int)strnlen(params, sizeof buf - at - sizeof *t), params);
		if (t->next == 0)
			break;
		at = buf.io.data_start + t->next;
	}
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "root";
	int fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		/* misc 10:236, as /sys/class/misc/device-mapper/dev says */
		mkdir("/dev/mapper", 0755);
		mknod("/tmp/dm-control", S_IFCHR | 0600, makedev(10, 236));
		fd = open("/tmp/dm-control", O_RDWR | O_CLOEXEC);
	}
	if (fd < 0) {
		printf("error=open-control-%s\n", strerror(errno));
		return 1;
	}
	if (status(fd, name, DM_STATUS_TABLE_FLAG) < 0) {
		printf("error=%s\n", strerror(errno));
		return 1;
	}
	printf("readonly=%d\n", (buf.io.flags & DM_READONLY_FLAG) ? 1 : 0);
	print_target("table");
	print_all_targets();
	if (status(fd, name, 0) < 0) {
		printf("error=%s\n", strerror(errno));
		return 1;
	}
	print_target("status");
	return 0;
}
