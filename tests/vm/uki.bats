#!/usr/bin/env bats
# Unified kernel images under UEFI: OVMF boots a UKI built by
# hardinit-mkinitramfs --uki from an ESP image (made with mkfs.vfat and
# mtools, no mount) as \EFI\BOOT\BOOTX64.EFI; the root is on virtio.
# Without Secure Boot: /proc/cmdline is the baked command line, every
# [kernel] word of strict is in force, the usual hardening holds. With
# Secure Boot (OVMF's secboot code + a copy of its snakeoil VARS): the
# signed UKI boots, the guest reads SecureBoot=1 from efivars itself and
# the kernel locked itself down; an unsigned UKI and a signed one with a
# byte of .cmdline changed are refused by the firmware. The guest's truth
# is /probe/run's raw reads (efivarfs mounted by the probe, securityfs,
# /proc/sys), between "=== BEGIN UEFI ===" and "=== END UEFI ===".

# budget: 155 s

load lib
load images

EFI_GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
EFI_LOADER=4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
# Firmware plus a kernel under TCG on a loaded machine: generous. A refused
# image never boots; the firmware's text ends those boots much earlier.
UEFI_TIMEOUT=${UEFI_TIMEOUT:-300}
REFUSAL_TIMEOUT=${REFUSAL_TIMEOUT:-150}
BASE_CMDLINE="root=LABEL=testroot console=ttyS0 panic=-1"

setup_file() {
	local dir
	vm_have_ovmf plain secure || return 0
	dir=$(vm_cache_dir)/uki
	mkdir -p "$dir"
	export UDIR=$dir

	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	vm_probe_script "$dir/root" <<-EOF
		v=/sys/firmware/efi/efivars
		echo "=== BEGIN UEFI ==="
		mount -t efivarfs -o ro efivarfs \$v 2>/dev/null
		# efivarfs cannot seek: read the attributes too, the value is byte 5.
		set -- \$(od -An -tu1 \$v/SecureBoot-$EFI_GLOBAL)
		echo "secure_boot=\$5"
		[ -e \$v/StubInfo-$EFI_LOADER ] && echo "stubinfo=present" || echo "stubinfo=absent"
		umount \$v
		echo "lockdown=\$(cat /sys/kernel/security/lockdown)"
		for k in kernel/kptr_restrict kernel/dmesg_restrict kernel/kexec_load_disabled \\
			kernel/unprivileged_bpf_disabled fs/protected_fifos; do
			echo "\$k=\$(cat /proc/sys/\$k)"
		done
		echo "=== END UEFI ==="
	EOF
	vm_rootfs "$dir/root.img" "$dir/root" -L testroot

	vm_snakeoil_key "$dir/key.pem"
	vm_uki "$dir/strict.efi" --profile strict --cmdline "$BASE_CMDLINE" >"$dir/strict.log"
	# Baseline bakes no lockdown= word: the lockdown seen is the kernel's own.
	vm_uki "$dir/signed.efi" --profile baseline --cmdline "$BASE_CMDLINE" \
		--sign-key "$dir/key.pem" --sign-cert "$VM_OVMF_SNAKEOIL.pem" >"$dir/signed.log"
	vm_uki "$dir/unsigned.efi" --profile baseline --cmdline "$BASE_CMDLINE" >"$dir/unsigned.log"
	tamper_cmdline "$dir/signed.efi" "$dir/tampered.efi"
	local name
	for name in strict signed unsigned tampered; do
		vm_make_esp "$dir/$name.efi" "$dir/$name.esp"
	done
}

# A copy of a signed UKI with one byte of its .cmdline changed: the
# signature no longer matches the image's Authenticode hash.
tamper_cmdline() {
	local in=$1 out=$2 off
	cp "$in" "$out"
	off=$(objdump -h "$out" | awk '$2 == ".cmdline" { print $6 }')
	[[ -n $off ]] || return 1
	# "root=..." becomes "Root=...".
	printf 'R' | dd of="$out" bs=1 seek=$((16#$off)) conv=notrunc status=none
}


# boot_once LOG ARGS...: vm_ovmf_boot LOG ARGS once for every test reading LOG.
boot_once() {
	local log=$1
	shift
	[[ -s $log.done ]] && return 0
	vm_ovmf_boot "$log" "$@" || true
	echo "done" >"$log.done"
}

plain_boot() {
	boot_once "$UDIR/plain.log" plain "$UEFI_TIMEOUT" "" \
		-drive "file=$UDIR/root.img,if=virtio,format=raw" \
		-drive "file=$UDIR/strict.esp,if=virtio,format=raw"
}

secure_boot() {
	boot_once "$UDIR/secure.log" secure "$UEFI_TIMEOUT" "" \
		-drive "file=$UDIR/root.img,if=virtio,format=raw" \
		-drive "file=$UDIR/signed.esp,if=virtio,format=raw"
}

setup() {
	vm_need_ovmf secure
	[[ -n ${UDIR:-} && -f $UDIR/strict.esp ]] || skip "UKI images not built"
}

report_of() {
	vm_section "$1" REPORT
}

@test "uefi: the UKI boots from the ESP; /proc/cmdline is the baked command line" {
	local log=$UDIR/plain.log baked
	plain_boot
	vm_assert_done "$log"
	objcopy -O binary --only-section=.cmdline "$UDIR/strict.efi" "$BATS_TEST_TMPDIR/cmdline"
	baked=$(cat "$BATS_TEST_TMPDIR/cmdline")
	vm_assert_section_line "$log" CMDLINE "$baked"
}

@test "uefi: every [kernel] word of strict is in force, and hardinit says so" {
	local log=$UDIR/plain.log w report
	plain_boot
	report=$(report_of "$log")
	while read -r w; do
		grep -qxF "kernel $w ok on the command line" <<<"$report" ||
			{ echo "no 'kernel $w ok' in the report"; echo "$report" | grep '^kernel '; false; }
	done < <("$HARDINIT_SRC/build/hardinit" check-config --print-kernel-words "$HARDINIT_SRC/config/strict.conf")
	# The live state behind two of them, read by the probe.
	vm_assert_section_line "$log" UEFI "lockdown=none integrity [confidentiality]"
}

@test "uefi: without Secure Boot: the probe reads SecureBoot=0 and StubInfo; hardinit reports a UKI, off, and warns" {
	local log=$UDIR/plain.log
	plain_boot
	vm_assert_section_line "$log" UEFI "secure_boot=0"
	vm_assert_section_line "$log" UEFI "stubinfo=present"
	vm_assert_section_line "$log" REPORT "firmware secure_boot info off"
	vm_assert_section_contains "$log" REPORT "firmware uki warn yes stub=systemd-stub"
	vm_assert_log_contains "$log" "a unified kernel image without Secure Boot"
	# hardinit read efivarfs read-only and left /sys as the kernel made it.
	vm_assert_section_lacks "$log" MOUNTINFO "efivarfs"
}

@test "uefi: the usual hardening holds on a UKI boot (strict)" {
	local log=$UDIR/plain.log
	plain_boot
	vm_assert_section_line "$log" UEFI "kernel/kptr_restrict=2"
	vm_assert_section_line "$log" UEFI "kernel/dmesg_restrict=1"
	vm_assert_section_line "$log" UEFI "kernel/kexec_load_disabled=1"
	vm_assert_section_line "$log" UEFI "kernel/unprivileged_bpf_disabled=1"
	vm_assert_section_line "$log" UEFI "fs/protected_fifos=2"
}

@test "secure boot: the signed UKI boots; SecureBoot=1 from efivars; the kernel locked itself down" {
	local log=$UDIR/secure.log
	secure_boot
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	vm_assert_section_line "$log" UEFI "secure_boot=1"
	vm_assert_section_line "$log" UEFI "stubinfo=present"
	# baseline bakes no lockdown= word: integrity is the kernel's own choice.
	vm_assert_section_line "$log" UEFI "lockdown=none [integrity] confidentiality"
	vm_assert_section_line "$log" REPORT "firmware secure_boot info on"
	vm_assert_section_contains "$log" REPORT "firmware uki info yes stub=systemd-stub"
	vm_assert_section_line "$log" REPORT "firmware lockdown info integrity"
}

@test "secure boot: a loader's command line is ignored by the stub (QEMU -kernel -append)" {
	local log=$UDIR/append.log
	# OVMF loads -kernel through LoadImage (signature checked) and passes
	# -append as its LoadOptions: the stub must keep its own .cmdline.
	vm_ovmf_boot "$log" secure "$UEFI_TIMEOUT" "" \
		-kernel "$UDIR/signed.efi" -append "uki_loader_word=1 init=/bin/sh" \
		-drive "file=$UDIR/root.img,if=virtio,format=raw" || true
	vm_assert_done "$log"
	vm_assert_section_line "$log" UEFI "secure_boot=1"
	vm_assert_section_lacks "$log" CMDLINE "uki_loader_word"
	vm_assert_section_line "$log" CMDLINE "$BASE_CMDLINE"
}

@test "uefi: without Secure Boot the stub takes a loader's command line over the baked one" {
	local log=$UDIR/append-plain.log
	# Why hardinit warns about a UKI without Secure Boot: the words are gone.
	vm_ovmf_boot "$log" plain "$UEFI_TIMEOUT" "" \
		-kernel "$UDIR/strict.efi" -append "$BASE_CMDLINE uki_loader_word=1" \
		-drive "file=$UDIR/root.img,if=virtio,format=raw" || true
	vm_assert_done "$log"
	vm_assert_section_line "$log" CMDLINE "$BASE_CMDLINE uki_loader_word=1"
	vm_assert_section_contains "$log" REPORT "kernel slab_nomerge warn"
}

@test "secure boot: an unsigned UKI is refused by the firmware (no Linux boot)" {
	local log=$UDIR/unsigned-sb.log
	vm_ovmf_boot "$log" secure "$REFUSAL_TIMEOUT" "Access Denied" \
		-drive "file=$UDIR/unsigned.esp,if=virtio,format=raw" || true
	vm_assert_log_contains "$log" "Access Denied"
	vm_assert_log_lacks "$log" "Linux version"
	vm_assert_log_lacks "$log" "EFI stub:"
}

@test "secure boot: a signed UKI with one byte of .cmdline changed is refused (no Linux boot)" {
	local log=$UDIR/tampered-sb.log
	# The same file without Secure Boot would boot: only the signature differs.
	cmp -s "$UDIR/signed.efi" "$UDIR/tampered.efi" && { echo "tampered copy is unchanged"; false; }
	vm_ovmf_boot "$log" secure "$REFUSAL_TIMEOUT" "Access Denied" \
		-drive "file=$UDIR/tampered.esp,if=virtio,format=raw" || true
	vm_assert_log_contains "$log" "Access Denied"
	vm_assert_log_lacks "$log" "Linux version"
	vm_assert_log_lacks "$log" "EFI stub:"
}

@test "debian/systemd: strict's baked command line reaches multi-user.target with no failed unit" {
	local log=$UDIR/debian.log img
	img=$(img_debian_systemd permissive)
	# Debian starts AppArmor unless told: the image's SELinux needs the word.
	vm_uki "$UDIR/debian.efi" --profile strict \
		--cmdline "root=LABEL=debian-root console=ttyS0 panic=-1 security=selinux systemd.show_status=error" \
		>"$UDIR/debian-build.log"
	vm_make_esp "$UDIR/debian.efi" "$UDIR/debian.esp"
	vm_ovmf_boot "$log" plain "${DEBIAN_TIMEOUT:-900}" "" \
		-drive "file=$img,if=virtio,format=raw,snapshot=on" \
		-drive "file=$UDIR/debian.esp,if=virtio,format=raw" || true
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_line "$log" SYSTEMD "state=running"
	vm_assert_section_lacks "$log" SYSTEMD "failed: "
	vm_assert_section_contains "$log" REPORT "kernel lockdown=confidentiality ok"
}
