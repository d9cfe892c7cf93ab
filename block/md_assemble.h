/* md arrays assembled without mdadm (block/md_assemble.c): the members
 * found grouped by array UUID, a member whose event count is behind left
 * out as mdadm leaves it, whether what is left can run; then the kernel's
 * md ioctls (SET_ARRAY_INFO, ADD_NEW_DISK, RUN_ARRAY) on a new /dev/mdN,
 * reached through the /dev and /sys paths the caller gives. */
#ifndef HARDINIT_BLOCK_MD_ASSEMBLE_H
#define HARDINIT_BLOCK_MD_ASSEMBLE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "md_sb.h"

#define MD_MAX_MEMBERS   64      /* md members seen in one scan */
#define MD_MAX_ARRAYS    16      /* arrays assembled in one boot */
#define MD_DEV_NAME_MAX  64      /* a kernel block device name: vda1 */
#define MD_EVENT_MARGIN  1       /* mdadm's: a clean shutdown may leave one member one event behind */
#define MD_AUTO_MINOR    127     /* mdadm's first pick for an array without a number, then downwards */
#define MD_MAX_MINOR     511

struct md_member {
	char name[MD_DEV_NAME_MAX];
	unsigned major, minor;
	struct md_sb sb;
};

struct md_array {
	struct md_sb sb;                      /* its freshest member's superblock */
	unsigned member[MD_MAX_MEMBERS];      /* members to add: fresh, active or spare */
	unsigned n_member;
	unsigned stale[MD_MAX_MEMBERS];       /* left out: behind in events, or faulty */
	unsigned n_stale;
	unsigned n_active;                    /* distinct slots below raid_disks among the fresh */
	unsigned first_missing;               /* the lowest slot no fresh member holds; raid_disks: none */
	unsigned n_behind;                    /* of the stale: behind in events, another history of the array */
	unsigned n_dup;                       /* of the stale: fresh, in a slot a member already holds */
};

/* The n members grouped into at most cap arrays, in the order first seen.
 * Returns the number of arrays. */
unsigned hi_md_plan(const struct md_member *m, unsigned n, struct md_array *arrays, unsigned cap);

/* 1 when every slot is held and no member was left out for its event
 * count or its slot: a member behind is another history of the array
 * (a disk that missed writes, or the real one when a planted disk claims
 * a newer event count), so the array runs only as a degraded one would. */
int hi_md_complete(const struct md_array *a);

/* 1 when the kernel can run the array with the slots it has: raid1 with
 * one, raid4/5 with one missing, raid6 with two, raid10 with at least
 * half (the kernel checks the layout itself); linear and raid0 never. */
int hi_md_can_degrade(const struct md_array *a);

/* The level as mdadm prints it: raid1, linear, ... (static text). */
const char *hi_md_level_name(int32_t level);

/* Whether a superblock of KIND (MD_SB_KINDS: damaged, its kind not
 * known) on a device of BYTES lies past content_end, what the device's
 * start says it holds (0: not known). One at the start (1.1, 1.2) is
 * never file data; one at the end (1.0, 0.90) inside a file system or a
 * PV that spans it was written through them, as any user can write a
 * file, not by md: a real member's contents are sized to the array, which
 * ends before the superblock. A damaged one is taken as the lowest.
 * A start claiming more than the device holds is a striped or
 * concatenated array's (member 0 of raid0, linear, raid4/5/6, raid10): a
 * member. Left open: an array's file system that ends inside the last
 * 8-128 KiB of member 0, an unknown size (JFS), and a file system shrunk
 * after a user wrote md's bytes past its new end (wipefs clears them).
 */
bool hi_md_sb_outside(enum md_sb_kind kind, uint64_t bytes, uint64_t content_end);

/* Whether the block device NAME is an md array's member, as blkid's
 * linux_raid_member and lvm2's md_component_detection take it: held by a
 * running array (sys_dir/class/block/NAME/holders/mdN, or its whole
 * disk's), or carrying an md superblock of any version, whole or damaged,
 * its array running or not, where no file system or PV put it: given
 * content_end, the bytes the device's start says it holds (a file
 * system's size, a PV's; 0 not known), a 1.0 or 0.90 superblock inside
 * them is file data (any user can write md's bytes into a file near the
 * end of a plain partition), not a member's. A 1.0 or 0.90 member keeps its superblock at
 * the end, so its first bytes are the array's (a LUKS header, a PV label,
 * a file system's UUID): opened alone it would take writes its mirror
 * never sees. Every stage that looks for a volume by what its device
 * carries asks this of each match (luks, lvm, root); the array is the
 * match, never a member. An md array or a dm device is asked for its
 * holders only (hardinit assembles no array on one). Returns 1 with what
 * saying why ("held by md0", "an md 1.0 member of array UUID"), else 0. */
#define MD_MEMBER_WHAT_MAX (MD_SB_ERR_MAX + 64)
int hi_md_member(const char *sys_dir, const char *dev_dir, const char *name, uint64_t content_end, char *what,
		 size_t cap);

/* The minor for the array: the one its superblock names when that is
 * free under sys_dir/block, else MD_AUTO_MINOR downwards; -1 when none. */
int hi_md_pick_minor(const char *sys_dir, const struct md_sb *sb);

/* Assemble a as md<minor>: the node dev_dir/md<minor> made (through the
 * md module's new_array, else mknod), the superblock version set, each
 * member added, the array run; on a failure the half-made array is
 * stopped. Returns 0 with node set, or -1 with why. */
int hi_md_assemble(const char *dev_dir, const char *sys_dir, const struct md_array *a, const struct md_member *m,
		   int minor, char *node, size_t nodecap, char *why, size_t whylen);

/* After RUN_ARRAY, the kernel's own count of missing members
 * (sys_dir/block/md<minor>/md/degraded): the kernel reads the role tables
 * itself, and a planted spare with a forged newer one can make it run the
 * array degraded where hardinit counted every slot held. Returns 0 when
 * the kernel runs it whole (or the level has no redundancy to lose), -1
 * with why when it runs degraded, or its count cannot be read, and
 * degraded_ok is 0. */
int hi_md_check_run(const char *sys_dir, const struct md_array *a, int minor, int degraded_ok, char *why,
		    size_t whylen);

/* STOP_ARRAY on node: a run array refused after all. */
void hi_md_stop(const char *node);

#endif
