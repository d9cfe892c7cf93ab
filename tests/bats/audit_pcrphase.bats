#!/usr/bin/env bats
# hardinit audit of the boot phases in PCR 11 (the pcrphase stages) against
# made-up reports: extended or skipped is ok, a refused or failed phase is
# drift, and a report without them (no initramfs) has no such line. Only
# reads the host.

HARDINIT=${HARDINIT:-$BATS_TEST_DIRNAME/../../build/hardinit}

load lib/host

setup() {
	audit_host
	printf '[tpm]\nmeasure = no\n' >"$T/run/config"
}

@test "audit: both phases extended on a UKI boot are ok, with their banks" {
	printf 'pcrphase enter-initrd extended PCR 11 (banks sha1, sha256)\npcrphase leave-initrd extended PCR 11 (banks sha1, sha256)\n' \
		>"$T/run/report.txt"
	audit
	[[ $output == *"ok    tpm pcr 11 enter-initrd"*"extended PCR 11 (banks sha1, sha256)"* ]]
	[[ $output == *"ok    tpm pcr 11 leave-initrd"* ]]
	[[ $output != *"drift tpm pcr 11"* ]]
}

@test "audit: skipped (not a measured UKI) is ok; a refused or failed phase is drift" {
	printf 'pcrphase enter-initrd skipped systemd-stub did not measure\npcrphase leave-initrd skipped systemd-stub did not measure\n' \
		>"$T/run/report.txt"
	audit
	[[ $output == *"ok    tpm pcr 11 enter-initrd"*"skipped systemd-stub"* ]]
	printf 'pcrphase enter-initrd warn not extended: systemd-stub measured the kernel image into PCR 12, not 11\n' \
		>"$T/run/report.txt"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift tpm pcr 11 enter-initrd"*"PCR 12, not 11"* ]]
	printf 'pcrphase leave-initrd failed pcrphase: extending PCR 11 failed\n' >"$T/run/report.txt"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift tpm pcr 11 leave-initrd"* ]]
}

@test "audit: a report without boot phases has no PCR 11 line" {
	printf 'stage early ok 1.000 ms\n' >"$T/run/report.txt"
	audit
	[[ $output != *"tpm pcr 11"* ]]
}
