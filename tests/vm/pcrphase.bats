#!/usr/bin/env bats
# Boot phases in PCR 11: hardinit's initramfs is the initrd of a
# UKI, so it extends "enter-initrd" before any unseal and "leave-initrd"
# before the switch, as systemd-pcrphase-initrd.service does. One boot:
# OVMF starts hardinit's UKI (systemd-stub, which measures the UKI into PCR
# 11 and sets StubPcrKernelImage) with swtpm set up with two active banks
# (sha1, sha256). The expected PCR 11 is computed here, independently of
# hardinit: the firmware's own event log (securityfs, dumped by the probe)
# replayed for PCR 11 in each bank, then each bank's hash of the two words
# (Python's hashlib). The guest's truth is the kernel's sysfs PCR files.
# That PCR 11 is left alone when no stub measured (a boot without a UKI)
# is asserted on measure.bats's swtpm boot.

# budget: 30 s

load lib

CMDLINE="root=LABEL=pcrroot console=ttyS0 panic=-1"

probe() {
	cat <<-'EOF'
		#!/bin/busybox sh
		mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
		echo "=== BEGIN PCR11 ==="
		for b in sha1 sha256; do echo "$b=$(cat /sys/class/tpm/tpm0/pcr-$b/11 2>&1)"; done
		grep '^pcrphase ' /run/hardinit/report.txt
		echo "=== END PCR11 ==="
		echo "=== BEGIN EVENTLOG ==="
		od -An -tx1 -v /sys/kernel/security/tpm0/binary_bios_measurements
		echo "=== END EVENTLOG ==="
		echo "=== BEGIN CEL_B64 ==="
		base64 /run/log/systemd/tpm2-measure.log
		echo "=== END CEL_B64 ==="
	EOF
}

setup_file() {
	vm_need_ovmf
	vm_need_swtpm
	local dir d
	dir=$(vm_cache_dir)/pcrphase
	export PDIR=$dir
	rm -rf "$dir" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	probe | vm_probe_script "$dir/root"
	vm_rootfs "$dir/root.img" "$dir/root" -L pcrroot
	vm_uki "$dir/uki.efi" --profile baseline --cmdline "$CMDLINE" >"$dir/build.log"
	vm_make_esp "$dir/uki.efi" "$dir/uki.esp"
	d=$dir/swtpm
	vm_swtpm_setup "$d" sha1,sha256 || return 1
	vm_swtpm_start "$d" || return 1
	vm_ovmf_boot "$dir/boot.log" plain "${UEFI_TIMEOUT:-300}" "" -drive "file=$dir/root.img,if=virtio,format=raw" \
		-drive "file=$dir/uki.esp,if=virtio,format=raw" "${VM_TPM_ARGS[@]}" || true
	vm_swtpm_stop
}

teardown_file() {
	vm_swtpm_stop
}

setup() {
	[[ -n ${PDIR:-} && -f $PDIR/boot.log ]] || skip "the UKI boot did not run"
}

# "stub_events=N", "sha1=HEX" and "sha256=HEX": PCR 11 replayed from the
# firmware's event log, then each word extended.
expected_pcr11() {
	local events bank
	events=$(vm_section "$PDIR/boot.log" EVENTLOG | vm_eventlog_events 11) || return 1
	echo "stub_events=$(grep -c . <<<"$events")"
	for bank in sha1 sha256; do
		echo "$bank=$(vm_pcr_replay "$bank" enter-initrd leave-initrd <<<"$events")"
	done
}

@test "pcrphase: on a UKI the report says enter-initrd and leave-initrd went into PCR 11, in both active banks" {
	vm_assert_done "$PDIR/boot.log"
	vm_assert_section_contains "$PDIR/boot.log" PCR11 "pcrphase enter-initrd extended PCR 11 (banks sha1, sha256)"
	vm_assert_section_contains "$PDIR/boot.log" PCR11 "pcrphase leave-initrd extended PCR 11 (banks sha1, sha256)"
	vm_assert_log_contains "$PDIR/boot.log" "extended PCR index 11 with 'enter-initrd' (banks sha1, sha256)"
}

@test "pcrphase: PCR 11 equals the stub's measurements from the firmware's log plus the two phases, in each bank" {
	local want got bank
	want=$(expected_pcr11)
	echo "computed here: $want"
	echo "read in the guest:"; vm_section "$PDIR/boot.log" PCR11
	# Not vacuous: the stub measured the UKI's sections into PCR 11.
	[[ $want =~ stub_events=[1-9] ]]
	for bank in sha1 sha256; do
		got=$(vm_section_value "$PDIR/boot.log" PCR11 "$bank" | tr 'A-F' 'a-f')
		[[ -n $got && $got == "$(sed -n "s/^$bank=//p" <<<"$want")" ]] || { echo "$bank differs: $got"; false; }
	done
}

@test "pcrphase: systemd's userspace event log has both phases with each bank's digest of the word" {
	vm_section "$PDIR/boot.log" CEL_B64 | tr -d ' \n' | base64 -d | python3 -c '
import hashlib, json, sys
recs = [json.loads(r) for r in sys.stdin.read().split("\x1e") if r.strip()]
phases = [r for r in recs if r["pcr"] == 11]
# the fields systemd writes (tpm2-util.c): string, bootId, timestamp, eventType.
assert [(r["content"]["string"], r["content"]["eventType"]) for r in phases] == \
    [("enter-initrd", "phase"), ("leave-initrd", "phase")], phases
assert all(set(r["content"]) == {"string", "bootId", "timestamp", "eventType"} for r in phases), phases
assert phases[0]["content"]["timestamp"] <= phases[1]["content"]["timestamp"], phases
for r in phases:
    word = r["content"]["string"].encode()
    got = {d["hashAlg"]: d["digest"] for d in r["digests"]}
    assert got == {a: hashlib.new(a, word).hexdigest() for a in ("sha1", "sha256")}, got
'
}
