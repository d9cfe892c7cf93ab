#!/usr/bin/env bats
# Host-only images as a Debian user gets them: a Debian 12 guest
# on Debian's generic 6.1 kernel (linux-image-amd64: virtio_blk, nvme and
# ext4 are modules) installs hardinit's .deb with the package's own
# default config (this file never sets TARGET); the postinst's
# update-hardinit detects the guest's root and writes
# /boot/hardinit.img-KVER there; then the guest boots that image to
# multi-user.target. The same disk is then moved to an NVMe controller,
# update-hardinit rebuilds there, and that image boots from NVMe; then the
# same on a virtio-scsi disk (/dev/sda). The LVM root is tests/vm/hostonly_lvm.bats.
#
# Runs in file order on one disk file. The builds run in a guest booted
# with a hardinit image made for the test on the host (virtio_blk, nvme,
# ext4), so the detection reads a real kernel's /sys and /proc. The image
# the guest wrote is read from the disk with debugfs and unpacked on the
# host; the boots are checked by the guest's own reads of /proc.

# budget: 415 s

bats_require_minimum_version 1.5.0

load lib
load images
load hostonly

setup_file() {
	_ho_setup
}

@test "hostonly: installing the .deb on a Debian 12 guest (generic kernel, virtio disk) builds a host-only image there" {
	_ho_boot "$BATS_FILE_TMPDIR/install.log" "$BOOTSTRAP" /dev/vda virtio build persist
	vm_assert_section_line "$BATS_FILE_TMPDIR/install.log" BUILD "install-exit=0"
	vm_assert_section_contains "$BATS_FILE_TMPDIR/install.log" BUILD "update-hardinit: kernel $GKVER: built /boot/hardinit.img-$GKVER"
	# The package's own conffile, as shipped.
	debugfs -R "cat /etc/hardinit/mkinitramfs.conf" "$DISK" 2>/dev/null | grep -qx 'TARGET=auto'
	list=$(_ho_image_modules)
	echo "$list"
	for m in virtio_blk virtio_pci ext4 jbd2 crc32c_generic; do
		grep -qx "$m" <<<"$list" || { echo "not in the guest's image: $m" >&2; return 1; }
	done
	# Host-only: nothing for disks this guest does not have.
	for m in nvme ahci sd_mod virtio_scsi; do
		! grep -qx "$m" <<<"$list" || { echo "in the guest's image: $m" >&2; return 1; }
	done
}

@test "hostonly: the image the guest built boots it from virtio-blk to multi-user.target" {
	log=$BATS_FILE_TMPDIR/boot-virtio.log
	debugfs -R "dump /boot/hardinit.img-$GKVER $BATS_FILE_TMPDIR/hostonly-virtio.img" "$DISK" >/dev/null 2>&1
	[[ -s $BATS_FILE_TMPDIR/hostonly-virtio.img ]]
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-virtio.img" /dev/vda virtio "" snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$log" STATE "root=/dev/vda ext4"
	# The drivers came from the image (none are built into this kernel).
	vm_assert_section_line "$log" MODULES virtio_blk
	vm_assert_section_line "$log" MODULES ext4
	echo "# host-only image $(stat -c %s "$BATS_FILE_TMPDIR/hostonly-virtio.img") bytes" >&3
}

@test "hostonly: moved to NVMe, update-hardinit rebuilds for nvme and that image boots from NVMe to multi-user.target" {
	_ho_boot "$BATS_FILE_TMPDIR/rebuild.log" "$BOOTSTRAP" /dev/nvme0n1 nvme build persist
	vm_assert_section_line "$BATS_FILE_TMPDIR/rebuild.log" BUILD "update-exit=0"
	list=$(_ho_image_modules)
	echo "$list"
	grep -qx nvme <<<"$list"
	grep -qx nvme_core <<<"$list"
	grep -qx ext4 <<<"$list"
	if grep -qx virtio_blk <<<"$list"; then echo "virtio_blk in the NVMe guest's image" >&2; return 1; fi
	log=$BATS_FILE_TMPDIR/boot-nvme.log
	debugfs -R "dump /boot/hardinit.img-$GKVER $BATS_FILE_TMPDIR/hostonly-nvme.img" "$DISK" >/dev/null 2>&1
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-nvme.img" /dev/nvme0n1 nvme "" snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$log" STATE "root=/dev/nvme0n1 ext4"
	vm_assert_section_line "$log" MODULES nvme
}

@test "hostonly: moved to virtio-scsi, update-hardinit rebuilds for it and that image boots from /dev/sda to multi-user.target" {
	_ho_boot "$BATS_FILE_TMPDIR/rebuild-scsi.log" "$BOOTSTRAP" /dev/sda scsi build persist
	vm_assert_section_line "$BATS_FILE_TMPDIR/rebuild-scsi.log" BUILD "update-exit=0"
	list=$(_ho_image_modules)
	echo "$list"
	for m in virtio_scsi sd_mod virtio_pci ext4; do
		grep -qx "$m" <<<"$list" || { echo "not in the guest's image: $m" >&2; return 1; }
	done
	for m in virtio_blk nvme; do
		! grep -qx "$m" <<<"$list" || { echo "in the virtio-scsi guest's image: $m" >&2; return 1; }
	done
	log=$BATS_FILE_TMPDIR/boot-scsi.log
	debugfs -R "dump /boot/hardinit.img-$GKVER $BATS_FILE_TMPDIR/hostonly-scsi.img" "$DISK" >/dev/null 2>&1
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-scsi.img" /dev/sda scsi "" snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$log" STATE "root=/dev/sda ext4"
	vm_assert_section_line "$log" MODULES virtio_scsi
	vm_assert_section_line "$log" MODULES sd_mod
}
