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
# The stack, in the same maker boot: on two more disks a RAID1 of
# metadata 1.0 (its superblock at the end, so each member's first bytes
# are the array's), on it LUKS2 made by Debian's cryptsetup, on that an
# LVM VG made by Debian's lvm2 (the installer's "encrypted LVM" on RAID),
# a trimmed copy of the root on its LV, the .deb installed there in a
# chroot. Its image assembles md1, opens the LUKS2 volume on the array
# (each member shows the same header at its start: never opened), with
# the passphrase typed on the console, activates the LV and boots it to
# multi-user.target.
#
# Runs in file order. No md, dm or loop device is ever made on the host.

# budget: 600 s

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
# The stack: the LUKS2 volume's UUID and passphrase, its members' size
# (MiB), where its image goes on the export disk (64 KiB blocks).
MD_LUKS_UUID=6e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b
MD_LUKS_PASS='debian raid 12'
MD_STACK_MB=448
MD_STACK_SEEK=512

_ho_md_steps() {
	cat <<STEP
KVER=$GKVER
OFF=${MD_DATA_OFFSET}M
LUKS_UUID=$MD_LUKS_UUID
PASS='$MD_LUKS_PASS'
SEEK=$MD_STACK_SEEK
STEP
	cat <<'STEP'
set -u
run() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
# lvm2 unpacked, not installed: its udev rules and units are not loaded.
LC='--config=activation{udev_sync=0 udev_rules=0 monitoring=0} devices{obtain_device_list_from_udev=0}'
# The root at $1 onto $2 (its proc, sys, dev and run, bound in, left
# empty), without the debs, the documentation and the kernel's module
# trees nothing here needs (ext4, block devices, virtio, md, dm and the
# crypto they pull in): each byte crosses dm-crypt and both members under
# TCG.
copy_root() {
	local m=./usr/lib/modules/$KVER k
	echo "copy at $(cut -d' ' -f1 /proc/uptime) s"
	{
		tar -C "$1" --exclude='./proc/*' --exclude='./sys/*' --exclude='./dev/*' --exclude='./run/*' \
			--exclude=./root/md --exclude=./root/stack --exclude=./usr/share/doc \
			--exclude=./usr/share/man --exclude=./usr/share/locale --exclude='./boot/initrd.img*' \
			--exclude="$m" -cf - . | tar -C "$2" -xpf - &&
			mkdir -p "$2/${m#./}/kernel" && cp -p "$1/${m#./}"/modules.* "$2/${m#./}/" &&
			for k in fs/ext4 fs/jbd2 fs/mbcache.ko lib crypto arch drivers/block drivers/virtio drivers/char drivers/md \
				drivers/crypto; do
				mkdir -p "$2/${m#./}/kernel/$(dirname "$k")" &&
					cp -a "$1/${m#./}/kernel/$k" "$2/${m#./}/kernel/$(dirname "$k")/" ||
					echo "step-failed: copy modules $k"
			done
	} || echo "step-failed: copy to $2"
	echo "copied at $(cut -d' ' -f1 /proc/uptime) s"
}
# md1 (metadata 1.0) over vde and vdf, LUKS2 on it, the VG hvg on that,
# the root of $1 copied onto hvg/root, the .deb installed in a chroot of
# it; its image onto the export disk at SEEK.
stack() {
	local s=/mnt2 d img
	mkdir -p /tmp/stack
	for f in /root/stack/*.deb; do dpkg-deb -x "$f" /tmp/stack || echo "step-failed: dpkg-deb -x $f"; done
	# Into / through its merged-/usr links (/lib, /sbin -> usr/...), which
	# an unpack straight into / would replace with directories.
	tar -C /tmp/stack -cf - . | tar -C / --keep-directory-symlink -xf - || echo "step-failed: unpack the tools"
	ldconfig
	run mdadm --create /dev/md1 --run --assume-clean --level=1 --raid-devices=2 --metadata=1.0 \
		--homehost=debian --name=1 /dev/vde /dev/vdf
	udevadm settle
	# Debian's defaults but a KDF cost TCG can pay.
	printf %s "$PASS" | run cryptsetup luksFormat -q --type luks2 --uuid "$LUKS_UUID" --key-file - \
		--pbkdf argon2id --pbkdf-force-iterations 4 --pbkdf-memory 8192 --pbkdf-parallel 2 /dev/md1
	# The array's header, as each member shows it at its start.
	echo "members-luks=$(cryptsetup luksUUID /dev/vde) $(cryptsetup luksUUID /dev/vdf)"
	printf %s "$PASS" | run cryptsetup open --key-file - /dev/md1 md1_crypt
	run pvcreate -y "$LC" /dev/mapper/md1_crypt
	run vgcreate "$LC" hvg /dev/mapper/md1_crypt
	run lvcreate -y "$LC" -n root -l 100%FREE hvg
	run mkfs.ext4 -q /dev/hvg/root
	mkdir -p "$s"
	run mount /dev/hvg/root "$s"
	copy_root "$1" "$s"
	printf '/dev/mapper/hvg-root\t/\text4\tdefaults\t0\t1\n' >"$s/etc/fstab"
	printf 'md1_crypt UUID=%s none luks,discard\n' "$LUKS_UUID" >"$s/etc/crypttab"
	for d in proc sys dev run; do mount --bind "/$d" "$s/$d"; done
	echo "stack-root=$(chroot "$s" findmnt -rn -o SOURCE /)"
	chroot "$s" dpkg -i /root/hardinit.deb
	echo "stack-install-exit=$?"
	img=$s/boot/hardinit.img-$KVER
	echo "stack-image-size=$(stat -c %s "$img")"
	dd if="$img" of=/dev/vdd bs=64k seek="$SEEK" conv=fsync status=none
	for d in run dev sys proc; do umount "$s/$d"; done
	run umount "$s"
	run vgchange -an "$LC" hvg
	run cryptsetup close md1_crypt
	mdadm --detail /dev/md1 | sed -n 's/^ *\(Version\|Name\|State\) : /stack-detail \1 /p'
	run mdadm --stop /dev/md1
}
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
	# The stack's root: this one as it is now, with mdadm.
	stack /mnt
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
stackrun)
	sed 's/^/mdstat /' /proc/mdstat
	echo "crypt-deps=$(dmsetup deps -o devname md1_crypt)"
	echo "lv-deps=$(dmsetup deps -o devname hvg-root)"
	echo "crypt-unit=$(systemctl is-active systemd-cryptsetup@md1_crypt.service)"
	echo "fsck-root=$(systemctl show -p Result --value systemd-fsck-root.service)"
	;;
esac
STEP
}

# Once per file (each test is its own process: a file marks it done).
_ho_md_setup() {
	local base debs sdebs blocks bsize mb m
	MROOT=$BATS_FILE_TMPDIR/mroot.img EXPORT=$BATS_FILE_TMPDIR/export.img
	M1=$BATS_FILE_TMPDIR/m1.img M2=$BATS_FILE_TMPDIR/m2.img
	S1=$BATS_FILE_TMPDIR/s1.img S2=$BATS_FILE_TMPDIR/s2.img
	[[ ! -f $BATS_FILE_TMPDIR/md.ready ]] || return 0
	base=$(_ho_base_image) || return 1
	debs=$(_ho_debs mdadm mdadm) || return 1
	sdebs=$(_ho_debs md-stack cryptsetup-bin libpopt0 lvm2 dmeventd libdevmapper-event1.02.1 liblvm2cmd2.03 \
		libaio1 libedit2 libbsd0) || return 1
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
	# The maker's own root installs mdadm too, to make the arrays, and
	# unpacks cryptsetup and lvm2 for the stack.
	{
		echo "mkdir /root/md"
		for f in "$debs"/*.deb; do echo "write $f /root/md/${f##*/}"; done
		echo "mkdir /root/stack"
		for f in "$sdebs"/*.deb; do echo "write $f /root/stack/${f##*/}"; done
	} | debugfs -w -f - "$DISK" >/dev/null 2>&1
	printf 'UUID=%s\t/\text4\tdefaults\t0\t1\n' "$MD_FS_UUID" >"$BATS_FILE_TMPDIR/fstab"
	_ho_md_steps >"$BATS_FILE_TMPDIR/steps"
	debugfs -w -R "write $BATS_FILE_TMPDIR/fstab /etc/fstab" "$MROOT" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$MROOT" >/dev/null 2>&1
	debugfs -w -R "rm /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -R "cat /root/hostonly-steps" "$MROOT" 2>/dev/null | grep -qx "KVER=$GKVER" ||
		{ echo "debugfs could not write the steps into $MROOT" >&2; return 1; }
	rm -f "$M1" "$M2" "$EXPORT" "$S1" "$S2"
	truncate -s "${MD_STACK_MB}M" "$S1" "$S2"
	truncate -s "$((mb + MD_DATA_OFFSET + 8))M" "$M1" "$M2"
	for m in "$M1" "$M2"; do
		dd if="$MROOT" of="$m" bs=1M seek="$MD_DATA_OFFSET" conv=sparse,notrunc status=none ||
			{ echo "cannot write $MROOT into $m" >&2; return 1; }
	done
	rm -f "$MROOT"
	truncate -s 64M "$EXPORT"
	touch "$BATS_FILE_TMPDIR/md.ready"
}

@test "hostonly: Debian's mdadm makes a RAID1 root, and LVM on LUKS2 on a RAID1 of metadata 1.0; installing the .deb on each builds a host-only image of exactly what it needs" {
	_ho_md_setup
	log=$BATS_FILE_TMPDIR/md-make.log
	# $DISK unchanged (snapshot=on); the members and EXPORT written.
	_ho_boot "$log" "$BOOTSTRAP" /dev/vda none mdmake persist \
		-drive "file=$DISK,if=virtio,format=raw,snapshot=on" \
		-drive "file=$M1,if=virtio,format=raw" -drive "file=$M2,if=virtio,format=raw" \
		-drive "file=$EXPORT,if=virtio,format=raw" \
		-drive "file=$S1,if=virtio,format=raw" -drive "file=$S2,if=virtio,format=raw"
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
	# The stack: the 1.0 array's LUKS2 header on each member too.
	vm_assert_section_line "$log" mdmake "members-luks=$MD_LUKS_UUID $MD_LUKS_UUID"
	vm_assert_section_line "$log" mdmake "stack-root=/dev/mapper/hvg-root"
	vm_assert_section_line "$log" mdmake "stack-detail Version 1.0"
	vm_assert_section_line "$log" mdmake "stack-detail Name debian:1"
	list=$(HO_TAG=stack HO_SEEK=$MD_STACK_SEEK _ho_exported_image "$log" mdmake "$BATS_FILE_TMPDIR/hostonly-stack.img" \
		md_mod raid1 dm_mod dm_crypt virtio_blk ext4) || return 1
	# Exactly the layers the root has: no other md level, no other bus.
	if grep -xE 'raid456|raid10|raid0|nvme|ahci|virtio_scsi|xfs|btrfs' <<<"$list"; then false; fi
	[[ -e $BATS_FILE_TMPDIR/guest/etc/hardinit/md ]]
	[[ $(cat "$BATS_FILE_TMPDIR/guest/etc/crypttab") == "md1_crypt UUID=$MD_LUKS_UUID none luks,discard" ]]
	echo "# maker: $(vm_section "$log" mdmake | grep -E '^(copy|copied) at' | tr '\n' ' ')" >&3
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

@test "hostonly: LVM on LUKS2 on the 1.0 RAID1: the image assembles md1, opens the array's volume (never a member showing the same header) with the passphrase typed on the console, activates the LV and boots to multi-user.target" {
	_ho_md_setup
	img=$BATS_FILE_TMPDIR/hostonly-stack.img
	[[ -s $img ]]
	log=$BATS_FILE_TMPDIR/boot-stack.log
	HO_PASS=$MD_LUKS_PASS _ho_boot "$log" "$img" /dev/mapper/hvg-root none stackrun snapshot \
		-drive "file=$S1,if=virtio,format=raw" -drive "file=$S2,if=virtio,format=raw"
	# In order: the array, the volume on it, the LV on that.
	vm_assert_log_contains "$log" "md: assembled debian:1 as md1 (raid1, metadata 1.0, "
	vm_assert_log_contains "$log" "Please enter passphrase for disk md1_crypt ($MD_LUKS_UUID), try 1 of 3"
	vm_section "$log" REPORT | grep -q "^luks md1_crypt opened UUID $MD_LUKS_UUID on /dev/md1, " || { vm_section "$log" REPORT; false; }
	vm_section "$log" REPORT | grep -q '^md md1 ok debian:1 [0-9a-f:]* raid1 2/2$' || { vm_section "$log" REPORT; false; }
	vm_assert_section_line "$log" REPORT "lvm dm_name ok hvg-root"
	vm_assert_section_line "$log" STATE "root=/dev/mapper/hvg-root ext4"
	local m
	for m in md_mod raid1 dm_mod dm_crypt; do vm_assert_section_line "$log" MODULES "$m"; done
	# The kernel's own view: the volume over the array, the LV over it.
	vm_section "$log" stackrun | grep -q '^mdstat md1 : active raid1 vd[ab]\[[01]\] vd[ab]\[[01]\]' || { vm_section "$log" stackrun; false; }
	vm_section "$log" stackrun | grep -q '^crypt-deps=1 dependencies.*: (md1)$' || { vm_section "$log" stackrun; false; }
	vm_section "$log" stackrun | grep -q '^lv-deps=1 dependencies.*: (md1_crypt)$' || { vm_section "$log" stackrun; false; }
	vm_assert_section_line "$log" stackrun "crypt-unit=active"
	vm_assert_section_line "$log" stackrun "fsck-root=success"
}
