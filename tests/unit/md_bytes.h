/* md superblocks built byte by byte with the kernel's layout
 * (linux/raid/md_p.h), in one place for the unit tests that need one:
 * test_md.c builds arrays of them; the luks, lvm and root stages' tests
 * put one on a member to see it skipped.
 *   md_put16/32/64(p, v), md_get32(p)   little-endian fields
 *   md_seal_v1(sb)                      the 1.x checksum written
 *   md_make_v1(sb, super_sector, ...)   a 1.x superblock of MD_UUID as
 *                                       mdadm --create writes it for one
 *                                       member (super_sector 0: 1.1, 8:
 *                                       1.2, else 1.0 at that sector) */
#ifndef HARDINIT_TEST_MD_BYTES_H
#define HARDINIT_TEST_MD_BYTES_H

#include <stdint.h>
#include <string.h>

static const uint8_t MD_UUID[16] = { 0x5a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
				     0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9 };

static inline void md_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void md_put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline void md_put64(uint8_t *p, uint64_t v) { md_put32(p, (uint32_t)v); md_put32(p + 4, (uint32_t)(v >> 32)); }
static inline uint32_t md_get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The kernel's calc_sb_1_csum, written out: words summed in 64 bits with
 * the checksum field zero, a trailing half word, the carries folded once. */
static inline void md_seal_v1(uint8_t *sb)
{
	uint32_t max_dev = md_get32(sb + 220);
	size_t len = 256 + 2 * max_dev, i;
	uint64_t sum = 0;
	md_put32(sb + 216, 0);
	for (i = 0; i + 4 <= len; i += 4)
		sum += md_get32(sb + i);
	if (i < len)
		sum += (uint64_t)(sb[i] | sb[i + 1] << 8);
	md_put32(sb + 216, (uint32_t)((sum & 0xffffffffu) + (sum >> 32)));
}

static inline void md_make_v1(uint8_t *sb, uint64_t super_sector, const char *name, uint32_t level,
			      uint32_t raid_disks, uint32_t dev_number, uint64_t events)
{
	memset(sb, 0, 4096);
	md_put32(sb, 0xa92b4efc);
	md_put32(sb + 4, 1);
	memcpy(sb + 16, MD_UUID, 16);
	memcpy(sb + 32, name, strlen(name));
	md_put32(sb + 72, level);
	md_put32(sb + 92, raid_disks);
	md_put64(sb + 128, super_sector == 0 || super_sector == 8 ? 64 : 0);   /* data_offset */
	md_put64(sb + 136, 1024);                                              /* data_size */
	md_put64(sb + 144, super_sector);
	md_put32(sb + 160, dev_number);
	md_put64(sb + 200, events);
	md_put64(sb + 208, UINT64_MAX);                                        /* in sync */
	md_put32(sb + 220, raid_disks);
	for (uint32_t d = 0; d < raid_disks; d++)
		md_put16(sb + 256 + 2 * d, (uint16_t)d);
	md_seal_v1(sb);
}

#endif
