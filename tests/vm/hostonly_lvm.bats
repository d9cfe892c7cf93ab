#!/usr/bin/env bats
# Host-only images for an LVM root as a Debian user gets them: a Debian 12
# guest on Debian's generic 6.1 kernel (tests/vm/hostonly.bash, shared with
# tests/vm/hostonly.bats).
#
# LVM: the guest installs Debian's lvm2 and makes a VG over two
# more disks with pvcreate/vgcreate/lvcreate (a striped root LV, two swap
# LVs, a thin LV), copies its root onto the striped LV; booted with root
# there, installing the .deb builds a host-only image with dm-mod; the
# kernel hook run where / is the thin LV refuses and keeps the last good
# image; the guest's image boots the striped LV to multi-user.target with
# resume= on a swap LV checked, and refuses resume= on one that holds a
# hibernated system.
#
# Runs in file order. No dm or loop device is ever made on the host.

# budget: 490 s

bats_require_minimum_version 1.5.0

load lib
load images
load hostonly

setup_file() {
	_ho_setup
}

# ---- LVM root, made by Debian's lvm2 inside the guest ----------------------
# Disks: PV1 and PV2 (sparse files; the VG "hvg" spans both), LROOT (the
# guest's root file system with lvm2's packages and the .deb in /root,
# copied by the maker onto the striped LV), EXPORT (where the LV guest
# puts the image it built, since the host never maps the LV).
# The steps: lvmmake (root on $DISK, unchanged: lvm2 installed from
# LROOT, pvcreate/vgcreate/lvcreate, LROOT copied onto hvg/root, swap LVs),
# lvmbuild (root on hvg/root: lvm2 and the .deb installed, the hook's
# host-only build; then the hook in a chroot whose / is the thin LV).

# The step script for both LVM boots; LMB is the root LV's size in MiB.
_ho_lvm_steps() {
	cat <<STEP
LMB=$1
KVER=$GKVER
STEP
	cat <<'STEP'
set -u
# thin_check (thin-provisioning-tools) is not installed.
LC='--config=global{thin_check_executable=""}'
run() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
case $1 in
lvmmake)
	mount -o ro /dev/vdd /mnt && dpkg -i /mnt/root/lvm/*.deb >/tmp/dpkg.log 2>&1
	echo "dpkg-lvm=$?"
	umount /mnt
	run pvcreate -y /dev/vdb /dev/vdc
	run vgcreate hvg /dev/vdb /dev/vdc
	run lvcreate -y -i2 -I64k -n root -L "${LMB}m" hvg
	run lvcreate -y -n swap -L 16m hvg
	run lvcreate -y -n hib -L 16m hvg
	run lvcreate -y "$LC" --type thin-pool -L 64m -n pool hvg
	run lvcreate -y "$LC" -V 128m -T hvg/pool -n thin
	udevadm settle
	run mkswap /dev/hvg/swap
	run mkswap /dev/hvg/hib
	# What the kernel's hibernation leaves in the swap header.
	printf S1SUSPEND | dd of=/dev/hvg/hib bs=1 seek=4086 conv=notrunc status=none
	run dd if=/dev/vdd of=/dev/hvg/root bs=4M conv=fsync status=none
	run mkfs.ext4 -q /dev/hvg/thin
	dmsetup table | sed 's/^/table /'
	sync
	run vgchange -an "$LC" hvg
	;;
lvmbuild)
	echo "root-source=$(findmnt -rn -o SOURCE /)"
	dpkg -i /root/lvm/*.deb >/tmp/dpkg.log 2>&1
	echo "dpkg-lvm=$?"
	dpkg -i /root/hardinit.deb
	echo "install-exit=$?"
	img=/boot/hardinit.img-$KVER
	echo "image-size=$(stat -c %s "$img")"
	dd if="$img" of=/dev/vdc bs=64k conv=fsync status=none
	# A thin root: the kernel hook run in a chroot whose / is the thin
	# LV (/proc/self/mountinfo there shows it at /), holding a copy of
	# this /boot; the rest of the system bound in.
	run lvchange -ay "$LC" hvg/thin
	udevadm settle
	mount /dev/hvg/thin /mnt || echo "step-failed: mount thin"
	mkdir -p /mnt/usr /mnt/etc /mnt/var /mnt/boot /mnt/proc /mnt/sys /mnt/dev /mnt/run /mnt/root
	mkdir -p -m 1777 /mnt/tmp
	for l in bin sbin lib lib64; do ln -s "usr/$l" "/mnt/$l"; done
	for d in usr etc var proc sys dev run; do mount --bind "/$d" "/mnt/$d"; done
	cp -a /boot/. /mnt/boot/
	before=$(sha256sum <"/mnt$img")
	echo "thin-root=$(chroot /mnt findmnt -rn -o SOURCE /)"
	chroot /mnt /etc/kernel/postinst.d/hardinit "$KVER" "/boot/vmlinuz-$KVER"
	echo "thin-hook-exit=$?"
	after=$(sha256sum <"/mnt$img")
	[ "$before" = "$after" ] && echo "thin-image-kept=yes" || echo "thin-image-kept=no"
	for d in run dev sys proc var etc usr; do umount "/mnt/$d"; done
	umount /mnt
	;;
lvmrun)
	# What the real root's udev and systemd made of hardinit's LVs.
	echo "root-unit=$(systemctl is-active 'dev-mapper-hvg\x2droot.device')"
	echo "swap-unit=$(systemctl is-active 'dev-mapper-hvg\x2dswap.device')"
	echo "by-id=$(readlink -f /dev/disk/by-id/dm-name-hvg-root)"
	echo "fsck-root=$(systemctl show -p Result --value systemd-fsck-root.service)"
	;;
esac
STEP
}

# Once per file (each test is its own process: a file marks it done).
_ho_lvm_setup() {
	local base debs blocks bsize mb
	LROOT=$BATS_FILE_TMPDIR/lroot.img
	PV1=$BATS_FILE_TMPDIR/pv1.img PV2=$BATS_FILE_TMPDIR/pv2.img EXPORT=$BATS_FILE_TMPDIR/export.img
	[[ ! -f $BATS_FILE_TMPDIR/lvm.ready ]] || return 0
	base=$(_ho_base_image) || return 1
	debs=$(_ho_debs lvm2 lvm2 dmeventd libdevmapper-event1.02.1 liblvm2cmd2.03 libaio1 libedit2 libbsd0) || return 1
	cp --sparse=always "$base" "$LROOT"
	# As small as it gets, plus room for the packages and the image.
	e2fsck -fy "$LROOT" >/dev/null 2>&1
	resize2fs -M "$LROOT" >/dev/null 2>&1 || { echo "resize2fs -M $LROOT failed" >&2; return 1; }
	blocks=$(dumpe2fs -h "$LROOT" 2>/dev/null | sed -n 's/^Block count: *//p')
	bsize=$(dumpe2fs -h "$LROOT" 2>/dev/null | sed -n 's/^Block size: *//p')
	mb=$(((blocks * bsize >> 20) + 256))
	mb=$(((mb + 7) / 8 * 8))   # two stripes of 4 MiB extents
	truncate -s "${mb}M" "$LROOT"
	resize2fs "$LROOT" >/dev/null 2>&1 || { echo "resize2fs $LROOT failed" >&2; return 1; }
	{
		echo "mkdir /root/lvm"
		for f in "$debs"/*.deb; do echo "write $f /root/lvm/${f##*/}"; done
		echo "write $DEB /root/hardinit.deb"
		echo "rm /etc/fstab"
	} | debugfs -w -f - "$LROOT" >/dev/null 2>&1
	printf '/dev/mapper/hvg-root\t/\text4\tdefaults\t0\t1\n' >"$BATS_FILE_TMPDIR/fstab"
	_ho_lvm_steps "$mb" >"$BATS_FILE_TMPDIR/steps"
	debugfs -w -R "write $BATS_FILE_TMPDIR/fstab /etc/fstab" "$LROOT" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$LROOT" >/dev/null 2>&1
	debugfs -w -R "rm /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -R "cat /root/hostonly-steps" "$LROOT" 2>/dev/null | grep -qx "LMB=$mb" ||
		{ echo "debugfs could not write the steps into $LROOT" >&2; return 1; }
	rm -f "$PV1" "$PV2" "$EXPORT"
	truncate -s "$((mb / 2 + 80))M" "$PV1" "$PV2"
	truncate -s 64M "$EXPORT"
	touch "$BATS_FILE_TMPDIR/lvm.ready"
}

_ho_pvs() { echo -drive "file=$PV1,if=virtio,format=raw" -drive "file=$PV2,if=virtio,format=raw"; }

@test "hostonly: Debian's lvm2 in the guest makes a VG over two disks with a striped root LV, a swap LV and a thin LV" {
	_ho_lvm_setup
	log=$BATS_FILE_TMPDIR/lvm-make.log
	# $DISK unchanged (snapshot=on); the PVs written; LROOT read.
	# shellcheck disable=SC2046 # the drive options are words on purpose
	_ho_boot "$log" "$BOOTSTRAP" /dev/vda none lvmmake persist \
		-drive "file=$DISK,if=virtio,format=raw,snapshot=on" $(_ho_pvs) \
		-drive "file=$LROOT,if=virtio,format=raw,readonly=on"
	vm_assert_section_line "$log" lvmmake "dpkg-lvm=0"
	vm_assert_section_line "$log" lvmmake "step-exit=0"
	if vm_section "$log" lvmmake | grep 'step-failed'; then return 1; fi
	vm_assert_section_contains "$log" lvmmake "table hvg-root: 0 "
	vm_section "$log" lvmmake | grep -q '^table hvg-root: 0 [0-9]* striped 2 128 '
	vm_assert_section_contains "$log" lvmmake "table hvg-thin: 0 262144 thin "
}

@test "hostonly: root on the striped LV, installing the .deb builds a host-only image with dm-mod there" {
	_ho_lvm_setup
	log=$BATS_FILE_TMPDIR/lvm-build.log
	# shellcheck disable=SC2046
	_ho_boot "$log" "$BOOTSTRAP" /dev/mapper/hvg-root none lvmbuild persist \
		$(_ho_pvs) -drive "file=$EXPORT,if=virtio,format=raw"
	# hardinit mounts the dm device by its kernel name; both name hvg-root.
	vm_section "$log" STATE | grep -qxE 'root=(/dev/mapper/hvg-root|/dev/dm-[0-9]+) ext4'
	vm_assert_section_line "$log" lvmbuild "dpkg-lvm=0"
	_ho_exported_image "$log" lvmbuild "$BATS_FILE_TMPDIR/hostonly-lvm.img" dm_mod virtio_blk ext4
}

@test "hostonly: a thin LV as root is refused by the kernel hook with one line, and the last good image is kept" {
	log=$BATS_FILE_TMPDIR/lvm-build.log
	[[ -f $log ]] || { echo "the LV build test runs first (file order)" >&2; false; }
	vm_assert_section_line "$log" lvmbuild "thin-root=/dev/mapper/hvg-thin"
	vm_assert_section_contains "$log" lvmbuild "host-only: the root's device-mapper device hvg-thin"
	vm_assert_section_contains "$log" lvmbuild "has a 'thin' target, which hardinit cannot activate"
	vm_assert_section_contains "$log" lvmbuild "not changed, the previous image is kept"
	vm_assert_section_line "$log" lvmbuild "thin-image-kept=yes"
	if vm_section "$log" lvmbuild | grep 'step-failed'; then return 1; fi
}

@test "hostonly: the image the LV guest built boots it from the striped LV to multi-user.target; resume= on a swap LV checked" {
	_ho_lvm_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-lvm.img ]]
	log=$BATS_FILE_TMPDIR/boot-lvm.log
	# shellcheck disable=SC2046
	HO_EXTRA="resume=/dev/hvg/swap" _ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-lvm.img" \
		/dev/mapper/hvg-root none lvmrun snapshot $(_ho_pvs)
	vm_assert_log_contains "$log" "lvm: activated hvg/root as /dev/mapper/hvg-root (1 target over 2 PVs"
	vm_assert_log_contains "$log" "lvm: activated hvg/swap as /dev/mapper/hvg-swap"
	# hardinit mounts the dm device by its kernel name; both name hvg-root.
	vm_section "$log" STATE | grep -qxE 'root=(/dev/mapper/hvg-root|/dev/dm-[0-9]+) ext4'
	vm_assert_section_line "$log" MODULES dm_mod
	vm_section "$log" REPORT | grep -q '^resume hibernation ok /dev/hvg/swap (/dev/dm-[0-9]*): swap, no hibernated system$' ||
		{ vm_section "$log" REPORT; false; }
	vm_assert_section_line "$log" REPORT "lvm resume_lv ok hvg/swap as hvg-swap"
	# udev took hardinit's dm devices as lvm2's (the database entry
	# hardinit leaves): systemd's device units are active, the links made.
	vm_assert_section_line "$log" lvmrun "root-unit=active"
	vm_assert_section_line "$log" lvmrun "swap-unit=active"
	vm_section "$log" lvmrun | grep -qx 'by-id=/dev/dm-[0-9]*'
	vm_assert_section_line "$log" lvmrun "fsck-root=success"
	echo "# host-only LVM image $(stat -c %s "$BATS_FILE_TMPDIR/hostonly-lvm.img") bytes" >&3
}

@test "hostonly: resume= on a swap LV holding a hibernated system stops the boot with the way out" {
	_ho_lvm_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-lvm.img ]]
	log=$BATS_FILE_TMPDIR/boot-hib.log
	# shellcheck disable=SC2046
	HO_EXTRA="resume=/dev/mapper/hvg-hib" _ho_start "$log" "$BATS_FILE_TMPDIR/hostonly-lvm.img" \
		/dev/mapper/hvg-root none "" snapshot $(_ho_pvs) || true
	vm_assert_log_contains "$log" "lvm: activated hvg/hib as /dev/mapper/hvg-hib"
	vm_assert_log_contains "$log" "resume=/dev/mapper/hvg-hib (/dev/dm-"
	vm_assert_log_contains "$log" "holds a hibernated system: hardinit does not resume hibernation"
	vm_assert_log_lacks "$log" "hardinit: handing off"
	[[ $(vm_exit_reason "$log") == poweroff ]]
}
