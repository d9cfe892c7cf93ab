#!/usr/bin/env bats
# The signed PCR 11 policy in a real boot: a LUKS2 root made by
# Debian's cryptsetup, its systemd-tpm2 token enrolled by Debian 12's
# systemd-cryptenroll --tpm2-public-key= --tpm2-public-key-pcrs=11 against
# swtpm's state, then OVMF boots hardinit's UKI (systemd-stub measures it
# into PCR 11 and hands .pcrsig to the initramfs as /.extra/; hardinit
# extends enter-initrd, finds the signature and unseals through
# PolicyAuthorize). Two boots, each checked by several assertions:
#   signed:  the UKI built with --pcrpkey --pcr-sign-key: no prompt; the
#            guest's kernel (dm-crypt) reads the file, so the key is right;
#   changed: the same UKI with one more command-line word and the first
#            UKI's .pcrsig (--pcrsig): one warning, then the passphrase
#            prompt, answered on the serial console.

# budget: 55 s

load lib

PASS='c0rrect horse battery'
UUID=5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d

PROBE='
echo "=== BEGIN WORKS ==="
sha256sum /data/hello.txt 2>&1
grep "^luks " /run/hardinit/report.txt
echo "=== END WORKS ==="
'

setup_file() {
	vm_need_ovmf
	vm_need_swtpm
	command -v systemd-cryptenroll >/dev/null || skip "systemd-cryptenroll is not installed"
	make -s -C "$HARDINIT_SRC" build/tools/luks2-tool >&2 || return 1
	local dir root
	dir=$(vm_cache_dir)/luks_signed
	export SDIR=$dir
	rm -rf "$dir" && mkdir -p "$dir/root"
	root=$dir/root
	vm_stage_root "$root"
	mkdir -p "$root/data"
	head -c 65536 /dev/urandom >"$root/data/hello.txt"
	sha256sum "$root/data/hello.txt" | cut -d' ' -f1 >"$dir/hello.sha256"
	vm_probe_script "$root" "$PROBE"
	vm_rootfs "$dir/plain.img" "$root" -L sroot
	vm_luks_image "$dir/plain.img" "$dir/key.bin" "$dir/luks.img" "$UUID" "$PASS" || return 1
	# The signing key, and the token sealed to swtpm's state (no PCR by
	# value: PCR 11 through the signature only).
	openssl genrsa -out "$dir/pcr.key" 2048 2>/dev/null
	openssl rsa -in "$dir/pcr.key" -pubout -out "$dir/pcr.pub" 2>/dev/null
	vm_swtpm_setup "$dir/tpm" sha256 || return 1
	(umask 077 && printf %s "$PASS" >"$dir/pass")
	local rc=0
	vm_swtpm_serve "$dir/tpm/state" "$dir/tpm" timeout 120 systemd-cryptenroll --unlock-key-file="$dir/pass" \
		--tpm2-device="swtpm:path=$dir/tpm/srv" --tpm2-pcrs= --tpm2-public-key="$dir/pcr.pub" \
		--tpm2-public-key-pcrs=11 "$dir/luks.img" >&2 || rc=$?
	rm -f "$dir/pass"
	((rc == 0)) || return 1
	cat >"$dir/fail.conf" <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0
		root_timeout = 5
		lock_cmdline = no
	EOF
	local -a build=(--config "$dir/fail.conf" --luks --pcrpkey "$dir/pcr.pub")
	local words="rd.luks.uuid=$UUID root=/dev/mapper/luks-$UUID console=ttyS0 panic=-1"
	vm_uki "$dir/signed.efi" "${build[@]}" --cmdline "$words" --pcr-sign-key "$dir/pcr.key" >"$dir/build.log" || return 1
	objcopy -O binary --only-section=.pcrsig "$dir/signed.efi" "$dir/signed.pcrsig"
	vm_uki "$dir/changed.efi" "${build[@]}" --cmdline "$words quiet" --pcrsig "$dir/signed.pcrsig" >>"$dir/build.log" ||
		return 1
	vm_make_esp "$dir/signed.efi" "$dir/signed.esp"
	vm_make_esp "$dir/changed.efi" "$dir/changed.esp"
	efi_boot signed
	efi_boot changed "Please enter passphrase for disk luks-$UUID"
}

teardown_file() {
	vm_swtpm_stop
}

# efi_boot NAME [PROMPT]: OVMF boots NAME.esp with swtpm on the enrolled
# state (a copy: each boot starts from the enrollment); PROMPT, when it
# shows on the serial console, is answered with the passphrase.
efi_boot() {
	local name=$1 prompt=${2:-} log=$SDIR/$1.log d=$SDIR/swtpm-$1
	rm -rf "$d" && mkdir -p "$d" && cp -r "$SDIR/tpm/state" "$d/state"
	vm_swtpm_start "$d" || return 1
	rm -f "$log"
	{
		if [[ -n $prompt ]] && vm_wait_serial "$log" "$prompt" 600; then
			sleep 0.3
			printf '%s\n' "$PASS"
		fi
		vm_wait_serial "$log" "reboot: Power down" 600
	} | vm_ovmf_boot --console "$log" plain "${UEFI_TIMEOUT:-600}" "" \
		-drive "file=$SDIR/luks.img,if=virtio,format=raw" -drive "file=$SDIR/$name.esp,if=virtio,format=raw" \
		"${VM_TPM_ARGS[@]}" >/dev/null || true
	vm_swtpm_stop
}

setup() {
	[[ -n ${SDIR:-} && -f $SDIR/signed.log ]] || skip "the UKI boots did not run"
}

@test "signed PCR 11 policy: the UKI signed for its PCR 11 opens the root with no prompt (PolicyAuthorize), dm-crypt reads it" {
	local log=$SDIR/signed.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 1, tpm2 (token 0, PCRs none, signed policy PCRs 11)) as /dev/mapper/luks-$UUID"
	vm_assert_log_contains "$log" "the signed PCR policy's signature came from /.extra/tpm2-pcr-signature.json"
	vm_assert_log_lacks "$log" "Please enter passphrase"
	vm_assert_log_lacks "$log" "the TPM did not unlock it"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
	vm_assert_section_contains "$log" WORKS "signed policy PCRs 11"
}

@test "signed PCR 11 policy: a changed command line with the old signature is one warning, then the passphrase typed on serial opens it" {
	local log=$SDIR/changed.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "luks: luks-$UUID: the TPM did not unlock it: token 0: tpm2-pcr-signature.json signs no sha256 policy for PCR 11 as it is now"
	vm_assert_log_contains "$log" "Please enter passphrase for disk luks-$UUID"
	# "quiet" (the changed word) hides the notice; the report says it.
	vm_assert_section_contains "$log" WORKS "luks luks-$UUID opened UUID $UUID on /dev/vda, keyslot 0, passphrase, /dev/mapper/luks-$UUID"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
}
