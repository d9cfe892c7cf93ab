#!/usr/bin/env bats
# An image builder's chroot, as a user meets it: the .deb and Debian's
# generic kernel package (linux-image-amd64) installed with apt into a
# debootstrap chroot (tests/vm/deb-chroot.bash) with the shipped
# mkinitramfs.conf (TARGET=auto). No live root is seen there, so the
# kernel's postinst builds a generic image; that very file then boots the
# chroot's tree as a disk on three controllers, virtio-blk, NVMe and AHCI,
# one QEMU boot each of the same image and disk. Each boot is checked by
# testinit (tests/probe/testinit.c), put into the tree as the real init:
# the real root is mounted (mountinfo), it is this tree (a marker written
# into it), the real init ran and powered off, and the modules loaded are
# the controller's driver, not every driver the image carries.

# budget: 240 s

bats_require_minimum_version 1.5.0

load lib
load images
load deb-chroot

CH_TIMEOUT=${DEBIAN_TIMEOUT:-600}

setup_file() {
	DEB=$(vm_deb) || return 1
	ROOT=$BATS_FILE_TMPDIR/root
	export DEB ROOT
	debc_fresh "$ROOT"
	cp "$DEB" "$ROOT/tmp/"
}

teardown_file() {
	[[ -z ${ROOT:-} ]] || rm -rf "$ROOT"
}

in_root() {
	debc_run "$ROOT" "$@"
}

# One boot of the tree's disk with the postinst's image: BUS, root= device.
ch_boot() {
	local log=$1 bus=$2 dev=$3
	local -a q=()
	case $bus in
	virtio) q=(-drive "file=$DISK,if=virtio,format=raw") ;;
	nvme) q=(-drive "file=$DISK,if=none,id=d0,format=raw" -device "nvme,drive=d0,serial=hardinit0") ;;
	ahci) q=(-device "ahci,id=ahci0" -drive "file=$DISK,if=none,id=d0,format=raw" -device "ide-hd,drive=d0,bus=ahci0.0") ;;
	esac
	vm_boot "$log" --kernel "$KERNEL" --initrd "$IMAGE" --mem 1024 --timeout "$CH_TIMEOUT" \
		--append "root=$dev hardinit.boot.failure_action=poweroff" -- -snapshot "${q[@]}"
	echo "--- $bus boot: the report's modules lines" >&3
	vm_section "$log" REPORT | grep '^modules' >&3 || :
}

# The boot reached the real init on this tree's root, mounted from DEV,
# with the controller's driver DRIVER loaded and no driver of hardware
# the machine lacks.
ch_assert_booted() {
	local log=$1 dev=$2 driver=$3 m
	vm_assert_done "$log"
	# The real root: / is ext4 from DEV, and it is this tree.
	vm_section "$log" MOUNTINFO | awk -v dev="$dev" '$5 == "/" && $0 ~ (" - ext4 " dev " ") { f = 1 } END { exit !f }' ||
		{ vm_section "$log" MOUNTINFO >&2; echo "/ is not ext4 from $dev" >&2; return 1; }
	vm_assert_section_line "$log" CHROOT "marker=$MARKER"
	vm_assert_section_line "$log" CHROOT "kernel=$KVER"
	vm_assert_section_line "$log" CHROOT "module $driver"
	# A generic image carries hundreds of drivers; only the machine's load.
	for m in megaraid_sas mpt3sas qla2xxx lpfc aacraid hpsa; do
		vm_assert_section_lacks "$log" CHROOT "module $m"
	done
	vm_assert_section_contains "$log" REPORT "modules devices info"
}

@test "chroot: apt-get install of the .deb and linux-image-amd64 in a debootstrap chroot builds a generic image in the kernel's postinst" {
	run in_root sh -c 'cd /tmp && apt-get install -y -q ./hardinit_*.deb'
	echo "$output"
	[ "$status" -eq 0 ]
	# The shipped config: TARGET=auto.
	grep -qx 'TARGET=auto' "$ROOT/etc/hardinit/mkinitramfs.conf"
	run in_root apt-get install -y -q --no-install-recommends linux-image-amd64
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"/etc/kernel/postinst.d/hardinit"* ]]
	[[ $output == *"generic image: no live root seen"* ]]
	KVER=$(cd "$ROOT/lib/modules" && ls)
	[[ $KVER == *-amd64 && $KVER != *cloud* ]]
	[[ -s $ROOT/boot/hardinit.img-$KVER ]]
	# A sane size for every storage driver of the generic kernel.
	size=$(stat -c %s "$ROOT/boot/hardinit.img-$KVER")
	echo "image: $size bytes" >&3
	((size < 24 * 1024 * 1024))
	# The disk the boots below use: the tree with testinit as its init
	# and a marker, as an image builder would write it out.
	MARKER=$(cat /proc/sys/kernel/random/uuid)
	echo "$MARKER" >"$ROOT/etc/hardinit-chroot-marker"
	install -m 0755 "$_VM_BUILD/probe/testinit" "$ROOT/sbin/init"
	# testinit runs the probe script with busybox's sh.
	install -m 0755 "$(_vm_host_busybox)" "$ROOT/bin/busybox"
	vm_probe_script "$ROOT" <<-'EOF'
		#!/bin/sh
		echo "=== BEGIN CHROOT ==="
		echo "marker=$(cat /etc/hardinit-chroot-marker)"
		echo "kernel=$(uname -r)"
		while read -r m _; do echo "module $m"; done </proc/modules
		echo "=== END CHROOT ==="
	EOF
	cp "$ROOT/boot/hardinit.img-$KVER" "$BATS_FILE_TMPDIR/image"
	cp "$ROOT/boot/vmlinuz-$KVER" "$BATS_FILE_TMPDIR/vmlinuz"
	echo "$KVER" >"$BATS_FILE_TMPDIR/kver"
	echo "$MARKER" >"$BATS_FILE_TMPDIR/marker"
	vm_rootfs "$BATS_FILE_TMPDIR/disk.img" "$ROOT"
}

ch_setup() {
	DISK=$BATS_FILE_TMPDIR/disk.img
	IMAGE=$BATS_FILE_TMPDIR/image
	KERNEL=$BATS_FILE_TMPDIR/vmlinuz
	[[ -s $DISK && -s $IMAGE ]] || skip "the chroot's image was not built (the test above failed)"
	KVER=$(cat "$BATS_FILE_TMPDIR/kver")
	MARKER=$(cat "$BATS_FILE_TMPDIR/marker")
}

@test "chroot: the postinst's generic image boots that root on virtio-blk" {
	ch_setup
	ch_boot "$BATS_TEST_TMPDIR/log" virtio /dev/vda
	ch_assert_booted "$BATS_TEST_TMPDIR/log" /dev/vda virtio_blk
	vm_assert_section_lacks "$BATS_TEST_TMPDIR/log" CHROOT "module nvme"
}

@test "chroot: the same image and disk boot on NVMe" {
	ch_setup
	ch_boot "$BATS_TEST_TMPDIR/log" nvme /dev/nvme0n1
	ch_assert_booted "$BATS_TEST_TMPDIR/log" /dev/nvme0n1 nvme
	vm_assert_section_lacks "$BATS_TEST_TMPDIR/log" CHROOT "module virtio_blk"
}

@test "chroot: the same image and disk boot on AHCI" {
	ch_setup
	ch_boot "$BATS_TEST_TMPDIR/log" ahci /dev/sda
	ch_assert_booted "$BATS_TEST_TMPDIR/log" /dev/sda ahci
	vm_assert_section_lacks "$BATS_TEST_TMPDIR/log" CHROOT "module nvme"
}
