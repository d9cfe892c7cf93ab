#!/usr/bin/env bats
# The command-line interface when hardinit is not PID 1: help, version,
# check-config, dry-run and audit (against a fake /proc and /sys tree).
# None of these may touch the host: they only read.

HARDINIT=${HARDINIT:-$BATS_TEST_DIRNAME/../../build/hardinit}
SRC=$BATS_TEST_DIRNAME/../..

setup() {
	[ -x "$HARDINIT" ] || skip "build/hardinit not built"
}

@test "--help describes the commands and the man pages" {
	run "$HARDINIT" --help
	[ "$status" -eq 0 ]
	[[ $output == *"check-config FILE"* ]]
	[[ $output == *"dry-run"* ]]
	[[ $output == *"audit"* ]]
	[[ $output == *"hardinit.conf(5)"* ]]
}

@test "every command's --help prints its lines of the usage and exits 0" {
	for c in check-config config-set dry-run audit predict private-tmp limits; do
		run "$HARDINIT" "$c" --help
		[ "$status" -eq 0 ] || { echo "$c: $output"; false; }
		[[ $output == *"  $c"* ]] || { echo "$c: $output"; false; }
		[[ $output == *"See hardinit(8)."* ]]
	done
	run "$HARDINIT" predict -h
	[ "$status" -eq 0 ] && [[ $output == *"--selinux-policy FILE"* ]] && [[ $output != *"  audit"* ]]
}

@test "--version prints the version of debian/changelog, its one home" {
	run "$HARDINIT" --version
	[ "$status" -eq 0 ]
	want=$(sed -n '1s/^hardinit (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
	[ "$output" = "hardinit $want" ]
}

@test "an unknown command is an error naming it" {
	run "$HARDINIT" frobnicate
	[ "$status" -eq 2 ]
	[[ $output == *"unknown command 'frobnicate'"* ]]
}

@test "check-config accepts every shipped profile" {
	for f in "$SRC"/config/*.conf; do
		run "$HARDINIT" check-config "$f"
		[ "$status" -eq 0 ] || { echo "$f: $output"; false; }
	done
}

@test "check-config rejects a bad file, naming the file and the line" {
	printf '[boot]\nfailure_action = explode\n' >"$BATS_TEST_TMPDIR/bad.conf"
	run "$HARDINIT" check-config "$BATS_TEST_TMPDIR/bad.conf"
	[ "$status" -eq 1 ]
	[[ $output == *"bad.conf:2:"* ]]
}

@test "check-config on a missing file is an error, not a crash" {
	run "$HARDINIT" check-config "$BATS_TEST_TMPDIR/nope.conf"
	[ "$status" -eq 1 ]
	[[ $output == *"nope.conf"* ]]
}

@test "dry-run prints the plan for a config and command line without touching the system" {
	run "$HARDINIT" dry-run --config "$SRC/config/baseline.conf" --cmdline "root=UUID=1234-abcd rootwait ro"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"would wait up to 300 s for root UUID=1234-abcd and mount it read-only"* ]]
	[[ $output == *"would exec"* ]]
}

@test "dry-run reports a bad command line as the boot would" {
	run "$HARDINIT" dry-run --config "$SRC/config/baseline.conf" --cmdline 'root=/dev/vda init="/x'
	[ "$status" -eq 1 ]
	[[ $output == *"unterminated double quote"* ]]
	[[ $output == *"failure action"* ]]
}

@test "a malformed command line is a clear error, and the failure action is taken" {
	# The VM boot test's command line: the early stage fails, before any
	# root or init.
	run "$HARDINIT" dry-run --config "$SRC/config/baseline.conf" --cmdline 'root=/dev/vda hardinit.boot.init="/sbin/x'
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"stage early failed"* ]]
	[[ $output == *"bad kernel command line"* ]]
	[[ $output == *"unterminated double quote"* ]]
	[[ $output == *"would take the failure action"* ]]
	[[ $output != *"would wait up to"* && $output != *"would exec"* ]]
}

@test "dry-run reports a missing root= as the boot would" {
	run "$HARDINIT" dry-run --config "$SRC/config/baseline.conf" --cmdline "quiet"
	[ "$status" -eq 1 ]
	[[ $output == *"root= is missing"* ]]
}

@test "dry-run: under the appliance profile's lock the kernel's own steering words are refused as hardinit.* ones are" {
	# init=: hardinit alone reads it, so it is ignored, as hardinit.boot.init= is.
	run "$HARDINIT" dry-run --config "$SRC/config/appliance.conf" --cmdline "root=/dev/vda init=/bin/sh"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"the kernel's init=/bin/sh refused under the lock"* ]]
	[[ $output != *"would exec /bin/sh"* ]]
	[[ $output == *"config     init                                 refused  /bin/sh"* ]]
	# The kernel or the real init acts on these whatever hardinit does:
	# the boot is refused, with the failure action.
	for w in enforcing=0 selinux=0 security=apparmor lsm=yama single emergency systemd.unit=rescue.target "-- x"; do
		run "$HARDINIT" dry-run --config "$SRC/config/appliance.conf" --cmdline "root=/dev/vda $w"
		[ "$status" -eq 1 ] || { echo "$w: $output"; false; }
		[[ $output == *"refused under the lock (lock_cmdline = yes)"* ]] || { echo "$w: $output"; false; }
		[[ $output == *"failure action: reboot"* ]]
	done
	# What builds a SELinux boot stays allowed; unlocked, the words stand.
	run "$HARDINIT" dry-run --config "$SRC/config/appliance.conf" --cmdline "root=/dev/vda security=selinux enforcing=1"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$HARDINIT" dry-run --config "$SRC/config/baseline.conf" --cmdline "root=/dev/vda init=/bin/sh enforcing=0"
	[[ $output == *"would exec /bin/sh"* ]]
}

@test "dry-run: the lock reads a word as the kernel and systemd do: quoted whole, or '-' for '_'" {
	# The kernel's next_arg() splits "selinux=0" at its '=' although it is
	# quoted, and parameqn() and systemd read ima-appraise as ima_appraise.
	for w in '"selinux=0"' '"enforcing=0"' ima-appraise=off systemd.debug-shell systemd.confirm-spawn=1 \
		--crash-shell systemd.set_credential=ssh.authorized_keys.root:x systemd.setenv=LD_PRELOAD=/x.so \
		$'x\vselinux=0' $'x\fenforcing=0' $'x\xa0lsm=yama' rd.luks.crypttab=no rd.luks=no; do
		run "$HARDINIT" dry-run --config "$SRC/config/appliance.conf" --cmdline "root=/dev/vda $w"
		[ "$status" -eq 1 ] || { echo "$w: $output"; false; }
		[[ $output == *"refused under the lock (lock_cmdline = yes)"* ]] || { echo "$w: $output"; false; }
	done
	run "$HARDINIT" dry-run --config "$SRC/config/appliance.conf" --cmdline 'root=/dev/vda "init=/bin/sh"'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"the kernel's init=/bin/sh refused under the lock"* ]]
	[[ $output != *"would exec /bin/sh"* ]]
}

# A fake system for audit: /proc/sys values, PID 1's status and mountinfo.
fake_system() {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/proc/sys/kernel" "$t/proc/sys/fs" "$t/proc/1" "$t/sys/fs/selinux/booleans" "$t/run"
	echo 2 >"$t/proc/sys/kernel/kptr_restrict"
	echo 2 >"$t/proc/sys/fs/protected_fifos"
	printf 'Name:\tinit\nCapBnd:\t000001fffffdffff\n' >"$t/proc/1/status"
	echo '22 1 254:0 / / ro,relatime shared:1 - ext4 /dev/vda ro' >"$t/proc/1/mountinfo"
	cat >"$t/run/config" <<-EOF
	[sysctl]
	kernel.kptr_restrict = 2
	fs.protected_fifos = 2
	[capabilities]
	drop = cap_sys_rawio
	[mounts]
	shared = yes
	EOF
	cat >"$t/run/report.txt" <<-EOF
	stage sysctl ok 0.100 ms
	sysctl kernel.kptr_restrict applied 2
	EOF
}

audit() {
	local t=$BATS_TEST_TMPDIR
	run "$HARDINIT" audit --config "$t/run/config" --report "$t/run/report.txt" --proc "$t/proc" --sys "$t/sys" "$@"
}

@test "audit: no drift when the live state matches the config" {
	fake_system
	audit
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"ok    sysctl kernel.kptr_restrict"* ]]
	[[ $output == *"ok    PID 1 bounding set cap_sys_rawio"* ]]
	[[ $output == *"ok    mount propagation /"* ]]
	[[ $output == *"0 drift"* ]]
}

@test "audit: on a Xen PV guest the CPU vulnerabilities are the hypervisor's, neither ok nor drift" {
	fake_system
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/sys/hypervisor" "$t/sys/devices/system/cpu/vulnerabilities"
	echo 'Unknown (XEN PV detected, hypervisor mitigation required)' >"$t/sys/devices/system/cpu/vulnerabilities/meltdown"
	echo xen >"$t/sys/hypervisor/type"
	echo PVH >"$t/sys/hypervisor/guest_type"
	audit
	[ "$status" -eq 0 ]
	[[ $output != *"cpu vulnerabilities"* ]]
	echo PV >"$t/sys/hypervisor/guest_type"
	audit
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q "^note  cpu vulnerabilities  *a Xen PV guest: CPU vulnerabilities are the hypervisor's to mitigate (meltdown: Unknown (XEN PV detected, hypervisor mitigation required))$" <<<"$output"
	[[ $output == *"0 drift"* ]]
}

@test "audit: a changed sysctl is drift, with expected and actual, and exit 1" {
	fake_system
	echo 1 >"$BATS_TEST_TMPDIR/proc/sys/fs/protected_fifos"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift sysctl fs.protected_fifos"*"expected 2"*"actual 1"* ]]
	[[ $output == *"1 drift"* ]]
}

@test "audit: a capability back in PID 1's bounding set is drift" {
	fake_system
	printf 'Name:\tinit\nCapBnd:\t000001ffffffffff\n' >"$BATS_TEST_TMPDIR/proc/1/status"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift PID 1 bounding set cap_sys_rawio"* ]]
}

@test "audit: a private / is drift when the config asked for shared" {
	fake_system
	echo '22 1 254:0 / / ro,relatime - ext4 /dev/vda ro' >"$BATS_TEST_TMPDIR/proc/1/mountinfo"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift mount propagation /"* ]]
}

@test "audit --json is machine-readable and says the same" {
	fake_system
	echo 0 >"$BATS_TEST_TMPDIR/proc/sys/kernel/kptr_restrict"
	audit --json
	[ "$status" -eq 1 ]
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["drift"] == 1, d; assert any(i["status"] == "drift" and i["item"] == "sysctl kernel.kptr_restrict" for i in d["items"])' <<<"$output"
}

@test "audit without a boot report says why and exits 2" {
	fake_system
	rm "$BATS_TEST_TMPDIR/run/report.txt"
	audit
	[ "$status" -eq 2 ]
	[[ $output == *"cannot read the boot report"* ]]
}

@test "make install puts the binary, the builder, its cpio writer, the profiles, the man pages and the notes under DESTDIR" {
	dest=$BATS_TEST_TMPDIR/dest
	run make -C "$SRC" --no-print-directory install DESTDIR="$dest" PREFIX=/usr
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	for f in sbin/hardinit sbin/hardinit-mkinitramfs lib/hardinit/mkcpio; do
		[ -x "$dest/usr/$f" ] || { echo "missing $f"; false; }
	done
	for f in share/man/man8/hardinit.8 share/man/man8/hardinit-mkinitramfs.8 share/man/man5/hardinit.conf.5 \
		share/hardinit/profiles/baseline.conf share/hardinit/profiles/appliance.conf share/doc/hardinit/selinux.md; do
		[ -f "$dest/usr/$f" ] || { echo "missing $f"; false; }
	done
	# The installed builder finds its installed cpio writer and profiles.
	printf '#!/bin/sh\nexit 0\n' >"$BATS_TEST_TMPDIR/fake-init" && chmod +x "$BATS_TEST_TMPDIR/fake-init"
	run "$dest/usr/sbin/hardinit-mkinitramfs" -o "$BATS_TEST_TMPDIR/i.img" --hardinit "$dest/usr/sbin/hardinit" \
		--profile strict --compress none
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	cpio -it <"$BATS_TEST_TMPDIR/i.img" 2>/dev/null | grep -qx init
}

@test "every option of --help is in hardinit(8)" {
	man=$(sed 's/\\//g' "$SRC/man/hardinit.8")
	for cmd in check-config dry-run audit private-tmp --version --help --json --config --cmdline --root --report; do
		grep -q -- "$cmd" <<<"$man" || { echo "hardinit.8 lacks $cmd"; false; }
		"$HARDINIT" --help | grep -q -- "$cmd" || { echo "--help lacks $cmd"; false; }
	done
}

@test "audit: the TIOCSTI seccomp filter must still be in PID 1 when the boot installed it" {
	fake_system
	echo 'tty seccomp applied EIO errno, 14 insns, spec_allow=yes, Seccomp_filters=1' >>"$BATS_TEST_TMPDIR/run/report.txt"
	printf 'Name:\tinit\nCapBnd:\t000001fffffdffff\nSeccomp:\t2\nSeccomp_filters:\t1\n' >"$BATS_TEST_TMPDIR/proc/1/status"
	audit
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"ok    TIOCSTI seccomp filter in PID 1"* ]]
	printf 'Name:\tinit\nCapBnd:\t000001fffffdffff\nSeccomp:\t0\n' >"$BATS_TEST_TMPDIR/proc/1/status"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift TIOCSTI seccomp filter in PID 1"*"actual none"* ]]
}

@test "every section and key the shipped profiles use is documented in hardinit.conf(5)" {
	man=$(sed 's/\\//g' "$SRC/man/hardinit.conf.5")
	missing=""
	for key in $(awk -F= '/^\[/ {print; next} /^[a-z_]+ *=/ {gsub(/ /, "", $1); print $1}' "$SRC"/config/*.conf | sort -u); do
		grep -qF -- "${key//[\[\]]/}" <<<"$man" || missing+=" $key"
	done
	[ -z "$missing" ] || { echo "not in hardinit.conf.5:$missing"; false; }
}

# ima_appraise=off|log|fix disarms the boot's appraise rules.
@test "audit: ima_appraise=log on the kernel command line is drift when the boot's IMA policy appraises" {
	fake_system
	local t=$BATS_TEST_TMPDIR
	echo 'ima appraise_mode ok enforce (no ima_appraise= word), 1 appraise rules' >>"$t/run/report.txt"
	echo 'root=/dev/vda ro ima_appraise=enforce' >"$t/proc/cmdline"
	audit
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"ok    IMA appraisal (ima_appraise= of the kernel)"* ]]
	echo 'root=/dev/vda ro ima_appraise=enforce ima-appraise=log' >"$t/proc/cmdline"
	audit
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[[ $output == *"drift IMA appraisal (ima_appraise= of the kernel)"*"actual log (ima_appraise=log)"* ]]
	# Without appraise rules at boot the word disarms nothing: no check.
	sed -i '/^ima appraise_mode/d' "$t/run/report.txt"
	audit
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output != *"IMA appraisal"* ]]
}

# Under shim with validation disabled the kernel treats Secure
# Boot as off; audit reads the same variables.
@test "audit: SecureBoot=1 with shim's MokSBStateRT=1 is Secure Boot off" {
	fake_system
	local t=$BATS_TEST_TMPDIR v=$BATS_TEST_TMPDIR/sys/firmware/efi/efivars
	mkdir -p "$v"
	printf '\x06\x00\x00\x00\x01' >"$v/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
	printf '\x06\x00\x00\x00\x01' >"$v/MokSBStateRT-605dab50-e046-4300-abb6-3dd810dd8b23"
	echo 'firmware secure_boot info on' >>"$t/run/report.txt"
	audit
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[[ $output == *"drift secure boot"*"expected on"*"actual off"* ]]
	echo 'firmware secure_boot warn off (SecureBoot=1, but shim validation disabled: MokSBStateRT=1)' >>"$t/run/report.txt"
	sed -i '/^firmware secure_boot info on/d' "$t/run/report.txt"
	audit
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"ok    secure boot"* ]]
}
