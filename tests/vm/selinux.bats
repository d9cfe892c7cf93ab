#!/usr/bin/env bats
# The SELinux stage in QEMU with Debian's 6.12 cloud kernel and Debian's
# refpolicy (selinux-policy-default, installed on the build host: it only
# compiles /etc/selinux/default there; SELinux is not active on the host).
#
# The guest's truth comes from raw reads in /probe/run (selinuxfs files,
# /proc/1/attr/current, security.selinux xattrs read by the selinux_label
# probe), not from hardinit's report; the report is checked against them.
#
# One root image serves every policy fault: besides the real policy type
# "default" it carries the types "missing" (no policy file) and "truncated"
# (the first 512 KiB of policy.33), chosen per boot with
# hardinit.selinux.type=. A second image says SELINUX=disabled.
# A missing policy under require = yes and random bytes as a policy are
# decided from the root's files alone: tests/bats/selinux.bats checks them
# with hardinit dry-run --root. The truncated policy has a policy's header:
# only the kernel rejects it.

# budget: 85 s

load lib

FAIL="hardinit.boot.failure_action=poweroff"
SEL="root=/dev/vda security=selinux $FAIL"
POLICY=/etc/selinux/default/policy/policy.33
FC=/etc/selinux/default/contexts/files/file_contexts

# What the guest reports: selinuxfs, the domains, labels, booleans.
probe_script() {
	cat <<-'EOF'
		#!/bin/busybox sh
		echo "=== BEGIN SELINUX ==="
		if [ -r /sys/fs/selinux/enforce ]; then
			echo "enforce=$(cat /sys/fs/selinux/enforce)"
		else
			echo "enforce=absent"
		fi
		echo "pid1=$(tr -d '\000' </proc/1/attr/current)"
		/probe/selinux_label /dev/null /dev/console /run /sbin/init
		for b in allow_execstack allow_execmem allow_polyinstantiation; do
			if [ -r /sys/fs/selinux/booleans/$b ]; then
				echo "bool.$b=$(cat /sys/fs/selinux/booleans/$b)"
			else
				echo "bool.$b=absent"
			fi
		done
		echo "=== END SELINUX ==="
	EOF
}

# hardinit.conf for the initramfs: follow /etc/selinux/config, warn on a
# failed load, relabel, and three booleans refpolicy has plus Fedora's
# name for one of them, which refpolicy lacks.
hardinit_conf() {
	cat <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0

		[selinux]
		mode = config
		require = no
		relabel = yes
		boolean = allow_execstack=on
		boolean = allow_polyinstantiation=on
		boolean = allow_execmem=off
		boolean = deny_execmem=on
	EOF
}

stage_selinux_root() {
	local dir=$1 selinux_mode=$2
	rm -rf "$dir" && mkdir -p "$dir"
	vm_stage_root "$dir"
	mkdir -p "$dir/etc/selinux"
	cp -a /etc/selinux/default "$dir/etc/selinux/"
	printf 'SELINUX=%s\nSELINUXTYPE=default\n' "$selinux_mode" >"$dir/etc/selinux/config"
	local t
	for t in missing truncated; do
		mkdir -p "$dir/etc/selinux/$t/policy" "$dir/etc/selinux/$t/contexts/files"
		cp "$FC" "$dir/etc/selinux/$t/contexts/files/"
	done
	head -c 524288 "$POLICY" >"$dir/etc/selinux/truncated/policy/policy.33"
	probe_script | vm_probe_script "$dir"
	vm_selinux_label "$dir"
}

setup_file() {
	[[ -f $POLICY && -f $FC ]] || skip "selinux-policy-default is not installed (apt-get install selinux-policy-default)"
	command -v setfiles >/dev/null || skip "setfiles missing (apt-get install policycoreutils)"
	local dir
	dir=$(vm_cache_dir)/selinux
	mkdir -p "$dir"
	export SE_DIR=$dir
	stage_selinux_root "$dir/root" permissive
	vm_rootfs "$dir/root.img" "$dir/root"
	stage_selinux_root "$dir/disabled" disabled
	vm_rootfs "$dir/disabled.img" "$dir/disabled"
	hardinit_conf >"$dir/hardinit.conf"
	vm_initramfs "$dir/initrd.img" --config "$dir/hardinit.conf"
	vm_initramfs "$dir/initrd-embedded.img" --config "$dir/hardinit.conf" \
		--policy "$POLICY" --policy-type default --file-contexts "$FC"
}

boot() {
	local log=$1 img=$2 initrd=$SE_DIR/initrd.img
	shift 2
	if [[ ${1:-} == --embedded ]]; then
		initrd=$SE_DIR/initrd-embedded.img
		shift
	fi
	vm_boot "$log" --initrd "$initrd" --disk "$SE_DIR/$img" "$@"
}

# A line of hardinit's report (report.txt: "stage key status value").
report_line() {
	vm_section "$1" REPORT | grep -E "^selinux +$2 "
}

@test "permissive config: policy loaded, init in init_t, /dev and /run relabelled, booleans set" {
	log=$BATS_TEST_TMPDIR/permissive.log
	boot "$log" root.img --append "$SEL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SELINUX "enforce=0"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	vm_assert_section_line "$log" SELINUX "/dev/null system_u:object_r:null_device_t:s0"
	vm_assert_section_line "$log" SELINUX "/dev/console system_u:object_r:console_device_t:s0"
	vm_assert_section_line "$log" SELINUX "/run system_u:object_r:var_run_t:s0"
	vm_assert_section_line "$log" SELINUX "/sbin/init system_u:object_r:init_exec_t:s0"
	# refpolicy's defaults are all off: on means hardinit set it.
	vm_assert_section_line "$log" SELINUX "bool.allow_execstack=1 1"
	vm_assert_section_line "$log" SELINUX "bool.allow_polyinstantiation=1 1"
	vm_assert_section_line "$log" SELINUX "bool.allow_execmem=0 0"
	# Fedora's name is a warning, not a failure.
	vm_assert_log_contains "$log" "boolean deny_execmem: the loaded policy has no such boolean"
	# The report agrees with the guest, and has the keys bench/run reads.
	run report_line "$log" policy
	[[ $output == *"/etc/selinux/default/policy/policy.33"* ]] || { echo "$output"; false; }
	run report_line "$log" policy_version
	[[ $output == *" 33" ]] || { echo "$output"; false; }
	run report_line "$log" load_ms
	[[ $output =~ load_ms\ ok\ [0-9]+\.[0-9]{3}$ ]] || { echo "$output"; false; }
	run report_line "$log" relabel_ms
	[[ $output =~ relabel_ms\ ok\ [0-9]+\.[0-9]{3}$ ]] || { echo "$output"; false; }
	run report_line "$log" init_domain
	[[ $output == *"init_t"* ]] || { echo "$output"; false; }
}

@test "hardinit mode enforcing: the kernel enforces and init still runs in init_t" {
	log=$BATS_TEST_TMPDIR/enforcing.log
	boot "$log" root.img --append "$SEL hardinit.selinux.mode=enforcing"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SELINUX "enforce=1"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	# /etc/selinux/config says permissive: a systemd reload would switch.
	vm_assert_log_contains "$log" "a systemd real init will reload the policy and set permissive"
}

@test "kernel enforcing=0 beats hardinit's mode enforcing" {
	log=$BATS_TEST_TMPDIR/enforcing0.log
	boot "$log" root.img --append "$SEL enforcing=0 hardinit.selinux.mode=enforcing"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SELINUX "enforce=0"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	run report_line "$log" enforce
	[[ $output == *"kernel enforcing=0"* ]] || { echo "$output"; false; }
}

@test "no policy for the root's type: the initramfs's embedded policy is loaded" {
	log=$BATS_TEST_TMPDIR/embedded.log
	boot "$log" root.img --embedded --append "$SEL hardinit.selinux.type=missing"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	vm_assert_section_line "$log" SELINUX "/dev/null system_u:object_r:null_device_t:s0"
	run report_line "$log" policy
	[[ $output == *"/run/hardinit/selinux/policy"* ]] || { echo "$output"; false; }
	run report_line "$log" policy_type
	[[ $output == *"default (embedded in the initramfs)"* ]] || { echo "$output"; false; }
}

@test "truncated policy in enforcing mode: the kernel rejects it and the boot fails" {
	log=$BATS_TEST_TMPDIR/truncated.log
	boot "$log" root.img --append "$SEL hardinit.selinux.type=truncated hardinit.selinux.mode=enforcing"
	vm_assert_log_contains "$log" "SELinux: the kernel rejected the policy /etc/selinux/truncated/policy/policy.33 (version 33, 524288 bytes)"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	[[ $(vm_exit_reason "$log") == poweroff ]]
}

@test "kernel without security=selinux and require = yes: says so and fails" {
	log=$BATS_TEST_TMPDIR/apparmor.log
	boot "$log" root.img --append "root=/dev/vda $FAIL hardinit.selinux.require=yes"
	vm_assert_log_contains "$log" "no selinuxfs in /proc/filesystems"
	vm_assert_log_contains "$log" "boot with security=selinux"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	[[ $(vm_exit_reason "$log") == poweroff ]]
}

@test "SELINUX=disabled: no policy, no selinuxfs mount, the boot goes on" {
	log=$BATS_TEST_TMPDIR/disabled.log
	boot "$log" disabled.img --append "$SEL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SELINUX "enforce=absent"
	vm_assert_section_line "$log" SELINUX "pid1=kernel"
	vm_assert_log_contains "$log" "SELinux: not loading a policy: /etc/selinux/config SELINUX=disabled"
	run report_line "$log" mode
	[[ $output == *"skipped disabled"* ]] || { echo "$output"; false; }
}

@test "an init on a file system without labels (iso9660) still enters init_t: hardinit sets its exec context" {
	command -v genisoimage >/dev/null || skip "genisoimage missing (apt-get install genisoimage)"
	# The permissive root as an ISO 9660 image: Rock Ridge keeps modes and
	# links, but the file system holds no security.selinux xattrs, so every
	# file carries the policy's genfs label (iso9660_t), never init_exec_t.
	vm_build_once "$SE_DIR/root.iso" \
		genisoimage -quiet -R -o "$SE_DIR/root.iso" "$SE_DIR/root"
	vm_build_once "$SE_DIR/initrd-iso.img" \
		vm_initramfs "$SE_DIR/initrd-iso.img" --config "$SE_DIR/hardinit.conf" --modules isofs
	log=$BATS_TEST_TMPDIR/iso.log
	vm_boot "$log" --initrd "$SE_DIR/initrd-iso.img" --disk "$SE_DIR/root.iso" \
		--append "root=/dev/vda rootfstype=iso9660 security=selinux $FAIL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SELINUX "enforce=0"
	vm_assert_section_contains "$log" SELINUX "/sbin/init system_u:object_r:iso9660_t"
	vm_assert_section_line "$log" SELINUX "pid1=system_u:system_r:init_t:s0"
	vm_assert_log_contains "$log" "cannot hold labels; asking for system_u:system_r:init_t:s0 on its exec"
	report_line "$log" init_domain | grep -q "applied"
}
