#!/usr/bin/env bats
# Configuration at boot, in QEMU on Debian's 6.12 cloud kernel:
# a weakening command-line override is refused under lock_cmdline and
# accepted without it; a config error at boot names the line and takes the
# failure action; `hardinit audit` in the guest finds no drift after a
# normal boot and finds the drift a test makes. Values are read raw from
# /proc/sys in the guest, not from hardinit's report.

# budget: 40 s

load lib

FAIL="hardinit.boot.failure_action=poweroff"

setup_file() {
	local dir
	dir=$(vm_cache_dir)/config
	mkdir -p "$dir"
	export CDIR=$dir

	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/root/sbin/hardinit"
	vm_probe_script "$dir/root" <<-'EOF'
		echo "=== BEGIN LIVE ==="
		echo "kptr_restrict=$(cat /proc/sys/kernel/kptr_restrict)"
		echo "protected_fifos=$(cat /proc/sys/fs/protected_fifos)"
		echo "=== END LIVE ==="
		echo "=== BEGIN AUDIT1 ==="
		/sbin/hardinit audit
		echo "rc=$?"
		echo "=== END AUDIT1 ==="
		# The drift a test makes: a sysctl put back to a weaker value.
		echo 1 > /proc/sys/fs/protected_fifos
		echo "=== BEGIN AUDIT2 ==="
		/sbin/hardinit audit
		echo "rc=$?"
		/sbin/hardinit audit --json > /run/audit.json
		echo "json_rc=$?"
		grep -c '"status": "drift"' /run/audit.json | sed 's/^/json_drift_items=/'
		echo "=== END AUDIT2 ==="
	EOF
	vm_rootfs "$dir/root.img" "$dir/root"

	write_config "$dir/locked.conf" yes
	write_config "$dir/unlocked.conf" no
	vm_initramfs "$dir/locked.img" --config "$dir/locked.conf"
	vm_initramfs "$dir/unlocked.img" --config "$dir/unlocked.conf"

	# A config with an error on line 5; --no-check lets the builder ship it,
	# as a hand-made or corrupted initramfs would.
	printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\n[sysctl]\nkernel.kptr_restrict 2\n' >"$dir/bad.conf"
	vm_initramfs "$dir/bad.img" --config "$dir/bad.conf" --no-check
}

write_config() {
	cat >"$1" <<-EOF
		[boot]
		failure_action = poweroff
		failure_delay = 0
		lock_cmdline = $2
		[sysctl]
		kernel.kptr_restrict = 2
		fs.protected_fifos = 2
	EOF
}

boot() {
	local log=$1 img=$2
	shift 2
	vm_boot "$log" --initrd "$CDIR/$img" --disk "$CDIR/root.img" --append "root=/dev/vda $*"
}

@test "without the lock, a weakening override is applied" {
	log=$BATS_TEST_TMPDIR/unlocked.log
	boot "$log" unlocked.img "$FAIL hardinit.sysctl.kernel.kptr_restrict=1"
	vm_assert_done "$log"
	vm_assert_section_line "$log" LIVE "kptr_restrict=1"
	vm_assert_log_contains "$log" "override hardinit.sysctl.kernel.kptr_restrict=1 applied"
}

@test "under lock_cmdline, a weakening override is refused and logged, and the config's value holds" {
	log=$BATS_TEST_TMPDIR/locked.log
	boot "$log" locked.img "hardinit.sysctl.kernel.kptr_restrict=1 hardinit.boot.lock_cmdline=no"
	vm_assert_done "$log"
	vm_assert_section_line "$log" LIVE "kptr_restrict=2"
	vm_assert_log_contains "$log" "hardinit.sysctl.kernel.kptr_restrict=1 refused"
	vm_assert_log_contains "$log" "hardinit.boot.lock_cmdline=no refused"
}

@test "under lock_cmdline, a strengthening override is still applied" {
	log=$BATS_TEST_TMPDIR/stronger.log
	boot "$log" locked.img "hardinit.sysctl.kernel.dmesg_restrict=1"
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "override hardinit.sysctl.kernel.dmesg_restrict=1 applied"
}

@test "a config error at boot names the file and line, then takes the failure action" {
	log=$BATS_TEST_TMPDIR/bad.log
	boot "$log" bad.img "$FAIL"
	vm_assert_log_contains "$log" "hardinit.conf:5:"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	[ "$(vm_exit_reason "$log")" = poweroff ]
	vm_assert_log_lacks "$log" "=== BEGIN ARGV ==="
}

@test "hardinit audit in the guest: no drift after a normal boot, drift after a sysctl is changed" {
	log=$BATS_TEST_TMPDIR/audit.log
	boot "$log" unlocked.img "$FAIL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" LIVE "protected_fifos=2"
	vm_assert_section_line "$log" AUDIT1 "rc=0"
	vm_assert_section_contains "$log" AUDIT1 "ok    sysctl fs.protected_fifos"
	vm_assert_section_contains "$log" AUDIT1 " 0 drift"
	vm_assert_section_line "$log" AUDIT2 "rc=1"
	vm_assert_section_contains "$log" AUDIT2 "drift sysctl fs.protected_fifos"
	vm_assert_section_line "$log" AUDIT2 "json_rc=1"
	vm_assert_section_line "$log" AUDIT2 "json_drift_items=1"
}
