#!/usr/bin/env bats
# The config stage's decisions at boot, on the host: hardinit dry-run with
# the VM test's configs and command lines (tests/vm/config.bats) decides
# as the boot does which command-line overrides the lock refuses or
# applies, and names the file and line of a config error before the
# failure action. The kernel side (an applied override in the live
# sysctl, audit in the guest) is tests/vm/config.bats.

bats_require_minimum_version 1.5.0

load lib/host

setup_file() {
	hardinit_built
}

# The VM test's configs (locked or not), and a root with an init.
setup() {
	local lock
	for lock in yes no; do
		printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\nlock_cmdline = %s\n[sysctl]\nkernel.kptr_restrict = 2\nfs.protected_fifos = 2\n' \
			"$lock" >"$BATS_TEST_TMPDIR/lock-$lock.conf"
	done
	mkdir -p "$BATS_TEST_TMPDIR/root/sbin"
	install -m 0755 "$HARDINIT" "$BATS_TEST_TMPDIR/root/sbin/init"
}

# dry_run CONFIG CMDLINE
dry_run() {
	run "$HARDINIT" dry-run --config "$1" --root "$BATS_TEST_TMPDIR/root" --cmdline "root=/dev/vda $2"
	echo "$output"
}

@test "under lock_cmdline, a weakening override is refused and logged, and the config's value holds" {
	dry_run "$BATS_TEST_TMPDIR/lock-yes.conf" "hardinit.sysctl.kernel.kptr_restrict=1 hardinit.boot.lock_cmdline=no"
	[ "$status" -eq 0 ]
	[[ $output == *"hardinit.sysctl.kernel.kptr_restrict=1 refused"* ]]
	[[ $output == *"hardinit.boot.lock_cmdline=no refused"* ]]
	# the sysctl stage writes the config's value (or finds it already set)
	[[ $output == *"would set kernel.kptr_restrict = 2 ("* || $output == *"kernel.kptr_restrict = 2 already"* ]]
	[[ $output != *"kptr_restrict=1 applied"* ]]
}

@test "under lock_cmdline, a strengthening override is still applied" {
	dry_run "$BATS_TEST_TMPDIR/lock-yes.conf" "hardinit.sysctl.kernel.dmesg_restrict=1"
	[ "$status" -eq 0 ]
	[[ $output == *"override hardinit.sysctl.kernel.dmesg_restrict=1 applied"* ]]
	[[ $output == *"would set kernel.dmesg_restrict = 1 ("* || $output == *"kernel.dmesg_restrict = 1 already"* ]]
}

@test "without the lock, a weakening override is applied to what the sysctl stage writes" {
	dry_run "$BATS_TEST_TMPDIR/lock-no.conf" "hardinit.boot.failure_action=poweroff hardinit.sysctl.kernel.kptr_restrict=1"
	[ "$status" -eq 0 ]
	[[ $output == *"override hardinit.sysctl.kernel.kptr_restrict=1 applied"* ]]
	[[ $output == *"would set kernel.kptr_restrict = 1 ("* || $output == *"kernel.kptr_restrict = 1 already"* ]]
}

@test "a config error at boot names the file and line, then takes the failure action" {
	# The VM test's broken config: line 5 lacks its '='.
	printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\n[sysctl]\nkernel.kptr_restrict 2\n' >"$BATS_TEST_TMPDIR/hardinit.conf"
	dry_run "$BATS_TEST_TMPDIR/hardinit.conf" "hardinit.boot.failure_action=poweroff"
	[ "$status" -eq 1 ]
	[[ $output == *"stage config failed"* ]]
	[[ $output == *"hardinit.conf:5:"* ]]
	[[ $output == *"would take the failure action: poweroff"* ]]
	[[ $output != *"would exec"* ]]
}
