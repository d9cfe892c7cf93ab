#!/usr/bin/env bats
# Host-only images for an md RAID root as a Debian user gets them: a
# Debian 12 guest on Debian's generic 6.1 kernel (tests/vm/hostonly.bash,
# shared with tests/vm/hostonly.bats and hostonly_lvm.bats).
#
# RAID1: the guest installs Debian's mdadm and makes a RAID1 over two
# disks as the installer does (metadata 1.2, named debian:0) around a
# root the host wrote where the array's data starts on each disk (a copy
# through the array under TCG took minutes), and installs mdadm and the
# .deb there with its shipped config (in a chroot whose / is the array:
# its mountinfo shows the array at /, as a system booted from it does),
# whose postinst builds the host-only image. That image assembles the array without mdadm and boots
# it to multi-user.target by the file system's UUID; with one member
# missing it refuses with one line, and with bootdegraded=true it boots
# the array degraded from root=/dev/md/0.
#
# Runs in file order. No md device is ever made on the host.

# budget: 280 s

bats_require_minimum_version 1.5.0

load lib
load images
load hostonly

setup_file() {
	_ho_setup
}

# ---- RAID1 root, made by Debian's mdadm inside the guest -------------------
# Disks: M1 and M2 (sparse files, the array's members, each holding
# MROOT, the root file system with mdadm's package and the .deb in /root,
# at MD_DATA_OFFSET, where the array's data will start), EXPORT (where the
# maker puts the image the postinst built, since the host never assembles
# the array).

# The fixed UUID of the file system on the array (root=UUID=, the fstab).
MD_FS_UUID=3d1f7c2e-8a4b-4c5d-9e6f-0a1b2c3d4e5f
# Where mdadm --create --data-offset puts the data on each member (MiB).
MD_DATA_OFFSET=1

_ho_md_steps() {
	cat <<STEP
KVER=$GKVER
OFF=${MD_DATA_OFFSET}M
STEP
	cat <<'STEP'
set -u
run() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
case $1 in
mdmake)
	dpkg -i /root/md/*.deb >/tmp/dpkg.log 2>&1
	echo "dpkg-md=$?"
	# As the installer makes it: metadata 1.2, named HOST:0; its first
	# resync is asked for again at the end (a full copy under TCG here
	# would only slow the copy of the root).
	run mdadm --create /dev/md0 --run --assume-clean --level=1 --raid-devices=2 --metadata=1.2 \
		--data-offset="$OFF" --homehost=debian --name=0 /dev/vdb /dev/vdc
	udevadm settle
	mount /dev/md0 /mnt || echo "step-failed: mount md0"
	for d in proc sys dev run; do mount --bind "/$d" "/mnt/$d"; done
	echo "chroot-root=$(chroot /mnt findmnt -rn -o SOURCE /)"
	chroot /mnt sh -c 'dpkg -i /root/md/*.deb' >/tmp/dpkg-chroot.log 2>&1
	echo "chroot-dpkg-md=$?"
	chroot /mnt dpkg -i /root/hardinit.deb
	echo "install-exit=$?"
	img=/mnt/boot/hardinit.img-$KVER
	echo "image-size=$(stat -c %s "$img")"
	dd if="$img" of=/dev/vdd bs=64k conv=fsync status=none
	for d in run dev sys proc; do umount "/mnt/$d"; done
	umount /mnt
	sed 's/^/mdstat /' /proc/mdstat
	mdadm --detail /dev/md0 | sed -n 's/^ *\(Version\|Name\|State\) : /detail \1 /p'
	sync
	run mdadm --stop /dev/md0
	# (This script runs inside the guest: its kernel's md settings.)
	# Left needing a resync (resync_offset 0 in both superblocks), as an
	# array is after an unclean shutdown: the boots find it resyncing.
	echo 100 >/proc/sys/dev/raid/speed_limit_max
	run mdadm --assemble /dev/md0 --update=resync /dev/vdb /dev/vdc
	run mdadm --stop /dev/md0
	mdadm --examine /dev/vdb | sed -n 's/^ *\(Resync Offset\|State\) : /examine \1 /p'
	;;
mdrun)
	sed 's/^/mdstat /' /proc/mdstat
	echo "md0-state=$(cat /sys/block/md0/md/array_state)"
	echo "fsck-root=$(systemctl show -p Result --value systemd-fsck-root.service)"
	;;
esac
STEP
}

# Once per file (each test is its own process: a file marks it done).
_ho_md_setup() {
	local base debs blocks bsize mb m
	MROOT=$BATS_FILE_TMPDIR/mroot.img EXPORT=$BATS_FILE_TMPDIR/export.img
	M1=$BATS_FILE_TMPDIR/m1.img M2=$BATS_FILE_TMPDIR/m2.img
	[[ ! -f $BATS_FILE_TMPDIR/md.ready ]] || return 0
	base=$(_ho_base_image) || return 1
	debs=$(_ho_debs mdadm mdadm) || return 1
	cp --sparse=always "$base" "$MROOT"
	e2fsck -fy "$MROOT" >/dev/null 2>&1
	resize2fs -M "$MROOT" >/dev/null 2>&1 || { echo "resize2fs -M $MROOT failed" >&2; return 1; }
	blocks=$(dumpe2fs -h "$MROOT" 2>/dev/null | sed -n 's/^Block count: *//p')
	bsize=$(dumpe2fs -h "$MROOT" 2>/dev/null | sed -n 's/^Block size: *//p')
	mb=$(((blocks * bsize >> 20) + 256))
	truncate -s "${mb}M" "$MROOT"
	resize2fs "$MROOT" >/dev/null 2>&1 || { echo "resize2fs $MROOT failed" >&2; return 1; }
	# Its own label and UUID: the maker's root (LABEL=debian-root) is
	# attached beside it.
	tune2fs -L md-root -U "$MD_FS_UUID" "$MROOT" >/dev/null 2>&1 || { echo "tune2fs $MROOT failed" >&2; return 1; }
	{
		echo "mkdir /root/md"
		for f in "$debs"/*.deb; do echo "write $f /root/md/${f##*/}"; done
		echo "write $DEB /root/hardinit.deb"
		echo "rm /etc/fstab"
	} | debugfs -w -f - "$MROOT" >/dev/null 2>&1
	# The maker's own root installs mdadm too, to make the array.
	{
		echo "mkdir /root/md"
		for f in "$debs"/*.deb; do echo "write $f /root/md/${f##*/}"; done
	} | debugfs -w -f - "$DISK" >/dev/null 2>&1
	printf 'UUID=%s\t/\text4\tdefaults\t0\t1\n' "$MD_FS_UUID" >"$BATS_FILE_TMPDIR/fstab"
	_ho_md_steps >"$BATS_FILE_TMPDIR/steps"
	debugfs -w -R "write $BATS_FILE_TMPDIR/fstab /etc/fstab" "$MROOT" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$MROOT" >/dev/null 2>&1
	debugfs -w -R "rm /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -R "cat /root/hostonly-steps" "$MROOT" 2>/dev/null | grep -qx "KVER=$GKVER" ||
		{ echo "debugfs could not write the steps into $MROOT" >&2; return 1; }
	rm -f "$M1" "$M2" "$EXPORT"
	truncate -s "$((mb + MD_DATA_OFFSET + 8))M" "$M1" "$M2"
	for m in "$M1" "$M2"; do
		dd if="$MROOT" of="$m" bs=1M seek="$MD_DATA_OFFSET" conv=sparse,notrunc status=none ||
			{ echo "cannot write $MROOT into $m" >&2; return 1; }
	done
	rm -f "$MROOT"
	truncate -s 64M "$EXPORT"
	touch "$BATS_FILE_TMPDIR/md.ready"
}

@test "hostonly: Debian's mdadm makes a RAID1 root; installing the .deb on it builds a host-only image with md_mod and raid1" {
	_ho_md_setup
	log=$BATS_FILE_TMPDIR/md-make.log
	# $DISK unchanged (snapshot=on); the members and EXPORT written.
	_ho_boot "$log" "$BOOTSTRAP" /dev/vda none mdmake persist \
		-drive "file=$DISK,if=virtio,format=raw,snapshot=on" \
		-drive "file=$M1,if=virtio,format=raw" -drive "file=$M2,if=virtio,format=raw" \
		-drive "file=$EXPORT,if=virtio,format=raw"
	vm_assert_section_line "$log" mdmake "dpkg-md=0"
	vm_assert_section_line "$log" mdmake "chroot-root=/dev/md0"
	vm_assert_section_line "$log" mdmake "chroot-dpkg-md=0"
	vm_assert_section_line "$log" mdmake "install-exit=0"
	vm_assert_section_line "$log" mdmake "step-exit=0"
	if vm_section "$log" mdmake | grep 'step-failed'; then return 1; fi
	vm_assert_section_line "$log" mdmake "detail Version 1.2"
	vm_assert_section_line "$log" mdmake "detail Name debian:0"
	# mdadm's word for a 1.x superblock whose resync is not done.
	vm_assert_section_line "$log" mdmake "examine State active"
	_ho_exported_image "$log" mdmake "$BATS_FILE_TMPDIR/hostonly-md.img" md_mod raid1 virtio_blk ext4
	[[ -e $BATS_FILE_TMPDIR/guest/etc/hardinit/md ]]
}

@test "hostonly: the image the RAID1 guest built assembles the array without mdadm and boots root=UUID= on it to multi-user.target" {
	_ho_md_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-md.img ]]
	log=$BATS_FILE_TMPDIR/boot-md.log
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-md.img" "UUID=$MD_FS_UUID" none mdrun snapshot \
		-drive "file=$M1,if=virtio,format=raw" -drive "file=$M2,if=virtio,format=raw"
	vm_assert_log_contains "$log" "md: assembled debian:0 as md0 (raid1, metadata 1.2, "
	# Left needing a resync by the maker: it runs, and the kernel resyncs.
	vm_assert_log_contains "$log" ", resync pending)"
	vm_assert_section_line "$log" STATE "root=/dev/md0 ext4"
	vm_assert_section_line "$log" MODULES raid1
	vm_assert_section_line "$log" MODULES md_mod
	vm_section "$log" REPORT | grep -q '^md md0 ok debian:0 [0-9a-f:]* raid1 2/2$' || { vm_section "$log" REPORT; false; }
	# The kernel's own view: both members in, the array writable.
	vm_section "$log" mdrun | grep -q '^mdstat md0 : active raid1 vd[ab]\[[01]\] vd[ab]\[[01]\]' || { vm_section "$log" mdrun; false; }
	vm_section "$log" mdrun | grep -qE '^md0-state=(clean|active|active-idle|write-pending)$'
	vm_assert_section_line "$log" mdrun "fsck-root=success"
	echo "# host-only RAID1 image $(stat -c %s "$BATS_FILE_TMPDIR/hostonly-md.img") bytes" >&3
}

@test "hostonly: a RAID1 root with one member missing is refused with one line naming the missing slot and bootdegraded=true" {
	_ho_md_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-md.img ]]
	log=$BATS_FILE_TMPDIR/boot-md-missing.log
	_ho_start "$log" "$BATS_FILE_TMPDIR/hostonly-md.img" /dev/md0 none "" snapshot \
		-drive "file=$M1,if=virtio,format=raw" || true
	vm_assert_log_contains "$log" "md: array debian:0 ("
	vm_assert_log_contains "$log" "raid1) has 1 of 2 members after 10 s (vda in slot 0), slot 1 missing; attach the missing disk, or add bootdegraded=true to the kernel command line to boot it degraded"
	vm_assert_log_lacks "$log" "hardinit: handing off"
	[[ $(vm_exit_reason "$log") == poweroff ]]
}

@test "hostonly: with bootdegraded=true the RAID1 with one member boots degraded from root=/dev/md/0 to multi-user.target" {
	_ho_md_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-md.img ]]
	log=$BATS_FILE_TMPDIR/boot-md-degraded.log
	HO_EXTRA="bootdegraded=true" _ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-md.img" /dev/md/0 none mdrun snapshot \
		-drive "file=$M1,if=virtio,format=raw"
	vm_assert_log_contains "$log" "runs degraded with 1 of 2 members (bootdegraded): slot 1 missing"
	vm_assert_section_line "$log" STATE "root=/dev/md0 ext4"
	vm_section "$log" REPORT | grep -q '^md md0 warn debian:0 [0-9a-f:]* raid1 1/2 degraded$' || { vm_section "$log" REPORT; false; }
	vm_section "$log" mdrun | grep -q '^mdstat md0 : active raid1 vda\[0\]' || { vm_section "$log" mdrun; false; }
}
