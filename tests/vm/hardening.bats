#!/usr/bin/env bats
# The hardening stages in QEMU: sysctls, NX/ASLR/MDWE, the
# capability bounding set and the usermodehelper sets, the one-way locks,
# the older-kernel paths on Debian 12's 6.1, a config error's failure
# action, and the strict profile on 6.12. Every check reads what the guest
# shows through raw reads (/proc/sys, /proc/PID/status) and the static
# probes tests/probe/wx.c and tests/probe/lockprobe.c, printed by
# /probe/run between "=== BEGIN HARDEN ===" and "=== END HARDEN ===";
# hardinit's own report is only checked against them.

# budget: 50 s

load lib

FAIL="hardinit.boot.failure_action=poweroff"
# The caps the test config drops: sys_rawio (17, low word), perfmon (38),
# bpf (39) and checkpoint_restore (40, the top of the high word).
DROPS=(17 38 39 40)
STRICT_DROPS=(38 39 40)

setup_file() {
	local dir
	dir=$(vm_cache_dir)/hardening
	mkdir -p "$dir"
	export HDIR=$dir

	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	# Makes the root look systemd-based, so the sysctl stage writes its
	# drop-in; testinit stays the init.
	mkdir -p "$dir/root/usr/lib/systemd" && : >"$dir/root/usr/lib/systemd/systemd"
	write_config "$dir/test.conf"
	config_sysctls "$dir/test.conf" >"$dir/root/probe/sysctls"
	config_sysctls "$HARDINIT_SRC/config/strict.conf" >>"$dir/root/probe/sysctls"
	printf '%s\n' kernel.randomize_va_space vm.mmap_min_addr vm.mmap_rnd_bits \
		vm.mmap_rnd_compat_bits kernel.modules_disabled kernel.kexec_load_disabled \
		kernel.yama.ptrace_scope >>"$dir/root/probe/sysctls"
	sort -u -o "$dir/root/probe/sysctls" "$dir/root/probe/sysctls"
	vm_probe_script "$dir/root" <"$BATS_TEST_DIRNAME/hardening.probe"
	vm_rootfs "$dir/root.img" "$dir/root"

	vm_initramfs "$dir/test-6.12.img" --config "$dir/test.conf"
}

write_config() {
	cat >"$1" <<-'EOF'
		# tests/vm/hardening.bats: every hardening stage on, small lists.
		[boot]
		failure_action = poweroff
		failure_delay = 0
		[memory]
		nx = require
		aslr = yes
		mdwe = yes
		[sysctl]
		persist = yes
		kernel.kptr_restrict = 2
		kernel.dmesg_restrict = 1
		fs.protected_fifos = 2
		dev.tty.legacy_tiocsti = 0
		kernel.io_uring_disabled = 2
		[capabilities]
		drop = cap_sys_rawio
		drop = cap_perfmon
		drop = cap_bpf
		drop = cap_checkpoint_restore
		[locks]
		modules = yes
		kexec = yes
		lockdown = integrity
		ptrace_scope = 2
	EOF
}

# "key value" for every sysctl line of a config's [sysctl] section.
config_sysctls_values() {
	awk '
		/^\[/ { in_sysctl = ($0 == "[sysctl]"); next }
		in_sysctl && /^[a-z][a-z0-9_.\/-]*[ \t]*=/ {
			split($0, kv, "=")
			key = kv[1]; val = substr($0, index($0, "=") + 1)
			gsub(/[ \t]/, "", key); gsub(/^[ \t]+|[ \t]+$/, "", val)
			if (key != "persist" && key != "require") print key, val
		}' "$1"
}

config_sysctls() {
	config_sysctls_values "$1" | cut -d' ' -f1
}

# The guest's raw value of a key, as /probe/run printed it, and the
# assertion on it.
guest() {
	vm_section_value "$1" HARDEN "$2"
}

expect() {
	vm_assert_section_value "$1" HARDEN "$2" "$3"
}

# The usermodehelper form: "LOW HIGH" (the probe collapses the tab).
umh_without() {
	local mask
	mask=$((16#$(vm_capbnd_without "$@")))
	printf '%d %d\n' $((mask & 0xffffffff)) $((mask >> 32))
}

boot_test() {
	local log=$1 kernel=$2 initrd=$3
	shift 3
	vm_boot "$log" --kernel "$kernel" --initrd "$initrd" --disk "$HDIR/root.img" \
		--append "root=/dev/vda $FAIL $*"
}

@test "6.12: sysctls, ASLR, capabilities, MDWE and the locks hold in the guest" {
	log=$BATS_TEST_TMPDIR/on.log
	boot_test "$log" 6.12 "$HDIR/test-6.12.img"
	vm_assert_done "$log"

	# Every sysctl of the config, read raw from /proc/sys.
	while read -r key value; do
		expect "$log" "sysctl.$key" "$value"
	done < <(config_sysctls_values "$HDIR/test.conf")
	expect "$log" sysctl.kernel.randomize_va_space 2
	expect "$log" sysctl.vm.mmap_min_addr 65536
	# x86_64's CONFIG_ARCH_MMAP_RND_BITS_MAX and _COMPAT_BITS_MAX: the
	# walk down from 32 must end at the kernel's maximum, not its default.
	expect "$log" sysctl.vm.mmap_rnd_bits 32
	expect "$log" sysctl.vm.mmap_rnd_compat_bits 16

	# The bounding set of PID 1 and of a freshly started process, and the
	# sets kernel-spawned helpers get: exactly the dropped caps are gone.
	want=$(vm_capbnd_without "${DROPS[@]}")
	expect "$log" capbnd.pid1 "$want"
	expect "$log" capbnd.fresh "$want"
	expect "$log" capinh.pid1 0000000000000000
	expect "$log" umh.bset "$(umh_without "${DROPS[@]}")"
	expect "$log" umh.inheritable "$(umh_without "${DROPS[@]}")"

	# The boot ran at BOOT_NICE; the real init and what it starts do not.
	expect "$log" nice.pid1 0
	expect "$log" nice.fresh 0
	vm_assert_section_contains "$log" REPORT "early priority applied nice -20 during the boot (was 0)"
	# RCU grace periods were expedited for the boot, and are normal again.
	expect "$log" rcu_expedited 0
	vm_assert_section_contains "$log" REPORT "early rcu_expedited applied 1 during the boot (was 0)"

	# MDWE: inherited by the probe through fork and execve.
	expect "$log" wx.mdwe 1
	expect "$log" wx.mmap_x ok
	expect "$log" wx.mmap_wx EACCES
	expect "$log" wx.mprotect_w_then_x EACCES

	# The locks.
	expect "$log" sysctl.kernel.modules_disabled 1
	expect "$log" sysctl.kernel.kexec_load_disabled 1
	expect "$log" sysctl.kernel.yama.ptrace_scope 2
	expect "$log" lock.init_module EPERM
	expect "$log" lock.finit_module EPERM
	expect "$log" lock.kexec_load EPERM
	expect "$log" lockdown "none [integrity] confidentiality"

	# The drop-in for systemd-sysctl, and hardinit's report agreeing.
	vm_assert_section_line "$log" HARDEN "dropin: fs.protected_fifos = 2"
	vm_assert_section_line "$log" HARDEN "dropin: kernel.yama.ptrace_scope = 2"
	vm_assert_section_contains "$log" REPORT "sysctl persist applied"
	vm_assert_section_contains "$log" REPORT "caps bounding_set info $want"
	vm_assert_section_contains "$log" REPORT "memory mdwe applied"
}

@test "6.12: with MDWE and the locks off, W+X works and modules can load" {
	log=$BATS_TEST_TMPDIR/off.log
	boot_test "$log" 6.12 "$HDIR/test-6.12.img" hardinit.memory.mdwe=no \
		hardinit.locks.modules=no hardinit.locks.kexec=no hardinit.locks.lockdown=none
	vm_assert_done "$log"
	expect "$log" wx.mdwe 0
	expect "$log" wx.mmap_wx ok
	expect "$log" wx.mprotect_w_then_x ok
	expect "$log" sysctl.kernel.modules_disabled 0
	# Loading is open: the garbage image gets as far as the ELF check.
	expect "$log" lock.init_module ENOEXEC
	expect "$log" lock.kexec_load ok
	vm_assert_section_contains "$log" REPORT "memory mdwe skipped"
}

@test "6.1: sysctls missing on Debian 12's kernel are reported absent and the boot continues" {
	vm_build_once "$HDIR/test-6.1.img" vm_initramfs "$HDIR/test-6.1.img" --kernel 6.1 --config "$HDIR/test.conf"
	log=$BATS_TEST_TMPDIR/old.log
	boot_test "$log" 6.1 "$HDIR/test-6.1.img"
	vm_assert_done "$log"
	expect "$log" sysctl.dev.tty.legacy_tiocsti "<absent>"
	expect "$log" sysctl.kernel.io_uring_disabled "<absent>"
	vm_assert_section_contains "$log" REPORT "sysctl dev.tty.legacy_tiocsti absent"
	vm_assert_section_contains "$log" REPORT "sysctl kernel.io_uring_disabled absent"
	vm_assert_log_contains "$log" "sysctl: dev.tty.legacy_tiocsti is absent on this kernel"
	# MDWE needs 6.3: said so, and W+X still works.
	expect "$log" wx.mdwe EINVAL
	expect "$log" wx.mmap_wx ok
	vm_assert_section_contains "$log" REPORT "memory mdwe absent"
	# The rest still holds.
	expect "$log" sysctl.kernel.kptr_restrict 2
	expect "$log" sysctl.fs.protected_fifos 2
	expect "$log" capbnd.fresh "$(vm_capbnd_without "${DROPS[@]}")"
	expect "$log" lock.init_module EPERM
}

@test "an unknown capability name is a config error: the failure action, naming the line" {
	local conf=$HDIR/badcap.conf img=$HDIR/badcap.img
	{
		printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\n'
		printf '[capabilities]\ndrop = cap_bpf\ndrop = cap_bogus\n'
	} >"$conf"
	# The builder would refuse it (check-config); build it anyway.
	vm_build_once "$img" vm_initramfs "$img" --config "$conf" --no-check
	log=$BATS_TEST_TMPDIR/badcap.log
	boot_test "$log" 6.12 "$img"
	[[ $(vm_exit_reason "$log") == poweroff ]] || {
		vm_log_tail "$log"
		false
	}
	vm_assert_log_contains "$log" "cap_bogus"
	vm_assert_log_contains "$log" "hardinit.conf:6"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
}

@test "strict profile on 6.12: every sysctl reads back at its value" {
	vm_build_once "$HDIR/strict-6.12.img" vm_initramfs "$HDIR/strict-6.12.img" --profile strict
	log=$BATS_TEST_TMPDIR/strict.log
	boot_test "$log" 6.12 "$HDIR/strict-6.12.img"
	vm_assert_done "$log"
	local bad=0
	while read -r key value; do
		expect "$log" "sysctl.$key" "$value" || bad=1
	done < <(config_sysctls_values "$HARDINIT_SRC/config/strict.conf")
	((bad == 0))
	expect "$log" sysctl.kernel.kexec_load_disabled 1
	want=$(vm_capbnd_without "${STRICT_DROPS[@]}")
	expect "$log" capbnd.pid1 "$want"
	expect "$log" capbnd.fresh "$want"
	expect "$log" umh.bset "$(umh_without "${STRICT_DROPS[@]}")"
	vm_assert_section_lacks "$log" REPORT " refused "
}
