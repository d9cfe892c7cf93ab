#!/usr/bin/env bats
# arm64: hardinit's arm64 image, built by hardinit-mkinitramfs
# for Debian's 6.12 arm64 cloud kernel, boots a Debian 12 arm64 root with
# systemd (tests/vm/images.bash: img_debian_systemd_arm64, debootstrap
# --foreign on the host and its second stage under qemu-user in a user
# namespace, cached) to multi-user under qemu-system-aarch64 -M virt (TCG,
# lib.bash's CPU model). One boot carries every check. The probe unit
# (after multi-user.target) reads the raw state: who PID 1 is, systemd's
# state, the sysctls, the bounding sets, TIOCSTI and MDWE (the static arm64
# probes of tests/probe), the same keys as tests/vm/arm64.bats's busybox
# probe; hardinit's report and console lines show the hand-off.

export VM_ARCH=arm64
# budget: 50 s
# cold: 470 s images/debian-systemd-arm64-*/tree.done

load lib
load arm64
load images

KERNEL=6.12-arm64
DROPS=(17 38 39 40)

setup_file() {
	local dir img start
	dir=$(vm_cache_dir)/arm64-debian
	mkdir -p "$dir"
	export D_DIR=$dir
	start=$SECONDS
	img=$(img_debian_systemd_arm64) || return 1
	echo $((SECONDS - start)) >"$dir/image.seconds"
	arm64_conf >"$dir/test.conf"
	vm_initramfs "$dir/debian.img" --kernel "$KERNEL" --config "$dir/test.conf" >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log" >&2; return 1; }
	start=$SECONDS
	vm_boot "$dir/boot.log" --kernel "$KERNEL" --initrd "$dir/debian.img" --disk "$img" \
		--append "root=/dev/vda hardinit.boot.failure_action=poweroff" --timeout 600 -- -snapshot || true
	echo $((SECONDS - start)) >"$dir/boot.seconds"
}

@test "arm64 Debian: hardinit hands off to systemd, which reaches multi-user" {
	local log=$D_DIR/boot.log
	echo "# image (cached unless cold): $(cat "$D_DIR/image.seconds") s; boot to poweroff with $VM_CPU: $(cat "$D_DIR/boot.seconds") s" >&3
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	[[ $(vm_exit_reason "$log") == poweroff ]]
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	expect "$log" uname aarch64
	expect "$log" pid1.comm systemd
	expect "$log" pid1.exe /usr/lib/systemd/systemd
	vm_assert_section_line "$log" SYSTEMD "state=running"
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	# hardinit's report, written before the hand-off, read under systemd.
	vm_assert_section_contains "$log" REPORT "memory nx ok execute-never is architectural on aarch64"
}

@test "arm64 Debian: the sysctls, ASLR and the bounding set read back under systemd" {
	local log=$D_DIR/boot.log want
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	expect "$log" sysctl.kernel.kptr_restrict 2
	expect "$log" sysctl.kernel.dmesg_restrict 1
	expect "$log" sysctl.fs.protected_fifos 2
	expect "$log" sysctl.kernel.randomize_va_space 2
	expect "$log" sysctl.vm.mmap_rnd_bits 33
	expect "$log" sysctl.dev.tty.legacy_tiocsti 0
	want=$(vm_capbnd_without "${DROPS[@]}")
	expect "$log" capbnd.pid1 "$want"
	expect "$log" capbnd.fresh "$want"
}

@test "arm64 Debian: TIOCSTI refused to an unprivileged process under systemd, by the sysctl" {
	local log=$D_DIR/boot.log
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	expect "$log" sysctl.dev.tty.legacy_tiocsti 0
	# legacy_tiocsti=0 leaves TIOCSTI to CAP_SYS_ADMIN: root may, uid 1001
	# may not, whatever the request's upper bits.
	[[ $(guest "$log" root.tiocsti) == ok* ]] || { vm_section "$log" ARM64; false; }
	[[ $(guest "$log" alice.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	[[ $(guest "$log" alicehigh.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	vm_assert_section_contains "$log" REPORT "mechanism=sysctl"
}

@test "arm64 Debian: MDWE holds in a process systemd started" {
	local log=$D_DIR/boot.log
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	expect "$log" wx.mdwe 1
	expect "$log" wx.mmap_x ok
	expect "$log" wx.mmap_wx EACCES
	expect "$log" wx.mprotect_w_then_x EACCES
	vm_assert_section_contains "$log" REPORT "memory mdwe applied"
}
