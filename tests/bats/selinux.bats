#!/usr/bin/env bats
# The SELinux stage's decisions from the root's files, on the host:
# hardinit dry-run --root DIR over a root whose policy type has no policy
# file, or random bytes as its policy. The kernel side (a policy the
# kernel rejects, a kernel without selinuxfs, labels and domains) is
# tests/vm/selinux.bats.

bats_require_minimum_version 1.5.0

load lib/host

setup_file() {
	hardinit_built
}

# The VM test's root, as far as the stage reads it: /etc/selinux/config
# says permissive and type default, the type "missing" has its
# directories but no policy file, the type "garbage" random bytes as its
# policy; an init to hand off to.
setup() {
	ROOT=$BATS_TEST_TMPDIR/root
	local t
	for t in missing garbage; do
		mkdir -p "$ROOT/etc/selinux/$t/policy" "$ROOT/etc/selinux/$t/contexts/files"
	done
	head -c 65536 /dev/urandom >"$ROOT/etc/selinux/garbage/policy/policy.33"
	mkdir -p "$ROOT/sbin"
	printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$ROOT/etc/selinux/config"
	install -m 0755 "$HARDINIT" "$ROOT/sbin/init"
	# The VM test's hardinit.conf: follow /etc/selinux/config, warn on a
	# failed load.
	printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\n[selinux]\nmode = config\nrequire = no\nrelabel = yes\n' \
		>"$BATS_TEST_TMPDIR/se.conf"
}

dry_run() {
	run "$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/se.conf" --root "$ROOT" \
		--cmdline "root=/dev/vda security=selinux hardinit.boot.failure_action=poweroff $1"
	echo "$output"
}

@test "missing policy with require = yes: a clear message and the failure action" {
	dry_run "hardinit.selinux.type=missing hardinit.selinux.require=yes"
	[ "$status" -eq 1 ]
	[[ $output == *"stage selinux failed"* ]]
	[[ $output == *"SELinux: no policy file $ROOT/etc/selinux/missing/policy/policy.N"* ]]
	[[ $output == *"SELinux is required"* ]]
	[[ $output == *"would take the failure action: poweroff"* ]]
	[[ $output != *"would exec"* ]]
}

@test "missing policy, permissive allowed: a warning and the boot goes on without a policy" {
	dry_run "hardinit.selinux.type=missing"
	[ "$status" -eq 0 ]
	[[ $output == *"SELinux: no policy file $ROOT/etc/selinux/missing/policy/policy.N"* ]]
	[[ $output == *"continuing without a policy, since /etc/selinux/config SELINUX=permissive allows permissive"* ]]
	[[ $output == *"would exec /sbin/init"* ]]
}

@test "random bytes as policy, permissive allowed: a warning and the boot goes on" {
	dry_run "hardinit.selinux.type=garbage"
	[ "$status" -eq 0 ]
	[[ $output == *"SELinux: $ROOT/etc/selinux/garbage/policy/policy.33 is not a binary policy"* ]]
	[[ $output == *"continuing without a policy"* ]]
	[[ $output == *"would exec /sbin/init"* ]]
}

@test "random bytes as policy in enforcing mode: the failure action, before the kernel sees it" {
	dry_run "hardinit.selinux.type=garbage hardinit.selinux.mode=enforcing"
	[ "$status" -eq 1 ]
	[[ $output == *"SELinux: $ROOT/etc/selinux/garbage/policy/policy.33 is not a binary policy"* ]]
	[[ $output == *"SELinux is required"* ]]
	[[ $output == *"would take the failure action: poweroff"* ]]
	[[ $output != *"would exec"* ]]
}
