#!/usr/bin/env bats
# PCR 7 and the signed PCR 11 policy in one token, enrolled the way a user
# does it: a LUKS2 root made by Debian's cryptsetup holding a
# Debian 12 tree (systemd-cryptenroll, cryptsetup, and the libtss2
# libraries systemd 252 dlopens), booted by hardinit's Secure-Boot-signed
# UKI under OVMF (OVMF_CODE_4M.secboot.fd, Debian's snakeoil VARS: the UKI
# is signed by the db's snakeoil key; its .pcrsig by the PCR key) with
# swtpm. One swtpm state directory for the whole suite; four boots:
#   first:   Secure Boot on, no token yet: hardinit asks the passphrase
#            (typed on serial). The guest's probe then runs, inside the
#            guest against the TPM it booted with,
#              systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=7
#                --tpm2-public-key=pcr.pub --tpm2-public-key-pcrs=11
#            (systemd 252 takes PCR indexes only: PCR 7 as it is now, under
#            Secure Boot; PCR 11 through PolicyAuthorize, no signature
#            needed at enrolment).
#   secure:  the same UKI, Secure Boot on: opened by the TPM, no prompt.
#   sboff:   OVMF_CODE_4M.fd and its empty VARS (Secure Boot off; the
#            signed UKI runs unchecked, PCR 11 as signed): PCR 7 differs,
#            one warning, then the passphrase typed on serial opens it.
#   changed: Secure Boot on, a UKI with one more command-line word and the
#            first UKI's .pcrsig: PCR 11 is signed for no policy, one
#            warning, then the passphrase.
# The probe reads, with the root's own tools: cryptsetup luksDump and the
# token's fields, cryptsetup status and dmsetup's table of the open root,
# hardinit's report line, PCR 7 and PCR 11.
# The prompt is answered in every boot, so that a regression fails fast
# instead of waiting out the prompt; the assertions say whether it asked.
# No TPM at all is tests/vm/luks.bats's.

# budget: 120 s

load lib
load images

PASS='c0rrect horse battery'
UUID=7a1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c47
PROMPT="Please enter passphrase for disk luks-$UUID"
# Each boot takes about 20 s on an idle runner (OVMF and the kernel under TCG).
UEFI_TIMEOUT=${UEFI_TIMEOUT:-300}
# What systemd 252's TPM2 support dlopens (libtss2-esys, -rc, -mu) and the
# device TCTI, with the libraries they need; Debian 12's, as the guest's own
# apt would fetch them (`apt install tpm2-tools` brings them the same way).
TSS_DEBS=(libtss2-esys-3.0.2-0 libtss2-rc0 libtss2-mu0 libtss2-sys1 libtss2-tcti-device0 libtss2-tcti-cmd0
	libtss2-tcti-mssim0 libtss2-tcti-swtpm0 libtss2-tctildr0)

# The guest's probe, run by testinit once hardinit handed off: the root's
# own tools read what hardinit opened; a volume with no systemd-tpm2 token
# yet is enrolled here, inside the guest, by the user's command.
probe() {
	cat <<-EOF
		#!/bin/busybox sh
		UUID=$UUID
	EOF
	cat <<-'EOF'
		PATH=/usr/sbin:/usr/bin:/sbin:/bin
		mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
		echo "=== BEGIN WORKS ==="
		sha256sum /data/hello.txt 2>&1
		grep "^luks " /run/hardinit/report.txt
		echo "pcr7=$(cat /sys/class/tpm/tpm0/pcr-sha256/7 2>&1)"
		echo "pcr11=$(cat /sys/class/tpm/tpm0/pcr-sha256/11 2>&1)"
		echo "=== END WORKS ==="
		if ! cryptsetup luksDump /dev/vda | grep -q 'systemd-tpm2'; then
			echo "=== BEGIN ENROLL ==="
			timeout 100 systemd-cryptenroll --unlock-key-file=/probe/pass --tpm2-device=auto --tpm2-pcrs=7 \
				--tpm2-public-key=/probe/pcr.pub --tpm2-public-key-pcrs=11 /dev/vda 2>&1
			echo "enroll-status=$?"
			echo "=== END ENROLL ==="
		fi
		echo "=== BEGIN TOKEN ==="
		cryptsetup token export --token-id 0 /dev/vda 2>&1
		echo
		cryptsetup luksDump /dev/vda 2>&1
		echo "=== END TOKEN ==="
		echo "=== BEGIN DM ==="
		cryptsetup status "luks-$UUID" 2>&1
		dmsetup table "luks-$UUID" 2>&1 | sed 's/^/table: /'
		echo "=== END DM ==="
		echo "=== BEGIN EVENTLOG ==="
		od -An -tx1 -v /sys/kernel/security/tpm0/binary_bios_measurements
		echo "=== END EVENTLOG ==="
	EOF
}

# The libtss2 packages, downloaded by apt once into the shared cache.
tss_debs() {
	local dir=${HARDINIT_CACHE:-/var/cache/hardinit}/debs/tss2
	if [[ ! -f $dir/done ]]; then
		(
			flock 9
			[[ -f $dir/done ]] && exit 0
			rm -f "$dir"/*.deb
			cd "$dir" && apt-get download -q "${TSS_DEBS[@]}" </dev/null >&2 && touch "$dir/done"
		) 9>"$(mkdir -p "$dir" && echo "$dir/.lock")" || { echo "apt-get download of libtss2 failed" >&2; return 1; }
	fi
	printf '%s\n' "$dir"
}

# debian_root DIR: the Debian 12 tree of the encrypted installs
# (img_crypt_tree: systemd 252, cryptsetup) with libtss2 unpacked, the
# probe, testinit and busybox under /probe and /usr/bin.
debian_root() {
	local root=$1 tree debs deb busybox
	tree=$(img_crypt_tree) || return 1
	debs=$(tss_debs) || return 1
	rm -rf "$root" && mkdir -p "$root" && cp -a "$tree/." "$root/" || return 1
	# Documentation and locales left out (as dpkg's path-exclude does on
	# small images): a fifth less to encrypt.
	rm -rf "$root/usr/share/doc" "$root/usr/share/locale" "$root/usr/share/man"
	for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root" || return 1; done
	ldconfig -r "$root" || return 1
	busybox=$(_vm_host_busybox) || return 1
	mkdir -p "$root/probe" "$root/data"
	install -m 0755 "$busybox" "$root/usr/bin/busybox"
	install -m 0755 "$HARDINIT_SRC/build/probe/testinit" "$root/probe/testinit"
	probe | vm_probe_script "$root"
	(umask 077 && printf %s "$PASS" >"$root/probe/pass")
	cp "$SDIR/pcr.pub" "$root/probe/pcr.pub"
}

setup_file() {
	vm_need_ovmf plain secure
	vm_need_swtpm
	make -s -C "$HARDINIT_SRC" build/tools/luks2-tool >&2 || return 1
	local dir root
	dir=$(vm_cache_dir)/luks_pcr7
	export SDIR=$dir
	rm -rf "$dir" && mkdir -p "$dir"
	openssl genrsa -out "$dir/pcr.key" 2048 2>/dev/null
	openssl rsa -in "$dir/pcr.key" -pubout -out "$dir/pcr.pub" 2>/dev/null
	root=$dir/root
	debian_root "$root" || return 1
	head -c 65536 /dev/urandom >"$root/data/hello.txt"
	sha256sum "$root/data/hello.txt" | cut -d' ' -f1 >"$dir/hello.sha256"
	vm_rootfs "$dir/plain.img" "$root" -L p7root
	rm -rf "$root"
	vm_luks_image "$dir/plain.img" "$dir/key.bin" "$dir/luks.img" "$UUID" "$PASS" || return 1
	rm -f "$dir/plain.img" "$dir/key.bin"
	vm_swtpm_setup "$dir/tpm" sha256 || return 1
	vm_snakeoil_key "$dir/db.key" || return 1
	cat >"$dir/fail.conf" <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0
		root_timeout = 5
		lock_cmdline = no
	EOF
	local -a build=(--config "$dir/fail.conf" --luks --pcrpkey "$dir/pcr.pub" --sign-key "$dir/db.key"
		--sign-cert "$VM_OVMF_SNAKEOIL.pem")
	local words="rd.luks.uuid=$UUID root=/dev/mapper/luks-$UUID init=/probe/testinit console=ttyS0 panic=-1"
	vm_uki "$dir/uki.efi" "${build[@]}" --cmdline "$words" --pcr-sign-key "$dir/pcr.key" >"$dir/build.log" || return 1
	objcopy -O binary --only-section=.pcrsig "$dir/uki.efi" "$dir/uki.pcrsig"
	vm_uki "$dir/changed.efi" "${build[@]}" --cmdline "$words quiet" --pcrsig "$dir/uki.pcrsig" >>"$dir/build.log" ||
		return 1
	vm_make_esp "$dir/uki.efi" "$dir/uki.esp"
	vm_make_esp "$dir/changed.efi" "$dir/changed.esp"

	efi_boot first secure uki
	efi_boot secure secure uki
	efi_boot sboff plain uki
	efi_boot changed secure changed
}

teardown_file() {
	vm_swtpm_stop
}

# efi_boot NAME secure|plain UKI: OVMF boots UKI.esp with swtpm on the
# suite's state, Secure Boot on (secboot code, snakeoil VARS) or off (plain
# code, empty VARS); the passphrase prompt, when it shows, is answered.
efi_boot() {
	local log=$SDIR/$1.log
	vm_swtpm_start "$SDIR/tpm" || return 1
	rm -f "$log"
	{
		if vm_wait_serial "$log" "$PROMPT" "$UEFI_TIMEOUT"; then
			sleep 0.3
			printf '%s\n' "$PASS"
		fi
		vm_wait_serial "$log" "reboot: Power down" "$UEFI_TIMEOUT"
	} | vm_ovmf_boot --console "$log" "$2" "$UEFI_TIMEOUT" "" \
		-drive "file=$SDIR/luks.img,if=virtio,format=raw" -drive "file=$SDIR/$3.esp,if=virtio,format=raw" \
		"${VM_TPM_ARGS[@]}" >/dev/null || true
	vm_swtpm_stop
}

setup() {
	[[ -n ${SDIR:-} && -f $SDIR/changed.log ]] || skip "the UKI boots did not run"
}

# pcr_of NAME N: the PCR N the guest read in boot NAME (lower-case hex).
pcr_of() {
	vm_section_value "$SDIR/$1.log" WORKS "pcr$2" | tr 'A-F' 'a-f'
}

# token_of NAME: the systemd-tpm2 token the guest's cryptsetup exported.
token_of() {
	vm_section "$SDIR/$1.log" TOKEN | grep -a '^{'
}

# field NAME: the token's (JSON on stdin) string field NAME.
field() {
	python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# policy_hash PCR7HEX PEM: systemd 252's policy for a token of
# tpm2-pcrs=7 and tpm2_pubkey_pcrs=11, computed here from the TPM 2.0
# spec's policy updates (part 3, PolicyAuthorize 23.16 and PolicyPCR 23.7),
# not from hardinit's code: PolicyAuthorize (digest reset, then the key's
# name, then an empty policyRef) first, PolicyPCR of PCR 7's value after.
# The key's name hashes the public area systemd 252 loads (RSA, SHA-256,
# userWithAuth|decrypt|sign, no policy, no scheme, exponent 65537 written).
policy_hash() {
	local n
	n=$(openssl rsa -pubin -in "$2" -noout -modulus | sed 's/^Modulus=//')
	python3 - "$1" "$n" <<-'PY'
		import hashlib, struct, sys
		h = lambda b: hashlib.sha256(b).digest()
		pcr7, n = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
		public = struct.pack(">HHIHHHHIH", 0x0001, 0x000B, 0x00060040, 0, 0x0010, 0x0010, len(n) * 8, 65537, len(n)) + n
		name = struct.pack(">H", 0x000B) + h(public)
		d = h(bytes(32) + struct.pack(">I", 0x16A) + name)
		d = h(d)
		sel = struct.pack(">IHB", 1, 0x000B, 3) + bytes([0x80, 0, 0])
		d = h(d + struct.pack(">I", 0x17F) + sel + h(pcr7))
		print(d.hex())
	PY
}

@test "enrolment inside the guest: Debian 12's systemd-cryptenroll binds PCR 7 and the signed PCR 11 policy in one token, in systemd's order" {
	local log=$SDIR/first.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	# Not enrolled yet: the passphrase opened it.
	vm_assert_log_contains "$log" "$PROMPT"
	vm_assert_section_contains "$log" WORKS "keyslot 0, passphrase, /dev/mapper/luks-$UUID"
	vm_section "$log" ENROLL
	vm_assert_section_contains "$log" ENROLL "enroll-status=0"
	local tok
	tok=$(token_of first)
	echo "$tok"
	[[ $tok == *'"type":"systemd-tpm2"'* ]]
	[[ $tok == *'"tpm2-pcrs":[7]'* ]]
	[[ $tok == *'"tpm2_pubkey_pcrs":[11]'* ]]
	[[ $tok == *'"tpm2-pcr-bank":"sha256"'* ]]
	# The key the token carries is the PCR key the UKI's .pcrsig is signed by.
	[ "$(field tpm2_pubkey <<<"$tok" | base64 -d | openssl pkey -pubin -outform DER | sha256sum)" = \
		"$(openssl pkey -pubin -in "$SDIR/pcr.pub" -outform DER | sha256sum)" ]
	# That PCR 7 is Secure Boot's: the firmware's log replays to it, with
	# EV_EFI_VARIABLE_DRIVER_CONFIG (SecureBoot, PK, KEK, db, dbx), the
	# separator, and EV_EFI_VARIABLE_AUTHORITY (the db entry that passed the UKI).
	vm_section "$log" EVENTLOG | vm_eventlog_events 7 >"$SDIR/pcr7.events"
	cat "$SDIR/pcr7.events"
	[ "$(grep -c '^800000e0 ' "$SDIR/pcr7.events")" -ge 1 ]
	[ "$(grep -c '^80000001 ' "$SDIR/pcr7.events")" -ge 5 ]
	[ "$(vm_pcr_replay sha256 <"$SDIR/pcr7.events")" = "$(pcr_of first 7)" ]
	# The policy cryptenroll sealed to: PolicyAuthorize, then PolicyPCR of the
	# Secure Boot PCR 7 this boot read.
	[ "$(field tpm2-policy-hash <<<"$tok")" = "$(policy_hash "$(pcr_of first 7)" "$SDIR/pcr.pub")" ]
}

@test "PCR 7 and signed PCR 11 in one token: the same signed UKI under Secure Boot opens the root with no prompt; dm-crypt reads it, no key in its table" {
	local log=$SDIR/secure.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 1, tpm2 (token 0, PCRs 7, signed policy PCRs 11)) as /dev/mapper/luks-$UUID"
	vm_assert_log_contains "$log" "the signed PCR policy's signature came from /.extra/tpm2-pcr-signature.json"
	vm_assert_log_lacks "$log" "$PROMPT"
	vm_assert_log_lacks "$log" "the TPM did not unlock it"
	vm_assert_section_contains "$log" WORKS "luks luks-$UUID opened UUID $UUID on /dev/vda, keyslot 1, tpm2 (token 0, PCRs 7, signed policy PCRs 11)"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
	[ "$(pcr_of secure 7)" = "$(pcr_of first 7)" ]
	[ "$(pcr_of secure 11)" = "$(pcr_of first 11)" ]
	# The guest's own cryptsetup and dmsetup: the mapping is live over
	# /dev/vda, and its key is the keyring's, not hex in the table.
	vm_assert_section_contains "$log" DM "/dev/mapper/luks-$UUID is active and is in use."
	vm_assert_section_contains "$log" DM "device:  /dev/vda"
	vm_section "$log" DM | grep -a '^table: ' | grep -aq ' :64:logon:cryptsetup:'
	[ "$(vm_section "$log" DM | grep -a '^table: ' | grep -acE '[0-9a-f]{64}')" -eq 0 ]
	vm_assert_section_contains "$log" DM "key location: keyring"
	# The guest's luksDump: token 0 is systemd-tpm2 and holds keyslot 1.
	[ "$(vm_section "$log" TOKEN | awk '/^Tokens:/ { t = 1 } t && /^  0: / { print $2 } t && /^\tKeyslot:/ { print $2; exit }' | tr '\n' ' ')" = "systemd-tpm2 1 " ]
}

@test "PCR 7 half refused: Secure Boot off changes PCR 7, one warning, then the passphrase typed on serial opens the same root" {
	local log=$SDIR/sboff.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "secureboot: Secure boot disabled"
	[ "$(pcr_of sboff 7)" != "$(pcr_of first 7)" ]
	# PCR 11 is as signed (the same UKI): the signed half passed, PCR 7 did not.
	[ "$(pcr_of sboff 11)" = "$(pcr_of first 11)" ]
	vm_assert_log_contains "$log" "luks: luks-$UUID: the TPM did not unlock it: token 0: the policy of PCR 7 (sha256 bank) is not the one the key was sealed to: a PCR changed since the enrollment; asking for the passphrase"
	[ "$(grep -acF "the TPM did not unlock it" "$log")" -eq 1 ]
	vm_assert_log_contains "$log" "$PROMPT"
	vm_assert_section_contains "$log" WORKS "luks luks-$UUID opened UUID $UUID on /dev/vda, keyslot 0, passphrase, /dev/mapper/luks-$UUID"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
}

@test "PCR 11 half refused: a UKI with a changed command line and the old signature, Secure Boot on, one warning, then the passphrase opens it" {
	local log=$SDIR/changed.log
	vm_assert_done "$log"
	# "quiet" hides the kernel's secureboot line: PCR 7 is the first boot's,
	# Secure Boot on (the sboff boot proves it moves when off).
	[ "$(pcr_of changed 7)" = "$(pcr_of first 7)" ]
	[ "$(pcr_of changed 11)" != "$(pcr_of first 11)" ]
	vm_assert_log_contains "$log" "luks: luks-$UUID: the TPM did not unlock it: token 0: tpm2-pcr-signature.json signs no sha256 policy for PCR 11 as it is now"
	vm_assert_log_contains "$log" "$PROMPT"
	# "quiet" (the changed word) hides the notice; the report says it.
	vm_assert_section_contains "$log" WORKS "luks luks-$UUID opened UUID $UUID on /dev/vda, keyslot 0, passphrase, /dev/mapper/luks-$UUID"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
}
