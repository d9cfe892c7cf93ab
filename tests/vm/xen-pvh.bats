#!/usr/bin/env bats
# The PVH entry point without Xen: QEMU loads the uncompressed
# vmlinux of Debian's cloud kernel by its PVH ELF note
# (XEN_ELFNOTE_PHYS32_ENTRY; tests/vm/xen.bash cuts it out of the vmlinuz)
# and hardinit's xen-profile image boots it to the real init on a virtio
# disk. The kernel's boot_params show the entry: a PVH start builds them
# itself with boot protocol version 2.12, where a bzImage loaded by QEMU
# keeps the kernel's own header (2.15 for 6.12).

# budget: 15 s

load lib
load xen

setup_file() {
	local dir
	dir=$(vm_cache_dir)/xen-pvh
	mkdir -p "$dir"
	export PDIR=$dir
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	vm_probe_script "$dir/root" <<-'EOF2'
		#!/bin/busybox sh
		echo "=== BEGIN PVH ==="
		# boot_params.hdr.version is at offset 0x206 (518), little-endian.
		echo "boot_protocol=$(od -An -tx2 -j518 -N2 /sys/kernel/boot_params/data | tr -d ' ')"
		awk '$5 == "/" { print "root.mount=" $(NF-1) " " $(NF-2) " " $6 }' /proc/self/mountinfo
		echo "sysrq=$(cat /proc/sys/kernel/sysrq)"
		echo "=== END PVH ==="
	EOF2
	vm_rootfs "$dir/root.img" "$dir/root"
	vm_initramfs "$dir/initrd.img" --profile xen
	local vmlinux
	vmlinux=$(xen_pvh_vmlinux 6.12)
	# no_timer_check: the PVH start skips the firmware, and under TCG on a
	# busy host the kernel's IO-APIC timer probe can miss its window and
	# panic (as for microvm in debian.bats).
	vm_boot "$dir/boot.log" --kernel "$vmlinux" --initrd "$dir/initrd.img" \
		--disk "$dir/root.img" --append "root=/dev/vda no_timer_check" || true
}

@test "xen-pvh: the cached vmlinux carries the PVH entry note" {
	run xen_pvh_vmlinux 6.12
	[ "$status" -eq 0 ]
	_xen_has_pvh_note "$output"
}

@test "xen-pvh: QEMU's PVH entry boots hardinit's xen image to the real init" {
	vm_assert_log_contains "$PDIR/boot.log" "hardinit: handing off to /sbin/init"
	# 2.12: the version the kernel's PVH start writes (arch/x86/platform/pvh)
	vm_assert_section_line "$PDIR/boot.log" PVH "boot_protocol=020c"
	vm_assert_section_line "$PDIR/boot.log" PVH "sysrq=176"
	run vm_section "$PDIR/boot.log" PVH
	grep -q '^root.mount=/dev/vda ext4 ro,' <<<"$output"
}
