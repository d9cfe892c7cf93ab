#!/usr/bin/env bats
# The real systems people run, booted by hardinit from its initramfs on
# Debian's 6.12 cloud kernel: Debian 12 with systemd (SELinux permissive and
# enforcing, Debian's refpolicy), Debian 12 with sysvinit, a busybox
# appliance with the appliance profile, QEMU's microvm machine with the xen
# profile's initramfs, and the contents of a Xen PV/PVH initramfs.
#
# Each boot happens once (the first test that needs it) and its serial log
# is shared by the tests that read it. What is checked comes from the
# guest's own probe (tests/vm/images.bash: raw /proc and /sys reads, the
# tools' views) and from the kernel log, not from hardinit's claims; the one
# exception is the test of `hardinit audit` itself. Images are cached under
# ${HARDINIT_CACHE:-/var/cache/hardinit}/images (see images.bash).

# budget: 195 s
# cold: 90 s images/debian-sysvinit-*/tree.done

load lib
load images

# A systemd boot under TCG takes 30-90 s; the probe waits up to
# IMG_PROBE_BOOT_WAIT for the boot to finish, then the poweroff.
DEBIAN_TIMEOUT=${DEBIAN_TIMEOUT:-600}
DEBIAN_MEM=1024
SMALL_TIMEOUT=180
# Debian's kernels start AppArmor first: SELinux needs security=selinux.
# show_status=error: systemd's status lines would land among the probe's.
DEBIAN_APPEND="root=/dev/vda security=selinux systemd.show_status=error hardinit.boot.failure_action=poweroff"
# microvm has no port 0x61, so the kernel cannot calibrate the TSC against
# the PIT, and no HPET or PM timer either: without a given TSC frequency the
# 6.12 kernel hangs in its timer setup. The value only sets the guest's
# idea of the clock rate.
MICROVM_APPEND="tsc_early_khz=2000000 no_timer_check"

setup_file() {
	DEB_DIR=$(vm_cache_dir)/debian
	export DEB_DIR
	mkdir -p "$DEB_DIR"
	# The baseline profile with settings Debian would undo: procps'
	# 99-protect-links.conf sets fs.protected_fifos=1, systemd loads the
	# policy again. allow_polyinstantiation is off in Debian's refpolicy.
	awk '/^fs\.protected_fifos *=/ { print "fs.protected_fifos = 2"; next }
		{ print }
		/^\[selinux\]/ { print "boolean = allow_polyinstantiation=on" }' \
		"$HARDINIT_SRC/config/baseline.conf" >"$DEB_DIR/debian.conf"
	vm_build_once "$DEB_DIR/initrd.img" \
		vm_initramfs "$DEB_DIR/initrd.img" --config "$DEB_DIR/debian.conf" >/dev/null
}

# Boot once and keep the log (even of a failed boot, so later tests report
# the same failure instead of booting again): NAME.log and NAME.rc.
_boot_once() {
	local name=$1
	shift
	local log=$DEB_DIR/$name.log
	[[ -f $DEB_DIR/$name.rc ]] && { echo "$log"; return 0; }
	(
		flock 9
		[[ -f $DEB_DIR/$name.rc ]] && exit 0
		rc=0
		"$@" "$log.new" >&2 || rc=$?
		mv -f "$log.new" "$log" 2>/dev/null || : >"$log"
		echo "$rc" >"$DEB_DIR/$name.rc"
	) 9>"$DEB_DIR/$name.lock"
	echo "$log"
}

_boot_debian() {
	local init=$1 variant=$2 log=$3 img append=$DEBIAN_APPEND
	img=$("img_debian_$init" "$variant") || return 1
	# sysvinit has no tmpfiles to create an instance parent on the disk
	# once root is writable: with /tmp a tmpfs (tmp_size), hardinit
	# prepares it at boot (doc/real-systems.md).
	[[ $init == sysvinit ]] && append+=" hardinit.mounts.tmp_size=64M"
	vm_boot "$log" --initrd "$DEB_DIR/initrd.img" --disk "$img" --mem "$DEBIAN_MEM" \
		--timeout "$DEBIAN_TIMEOUT" --append "$append" -- -snapshot
}

debian_log() {
	_boot_once "$1-$2" _boot_debian "$1" "$2"
}

# The probe ran to its end and the guest powered off.
assert_probe_done() {
	local log=$1 reason
	vm_assert_log_contains "$log" "=== PROBE DONE ===" || return 1
	reason=$(vm_exit_reason "$log")
	[[ $reason == poweroff ]] || _vm_fail "$log" "expected the guest to power off, it ended by: $reason"
}

# Every sysctl of CONFIG's [sysctl] section has its value in the probe's
# SYSCTL section ("key = value", tabs as sysctl prints them). Keys written
# with a leading '-' may be missing from the kernel.
assert_sysctls_as_configured() {
	local log=$1 config=$2 body key want optional got bad=""
	body=$(vm_section "$log" SYSCTL) || { _vm_fail "$log" "section SYSCTL missing"; return 1; }
	while read -r key want; do
		optional=0
		[[ $key == -* ]] && { optional=1; key=${key#-}; }
		got=$(awk -v k="$key" '$1 == k { sub(/^[^=]*= ?/, ""); print; exit }' <<<"$body" | tr '\t' ' ')
		if [[ -z $got ]]; then
			((optional)) || bad+="$key: missing (want $want)"$'\n'
		elif [[ $got != "$want" ]]; then
			bad+="$key: $got (want $want)"$'\n'
		fi
	done < <(awk '/^\[/ { s = $0; next }
		s == "[sysctl]" && $1 ~ /\./ && $2 == "=" { v = $0; sub(/^[^=]*= */, "", v); print $1, v }' "$config")
	[[ -z $bad ]] || _vm_fail "$log" "sysctls differ from $config:"$'\n'"$bad"
}

# How often the kernel loaded a policy: it prints the policy capabilities
# on every load.
policy_loads() {
	tr -d '\r' <"$1" | grep -c 'SELinux:  policy capability network_peer_controls='
}

# ---- Debian 12 with systemd --------------------------------------------------------

@test "debian/systemd, permissive: hardinit hands off to systemd, which reaches multi-user.target" {
	log=$(debian_log systemd permissive)
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	assert_probe_done "$log"
	vm_assert_section_line "$log" INIT "comm=systemd"
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_line "$log" SYSTEMD "state=running"
}

@test "debian/systemd, permissive: SELinux mode and booleans survive systemd's second policy load" {
	log=$(debian_log systemd permissive)
	assert_probe_done "$log"
	loads=$(policy_loads "$log")
	((loads >= 2)) || _vm_fail "$log" "expected hardinit's and systemd's policy loads, the kernel saw $loads"
	vm_assert_section_line "$log" SELINUX "enforce=0"
	vm_assert_section_line "$log" SELINUX "getenforce=Permissive"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	vm_assert_section_line "$log" SELINUX "allow_polyinstantiation --> on"
}

@test "debian/systemd: sysctls stay at hardinit's values after systemd-sysctl ran" {
	log=$(debian_log systemd permissive)
	assert_probe_done "$log"
	vm_assert_section_line "$log" SYSCTL_SERVICE "ActiveState=active"
	vm_assert_section_line "$log" SYSCTL_SERVICE "Result=success"
	vm_assert_section_line "$log" DROPINS "/run/sysctl.d/zz-hardinit.conf"
	# procps' /usr/lib/sysctl.d/99-protect-links.conf says 1.
	vm_assert_section_line "$log" SYSCTL "fs.protected_fifos = 2"
	assert_sysctls_as_configured "$log" "$DEB_DIR/debian.conf"
}

@test "debian/systemd: /tmp polyinstantiation parents survive systemd-tmpfiles" {
	log=$(debian_log systemd permissive)
	assert_probe_done "$log"
	vm_assert_section_line "$log" TMPFILES "Result=success"
	# Mode 0 (stat %a), root-owned, as pam_namespace requires.
	vm_assert_section_contains "$log" POLYDIRS "/tmp/tmp-inst 0 root root "
	vm_assert_section_contains "$log" POLYDIRS "/var/tmp/tmp-inst 0 root root "
	vm_assert_section_lacks "$log" POLYDIRS "missing"
}

@test "debian/systemd, permissive: hardinit audit finds no drift once boot has finished" {
	log=$(debian_log systemd permissive)
	assert_probe_done "$log"
	vm_assert_section_line "$log" AUDIT "audit-exit=0"
}

@test "debian/systemd, enforcing: multi-user.target with Debian's refpolicy enforcing, init in init_t" {
	log=$(debian_log systemd enforcing)
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	assert_probe_done "$log"
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_line "$log" SELINUX "enforce=1"
	vm_assert_section_line "$log" SELINUX "getenforce=Enforcing"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	vm_assert_section_line "$log" SELINUX "allow_polyinstantiation --> on"
}

@test "debian/systemd, enforcing: sysctls, polyinstantiation parents and audit hold" {
	log=$(debian_log systemd enforcing)
	assert_probe_done "$log"
	# systemd-sysctl and systemd-tmpfiles must be allowed to read
	# hardinit's drop-ins: their labels decide it when enforcing.
	vm_assert_section_line "$log" SYSCTL_SERVICE "Result=success"
	vm_assert_section_line "$log" TMPFILES "Result=success"
	assert_sysctls_as_configured "$log" "$DEB_DIR/debian.conf"
	vm_assert_section_contains "$log" POLYDIRS "/tmp/tmp-inst 0 root root "
	vm_assert_section_line "$log" AUDIT "audit-exit=0"
}

# ---- Debian 12 with sysvinit ---------------------------------------------------------

@test "debian/sysvinit: hardinit hands off to sysvinit's init, which runs its runlevel" {
	log=$(debian_log sysvinit permissive)
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	assert_probe_done "$log"
	vm_assert_section_line "$log" INIT "comm=init"
	vm_assert_section_line "$log" INIT "exe=/usr/sbin/init"
	# sysvinit loads a policy only when none is loaded: hardinit's stays.
	loads=$(policy_loads "$log")
	((loads == 1)) || _vm_fail "$log" "expected hardinit's policy load only, the kernel saw $loads"
	vm_assert_section_line "$log" SELINUX "enforce=0"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	vm_assert_section_line "$log" SELINUX "allow_polyinstantiation --> on"
}

@test "debian/sysvinit: sysctls stay at hardinit's values after procps' init script" {
	log=$(debian_log sysvinit permissive)
	assert_probe_done "$log"
	assert_sysctls_as_configured "$log" "$DEB_DIR/debian.conf"
	vm_assert_section_line "$log" AUDIT "audit-exit=0"
}

@test "debian/sysvinit: /tmp's instance parent survives bootclean; /var/tmp's is left to the admin, with the command" {
	log=$(debian_log sysvinit permissive)
	assert_probe_done "$log"
	# /tmp is hardinit's tmpfs (tmp_size), marked so bootclean leaves it.
	vm_assert_section_contains "$log" POLYDIRS "/tmp/tmp-inst 0 root root "
	# sysvinit has no tmpfiles: a parent on the disk cannot be made at boot
	# on a read-only root, and hardinit says what to run.
	vm_assert_log_contains "$log" "instance parent /var/tmp/tmp-inst must be created by the real init"
	vm_assert_log_contains "$log" "mkdir -m 000 /var/tmp/tmp-inst"
}

# ---- the busybox appliance -------------------------------------------------------------

_boot_appliance() {
	local log=$1 img initrd=$DEB_DIR/appliance-initrd.img
	img=$(img_busybox_appliance) || return 1
	vm_initramfs "$initrd" --profile appliance >/dev/null || return 1
	# No hardinit.* overrides: appliance.conf locks the command line, and
	# its failure action (reboot) ends QEMU as well under -no-reboot.
	vm_boot "$log" --initrd "$initrd" --disk "$img" --timeout "$SMALL_TIMEOUT" \
		--append "root=/dev/vda" -- -snapshot
}

appliance_log() {
	_boot_once appliance _boot_appliance
}

# The bounding set appliance.conf asks for: every capability of the kernel
# (cap_last_cap 40 on Debian's 6.12) minus its drop lines, numbered from
# the kernel's uapi header.
expected_capbnd() {
	local header=/usr/include/linux/capability.h mask name bit
	mask=$(((1 << 41) - 1))
	while read -r name; do
		bit=$(awk -v n="${name^^}" '$1 == "#define" && $2 == n { print $3 }' "$header")
		[[ -n $bit ]] || { echo "unknown capability $name" >&2; return 1; }
		mask=$((mask & ~(1 << bit)))
	done < <(awk '/^\[/ { s = $0; next } s == "[capabilities]" && $1 == "drop" { print $3 }' \
		"$HARDINIT_SRC/config/appliance.conf")
	printf '%016x\n' "$mask"
}

@test "busybox appliance: every inittab service starts on the read-only root" {
	log=$(appliance_log)
	assert_probe_done "$log"
	vm_assert_section_line "$log" INIT "exe=/bin/busybox"
	vm_assert_section_lacks "$log" SERVICES "not-running"
	for s in /bin/syslogd /bin/klogd /bin/httpd /bin/crond /usr/sbin/heartbeat; do
		vm_assert_section_line "$log" SERVICES "$s running"
	done
	vm_assert_section_line "$log" SERVICES "httpd: appliance up"
	vm_assert_section_line "$log" ROOT "/dev/vda ext4 ro,relatime"
	vm_assert_section_line "$log" ROOT "root-write=refused"
}

@test "busybox appliance: modules locked, kexec disabled, lockdown and ptrace locked" {
	log=$(appliance_log)
	assert_probe_done "$log"
	vm_assert_section_line "$log" LOCKS "modules_disabled=1"
	vm_assert_section_line "$log" LOCKS "kexec_load_disabled=1"
	vm_assert_section_line "$log" LOCKS "yama/ptrace_scope=3"
	vm_assert_section_contains "$log" LOCKS "[integrity]"
}

@test "busybox appliance: the bounding set is reduced for init and every service" {
	log=$(appliance_log)
	assert_probe_done "$log"
	want=$(expected_capbnd)
	vm_assert_section_line "$log" CAPS "init CapBnd:"$'\t'"$want"
	vm_assert_section_line "$log" CAPS "httpd CapBnd:"$'\t'"$want"
	vm_assert_section_line "$log" CAPS "probe CapBnd:"$'\t'"$want"
}

# ---- Xen: the PV/PVH initramfs, and QEMU's microvm ---------------------------------------

# The xen profile's initramfs, with virtio_mmio and virtio_blk added so the
# same image also reaches root on microvm.
_xen_initramfs() {
	vm_initramfs "$1" --profile xen --target xen --modules "virtio_mmio virtio_blk"
}

@test "xen initramfs: xen-blkfront and its dependencies in load order, the xen profile, hvc0/xvda notes" {
	local out=$BATS_TEST_TMPDIR/xen.img dir=$BATS_TEST_TMPDIR/xen kdir kver
	run vm_initramfs "$out" --profile xen --target xen
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"console=hvc0"* && $output == *"/dev/xvda"* ]] ||
		{ echo "builder did not name the console/root a Xen guest needs: $output"; false; }
	mkdir -p "$dir"
	(cd "$dir" && zstd -dcf "$out" | cpio -id --quiet)
	cmp "$dir/etc/hardinit.conf" "$HARDINIT_SRC/config/xen.conf"
	kdir=$(vm_kernel_dir 6.12)
	kver=$(cat "$kdir/kver")
	list=$dir/etc/hardinit/modules
	[[ -s $list ]]
	grep -q '/xen-blkfront\.ko' "$list" || { echo "xen-blkfront not in:"; cat "$list"; false; }
	# Every listed module is in the archive, and each one's dependencies
	# (modules.dep of the kernel) come before it.
	seen=""
	while read -r path _; do
		[[ -f $dir$path ]] || { echo "$path listed but not in the archive"; false; }
		rel=${path#/lib/modules/$kver/}
		deps=$(awk -v m="$rel:" '$1 == m { $1 = ""; print }' "$kdir/lib/modules/$kver/modules.dep")
		for d in $deps; do
			[[ " $seen " == *" $d "* ]] || { echo "$rel is loaded before its dependency $d"; false; }
		done
		seen+=" $rel"
	done <"$list"
	# The profile's settings for a Xen guest.
	grep -qx 'root_timeout = 30' "$dir/etc/hardinit.conf"
	grep -qx 'tioclinux = allow' "$dir/etc/hardinit.conf"
}

_boot_microvm() {
	local log=$1 root=$DEB_DIR/microvm-root initrd=$DEB_DIR/xen-initrd.img
	rm -rf "$root" && mkdir -p "$root"
	vm_stage_root "$root" || return 1
	vm_probe_script "$root" <<-'EOF'
		echo "=== BEGIN MODULES ==="
		cut -d' ' -f1 /proc/modules
		echo "=== END MODULES ==="
		echo "=== BEGIN BUSES ==="
		echo "virtio: $(ls /sys/bus/virtio/devices | tr '\n' ' ')"
		echo "mmio: $(ls /sys/bus/platform/drivers/virtio-mmio 2>&1 | grep -c LNRO)"
		echo "pci: $(ls /sys/bus/pci/devices 2>/dev/null | wc -l)"
		echo "=== END BUSES ==="
	EOF
	vm_rootfs "$DEB_DIR/microvm-root.img" "$root" >/dev/null || return 1
	_xen_initramfs "$initrd" >/dev/null || return 1
	# -M microvm: no PCI, no firmware tables but ACPI's, virtio-mmio
	# devices (described in the DSDT, so no virtio_mmio.device= needed).
	vm_boot "$log" --initrd "$initrd" --timeout "$SMALL_TIMEOUT" \
		--append "root=/dev/vda $MICROVM_APPEND hardinit.boot.failure_action=poweroff" -- \
		-M microvm,pit=on,pic=on,rtc=on -snapshot \
		-drive "id=root,file=$DEB_DIR/microvm-root.img,if=none,format=raw" \
		-device virtio-blk-device,drive=root
}

@test "microvm: the xen profile's initramfs loads virtio_mmio and virtio_blk and reaches root without PCI" {
	log=$(_boot_once microvm _boot_microvm)
	vm_assert_done "$log"
	vm_assert_section_line "$log" MODULES "virtio_mmio"
	vm_assert_section_line "$log" MODULES "virtio_blk"
	vm_assert_section_line "$log" BUSES "pci: 0"
	vm_assert_section_line "$log" BUSES "mmio: 1"
	vm_assert_log_contains "$log" "hardinit: mounted root /dev/vda (ext4)"
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
}
