#!/usr/bin/env bats
# arm64: hardinit cross-built for aarch64 (make ARCH=arm64), its
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
#
# The UKI (hardinit-mkinitramfs --uki with systemd-boot-efi:arm64's
# linuxaa64.efi.stub, unpacked into the kernel cache by fetch-kernel, and
# Debian's arm64 vmlinuz, which is the uncompressed Image systemd 252's
# stub needs) boots from an ESP as \EFI\BOOT\BOOTAA64.EFI under AAVMF
# (qemu-efi-aarch64) with Secure Boot: Debian's AAVMF_CODE.fd is built with
# it and AAVMF_VARS.snakeoil.fd enrolls the snakeoil PK/KEK/db (the virt
# machine has no SMM, so unlike OVMF's secboot build the variable store is
# not protected from the OS; the firmware still enforces the signature).
# One Secure Boot boot of the signed strict UKI carries every check of it
# (the busybox root, SecureBoot=1 read from efivars, the baked command
# line, the hardening); a second, bounded, shows the unsigned UKI refused.
#
# The verity root and the SELinux policy load share one direct-kernel boot
# (6.12-arm64, security=selinux): the arm64 root, labelled on the host with
# setfiles for Debian's refpolicy (the binary policy is the same on every
# architecture) and made a verity data device with veritysetup format as
# tests/vm/verity.bats does; the root hash embedded by the builder, the
# hash tree on vdb; /etc/selinux/config permissive. The guest reads the
# root's dm device, its table (the arm64 dmtable probe) and selinuxfs.

export VM_ARCH=arm64
# budget: 70 s

load lib
load arm64

FAIL="hardinit.boot.failure_action=poweroff"
APPEND="root=/dev/vda $FAIL"
DROPS=(17 38 39 40)
AAVMF=/usr/share/AAVMF
SNAKEOIL=/usr/share/qemu-efi-aarch64/PkKek-1-snakeoil
UKI_KERNEL=6.12-arm64
UKI_CMDLINE="root=/dev/vda console=ttyAMA0 panic=-1 $FAIL"

setup_file() {
	local dir
	dir=$(vm_cache_dir)/arm64
	mkdir -p "$dir"
	export A_DIR=$dir

	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	# hardinit itself, run once more on the root for its mapping's flags.
	install -m 0755 "$_VM_BUILD/hardinit" "$dir/root/probe/hardinit"
	vm_probe_script "$dir/root" <<-'EOF'
		echo "=== BEGIN ARM64 ==="
		echo "uname=$(uname -m)"
		echo "vda.path=$(readlink -f /sys/block/vda)"
		# BTI: the VmFlags of the text of PID 1 (the test init, built as
		# hardinit is) and of hardinit running (its --help blocked on a pipe
		# that 64 KiB already fill, until /run/bti.read is there; bounded),
		# then the enforcement probe.
		text_flags() {
			awk -v exe="$2" '$2 == "r-xp" && $6 == exe { x = 1; next }
				/^[0-9a-f]+-[0-9a-f]+ / { x = 0 }
				x && /^VmFlags:/ { sub(/^VmFlags: */, ""); print; exit }' "/proc/$1/smaps"
		}
		echo "pid1.text=$(text_flags 1 /sbin/init)"
		(dd if=/dev/zero bs=4096 count=16 2>/dev/null; exec /probe/hardinit --help) |
			{ n=0; while [ ! -e /run/bti.read ] && [ $n -lt 60 ]; do sleep 1; n=$((n + 1)); done; cat >/dev/null; } &
		hp="" n=0
		while [ -z "$hp" ] && [ $n -lt 500 ]; do
			for p in /proc/[0-9]*; do [ "$(readlink "$p/exe")" = /probe/hardinit ] && hp=${p#/proc/}; done
			n=$((n + 1))
		done
		echo "hardinit.text=$(text_flags "${hp:-none}" /probe/hardinit)"
		touch /run/bti.read
		wait
		/probe/bti
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
		if [ -d /sys/firmware/efi/efivars ]; then
			v=/sys/firmware/efi/efivars
			mount -t efivarfs -o ro efivarfs $v
			# efivarfs cannot seek: the attributes come too, the value is byte 5.
			set -- $(od -An -tu1 $v/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c)
			echo "efi.secure_boot=$5"
			umount $v
		else
			echo "efi.secure_boot=<no efi>"
		fi
		echo "lockdown=$(cat /sys/kernel/security/lockdown)"
		echo "=== END ARM64 ==="
	EOF
	vm_rootfs "$dir/root.img" "$dir/root"
	{
		arm64_conf
		# A word only x86_64 kernels read (skipped here) and one arm64's reads too.
		printf '%s\n' '[kernel]' 'warn = vsyscall=none' 'warn = kpti=1'
	} >"$dir/test.conf"
	local k start
	for k in 6.1 6.12; do
		vm_initramfs "$dir/$k.img" --kernel "$k-arm64" --config "$dir/test.conf" >"$dir/$k.build" 2>&1 ||
			{ cat "$dir/$k.build" >&2; return 1; }
		start=$SECONDS
		# 6.1's root disk on virtio-mmio (as on Firecracker and boards),
		# 6.12's on virtio-pci (QEMU's if=virtio).
		local disk=(--disk "$dir/root.img")
		[[ $k == 6.1 ]] && disk=(-- -drive "file=$dir/root.img,if=none,id=mmio0,format=raw" -device "virtio-blk-device,drive=mmio0")
		vm_boot "$dir/$k.log" --kernel "$k-arm64" --initrd "$dir/$k.img" \
			--append "$APPEND" --timeout 180 "${disk[@]}" || true
		echo $((SECONDS - start)) >"$dir/$k.seconds"
	done
	uki_setup
	verity_selinux_setup
}

verity_selinux_setup() {
	local dir=$A_DIR root=$A_DIR/vroot size start
	rm -rf "$root" && mkdir -p "$root/etc/selinux"
	vm_stage_root "$root"
	cp -a /etc/selinux/default "$root/etc/selinux/"
	printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$root/etc/selinux/config"
	vm_probe_script "$root" <<-'EOF'
		echo "=== BEGIN VSEL ==="
		echo "uname=$(uname -m)"
		dn=$(awk '$5 == "/" { print $3 }' /proc/self/mountinfo | tail -n 1)
		echo "root.dm_name=$(cat /sys/dev/block/$dn/dm/name 2>&1)"
		echo "root.ro=$(cat /sys/dev/block/$dn/ro 2>&1)"
		echo "root.slaves=$(ls /sys/dev/block/$dn/slaves 2>&1 | tr '\n' ' ')"
		/probe/dmtable root | sed 's/^/dm./'
		if touch /written-on-root 2>/dev/null; then echo root.write=yes; else echo root.write=refused; fi
		if [ -r /sys/fs/selinux/enforce ]; then
			echo "selinux.enforce=$(cat /sys/fs/selinux/enforce)"
			echo "selinux.policyvers=$(cat /sys/fs/selinux/policyvers)"
		else
			echo "selinux.enforce=absent"
		fi
		echo "selinux.pid1=$(tr -d '\000' </proc/1/attr/current)"
		/probe/selinux_label /dev/null /run /sbin/init | sed 's/^/label./'
		echo "=== END VSEL ==="
	EOF
	vm_selinux_label "$root"
	# 4096-byte blocks: the verity data blocks (tests/vm/verity.bats).
	vm_rootfs "$dir/vroot.img" "$root" -b 4096 -L vroot
	size=$(stat -c %s "$dir/vroot.img")
	truncate -s $(((size + 4095) / 4096 * 4096)) "$dir/vroot.img"
	veritysetup format "$dir/vroot.img" "$dir/vhash.img" | awk '/^Root hash:/ { print $3 }' >"$dir/vroot.hash"
	cat >"$dir/vsel.conf" <<-'EOF'
		# tests/vm/arm64.bats: verity and SELinux
		[boot]
		failure_action = poweroff
		failure_delay = 0
		[selinux]
		mode = config
		require = yes
		relabel = yes
	EOF
	vm_initramfs "$dir/vsel.img" --kernel 6.12-arm64 --config "$dir/vsel.conf" \
		--verity-roothash "$(cat "$dir/vroot.hash")" --verity-data /dev/vda --verity-hash /dev/vdb \
		>"$dir/vsel.build" 2>&1 || { cat "$dir/vsel.build" >&2; return 1; }
	start=$SECONDS
	vm_boot "$dir/vsel.log" --kernel 6.12-arm64 --initrd "$dir/vsel.img" \
		--disk "$dir/vroot.img" --disk "$dir/vhash.img" \
		--append "root=/dev/vda security=selinux $FAIL" --timeout 180 || true
	echo $((SECONDS - start)) >"$dir/vsel.seconds"
}

# The signed strict UKI and an unsigned copy, each on its own ESP; the
# Secure Boot boot of the first and the refusal of the second.
uki_setup() {
	local dir=$A_DIR kdir name
	kdir=$(vm_kernel_dir "$UKI_KERNEL")
	openssl pkey -in "$SNAKEOIL.key" -passin pass:snakeoil -out "$dir/key.pem"
	chmod 0600 "$dir/key.pem"
	vm_uki "$dir/signed.efi" --kernel "$UKI_KERNEL" --profile strict --stub "$kdir/efi/linuxaa64.efi.stub" \
		--cmdline "$UKI_CMDLINE" --sign-key "$dir/key.pem" --sign-cert "$SNAKEOIL.pem" >"$dir/uki.build" 2>&1 ||
		{ cat "$dir/uki.build" >&2; return 1; }
	# The same bytes without the signature: sbsign only appends it.
	vm_uki "$dir/unsigned.efi" --kernel "$UKI_KERNEL" --profile strict --stub "$kdir/efi/linuxaa64.efi.stub" \
		--cmdline "$UKI_CMDLINE" >>"$dir/uki.build" 2>&1 || { cat "$dir/uki.build" >&2; return 1; }
	for name in signed unsigned; do
		vm_make_esp "$dir/$name.efi" "$dir/$name.esp" BOOTAA64.EFI
	done
	local start=$SECONDS
	aavmf_boot "$dir/uki.log" 300 "" -drive "file=$dir/root.img,if=virtio,format=raw" \
		-drive "file=$dir/signed.esp,if=virtio,format=raw" || true
	echo $((SECONDS - start)) >"$dir/uki.seconds"
	start=$SECONDS
	# The firmware waits for ever after refusing: stop at its message.
	aavmf_boot "$dir/refused.log" 150 "Access Denied" -drive "file=$dir/unsigned.esp,if=virtio,format=raw" || true
	echo $((SECONDS - start)) >"$dir/refused.seconds"
}

# aavmf_boot LOG TIMEOUT STOP_TEXT QEMU_ARGS...: AAVMF with the snakeoil
# keys enrolled (Secure Boot on), a fresh copy of its variables each boot.
aavmf_boot() {
	local log=$1 limit=$2 stop=$3
	shift 3
	vm_efi_boot "$log" "$limit" "$stop" "$AAVMF/AAVMF_CODE.snakeoil.fd" "$AAVMF/AAVMF_VARS.snakeoil.fd" \
		-M virt -cpu "$VM_CPU" "$@"
}

@test "arm64 image: built for arm64 from the binary, virtio_mmio and virtio_pci in, no x86 word checked" {
	local k
	for k in 6.1 6.12; do
		grep -q "architecture arm64" "$A_DIR/$k.build"
		grep -q "virtio_mmio" "$A_DIR/$k.build"
		grep -q "virtio_pci" "$A_DIR/$k.build"
		# The builder's order: virtio_mmio, then the disk driver (6.12 has
		# virtio_pci built in). virtio_blk first was tried: bench/run's
		# arm64 rows could not tell the two apart (3 rounds each, twice:
		# -29 ms, then +8 ms, within the floor's own 40 ms spread).
		grep -Eq "load list: .*virtio_mmio virtio_blk\)" "$A_DIR/$k.build"
		echo "# $k-arm64 boot with $VM_CPU: $(cat "$A_DIR/$k.seconds") s" >&3
	done
}

@test "arm64 6.1: hardinit reaches the busybox root; sysctls, bounding set, ASLR read back" {
	local log=$A_DIR/6.1.log
	vm_assert_done "$log"
	expect "$log" uname aarch64
	# The root disk on virtio-mmio; 6.12's on PCI.
	[[ $(guest "$log" vda.path) == */virtio_mmio/* || $(guest "$log" vda.path) == *.virtio_mmio/* ]] ||
		{ echo "6.1's vda is not on virtio-mmio"; vm_section "$log" ARM64; return 1; }
	[[ $(guest "$A_DIR/6.12.log" vda.path) == */pci0000:00/* ]] ||
		{ echo "6.12's vda is not on PCI"; vm_section "$A_DIR/6.12.log" ARM64; return 1; }
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
	want=$(vm_capbnd_without "${DROPS[@]}")
	expect "$log" capbnd.pid1 "$want"
	expect "$log" capbnd.fresh "$want"
	# NX needs no cpuinfo flag on arm64; the x86-only word is not checked.
	vm_assert_section_contains "$log" REPORT "memory nx ok execute-never is architectural on aarch64"
	vm_assert_section_contains "$log" REPORT "kernel vsyscall=none skipped a word of x86_64 kernels only"
	vm_assert_section_contains "$log" REPORT "kernel kpti=1 warn"
}

# The BTI and PAC note makes the kernel map the text of a static binary
# guarded (PROT_BTI: smaps "bt") on a CPU with BTI (lib.bash's max), and an
# indirect branch to anything but a landing pad then faults. Debian's 6.1
# and 6.12 arm64 kernels both honour it.
@test "arm64: BTI is enforced on hardinit and on what it becomes (6.1 and 6.12)" {
	local k log
	for k in 6.1 6.12; do
		log=$A_DIR/$k.log
		vm_assert_done "$log"
		[[ " $(guest "$log" hardinit.text) " == *" ex "*" bt "* ]] ||
			{ echo "$k: hardinit's text is not BTI-guarded"; vm_section "$log" ARM64; return 1; }
		[[ " $(guest "$log" pid1.text) " == *" ex "*" bt "* ]] ||
			{ echo "$k: PID 1's text is not BTI-guarded"; vm_section "$log" ARM64; return 1; }
		expect "$log" bti.pad ok
		expect "$log" bti.nopad SIGILL
	done
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
	expect "$log" capbnd.fresh "$(vm_capbnd_without "${DROPS[@]}")"
	[[ $(guest "$log" alice.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
	vm_assert_section_contains "$log" REPORT "memory mdwe applied"
	vm_assert_section_contains "$log" REPORT "mechanism=sysctl"
}

@test "arm64 UKI: linuxaa64.efi.stub, the uncompressed Image, arm64 words only in its .cmdline" {
	local dir=$A_DIR kdir kver out cmdline w
	kdir=$(vm_kernel_dir "$UKI_KERNEL")
	kver=$(cat "$kdir/kver")
	out=$(aarch64-linux-gnu-objdump -h "$dir/unsigned.efi")
	[[ $out == *"file format pei-aarch64-little"* ]] || { echo "$out"; false; }
	for w in .osrel .cmdline .uname .initrd .linux; do
		grep -qE "^ +[0-9]+ \\$w " <<<"$out" || { echo "no $w section: $out"; false; }
	done
	aarch64-linux-gnu-objcopy -O binary --only-section=.linux "$dir/unsigned.efi" "$BATS_TEST_TMPDIR/linux"
	cmp "$BATS_TEST_TMPDIR/linux" "$kdir/boot/vmlinuz-$kver"
	aarch64-linux-gnu-objcopy -O binary --only-section=.uname "$dir/unsigned.efi" "$BATS_TEST_TMPDIR/uname"
	[[ $(cat "$BATS_TEST_TMPDIR/uname") == "$kver" ]]
	aarch64-linux-gnu-objcopy -O binary --only-section=.cmdline "$dir/unsigned.efi" "$BATS_TEST_TMPDIR/cmdline"
	cmdline=" $(cat "$BATS_TEST_TMPDIR/cmdline") "
	for w in kpti=1 ssbd=force-on rodata=full iommu.strict=1 slab_nomerge; do
		[[ $cmdline == *" $w "* ]] || { echo "arm64 word $w missing: $cmdline"; false; }
	done
	for w in vsyscall= ia32_emulation= tsx= spectre_v2= pti= iommu=force; do
		[[ $cmdline != *" $w"* ]] || { echo "x86 word $w in the arm64 UKI: $cmdline"; false; }
	done
}

@test "arm64 UKI under AAVMF with Secure Boot: the signed UKI boots to the busybox root with the baked command line" {
	local log=$A_DIR/uki.log
	echo "# arm64 UKI boot under AAVMF with $VM_CPU: $(cat "$A_DIR/uki.seconds") s; refusal $(cat "$A_DIR/refused.seconds") s" >&3
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "EFI stub: UEFI Secure Boot is enabled."
	expect "$log" uname aarch64
	expect "$log" efi.secure_boot 1
	aarch64-linux-gnu-objcopy -O binary --only-section=.cmdline "$A_DIR/signed.efi" "$BATS_TEST_TMPDIR/cmdline"
	vm_assert_section_line "$log" CMDLINE "$(cat "$BATS_TEST_TMPDIR/cmdline")"
	# strict's lockdown=confidentiality, read from securityfs.
	expect "$log" lockdown "none integrity [confidentiality]"
	vm_assert_section_line "$log" REPORT "firmware secure_boot info on"
	vm_assert_section_contains "$log" REPORT "firmware uki info yes stub=systemd-stub"
}

@test "arm64 UKI: every arm64 [kernel] word of strict is in force and the hardening holds" {
	local log=$A_DIR/uki.log w report
	vm_assert_done "$log"
	report=$(vm_section "$log" REPORT)
	while read -r w; do
		grep -qxF "kernel $w ok on the command line" <<<"$report" ||
			{ echo "no 'kernel $w ok' in the report"; grep '^kernel ' <<<"$report"; false; }
	done < <(qemu-aarch64-static "$HARDINIT_SRC/build/arm64/hardinit" check-config --print-kernel-words "$HARDINIT_SRC/config/strict.conf")
	expect "$log" sysctl.kernel.kptr_restrict 2
	expect "$log" sysctl.kernel.dmesg_restrict 1
	expect "$log" sysctl.fs.protected_fifos 2
	expect "$log" sysctl.dev.tty.legacy_tiocsti 0
	# strict drops cap_perfmon, cap_bpf, cap_checkpoint_restore.
	expect "$log" capbnd.pid1 "$(vm_capbnd_without 38 39 40)"
	expect "$log" capbnd.fresh "$(vm_capbnd_without 38 39 40)"
	[[ $(guest "$log" alice.tiocsti) == EIO* ]] || { vm_section "$log" ARM64; false; }
}

@test "arm64 UKI: the unsigned UKI is refused by AAVMF under Secure Boot (no Linux boot)" {
	local log=$A_DIR/refused.log
	vm_assert_log_contains "$log" "Access Denied"
	vm_assert_log_lacks "$log" "Linux version"
	vm_assert_log_lacks "$log" "EFI stub:"
}

@test "arm64 verity root: the root is the embedded hash's dm-verity device, read-only, over vda and vdb" {
	local log=$A_DIR/vsel.log
	echo "# arm64 verity + SELinux boot: $(cat "$A_DIR/vsel.seconds") s" >&3
	vm_assert_done "$log"
	[[ $(vm_section "$log" VSEL | sed -n 's/^uname=//p') == aarch64 ]]
	vm_assert_section_line "$log" VSEL "root.dm_name=root"
	vm_assert_section_line "$log" VSEL "root.ro=1"
	vm_assert_section_line "$log" VSEL "root.slaves=vda vdb "
	vm_assert_section_line "$log" VSEL "root.write=refused"
	# The live table (DM_TABLE_STATUS from the probe) carries the hash the builder embedded.
	vm_assert_section_line "$log" VSEL "dm.target=verity"
	vm_assert_section_line "$log" VSEL "dm.readonly=1"
	vm_assert_section_contains "$log" VSEL " sha256 $(cat "$A_DIR/vroot.hash") "
	vm_assert_section_line "$log" VSEL "dm.status=V"
}

@test "arm64 SELinux: refpolicy loaded by hardinit on the verity root, init in init_t, /dev and /run labelled" {
	local log=$A_DIR/vsel.log
	vm_assert_done "$log"
	vm_assert_section_line "$log" VSEL "selinux.enforce=0"
	vm_assert_section_line "$log" VSEL "selinux.pid1=system_u:system_r:init_t:s0"
	vm_assert_section_line "$log" VSEL "label./dev/null system_u:object_r:null_device_t:s0"
	vm_assert_section_line "$log" VSEL "label./run system_u:object_r:var_run_t:s0"
	vm_assert_section_line "$log" VSEL "label./sbin/init system_u:object_r:init_exec_t:s0"
	vm_section "$log" REPORT | grep -E "^selinux +policy .*/etc/selinux/default/policy/policy.33" ||
		{ vm_section "$log" REPORT | grep '^selinux'; false; }
}
