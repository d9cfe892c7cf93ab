#!/usr/bin/env bats
# A TPM hardinit must not trust, met with Debian's kernel in QEMU: swtpm
# set up with only its SHA-1 bank active (swtpm_setup --pcr-banks sha1), so
# the kernel's own driver talks to it (non-blocking, as hardinit opens it)
# and answers every command, but the log a verifier replays, built from
# SHA-256, cannot describe its PCRs. Without [tpm] require the boot goes on
# with one warning naming why, and hardinit audit inside the guest calls
# the measurement drift instead of passing it. One boot. The pty stand-ins
# of tests/unit/test_measure_queue.c cover the TPM that never answers,
# never takes a command or answers with another digest.

# budget: 15 s

load lib

# The measurement PCR: hardinit's default (the config below sets no [tpm] pcr).
PCR=$("$HARDINIT_SRC/build/hardinit" limits | sed -n 's/^TPM_PCR_DEFAULT=//p')

probe() {
	cat <<-'EOF'
		#!/bin/busybox sh
		echo "=== BEGIN TPM ==="
		for d in tpmrm0 tpm0; do [ -c /dev/$d ] && echo "dev=$d"; done
		grep '^measure ' /run/hardinit/report.txt
		echo "=== END TPM ==="
		echo "=== BEGIN AUDIT ==="
		/sbin/hardinit audit | grep 'tpm pcr'
		/sbin/hardinit audit >/dev/null; echo "status=$?"
		echo "=== END AUDIT ==="
	EOF
}

setup_file() {
	[[ $PCR =~ ^[0-9]+$ ]] || { echo "build/hardinit limits gave no TPM_PCR_DEFAULT: make first" >&2; return 1; }
	vm_need_swtpm
	local dir
	dir=$(vm_cache_dir)/tpm_faults
	mkdir -p "$dir"
	export FDIR=$dir
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/root/sbin/hardinit"
	probe | vm_probe_script "$dir/root"
	vm_rootfs "$dir/root.img" "$dir/root"
	printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\n[tpm]\nmeasure = yes\n' >"$dir/hardinit.conf"
	vm_initramfs "$dir/initrd.img" --config "$dir/hardinit.conf"
}

teardown() {
	vm_swtpm_stop
}

@test "a TPM without an active SHA-256 bank: a warning naming why, the boot goes on, audit says drift" {
	local d=$BATS_TEST_TMPDIR/swtpm log=$BATS_TEST_TMPDIR/console.log
	vm_swtpm_setup "$d" sha1
	vm_swtpm_start "$d"
	vm_boot "$log" --timeout 300 --initrd "$FDIR/initrd.img" --disk "$FDIR/root.img" --append "root=/dev/vda" -- \
		"${VM_TPM_ARGS[@]}"
	vm_assert_done "$log"
	vm_assert_section_line "$log" TPM "dev=tpmrm0"
	vm_assert_section_contains "$log" TPM "measure tpm warn"
	vm_assert_section_contains "$log" TPM "reading its PCR banks failed: it has no active SHA-256 bank"
	vm_assert_log_contains "$log" "no active SHA-256 bank"
	vm_assert_section_contains "$log" AUDIT "drift tpm pcr $PCR (sha256)"
	vm_assert_section_contains "$log" AUDIT "cut short: 0 of 5 events"
	vm_assert_section_line "$log" AUDIT "status=1"
}
