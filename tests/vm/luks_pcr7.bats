#!/usr/bin/env bats
# PCR 7 in a real boot (issue 26): a LUKS2 root made by Debian's
# cryptsetup, its systemd-tpm2 token enrolled by Debian 12's
# systemd-cryptenroll --tpm2-pcrs=7, opened by hardinit's signed UKI under
# OVMF with Secure Boot on (OVMF_CODE_4M.secboot.fd, Debian's snakeoil
# VARS: the UKI is signed by the db's snakeoil key), and refused when
# Secure Boot is off. One swtpm state directory for the whole suite.
#
# systemd 252's cryptenroll takes PCR indexes only (no "7:sha256=HEX"; that
# came in 255): it seals to the PCR values the TPM has while it runs. So
# the enrollment replays the firmware's own PCR 7 into swtpm on the host:
#   first:  Secure Boot on, the volume not yet enrolled (passphrase typed on
#           serial); the probe dumps the firmware's event log and PCR 7.
#           On the host, swtpm on the same state starts clear, each PCR 7
#           event's sha256 digest of that log is extended (tpm2_pcrextend),
#           tpm2_pcrread must then equal the guest's PCR 7, and
#           systemd-cryptenroll --tpm2-pcrs=7 seals to it.
#   secure: Secure Boot on, the same UKI: opened by the TPM, no prompt.
#   sboff:  OVMF_CODE_4M.fd and its empty VARS (no keys, Secure Boot off;
#           the signed UKI runs unchecked): PCR 7 differs, one warning,
#           then the passphrase typed on serial opens it.
# The prompt is answered in every boot, so that a regression fails fast
# instead of waiting out the prompt; the assertions say whether it asked.
# No TPM at all is tests/vm/luks.bats's.

load lib

OVMF=/usr/share/OVMF
SNAKEOIL=/usr/share/ovmf/PkKek-1-snakeoil
PASS='c0rrect horse battery'
UUID=7a1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c47
PROMPT="Please enter passphrase for disk luks-$UUID"
# Each boot takes about 15 s on an idle runner (OVMF and the kernel under TCG).
UEFI_TIMEOUT=${UEFI_TIMEOUT:-300}

probe() {
	cat <<-'EOF'
		#!/bin/busybox sh
		mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
		echo "=== BEGIN WORKS ==="
		sha256sum /data/hello.txt 2>&1
		grep "^luks " /run/hardinit/report.txt
		echo "pcr7=$(cat /sys/class/tpm/tpm0/pcr-sha256/7 2>&1)"
		echo "=== END WORKS ==="
		echo "=== BEGIN EVENTLOG ==="
		od -An -tx1 -v /sys/kernel/security/tpm0/binary_bios_measurements
		echo "=== END EVENTLOG ==="
	EOF
}

setup_file() {
	[[ -f $OVMF/OVMF_CODE_4M.secboot.fd && -f $OVMF/OVMF_VARS_4M.snakeoil.fd && -f $SNAKEOIL.key ]] ||
		skip "ovmf not installed"
	command -v swtpm_setup >/dev/null || skip "swtpm_setup is not installed (apt-get install swtpm-tools)"
	command -v systemd-cryptenroll >/dev/null || skip "systemd-cryptenroll is not installed"
	command -v tpm2_pcrextend >/dev/null || skip "tpm2-tools is not installed (scripts/install-deps)"
	make -s -C "$HARDINIT_SRC" build/tools/luks2-tool >&2 || return 1
	local dir root kdir kver
	dir=$(vm_cache_dir)/luks_pcr7
	export SDIR=$dir
	rm -rf "$dir" && mkdir -p "$dir/root"
	kdir=$(vm_kernel_dir 6.12)
	kver=$(cat "$kdir/kver")
	root=$dir/root
	vm_stage_root "$root"
	mkdir -p "$root/data"
	head -c 65536 /dev/urandom >"$root/data/hello.txt"
	sha256sum "$root/data/hello.txt" | cut -d' ' -f1 >"$dir/hello.sha256"
	probe | vm_probe_script "$root"
	vm_rootfs "$dir/plain.img" "$root" -L p7root
	vm_luks_image "$dir/plain.img" "$dir/key.bin" "$dir/luks.img" "$UUID" "$PASS" || return 1
	rm -f "$dir/plain.img" "$dir/key.bin"
	mkdir -p "$dir/tpm/state"
	swtpm_setup --tpm2 --tpmstate "$dir/tpm/state" --pcr-banks sha256 --createek --overwrite >"$dir/tpm/setup.log" 2>&1 ||
		{ cat "$dir/tpm/setup.log"; return 1; }
	openssl pkey -in "$SNAKEOIL.key" -passin pass:snakeoil -out "$dir/db.key"
	chmod 0600 "$dir/db.key"
	cat >"$dir/fail.conf" <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0
		root_timeout = 5
		lock_cmdline = no
	EOF
	"$HARDINIT_SRC/initramfs/hardinit-mkinitramfs" --kernel "$kdir/boot/vmlinuz-$kver" \
		--hardinit "$HARDINIT_SRC/build/hardinit" --moddir "$kdir" --kver "$kver" --target virtio \
		--config "$dir/fail.conf" --luks --uki "$dir/uki.efi" --sign-key "$dir/db.key" --sign-cert "$SNAKEOIL.pem" \
		--cmdline "rd.luks.uuid=$UUID root=/dev/mapper/luks-$UUID console=ttyS0 panic=-1" >"$dir/build.log" || return 1
	vm_make_esp "$dir/uki.efi" "$dir/uki.esp"

	efi_boot first secure
	vm_section "$dir/first.log" EVENTLOG | pcr7_events >"$dir/pcr7.events" || return 1
	enroll || return 1
	efi_boot secure secure
	efi_boot sboff off
}

teardown_file() {
	vm_swtpm_stop
	if [[ -n ${ENROLL_PID:-} ]]; then
		kill "$ENROLL_PID" 2>/dev/null || true
		wait "$ENROLL_PID" 2>/dev/null || true
	fi
}

# pcr7_events: the firmware's event log (hex on stdin, TCG PC Client
# crypto-agile format) to one line per PCR 7 event that was extended:
# "TYPE SHA256" (hex), EV_NO_ACTION left out.
pcr7_events() {
	python3 -c '
import struct, sys
data = bytes.fromhex("".join(sys.stdin.read().split()))
pcr, etype, _, size = struct.unpack_from("<II20sI", data, 0)
spec = data[32:32 + size]
assert spec[:16].rstrip(b"\0") == b"Spec ID Event03", spec[:16]
n = struct.unpack_from("<I", spec, 24)[0]
sizes = dict(struct.unpack_from("<HH", spec, 28 + 4 * i) for i in range(n))
off = 32 + size
while off < len(data):
    pcr, etype, count = struct.unpack_from("<III", data, off)
    off += 12
    digests = {}
    for i in range(count):
        alg = struct.unpack_from("<H", data, off)[0]
        digests[alg] = data[off + 2:off + 2 + sizes[alg]]
        off += 2 + sizes[alg]
    off += 4 + struct.unpack_from("<I", data, off)[0]
    if pcr == 7 and etype != 3:
        print("%08x %s" % (etype, digests[0xB].hex()))
'
}

# enroll: swtpm on the suite's state, started clear; PCR 7 replayed from the
# first boot's log, checked against the guest's own PCR 7, then
# systemd-cryptenroll seals the token to it. ENROLL_PID stopped here (and
# in teardown_file should a step hang past its timeout).
enroll() {
	local dir=$SDIR/tpm i rc=0 digest want got
	want=$(vm_section "$SDIR/first.log" WORKS | sed -n 's/^pcr7=//p' | tr 'A-F' 'a-f')
	[[ $want =~ ^[0-9a-f]{64}$ ]] || { echo "the first boot did not read PCR 7: '$want'" >&2; return 1; }
	rm -f "$dir/srv" "$dir/srv.ctrl"
	swtpm socket --tpm2 --tpmstate dir="$dir/state" --server type=unixio,path="$dir/srv" \
		--ctrl type=unixio,path="$dir/srv.ctrl" --flags not-need-init,startup-clear \
		--log file="$dir/enroll.log" </dev/null >/dev/null 2>&1 &
	ENROLL_PID=$!
	for ((i = 0; i < 100; i++)); do [[ -S $dir/srv ]] && break; sleep 0.1; done
	[[ -S $dir/srv ]] || rc=1
	while ((rc == 0)) && read -r _ digest; do
		timeout 30 tpm2_pcrextend -T "swtpm:path=$dir/srv" "7:sha256=$digest" || rc=1
	done <"$SDIR/pcr7.events"
	if ((rc == 0)); then
		got=$(timeout 30 tpm2_pcrread -T "swtpm:path=$dir/srv" sha256:7 | sed -n 's/.*0x//p' | tr 'A-F' 'a-f')
		echo "$got" >"$SDIR/pcr7.replayed"
		[[ $got == "$want" ]] || { echo "PCR 7 replayed on the host is '$got', the guest read $want" >&2; rc=1; }
	fi
	if ((rc == 0)); then
		(umask 077 && printf %s "$PASS" >"$SDIR/pass")
		timeout 120 systemd-cryptenroll --unlock-key-file="$SDIR/pass" --tpm2-device="swtpm:path=$dir/srv" \
			--tpm2-pcrs=7 "$SDIR/luks.img" >&2 || rc=1
		rm -f "$SDIR/pass"
	fi
	kill "$ENROLL_PID" 2>/dev/null || true
	wait "$ENROLL_PID" 2>/dev/null || true
	ENROLL_PID=
	return "$rc"
}

# efi_boot NAME secure|off: OVMF boots the signed UKI with swtpm on the
# suite's state, Secure Boot on (secboot code, snakeoil VARS) or off (plain
# code, empty VARS); the passphrase prompt, when it shows, is answered.
efi_boot() {
	local name=$1 log=$SDIR/$1.log d=$SDIR/tpm
	local -a fw
	if [[ $2 == secure ]]; then
		# shellcheck disable=SC2054 # QEMU's options are comma lists
		fw=(-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on
			-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF/OVMF_CODE_4M.secboot.fd")
		cp "$OVMF/OVMF_VARS_4M.snakeoil.fd" "$SDIR/$name.vars"
	else
		fw=(-machine q35 -drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF/OVMF_CODE_4M.fd")
		cp "$OVMF/OVMF_VARS_4M.fd" "$SDIR/$name.vars"
	fi
	rm -f "$d/sock"
	vm_swtpm_start "$d" || return 1
	rm -f "$log"
	{
		if vm_wait_serial "$log" "$PROMPT" "$UEFI_TIMEOUT"; then
			sleep 0.3
			printf '%s\n' "$PASS"
		fi
		vm_wait_serial "$log" "reboot: Power down" "$UEFI_TIMEOUT"
	} | timeout --foreground -k 5 "$UEFI_TIMEOUT" "$VM_QEMU" -accel tcg -m 1024 -nodefaults -nographic \
		-no-reboot "${fw[@]}" -drive "if=pflash,format=raw,unit=1,file=$SDIR/$name.vars" \
		-chardev "stdio,id=ser0,mux=on,signal=off,logfile=$log" -serial chardev:ser0 -mon chardev=ser0 \
		-drive "file=$SDIR/luks.img,if=virtio,format=raw" -drive "file=$SDIR/uki.esp,if=virtio,format=raw" \
		"${VM_TPM_ARGS[@]}" >/dev/null || true
	vm_swtpm_stop
	rm -f "$SDIR/$name.vars"
}

setup() {
	[[ -n ${SDIR:-} && -f $SDIR/sboff.log ]] || skip "the UKI boots did not run"
}

# pcr7_of NAME: the PCR 7 the guest read in boot NAME (lower-case hex).
pcr7_of() {
	vm_section "$SDIR/$1.log" WORKS | sed -n 's/^pcr7=//p' | tr 'A-F' 'a-f'
}

@test "PCR 7 under Secure Boot: the firmware's log (db authority included) replayed into swtpm equals the guest's PCR 7, and the token is bound to PCR 7" {
	vm_assert_done "$SDIR/first.log"
	vm_assert_log_contains "$SDIR/first.log" "secureboot: Secure boot enabled"
	# Not enrolled yet: the passphrase opened it.
	vm_assert_section_contains "$SDIR/first.log" WORKS "keyslot 0, passphrase, /dev/mapper/luks-$UUID"
	cat "$SDIR/pcr7.events"
	# EV_EFI_VARIABLE_DRIVER_CONFIG (SecureBoot, PK, KEK, db, dbx), the
	# separator, and EV_EFI_VARIABLE_AUTHORITY: the db entry that passed the UKI.
	[ "$(grep -c '^800000e0 ' "$SDIR/pcr7.events")" -ge 1 ]
	[ "$(grep -c '^80000001 ' "$SDIR/pcr7.events")" -ge 5 ]
	[ "$(cat "$SDIR/pcr7.replayed")" = "$(pcr7_of first)" ]
	cryptsetup token export --token-id 0 "$SDIR/luks.img" | grep -q '"tpm2-pcrs":\[7\]'
}

@test "PCR 7 under Secure Boot: the signed UKI opens the enrolled root with no prompt, tpm2 bound to PCR 7; dm-crypt reads it" {
	local log=$SDIR/secure.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 1, tpm2 (token 0, PCRs 7)) as /dev/mapper/luks-$UUID"
	vm_assert_log_lacks "$log" "$PROMPT"
	vm_assert_log_lacks "$log" "the TPM did not unlock it"
	vm_assert_section_contains "$log" WORKS "luks luks-$UUID opened UUID $UUID on /dev/vda, keyslot 1, tpm2 (token 0, PCRs 7)"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
	[ "$(pcr7_of secure)" = "$(pcr7_of first)" ]
}

@test "PCR 7 with Secure Boot off: PCR 7 changed, one warning, then the passphrase typed on serial opens the same root" {
	local log=$SDIR/sboff.log
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "secureboot: Secure boot disabled"
	[ "$(pcr7_of sboff)" != "$(pcr7_of first)" ]
	vm_assert_log_contains "$log" "luks: luks-$UUID: the TPM did not unlock it: token 0: the policy of PCR 7 (sha256 bank) is not the one the key was sealed to: a PCR changed since the enrollment; asking for the passphrase"
	[ "$(grep -acF "the TPM did not unlock it" "$log")" -eq 1 ]
	vm_assert_log_contains "$log" "$PROMPT"
	vm_assert_section_contains "$log" WORKS "luks luks-$UUID opened UUID $UUID on /dev/vda, keyslot 0, passphrase, /dev/mapper/luks-$UUID"
	vm_assert_section_contains "$log" WORKS "$(cat "$SDIR/hello.sha256")  /data/hello.txt"
}
