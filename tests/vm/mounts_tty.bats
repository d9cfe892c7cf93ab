#!/usr/bin/env bats
# The mounts and tty stages in QEMU: shared propagation, hardened API
# mounts, /tmp as a tmpfs, pam_namespace's instance parents, and TIOCSTI
# denied by the sysctl on Debian's 6.12 kernel and by the seccomp filter
# on Debian 12's 6.1 (which has no dev.tty.legacy_tiocsti). The truth is
# what testinit and the probes read in the guest: mountinfo, stat,
# /proc/*/status, and tests/probe/tiocsti trying the ioctl as root and as
# alice (uid 1001) on the serial console.

# budget: 30 s

load lib

FAIL="hardinit.boot.failure_action=poweroff"
APPEND="root=/dev/vda rw $FAIL"

# A config derived from the baseline profile: $1 output, then sed
# expressions "key = value" replacing that key's line.
make_config() {
	local out=$1 kv key
	shift
	cp "$HARDINIT_SRC/config/baseline.conf" "$out"
	for kv in "$@"; do
		key=${kv%% =*}
		grep -q "^$key = " "$out" || { echo "make_config: no key $key in baseline.conf" >&2; return 1; }
		sed -i "s|^$key = .*|$kv|" "$out"
	done
	"$HARDINIT_SRC/build/hardinit" check-config "$out" >&2
}

setup_file() {
	local dir
	dir=$(vm_cache_dir)/mounts_tty
	mkdir -p "$dir"
	export MT_DIR=$dir
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	mkdir -p "$dir/root/etc/security"
	printf '%s\n' "/tmp /tmp/tmp-inst/ user root" "/var/tmp /var/tmp/tmp-inst/ user root" \
		>"$dir/root/etc/security/namespace.conf"
	vm_probe_script "$dir/root" <<-'EOF'
		echo "=== BEGIN POLY ==="
		stat -c '%n %a %u:%g %F' /tmp/tmp-inst /var/tmp/tmp-inst 2>&1
		echo "=== END POLY ==="
		echo "=== BEGIN TTYSYSCTL ==="
		echo "legacy_tiocsti=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo absent)"
		echo "ldisc_autoload=$(cat /proc/sys/dev/tty/ldisc_autoload 2>/dev/null || echo absent)"
		echo "=== END TTYSYSCTL ==="
		echo "=== BEGIN SECCOMP ==="
		grep '^Seccomp' /proc/1/status | sed 's/^/pid1 /; s/\t/ /g'
		grep '^Seccomp' /proc/self/status | sed 's/^/fresh /; s/\t/ /g'
		echo "=== END SECCOMP ==="
		echo "=== BEGIN TIOCSTI ==="
		/probe/tiocsti /dev/ttyS0 | sed 's/^/root /'
		/probe/tiocsti --high /dev/ttyS0 | sed 's/^/roothigh /'
		/probe/tiocsti --uid 1001 /dev/ttyS0 | sed 's/^/alice /'
		/probe/tiocsti --uid 1001 --high /dev/ttyS0 | sed 's/^/alicehigh /'
		echo "=== END TIOCSTI ==="
	EOF
	vm_rootfs "$dir/root.img" "$dir/root"

	make_config "$dir/unpriv.conf" "tmp_size = 64m" "proc_hidepid = invisible" "proc_gid = 4"
	make_config "$dir/all.conf" "tiocsti = deny-all" "tioclinux = deny"
	make_config "$dir/allow.conf" "tiocsti = allow"
	vm_initramfs "$dir/unpriv-612.img" --config "$dir/unpriv.conf"
	vm_initramfs "$dir/all-612.img" --config "$dir/all.conf"

	# Each boot once; the @tests below read the logs.
	boot "$dir/unpriv-612.log" 6.12 "$dir/unpriv-612.img"
	boot "$dir/all-612.log" 6.12 "$dir/all-612.img"
	if vm_kernel_dir 6.1 >/dev/null 2>&1; then
		vm_initramfs "$dir/unpriv-61.img" --kernel 6.1 --config "$dir/unpriv.conf"
		vm_initramfs "$dir/allow-61.img" --kernel 6.1 --config "$dir/allow.conf"
		boot "$dir/unpriv-61.log" 6.1 "$dir/unpriv-61.img"
		boot "$dir/allow-61.log" 6.1 "$dir/allow-61.img"
	fi
}

boot() {
	vm_boot "$1" --kernel "$2" --initrd "$3" --disk "$MT_DIR/root.img" --append "$APPEND" || true
}

# The mountinfo line testinit saw for mount point $2: "... opts [optional] - fstype src superopts".
mount_line() {
	vm_section "$1" MOUNTINFO | awk -v p="$2" '$5 == p' | tail -n 1
}

assert_mount() {
	local log=$1 point=$2 line
	shift 2
	line=$(mount_line "$log" "$point")
	[[ -n $line ]] || { echo "no mount at $point"; vm_log_tail "$log"; return 1; }
	for want in "$@"; do
		[[ $line == *"$want"* ]] || { echo "$point: '$want' not in: $line"; return 1; }
	done
}

@test "6.12: / and the API mounts are shared" {
	log=$MT_DIR/unpriv-612.log
	vm_assert_done "$log"
	for p in / /proc /sys /dev /run /dev/shm /tmp; do
		assert_mount "$log" "$p" " shared:"
	done
}

@test "6.12: /dev/shm nosuid,nodev,noexec; /run nosuid,nodev; /proc hidepid=invisible" {
	log=$MT_DIR/unpriv-612.log
	assert_mount "$log" /dev/shm ",nosuid,nodev,noexec" " - tmpfs "
	assert_mount "$log" /run ",nosuid,nodev"
	assert_mount "$log" /proc "hidepid=invisible"
}

@test "6.12: /tmp is a tmpfs, nosuid,nodev, size=64m" {
	log=$MT_DIR/unpriv-612.log
	assert_mount "$log" /tmp ",nosuid,nodev" " - tmpfs " "size=65536k"
	line=$(mount_line "$log" /tmp)
	[[ $line != *noexec* ]] || { echo "tmp_noexec is off, but: $line"; false; }
}

@test "6.12: instance parents exist, mode 000, root:root" {
	log=$MT_DIR/unpriv-612.log
	vm_assert_section_line "$log" POLY "/tmp/tmp-inst 0 0:0 directory"
	vm_assert_section_line "$log" POLY "/var/tmp/tmp-inst 0 0:0 directory"
}

@test "6.12 deny-unprivileged: the sysctl; alice gets EIO, root may still inject" {
	log=$MT_DIR/unpriv-612.log
	vm_assert_section_line "$log" TTYSYSCTL "legacy_tiocsti=0"
	vm_assert_section_line "$log" TTYSYSCTL "ldisc_autoload=0"
	vm_assert_section_contains "$log" TIOCSTI "alice tiocsti=EIO uid=1001 ctty=ok"
	vm_assert_section_contains "$log" TIOCSTI "root tiocsti=ok uid=0"
	vm_assert_section_line "$log" SECCOMP "pid1 Seccomp: 0"
	vm_assert_section_contains "$log" REPORT "mechanism=sysctl"
}

@test "6.12 deny-all: sysctl and filter; root and alice get EIO, high bits too; every process filtered" {
	log=$MT_DIR/all-612.log
	vm_assert_done "$log"
	vm_assert_section_line "$log" TTYSYSCTL "legacy_tiocsti=0"
	vm_assert_section_contains "$log" TIOCSTI "root tiocsti=EIO uid=0"
	vm_assert_section_contains "$log" TIOCSTI "roothigh tiocsti=EIO uid=0"
	vm_assert_section_contains "$log" TIOCSTI "alice tiocsti=EIO uid=1001"
	vm_assert_section_contains "$log" TIOCSTI "alicehigh tiocsti=EIO uid=1001"
	vm_assert_section_line "$log" SECCOMP "pid1 Seccomp: 2"
	vm_assert_section_line "$log" SECCOMP "pid1 Seccomp_filters: 1"
	vm_assert_section_line "$log" SECCOMP "fresh Seccomp: 2"
	vm_assert_section_contains "$log" REPORT "mechanism=both tioclinux=denied"
}

@test "6.1 deny-unprivileged: no sysctl, so the filter; root and alice get EIO" {
	[[ -f $MT_DIR/unpriv-61.log ]] || skip "Debian 12's 6.1 kernel is not in the cache"
	log=$MT_DIR/unpriv-61.log
	vm_assert_done "$log"
	vm_assert_section_line "$log" TTYSYSCTL "legacy_tiocsti=absent"
	vm_assert_section_line "$log" TTYSYSCTL "ldisc_autoload=0"
	vm_assert_section_contains "$log" TIOCSTI "root tiocsti=EIO uid=0"
	vm_assert_section_contains "$log" TIOCSTI "alice tiocsti=EIO uid=1001 ctty=ok"
	vm_assert_section_contains "$log" TIOCSTI "alicehigh tiocsti=EIO uid=1001"
	vm_assert_section_line "$log" SECCOMP "pid1 Seccomp: 2"
	vm_assert_section_line "$log" SECCOMP "fresh Seccomp: 2"
	vm_assert_section_contains "$log" REPORT "mechanism=seccomp"
	for p in / /proc /dev /run /dev/shm /tmp; do
		assert_mount "$log" "$p" " shared:"
	done
}

@test "6.1 allow (control): alice on her own terminal can inject, no filter" {
	[[ -f $MT_DIR/allow-61.log ]] || skip "Debian 12's 6.1 kernel is not in the cache"
	log=$MT_DIR/allow-61.log
	vm_assert_done "$log"
	vm_assert_section_contains "$log" TIOCSTI "alice tiocsti=ok uid=1001 ctty=ok"
	vm_assert_section_line "$log" SECCOMP "pid1 Seccomp: 0"
	vm_assert_section_contains "$log" REPORT "mechanism=none"
}
