/* libFuzzer target for the partition tables of block/root_probe.c
 * (probe_partition: GPT, else MBR). Byte 0 of the input is the partition
 * number asked for, bytes 1-2 (little-endian) the sector size passed in
 * (probe_partition must cope with any), and the rest is the disk from
 * offset 0, in a memfd.
 *
 * Invariants: 0 with a PARTUUID that is either a GPT GUID (lower-case
 * 8-4-4-4-12 hex) or the kernel's MBR form "SSSSSSSS-NN" naming the disk
 * signature at byte 440 and the partition asked for, and a PARTLABEL of
 * printable ASCII (GPT) or empty (MBR), NUL-terminated inside their
 * fields; -1 with the result all zero, always for partition 0; the same
 * answer twice. */
#define _GNU_SOURCE   /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "root_probe.h"

#define HEADER_BYTES 3

static int disk_fd = -1;

static void check_terminated(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static int is_guid(const char *s)
{
	if (strlen(s) != 36)
		return 0;
	for (size_t i = 0; i < 36; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return 1;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_mbr(const struct part_info *p, const uint8_t *disk, size_t len, unsigned partno)
{
	char want[40];

	if (len < 512 || disk[510] != 0x55 || disk[511] != 0xaa || p->partlabel[0])
		abort();
	snprintf(want, sizeof want, "%08x-%02x", le32(disk + 440), partno);
	if (strcmp(p->partuuid, want) != 0)
		abort();
}

static void check_part(int rc, const struct part_info *p, const uint8_t *disk, size_t len, unsigned partno)
{
	static const struct part_info zero;

	if (rc == -1) {
		if (memcmp(p, &zero, sizeof zero) != 0)
			abort();
		return;
	}
	if (rc != 0)
		abort();
	check_terminated(p->partuuid, sizeof p->partuuid);
	check_terminated(p->partlabel, sizeof p->partlabel);
	if (is_guid(p->partuuid)) {
		for (const char *c = p->partlabel; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				abort();
	} else {
		check_mbr(p, disk, len, partno);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct part_info a, b;

	if (size < HEADER_BYTES)
		return 0;
	if (disk_fd < 0)
		disk_fd = memfd_create("fuzz_partition", MFD_CLOEXEC);
	if (disk_fd < 0)
		abort();   /* the harness itself cannot run */
	unsigned partno = data[0];
	unsigned sector_size = (unsigned)data[1] | (unsigned)data[2] << 8;
	const uint8_t *disk = data + HEADER_BYTES;
	size_t len = size - HEADER_BYTES;
	if (ftruncate(disk_fd, 0) < 0 || (len && pwrite(disk_fd, disk, len, 0) != (ssize_t)len))
		return 0;
	int rc = hi_probe_partition(disk_fd, partno, sector_size, &a);
	if (partno == 0 && rc != -1)
		abort();   /* there is no partition 0 */
	check_part(rc, &a, disk, len, partno);
	if (hi_probe_partition(disk_fd, partno, sector_size, &b) != rc || memcmp(&a, &b, sizeof a) != 0)
		abort();
	return 0;
}
