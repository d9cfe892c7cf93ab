#!/usr/bin/env bats
# arm64 (issue 28): hardinit cross-built for aarch64 (make ARCH=arm64), its
# image built by hardinit-mkinitramfs from the binary's ELF header, booted
# with Debian's arm64 cloud kernels under qemu-system-aarch64 -M virt (TCG)
# to a busybox root. One boot per kernel, shared by the tests: 6.1 (no
# dev.tty.legacy_tiocsti, so TIOCSTI is stopped by the aarch64 seccomp
# filter; no MDWE before 6.3) and 6.12 (legacy_tiocsti, MDWE). Every check
# reads the guest's raw state (/proc, the static arm64 probes); hardinit's
# report is only checked against it.
#
# CPU model: max,pauth-impdef=on (lib.bash's default for VM_ARCH=arm64).
# Measured on this 2-core machine under load, boot to poweroff, 6.1 / 6.12:
# cortex-a57 11 s / 16 s, max,pauth-impdef=on 9 s / 11 s, max 17 s / 18 s.
# Plain max emulates pointer authentication with the QARMA cipher in
# software, costly on every return of a PAC-built kernel; pauth-impdef=on
# swaps in a cheap hash, and the CPU still has BTI and PAC, so the kernels
# run with them on as on recent hardware. VM_CPU overrides it; the boot
# times are printed by the first test (# lines).

export VM_ARCH=arm64
load lib

FAIL="hardinit.boot.failure_action=poweroff"
APPEND="root=/dev/vda $FAIL"
DROPS=(17 38 39 40)
LAST_CAP=40   # both arm64 kernels

setup_file() {
	local dir
	dir=$(vm_cache_dir)/arm64
	mkdir -p "$dir"
	export A_DIR=$dir

	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	vm_probe_script "$dir/root" <<-'EOF'
		echo "=== BEGIN ARM64 ==="
		echo "uname=$(uname -m)"
		for key in kernel.kptr_restrict kernel.dmesg_restrict fs.protected_fifos \
			kernel.randomize_va_space vm.mmap_min_addr vm.mmap_rnd_bits vm.mmap_rnd_compat_bits \
			dev.tty.legacy_tiocsti; do
			f=/proc/sys/$(echo "$key" | tr . /)
			if [ -e "$f" ]; then echo "sysctl.$key=$(cat "$f")"; else echo "sysctl.$key=<absent>"; fi
		done
		echo "capbnd.pid1=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/1/status)"
		echo "capbnd.fresh=$(/bin/busybox sh -c 'sed -n "s/^CapBnd:[[:space:]]*//p" /proc/$$/status')"
		echo "seccomp.pid1=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/1/status)"
		echo "seccomp.fresh=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)"
		/probe/tiocsti /dev/ttyAMA0 | sed 's/^/root./'
		/probe/tiocsti --high /dev/ttyAMA0 | sed 's/^/roothigh./'
		/probe/tiocsti --uid 1001 /dev/ttyAMA0 | sed 's/^/alice./'
		/probe/tiocsti --uid 1001 --high /dev/ttyAMA0 | sed 's/^/alicehigh./'
		/probe/wx
		echo "=== END ARM64 ==="
	EOF
	vm_rootfs "$dir/root.img" "$dir/root"
	cat >"$dir/test.conf" <<-'EOF'
		# tests/vm/arm64.bats
		[boot]
		failure_action = poweroff
		failure_delay = 0
		[memory]
		nx = require
		aslr = yes
		mdwe = yes
		[sysctl]
		kernel.kptr_restrict = 2
		kernel.dmesg_restrict = 1
		fs.protected_fifos = 2
		[capabilities]
		drop = cap_sys_rawio
		drop = cap_perfmon
		drop = cap_bpf
		drop = cap_checkpoint_restore
		[tty]
		tiocsti = deny-unprivileged
		[kernel]
		warn = vsyscall=none
		warn = kpti=1
	EOF
	local k start
	for k in 6.1 6.12; do
		vm_initramfs "$dir/$k.img" --kernel "$k-arm64" --config "$dir/test.conf" >"$dir/$k.build" 2>&1 ||
			{ cat "$dir/$k.build" >&2; return 1; }
		start=$SECONDS
		vm_boot "$dir/$k.log" --kernel "$k-arm64" --initrd "$dir/$k.img" --disk "$dir/root.img" \
			--append "$APPEND" --timeout 180 || true
		echo $((SECONDS - start)) >"$dir/$k.seconds"
	done
}

# The guest's raw value of a probe line.
guest() {
	vm_section "$1" ARM64 | sed -n "s|^$2=||p" | head -n1
}

expect() {
	local log=$1 key=$2 want=$3 got
	got=$(guest "$log" "$key")
	[[ $got == "$want" ]] || {
		echo "$key: guest reads '$got', expected '$want'"
		vm_section "$log" ARM64
		return 1
	}
}

capbnd_without() {
	local mask=$(((1 << (LAST_CAP + 1)) - 1)) c
	for c in "$@"; do
		mask=$((mask & ~(1 << c)))
	done
	printf '%016x\n' "$mask"
}

@test "arm64 image: built for arm64 from the binary, virtio_mmio and virtio_pci in, no x86 word checked" {
	local k
	for k in 6.1 6.12; do
		grep -q "architecture arm64" "$A_DIR/$k.build"
		grep -q "virtio_mmio" "$A_DIR/$k.build"
		grep -q "virtio_pci" "$A_DIR/$k.build"
		echo "# $k-arm64 boot with $VM_CPU: $(cat "$A_DIR/$k.seconds") s" >&3
	done
}

@test "arm64 6.1: hardinit reaches the busybox root; sysctls, bounding set, ASLR read back" {
	local log=$A_DIR/6.1.log
	vm_assert_done "$log"
	expect "$log" uname aarch64
	expect "$log" sysctl.kernel.kptr_restrict 2
	expect "$log" sysctl.kernel.dmesg_restrict 1
	expect "$log" sysctl.fs.protected_fifos 2
	expect "$log" sysctl.kernel.randomize_va_space 2
	expect "$log" sysctl.vm.mmap_min_addr 65536
	# arm64's CONFIG_ARCH_MMAP_RND_BITS_MAX with 48-bit VA and 4K pages:
	# 33, one above x86_64's 32, so the walk must start at arm64's top.
	expect "$log" sysctl.vm.mmap_rnd_bits 33
	expect "$log" sysctl.vm.mmap_rnd_compat_bits 16
	local want
	want=$(capbnd_without "${DROPS[@]}")
	expect "$log" capbnd.pid1 "$want"
	expect "$log" capbnd.fresh "$want"
	# NX needs no cpuinfo flag on arm64; the x86-only word is not checked.
	vm_assert_section_contains "$log" REPORT "memory nx ok execute-never is architectural on aarch64"
	vm_assert_section_contains "$log" REPORT "kernel vsyscall=none skipped a word of x86_64 kernels only"
	vm_assert_section_contains "$log" REPORT "kernel kpti=1 warn"
}

@test "arm64 6.1: no legacy_tiocsti, so the aarch64 seccomp filter stops TIOCSTI for everyone" {
	local log=$A_DIR/6.1.log
	vm_assert_done "$log"
	expect "$log" sysctl.dev.tty.legacy_tiocsti "<absent>"
	expect "$log" seccomp.pid1 2
	expect "$log" seccomp.fresh 2
	[[ $(guest "$log" root.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	[[ $(guest "$log" roothigh.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	[[ $(guest "$log" alice.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	[[ $(guest "$log" alicehigh.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	vm_assert_section_contains "$log" REPORT "tty seccomp applied"
	vm_assert_section_contains "$log" REPORT "mechanism=seccomp"
	# MDWE is 6.3+: reported absent, and the probe can map W+X.
	vm_assert_section_contains "$log" REPORT "memory mdwe absent"
}

@test "arm64 6.12: MDWE refuses W+X in every process; TIOCSTI by the sysctl" {
	local log=$A_DIR/6.12.log
	vm_assert_done "$log"
	expect "$log" uname aarch64
	expect "$log" wx.mdwe 1
	expect "$log" wx.mmap_x ok
	expect "$log" wx.mmap_wx EACCES
	expect "$log" wx.mprotect_w_then_x EACCES
	expect "$log" sysctl.dev.tty.legacy_tiocsti 0
	expect "$log" sysctl.vm.mmap_rnd_bits 33
	expect "$log" capbnd.fresh "$(capbnd_without "${DROPS[@]}")"
	[[ $(guest "$log" alice.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	vm_assert_section_contains "$log" REPORT "memory mdwe applied"
	vm_assert_section_contains "$log" REPORT "mechanism=sysctl"
}
