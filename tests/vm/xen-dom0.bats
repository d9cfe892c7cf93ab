#!/usr/bin/env bats
# hardinit in a Xen dom0 (issue 27): a Xen host boots Debian's generic 6.1
# kernel as dom0 with hardinit's xen-profile image as its initramfs, built
# for that kernel with the modules its disk and root need (--target virtio
# --modules ext4: the generic kernel has both as modules), and hardinit
# hands over to the real init on the ext4 root. The emulated CPU is an
# Intel one, so dom0's meltdown line is the PV one ("Unknown (XEN PV
# detected, hypervisor mitigation required)") that hardinit.conf(5) quotes
# and the report must give the status hypervisor. One boot, no domU.

load lib
load xen

setup_file() {
	local dir
	dir=$(vm_cache_dir)/xen-dom0
	mkdir -p "$dir"
	export DDIR=$dir
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/root/sbin/hardinit"
	# xenfs for /proc/xen, where a dom0 finds control_d.
	_xen_dom0_modules "$dir/root"
	vm_probe_script "$dir/root" <<-'EOF2'
		#!/bin/busybox sh
		echo "=== BEGIN DOM0 ==="
		echo "hypervisor.type=$(cat /sys/hypervisor/type 2>&1)"
		echo "hypervisor.guest_type=$(cat /sys/hypervisor/guest_type 2>&1)"
		modprobe xenfs 2>&1 && mount -t xenfs xenfs /proc/xen 2>&1
		echo "xen.capabilities=$(cat /proc/xen/capabilities 2>&1)"
		echo "meltdown=$(cat /sys/devices/system/cpu/vulnerabilities/meltdown)"
		awk '$5 == "/" { print "root.mount=" $(NF-1) " " $(NF-2) " " $6 }' /proc/self/mountinfo
		sed -n 's/^/report: /p' /run/hardinit/report.txt
		/sbin/hardinit audit 2>&1 | sed -n 's/^note/audit: note/p'
		echo "=== END DOM0 ==="
	EOF2
	vm_rootfs "$dir/root.img" "$dir/root"
	vm_initramfs "$dir/dom0.img" --kernel "$XEN_DOM0_KERNEL" --profile xen --modules ext4
	xen_boot "$dir/xen.log" "$dir/dom0.img" --disk "$dir/root.img" --timeout 300 \
		--cpu "qemu64,vendor=GenuineIntel" --dom0-append "root=/dev/vda" || true
}

@test "xen-dom0: hardinit as dom0's initramfs reaches the real init on its ext4 root" {
	vm_assert_log_contains "$DDIR/xen.log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$DDIR/xen.log" DOM0 "hypervisor.type=xen"
	vm_assert_section_line "$DDIR/xen.log" DOM0 "hypervisor.guest_type=PV"
	# control_d: this kernel is Xen's control domain, dom0
	vm_assert_section_line "$DDIR/xen.log" DOM0 "xen.capabilities=control_d"
	run vm_section "$DDIR/xen.log" DOM0
	grep -q '^root.mount=/dev/vda ext4 ro,' <<<"$output"
	# the generic kernel's disk driver and root file system, loaded by hardinit
	grep -qx 'report: modules virtio_blk.ko ok loaded' <<<"$output"
	grep -qx 'report: modules ext4.ko ok loaded' <<<"$output"
}

@test "xen-dom0: the PV meltdown line is the hypervisor's in the report and the audit, as the man page says" {
	local want
	want=$(xen_man_notes | awk -F'\t' '$1 ~ /vulnerabilities\/meltdown$/ { print $2 }')
	[[ -n $want ]]
	vm_assert_section_line "$DDIR/xen.log" DOM0 "meltdown=$want"
	vm_assert_section_line "$DDIR/xen.log" DOM0 "report: kernel meltdown hypervisor $want"
	run vm_section "$DDIR/xen.log" DOM0
	grep -qF "audit: note  cpu vulnerabilities" <<<"$output"
	grep -qF "(meltdown: $want)" <<<"$output"
	[ "$(grep -c '^report: kernel [a-z_0-9]* hypervisor ' <<<"$output")" -ge 10 ]
	if grep -E '^report: kernel [a-z_0-9]+ (warn|info|ok) (Not affected|Mitigation|Vulnerable|Unknown)' <<<"$output"; then
		return 1
	fi
}
