#!/usr/bin/env bats
# Xen for real (issue 27): Debian's Xen 4.17 under QEMU, a PV dom0 on
# Debian's generic 6.1 kernel with the toolstack (tests/vm/xen.bash), and
# in it `xl create` of a PV domU as a user writes it: Debian's cloud kernel
# (XEN_PV, HVC_XEN built in, xen-blkfront a module), hardinit's image built
# with --target xen --profile xen as its ramdisk, and a disk handed over as
# phy: (QEMU's disk is dom0's /dev/vda, the domU's /dev/xvda; dom0's
# hotplug script for it is tests/vm/xen-block-phy). One Xen boot
# serves every assertion: the domU's probe prints its live state on hvc0,
# which xenconsoled keeps; then dom0 asks it to shut down with `xl shutdown`.

load lib
load xen

setup_file() {
	local dir
	dir=$(vm_cache_dir)/xen
	mkdir -p "$dir"
	export XDIR=$dir

	# The domU's root: the test root, whose /probe/run prints the live
	# state and then waits for the toolstack's shutdown request.
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	awk -F' *= *' '/^\[/ { s = $0; next } s == "[sysctl]" && /^[a-z]/ && $1 != "persist" { print $1 }' \
		"$HARDINIT_SRC/config/xen.conf" >"$dir/root/probe/sysctls"
	vm_probe_script "$dir/root" <<-'EOF'
		#!/bin/busybox sh
		echo "=== BEGIN XENGUEST ==="
		echo "hypervisor.type=$(cat /sys/hypervisor/type 2>&1)"
		echo "hypervisor.guest_type=$(cat /sys/hypervisor/guest_type 2>&1)"
		echo "console=$(cat /sys/class/tty/console/active 2>&1)"
		awk '$5 == "/" { print "root.mount=" $(NF-1) " " $(NF-2) " " $6 }' /proc/self/mountinfo
		echo "root.dev=$(stat -c '%t:%T' /dev/xvda 2>&1) root.st_dev=$(stat -c '%d' / 2>&1)"
		while read -r key; do
			f=/proc/sys/$(echo "$key" | tr . /)
			[ -e "$f" ] && echo "sysctl.$key=$(tr -s '\t ' '  ' <"$f")" || echo "sysctl.$key=<absent>"
		done </probe/sysctls
		echo "capbnd.pid1=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/1/status)"
		echo "umh.bset=$(tr -s '\t' ' ' </proc/sys/kernel/usermodehelper/bset)"
		/probe/tiocsti --uid 1001 2>&1 | sed 's/^/tiocsti: /'
		echo "=== END XENGUEST ==="
		echo "=== DOMU WAITING ==="
		# The toolstack's shutdown request runs /sbin/poweroff as a kernel
		# usermode helper; testinit would power off after its own bound.
		sleep 100
	EOF
	# The kernel's orderly_poweroff() runs /sbin/poweroff as a usermode
	# helper, with the usermodehelper sets hardinit left: it must still
	# be able to power the guest off.
	rm -f "$dir/root/sbin/poweroff"
	# A helper has no stdout: it says so in the kernel log.
	printf '#!/bin/busybox sh\necho "POWEROFF HELPER RAN uid=$(id -u)" >/dev/kmsg\nexec /bin/busybox poweroff -f\n' \
		>"$dir/root/sbin/poweroff"
	chmod 0755 "$dir/root/sbin/poweroff"
	vm_rootfs "$dir/root.img" "$dir/root"

	vm_initramfs "$dir/domu.img" --profile xen --target xen
	cat >"$dir/hardened.cfg" <<-'EOF'
		name = "hardened"
		type = "pv"
		kernel = "/domu/vmlinuz"
		ramdisk = "/domu/initrd.img"
		extra = "console=hvc0 root=/dev/xvda"
		memory = 256
		vcpus = 1
		disk = [ "vdev=xvda, access=rw, backendtype=phy, script=/etc/xen/scripts/block-phy, target=/dev/vda" ]
		on_poweroff = "destroy"
		on_reboot = "destroy"
		on_crash = "destroy"
	EOF
	cat >"$dir/scenario" <<-'EOF'
		echo "=== BEGIN XL-CREATE ==="
		xl create /domu/hardened.cfg 2>&1; rc=$?; echo "xl.create.rc=$rc"
		xl list 2>&1
		[ "$rc" -eq 0 ] || sed 's/^/hotplug.log: /' /var/log/xen/xen-hotplug.log 2>&1
		echo "=== END XL-CREATE ==="
		if [ "$rc" -eq 0 ] && wait_for_text /var/log/xen/console/guest-hardened.log "=== DOMU WAITING ===" 240; then
			echo "=== BEGIN XL-SHUTDOWN ==="
			timeout 120 xl shutdown -w hardened 2>&1; echo "xl.shutdown.rc=$?"
			domu_wait_gone hardened 10 && echo "domu.gone=yes" || echo "domu.gone=no"
			echo "=== END XL-SHUTDOWN ==="
		else
			echo "xen scenario: the domU never reached its probe's end"
			xl destroy hardened 2>&1
		fi
		domu_console hardened
	EOF
	local kdir
	kdir=$(vm_kernel_dir 6.12)
	xen_dom0_initrd "$dir/dom0.img" "$dir/scenario" \
		"$kdir/boot/vmlinuz-$(cat "$kdir/kver")=/domu/vmlinuz" \
		"$dir/domu.img=/domu/initrd.img" "$dir/hardened.cfg=/domu/hardened.cfg"
	xen_boot "$dir/xen.log" "$dir/dom0.img" --disk "$dir/root.img" || true
}

# The domU's own console, as xenconsoled logged it in dom0, kernel
# records included.
domu() {
	VM_SECTION_RAW=1 vm_section "$XDIR/xen.log" domu-console-hardened
}

@test "xen: dom0 runs the toolstack and xl create starts the hardened PV domU" {
	vm_assert_log_contains "$XDIR/xen.log" "=== XEN DOM0 READY ==="
	vm_assert_section_line "$XDIR/xen.log" XL-CREATE "xl.create.rc=0"
}

@test "xen: hardinit's lines and the real init's are on the domU's hvc0" {
	run domu
	[ "$status" -eq 0 ]
	[[ $output == *"hardinit"* ]]
	[[ $output == *"=== BEGIN XENGUEST ==="* ]]
}

@test "xen: the domU is a PV guest whose root is /dev/xvda, mounted read-only" {
	run domu
	[[ $output == *"hypervisor.type=xen"* ]]
	[[ $output == *"hypervisor.guest_type=PV"* ]]
	[[ $output == *"console=hvc0"* ]]
	grep -q '^root.mount=/dev/xvda ext4 ro,' <<<"$output"
}

@test "xen: xl shutdown ends the hardened guest through its poweroff helper" {
	vm_assert_section_line "$XDIR/xen.log" XL-SHUTDOWN "xl.shutdown.rc=0"
	vm_assert_section_line "$XDIR/xen.log" XL-SHUTDOWN "domu.gone=yes"
	run domu
	[[ $output == *"POWEROFF HELPER RAN uid=0"* ]]
}

@test "xen: every sysctl of the xen profile reads back in the domU" {
	run domu
	local key want n=0
	while IFS='=' read -r key want; do
		[[ $output == *"sysctl.$key=$want"* ]] || {
			echo "sysctl $key: want $want; the guest has: $(grep -a "sysctl.$key=" <<<"$output")" >&2
			return 1
		}
		n=$((n + 1))
	done < <(awk -F' *= *' '/^\[/ { s = $0; next }
		s == "[sysctl]" && /^[a-z]/ && $1 != "persist" { print $1 "=" $2 }' "$HARDINIT_SRC/config/xen.conf")
	[ "$n" -ge 30 ]
}

@test "xen: the bounding set lacks what the xen profile drops; TIOCSTI is refused to a user" {
	run domu
	local bnd
	bnd=$(sed -n 's/^capbnd.pid1=//p' <<<"$output" | tr -d '\r')
	[[ -n $bnd ]]
	# cap_perfmon 38, cap_bpf 39, cap_checkpoint_restore 40 (xen.conf)
	local c
	for c in 38 39 40; do
		(( (16#$bnd >> c & 1) == 0 )) || { echo "capability $c still in the bounding set $bnd" >&2; return 1; }
	done
	# cap_sys_boot (22) stays: the toolstack's shutdown needs it.
	(( (16#$bnd >> 22 & 1) == 1 ))
	grep -q '^tiocsti: tiocsti=EIO uid=1001' <<<"$output"
}
