#!/usr/bin/env bats
# Xen for real: Debian's Xen 4.17 under QEMU, a PV dom0 on
# Debian's generic 6.1 kernel with the toolstack (tests/vm/xen.bash), and
# in it `xl create` of a PV domU as a user writes it: Debian's cloud kernel
# (XEN_PV, HVC_XEN built in, xen-blkfront a module), hardinit's image built
# with --target xen --profile xen as its ramdisk, and a disk handed over as
# phy: (QEMU's second disk is dom0's /dev/vdb, the domU's /dev/xvda; dom0's
# hotplug script for it is tests/vm/xen-block-phy). One Xen boot
# serves every assertion. dom0 itself boots through hardinit: the xen
# profile's image, built for the generic kernel with the modules its disk
# and root need (--target virtio --modules ext4: the generic kernel has both
# as modules), hands over to dom0's real init on the ext4 root (QEMU's first
# disk, /dev/vda; the seed's "Xen host with only SSH" case), which prints
# what hardinit left and then starts the toolstack (tests/vm/xen-dom0-init).
# The emulated CPU is QEMU's qemu64 (AuthenticAMD) with SVM and NPT (Xen's
# HAP) for the PVH guest. The PV domU is shown GenuineIntel (xl's cpuid=,
# leaf 0), so its kernel sets the Meltdown bug (AMD is exempt) and its
# meltdown line is the PV one ("Unknown (XEN PV detected, hypervisor
# mitigation required)") that hardinit.conf(5) quotes and the report must
# give the status hypervisor. The whole machine cannot say GenuineIntel:
# then the PVH guest triple-faults in its first instructions under Xen's
# SVM (ecx=0x1a0 in Xen's dump: the kernel's verify_cpu reads Intel's
# MISC_ENABLE MSR only on GenuineIntel), and as CentaurHauls it dies
# before its console says anything. The domU's probe prints
# its live state on hvc0, which xenconsoled keeps; then dom0 sends it
# `xl sysrq` s (allowed by the profile's kernel.sysrq) and t (refused), `xl
# reboot` (it comes back through hardinit to its real init) and `xl
# shutdown`; then the same guest is started as PVH and shut down.

# budget: 120 s

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
	# The paths hardinit.conf(5)'s XEN GUESTS notes make claims about.
	xen_man_notes | cut -f1 >"$dir/root/probe/notes"
	vm_probe_script "$dir/root" <<-'EOF'
		#!/bin/busybox sh
		echo "=== BEGIN XENGUEST ==="
		echo "hypervisor.type=$(cat /sys/hypervisor/type 2>&1)"
		echo "hypervisor.guest_type=$(cat /sys/hypervisor/guest_type 2>&1)"
		echo "console=$(cat /sys/class/tty/console/active 2>&1)"
		awk '$5 == "/" { print "root.mount=" $(NF-1) " " $(NF-2) " " $6 }' /proc/self/mountinfo
		if [ "$(cat /sys/hypervisor/guest_type)" = PVH ]; then
			# HVM paging under TCG is slow: the PVH guest shows its boot only.
			echo "=== END XENGUEST ==="
			echo "=== DOMU WAITING ==="
			exec sleep 100
		fi
		echo "root.dev=$(stat -c '%t:%T' /dev/xvda 2>&1) root.st_dev=$(stat -c '%d' / 2>&1)"
		while read -r key; do
			f=/proc/sys/$(echo "$key" | tr . /)
			[ -e "$f" ] && echo "sysctl.$key=$(tr -s '\t ' '  ' <"$f")" || echo "sysctl.$key=<absent>"
		done </probe/sysctls
		while read -r f; do echo "note:$f=$(cat "$f" 2>&1)"; done </probe/notes
		echo "boot_id=$(cat /proc/sys/kernel/random/boot_id)"
		for f in /sys/devices/system/cpu/vulnerabilities/*; do
			echo "vuln.${f##*/}=$(cat "$f")"
		done
		echo "scrub_pages=$(cat /sys/devices/system/xen_memory/xen_memory0/scrub_pages 2>&1)"
		echo "cmdline=$(cat /proc/cmdline)"
		sed -n 's/^/report: /p' /run/hardinit/report.txt
		/sbin/hardinit audit 2>&1 | sed 's/^/audit: /'
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
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/root/sbin/hardinit"
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
		cpuid = [ "0x0:ebx=01110101011011100110010101000111,ecx=01101100011001010111010001101110,edx=01001001011001010110111001101001" ]
		disk = [ "vdev=xvda, access=rw, backendtype=phy, script=/etc/xen/scripts/block-phy, target=/dev/vdb" ]
		on_poweroff = "destroy"
		on_reboot = "restart"
		on_crash = "destroy"
	EOF
	# The same guest as PVH: no PV MMU, the kernel's PVH entry point.
	sed -e 's/^name = .*/name = "pvh"/' -e 's/^type = .*/type = "pvh"/' \
		-e 's/^on_reboot = .*/on_reboot = "destroy"/' -e '/^cpuid = /d' "$dir/hardened.cfg" >"$dir/pvh.cfg"
	cat >"$dir/scenario" <<-'EOF'
		log=/var/log/xen/console/guest-hardened.log
		echo "=== BEGIN XL-CREATE ==="
		xl create /domu/hardened.cfg 2>&1; rc=$?; echo "xl.create.rc=$rc"
		xl list 2>&1
		[ "$rc" -eq 0 ] || sed 's/^/hotplug.log: /' /var/log/xen/xen-hotplug.log 2>&1
		echo "=== END XL-CREATE ==="
		if [ "$rc" -eq 0 ] && wait_for_text "$log" "=== DOMU WAITING ===" 240; then
			# kernel.sysrq of the xen profile: sync allowed, a task dump refused.
			echo "=== BEGIN XL-SYSRQ ==="
			xl sysrq hardened s 2>&1; echo "xl.sysrq.s.rc=$?"
			wait_for_text "$log" "sysrq: Emergency Sync" 20 && echo "sysrq.s=ran" || echo "sysrq.s=silent"
			xl sysrq hardened t 2>&1; echo "xl.sysrq.t.rc=$?"
			wait_for_text "$log" "sysrq: This sysrq operation is disabled" 20 &&
				echo "sysrq.t=refused" || echo "sysrq.t=silent"
			echo "=== END XL-SYSRQ ==="
			echo "=== BEGIN XL-REBOOT ==="
			start=$(date +%s)
			timeout 60 xl reboot hardened 2>&1; echo "xl.reboot.rc=$?"
			# Back to its real init: the probe's end printed a second time.
			i=0
			while [ "$(grep -c "=== DOMU WAITING ===" "$log")" -lt 2 ] && [ "$i" -lt 240 ]; do
				i=$((i + 1)); sleep 1
			done
			echo "reboot.waiting=$(grep -c "=== DOMU WAITING ===" "$log") after $(($(date +%s) - start)) s"
			echo "=== END XL-REBOOT ==="
		else
			echo "xen scenario: the domU never reached its probe's end"
		fi
		echo "=== BEGIN XL-SHUTDOWN ==="
		start=$(date +%s)
		timeout 120 xl shutdown -w hardened 2>&1; echo "xl.shutdown.rc=$?"
		domu_wait_gone hardened 10 && echo "domu.gone=yes" ||
			{ echo "domu.gone=no"; echo "xl.destroy=used"; xl destroy hardened 2>&1; }
		echo "shutdown.seconds=$(($(date +%s) - start))"
		echo "=== END XL-SHUTDOWN ==="
		domu_console hardened
		# PVH: the same guest and disk, when Xen under TCG runs HVM guests.
		echo "=== BEGIN XL-PVH ==="
		xl info 2>&1 | grep -E '^(virt_caps|xen_caps)'
		xl dmesg 2>&1 | grep -E 'HVM|HAP|CPU Vendor' | sed 's/^/pvh.xen: /'
		xl create /domu/pvh.cfg >/tmp/pvh.out 2>&1; rc=$?
		sed 's/^/pvh.create: /' /tmp/pvh.out; echo "pvh.create.rc=$rc"
		if [ "$rc" -eq 0 ]; then
			start=$(date +%s)
			if wait_for_text /var/log/xen/console/guest-pvh.log "=== DOMU WAITING ===" 240; then
				echo "pvh.waiting=yes after $(($(date +%s) - start)) s"
			else
				# What the stalled guest and Xen were doing, for the failure.
				echo "pvh.waiting=no after $(($(date +%s) - start)) s"
				xl list 2>&1 | sed 's/^/pvh.list: /'
				xl dmesg 2>&1 | tail -n 40 | sed 's/^/pvh.dmesg: /'
			fi
			timeout 60 xl shutdown -w pvh 2>&1; echo "pvh.shutdown.rc=$?"
			domu_wait_gone pvh 10 && echo "pvh.gone=yes" || {
				echo "pvh.gone=no: $(grep -a -m1 'reboot: ' /var/log/xen/console/guest-pvh.log)"
				xl destroy pvh 2>&1
			}
		fi
		echo "=== END XL-PVH ==="
		[ "$rc" -eq 0 ] && domu_console pvh
	EOF
	local kdir
	kdir=$(vm_kernel_dir 6.12)
	# dom0's root: the toolstack tree, hardinit for its audit, and a real
	# init that prints what hardinit left before the toolstack's /init
	# mounts over /run.
	rm -rf "$dir/dom0root" && mkdir -p "$dir/dom0root"
	xen_dom0_tree "$dir/dom0root" "$dir/scenario" \
		"$kdir/boot/vmlinuz-$(cat "$kdir/kver")=/domu/vmlinuz" \
		"$dir/domu.img=/domu/initrd.img" "$dir/hardened.cfg=/domu/hardened.cfg" \
		"$dir/pvh.cfg=/domu/pvh.cfg"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/dom0root/sbin/hardinit"
	rm -f "$dir/dom0root/sbin/init"
	cat >"$dir/dom0root/sbin/init" <<-'EOF'
		#!/bin/busybox sh
		export PATH=/usr/sbin:/usr/bin:/sbin:/bin
		echo "=== BEGIN DOM0 ==="
		echo "hypervisor.type=$(cat /sys/hypervisor/type 2>&1)"
		echo "hypervisor.guest_type=$(cat /sys/hypervisor/guest_type 2>&1)"
		modprobe xenfs 2>&1 && mount -t xenfs xenfs /proc/xen 2>&1
		echo "xen.capabilities=$(cat /proc/xen/capabilities 2>&1)"
		echo "meltdown=$(cat /sys/devices/system/cpu/vulnerabilities/meltdown)"
		awk '$5 == "/" { print "root.mount=" $(NF-1) " " $(NF-2) " " $6 }' /proc/self/mountinfo
		sed -n 's/^/report: /p' /run/hardinit/report.txt
		/sbin/hardinit audit 2>&1 | sed -n 's/^note/audit: note/p'
		/sbin/hardinit audit --json 2>&1 | grep -F '"topic": "cpu_vulnerabilities"' | sed 's/^ */audit.json: /'
		/sbin/hardinit audit --format prometheus --output - 2>&1 | grep '^hardinit_cpu_vulnerabilities_hypervisor' |
			sed 's/^/audit.prom: /'
		echo "=== END DOM0 ==="
		umount /proc/xen
		# hardinit mounted the root read-only; the toolstack writes its logs
		# and state below /var.
		mount -o remount,rw / || echo "dom0: cannot remount / read-write"
		exec /init
	EOF
	chmod 0755 "$dir/dom0root/sbin/init"
	vm_rootfs "$dir/dom0root.img" "$dir/dom0root"
	vm_initramfs "$dir/dom0.img" --kernel "$XEN_DOM0_KERNEL" --profile xen --modules ext4
	xen_boot "$dir/xen.log" "$dir/dom0.img" --disk "$dir/dom0root.img" --disk "$dir/root.img" \
		--dom0-append "root=/dev/vda" || true
}

# The domU's own console, as xenconsoled logged it in dom0, kernel
# records included.
domu() {
	VM_SECTION_RAW=1 vm_section "$XDIR/xen.log" "domu-console-${1:-hardened}"
}

@test "xen: hardinit as dom0's initramfs reaches the real init on its ext4 root" {
	vm_assert_log_contains "$XDIR/xen.log" "hardinit: handing off to /sbin/init"
	vm_assert_log_contains "$XDIR/xen.log" "=== XEN DOM0 READY ==="
	vm_assert_section_line "$XDIR/xen.log" DOM0 "hypervisor.type=xen"
	vm_assert_section_line "$XDIR/xen.log" DOM0 "hypervisor.guest_type=PV"
	# control_d: this kernel is Xen's control domain, dom0
	vm_assert_section_line "$XDIR/xen.log" DOM0 "xen.capabilities=control_d"
	run vm_section "$XDIR/xen.log" DOM0
	grep -q '^root.mount=/dev/vda ext4 ro,' <<<"$output"
	# the generic kernel's disk driver and root file system, loaded by hardinit
	grep -qx 'report: modules virtio_blk.ko ok loaded' <<<"$output"
	grep -qx 'report: modules ext4.ko ok loaded' <<<"$output"
}

@test "xen: the PV meltdown line is the hypervisor's in the report and the audit, as the man page says" {
	local want mine
	want=$(xen_man_notes | awk -F'\t' '$1 ~ /vulnerabilities\/meltdown$/ { print $2 }')
	[[ -n $want ]]
	# The domU, shown GenuineIntel: the line the man page quotes.
	run domu
	grep -qxF "vuln.meltdown=$want" <<<"$output"
	grep -qxF "report: kernel meltdown hypervisor $want" <<<"$output"
	grep -qF "(meltdown: $want)" <<<"$output"
	# dom0 (AMD: "Not affected"): its own line, the hypervisor's too, in
	# the report, the audit and the audit's JSON and Prometheus exports.
	run vm_section "$XDIR/xen.log" DOM0
	mine=$(sed -n 's/^meltdown=//p' <<<"$output")
	[[ -n $mine ]]
	grep -qxF "report: kernel meltdown hypervisor $mine" <<<"$output"
	grep -qF "audit: note  cpu vulnerabilities" <<<"$output"
	local note="a Xen PV guest: CPU vulnerabilities are the hypervisor's to mitigate (meltdown: $mine)"
	grep -qxF "audit.json: {\"topic\": \"cpu_vulnerabilities\", \"owner\": \"hypervisor\", \"text\": \"$note\"}" <<<"$output"
	grep -qxF "audit.prom: hardinit_cpu_vulnerabilities_hypervisor{note=\"$note\"} 1" <<<"$output"
	[ "$(grep -c '^report: kernel [a-z_0-9]* hypervisor ' <<<"$output")" -ge 10 ]
	if grep -E '^report: kernel [a-z_0-9]+ (warn|info|ok) (Not affected|Mitigation|Vulnerable|Unknown)' <<<"$output"; then
		return 1
	fi
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
	bnd=$(sed -n 's/^capbnd.pid1=//p' <<<"$output" | head -n 1)
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

@test "xen: xl sysrq runs what the xen profile's kernel.sysrq allows and refuses the rest" {
	local mask
	mask=$(awk -F' *= *' '$1 == "kernel.sysrq" { print $2 }' "$HARDINIT_SRC/config/xen.conf")
	# s (sync) is in the sync bit 16, t (task dump) in the dump bit 8.
	(( (mask & 16) != 0 && (mask & 8) == 0 ))
	vm_assert_section_line "$XDIR/xen.log" XL-SYSRQ "xl.sysrq.s.rc=0"
	vm_assert_section_line "$XDIR/xen.log" XL-SYSRQ "sysrq.s=ran"
	vm_assert_section_line "$XDIR/xen.log" XL-SYSRQ "sysrq.t=refused"
	run domu
	[[ $output == *"sysctl.kernel.sysrq=$mask"* ]]
}

@test "xen: xl reboot brings the hardened guest back to its real init; xl shutdown then ends it, no xl destroy" {
	vm_assert_section_line "$XDIR/xen.log" XL-REBOOT "xl.reboot.rc=0"
	run vm_section "$XDIR/xen.log" XL-REBOOT
	grep -q '^reboot.waiting=2 after ' <<<"$output"
	# Two boots: two kernels' boot ids, both through hardinit.
	run domu
	[ "$(grep -c '^boot_id=' <<<"$output")" -eq 2 ]
	[ "$(grep '^boot_id=' <<<"$output" | sort -u | wc -l)" -eq 2 ]
	[ "$(grep -c 'hardinit: handing off to /sbin/init' <<<"$output")" -eq 2 ]
	vm_assert_section_line "$XDIR/xen.log" XL-SHUTDOWN "xl.shutdown.rc=0"
	vm_assert_section_line "$XDIR/xen.log" XL-SHUTDOWN "domu.gone=yes"
	run vm_section "$XDIR/xen.log" XL-SHUTDOWN
	[[ $output != *"xl.destroy=used"* ]]
	# within the bound the scenario gives it (120 s), and well inside it
	local secs
	secs=$(sed -n 's/^shutdown.seconds=//p' <<<"$output")
	((secs <= 60))
}

@test "xen: a PV guest's CPU vulnerability lines are the hypervisor's in the boot report and the audit" {
	run domu
	local line name text n=0
	while IFS= read -r line; do
		name=${line#vuln.} name=${name%%=*} text=${line#*=}
		grep -qxF "report: kernel $name hypervisor $text" <<<"$output" || {
			echo "$name: want status hypervisor; the report has: $(grep -a "report: kernel $name " <<<"$output")" >&2
			return 1
		}
		n=$((n + 1))
	done < <(grep '^vuln\.' <<<"$output" | sort -u)
	[ "$n" -ge 10 ]
	if grep -E '^report: kernel [a-z_0-9]+ (warn|info|ok) (Not affected|Mitigation|Vulnerable|Unknown)' <<<"$output"; then
		return 1
	fi
	grep -q "^audit: note  cpu vulnerabilities  *a Xen PV guest: CPU vulnerabilities are the hypervisor's to mitigate (meltdown: " <<<"$output"
}

@test "xen: the balloon scrubs returned pages, xen_scrub_pages=1 of the xen profile seen live" {
	run domu
	grep -q '^scrub_pages=1$' <<<"$output"
	grep -q '^report: kernel xen_scrub_pages=1 ok devices/system/xen_memory/xen_memory0/scrub_pages reads 1$' <<<"$output"
}

@test "xen: hardinit.conf(5)'s XEN GUESTS notes match what the PV guest saw" {
	run domu
	local console=$output path want rest n=0
	while IFS=$'\t' read -r path want rest; do
		grep -qxF "note:$path=$want" <<<"$console" || {
			echo "man: $path reads '$want'; the guest: $(grep -a "^note:$path=" <<<"$console" | head -n 1)" >&2
			return 1
		}
		local q
		while IFS= read -r q; do
			[[ -z $q ]] && continue
			[[ $console == *"$q"* ]] || { echo "man quotes '$q' for $path; not in the guest's console" >&2; return 1; }
		done < <(tr '\t' '\n' <<<"$rest")
		n=$((n + 1))
	done < <(xen_man_notes)
	[ "$n" -ge 5 ]
}

@test "xen: the same domU as PVH (type=\"pvh\"), where Xen under TCG runs it" {
	run vm_section "$XDIR/xen.log" XL-PVH
	[ "$status" -eq 0 ]
	local sec=$output
	if ! grep -qx 'pvh.create.rc=0' <<<"$sec"; then
		# Only Xen's own refusal for lack of HVM paging is the emulator's
		# limit; any other failure is ours.
		local why
		why=$(grep -a 'pvh.create: libxl: error' <<<"$sec" | head -n 1)
		[[ $why == *"neither hap nor shadow paging available"* ]] || { echo "$sec" >&2; return 1; }
		skip "Xen under TCG cannot run a PVH guest: ${why#pvh.create: } ($(grep -a '^virt_caps' <<<"$sec" | tr -s ' '))"
	fi
	grep -q '^pvh.waiting=yes after ' <<<"$sec"
	# xl shutdown ends it too, through the same poweroff helper (the PVH
	# kernel halts: "Power off not available", and Xen ends the domain).
	grep -qx 'pvh.shutdown.rc=0' <<<"$sec"
	grep -qx 'pvh.gone=yes' <<<"$sec"
	run domu pvh
	[[ $output == *"POWEROFF HELPER RAN uid=0"* ]]
	[[ $output == *"hypervisor.guest_type=PVH"* ]]
	[[ $output == *"hardinit: handing off to /sbin/init"* ]]
	grep -q '^root.mount=/dev/xvda ext4 ro,' <<<"$output"
}
