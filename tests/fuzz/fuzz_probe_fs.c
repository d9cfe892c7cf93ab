/* libFuzzer target for the superblock probes of block/root_probe.c
 * (probe_fs: ext2/3/4, xfs, btrfs, jfs, erofs, squashfs, swap). A disk's contents
 * are whoever's plugged it in: none of it may crash PID 1 or make it
 * report a malformed UUID or label.
 *
 * The image is a sparse memfd: the input from byte 1 on is written at
 * offset 0, and when bit 0 of byte 0 is set also at 64 KiB, where btrfs
 * keeps its superblock, so a small input reaches every probe; with the
 * bit clear the file ends with the input and the short reads are tried.
 *
 * Invariants: 0 with a known type, a UUID that is empty or lower-case
 * 8-4-4-4-12 hex, a label of printable bytes, all NUL-terminated inside
 * their fields (squashfs: neither UUID nor label); -1 with the result all
 * zero. format_uuid round-trips: its text parsed
 * back gives the 16 bytes, in either byte order. */
#define _GNU_SOURCE   /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "root_probe.h"

#define BTRFS_COPY_OFFSET 0x10000

static int image_fd = -1;

static void check_terminated(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parse 8-4-4-4-12 lower-case hex into 16 bytes; -1 when malformed. */
static int parse_uuid(const char *s, unsigned char out[16])
{
	size_t n = 0;

	if (strlen(s) != 36)
		return -1;
	for (size_t i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			continue;
		}
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[n++] = (unsigned char)(hi << 4 | lo);
		i++;
	}
	return n == 16 ? 0 : -1;
}

static void check_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			abort();
}

static void check_format_uuid(const uint8_t *data, size_t size)
{
	unsigned char in[16] = { 0 }, back[16];
	char text[37];

	memcpy(in, data, size < 16 ? size : 16);
	for (int mixed = 0; mixed < 2; mixed++) {
		hi_format_uuid(in, mixed, text);
		if (parse_uuid(text, back) != 0)
			abort();
		if (mixed) {
			unsigned char t;
			t = back[0]; back[0] = back[3]; back[3] = t;
			t = back[1]; back[1] = back[2]; back[2] = t;
			t = back[4]; back[4] = back[5]; back[5] = t;
			t = back[6]; back[6] = back[7]; back[7] = t;
		}
		if (memcmp(in, back, 16) != 0)
			abort();
	}
}

static void check_info(int rc, const struct fs_info *fs)
{
	static const char *const types[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "erofs", "squashfs", "swap", "swsuspend" };
	static const struct fs_info zero;
	unsigned char bytes[16];

	if (rc == -1) {
		if (memcmp(fs, &zero, sizeof zero) != 0)
			abort();
		return;
	}
	if (rc != 0)
		abort();
	check_terminated(fs->type, sizeof fs->type);
	check_terminated(fs->uuid, sizeof fs->uuid);
	check_terminated(fs->label, sizeof fs->label);
	size_t i;
	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(fs->type, types[i]) == 0)
			break;
	if (i == sizeof types / sizeof types[0])
		abort();
	if (fs->uuid[0] && parse_uuid(fs->uuid, bytes) != 0)
		abort();
	check_printable(fs->label);
	if (strcmp(fs->type, "squashfs") == 0 && (fs->uuid[0] || fs->label[0]))
		abort();
}

static int write_image(const uint8_t *data, size_t size)
{
	if (ftruncate(image_fd, 0) < 0)
		return -1;
	if (size > 1 && pwrite(image_fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		return -1;
	if ((data[0] & 1) && size > 1 &&
	    pwrite(image_fd, data + 1, size - 1, BTRFS_COPY_OFFSET) != (ssize_t)(size - 1))
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_info fs;

	if (image_fd < 0)
		image_fd = memfd_create("fuzz_probe_fs", MFD_CLOEXEC);
	if (image_fd < 0)
		abort();   /* the harness itself cannot run */
	check_format_uuid(data, size);
	if (size < 1 || write_image(data, size) < 0)
		return 0;
	check_info(hi_probe_fs(image_fd, &fs), &fs);
	return 0;
}
