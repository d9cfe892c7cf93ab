#!/usr/bin/env bats
# Configuration at boot, in QEMU on Debian's 6.12 cloud kernel, in one
# boot: a weakening command-line override without lock_cmdline reaches the
# kernel; `hardinit audit` in the guest finds no drift after the boot and
# finds the drift a test makes. Values are read raw from /proc/sys in the
# guest, not from hardinit's report. The lock's decisions (a weakening
# override refused, a strengthening one applied) and a config error naming
# its file and line are taken from the config and the command line alone:
# tests/bats/config_boot.bats checks them with hardinit dry-run. Two more
# boots show the kernel's own words under the lock as the kernel and the
# real init meet them: init= is ignored (the built init runs), enforcing=0
# refuses the boot with the failure action.

# budget: 25 s

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
	# Another init on the root, which the kernel's init= may name.
	cp "$HARDINIT_SRC/build/probe/testinit" "$dir/root/sbin/otherinit"
	vm_rootfs "$dir/root.img" "$dir/root"

	write_config "$dir/unlocked.conf" no
	vm_initramfs "$dir/unlocked.img" --config "$dir/unlocked.conf"
	rm -f "$dir/unlocked.log"
	write_config "$dir/locked.conf" yes
	vm_initramfs "$dir/locked.img" --config "$dir/locked.conf"
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

# The one boot, made by the first test that reads it: unlocked, with a
# weakening override (kptr_restrict 2 -> 1) that audit must then expect.
unlocked_log() {
	local log=$CDIR/unlocked.log
	[[ -f $log ]] || vm_boot "$log" --initrd "$CDIR/unlocked.img" --disk "$CDIR/root.img" \
		--append "root=/dev/vda $FAIL hardinit.sysctl.kernel.kptr_restrict=1" || true
	echo "$log"
}

@test "without the lock, a weakening override is applied" {
	log=$(unlocked_log)
	vm_assert_done "$log"
	vm_assert_section_line "$log" LIVE "kptr_restrict=1"
	vm_assert_log_contains "$log" "override hardinit.sysctl.kernel.kptr_restrict=1 applied"
}

@test "hardinit audit in the guest: no drift after a normal boot, drift after a sysctl is changed" {
	log=$(unlocked_log)
	vm_assert_done "$log"
	vm_assert_section_line "$log" LIVE "protected_fifos=2"
	vm_assert_section_line "$log" AUDIT1 "rc=0"
	vm_assert_section_contains "$log" AUDIT1 "ok    sysctl fs.protected_fifos"
	# the override is what the boot set up: audit expects it, no drift
	vm_assert_section_contains "$log" AUDIT1 "ok    sysctl kernel.kptr_restrict"
	vm_assert_section_contains "$log" AUDIT1 " 0 drift"
	vm_assert_section_line "$log" AUDIT2 "rc=1"
	vm_assert_section_contains "$log" AUDIT2 "drift sysctl fs.protected_fifos"
	vm_assert_section_line "$log" AUDIT2 "json_rc=1"
	vm_assert_section_line "$log" AUDIT2 "json_drift_items=1"
}

@test "under lock_cmdline, the kernel's init= is ignored: the built init runs, and the boot says why" {
	log=$BATS_TEST_TMPDIR/locked-init.log
	vm_boot "$log" --initrd "$CDIR/locked.img" --disk "$CDIR/root.img" \
		--append "root=/dev/vda $FAIL init=/sbin/otherinit"
	vm_assert_done "$log"
	vm_assert_section_line "$log" ARGV "argv[0]=/sbin/init"
	vm_assert_log_contains "$log" "the kernel's init=/sbin/otherinit refused under the lock"
}

@test "under lock_cmdline, the kernel's enforcing=0 refuses the boot with the failure action" {
	log=$BATS_TEST_TMPDIR/locked-enforcing.log
	vm_boot "$log" --initrd "$CDIR/locked.img" --disk "$CDIR/root.img" \
		--timeout 90 --append "root=/dev/vda $FAIL enforcing=0"
	vm_assert_log_contains "$log" "the kernel's enforcing=0 refused under the lock"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	[[ $(vm_exit_reason "$log") == poweroff ]] || _vm_fail "$log" "expected the failure action's poweroff"
}
