#!/usr/bin/env bats
# hardinit audit of the LUKS volumes against made-up reports: which
# mechanism opened each volume is said, never drift; its identity in a PCR,
# or not measured because there was no TPM or tpm2-measure-pcr=no, is as
# booted; a measurement that failed with a TPM there is drift. Only reads
# the host.

HARDINIT=${HARDINIT:-$BATS_TEST_DIRNAME/../../build/hardinit}

load lib/host

setup() {
	audit_host
	printf '[tpm]\nmeasure = no\n' >"$T/run/config"
}

@test "audit: the mechanism that opened each LUKS volume, and its PCR" {
	printf 'luks unlock info cryptroot by passphrase, PCR 15\nluks unlock info data by tpm2, PCR 15\nluks unlock info swap by passphrase, PCR not measured (no TPM)\n' \
		>"$T/run/report.txt"
	audit
	[ "$status" -eq 0 ]
	[[ $output == *"ok    LUKS cryptroot opened by"*"passphrase"* ]]
	[[ $output == *"ok    LUKS data opened by"*"tpm2"* ]]
	[[ $output == *"ok    LUKS cryptroot identity in a PCR"*"PCR 15"* ]]
	[[ $output == *"ok    LUKS swap identity in a PCR"*"not measured (no TPM)"* ]]
}

@test "audit: a LUKS volume whose PCR measurement failed with a TPM there is drift" {
	printf 'luks unlock failed cryptroot by passphrase, PCR 15 not measured (TPM error)\n' >"$T/run/report.txt"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift LUKS cryptroot identity in a PCR"* ]]
}

@test "audit: a report without LUKS volumes has no LUKS line" {
	printf 'stage early ok 1.000 ms\n' >"$T/run/report.txt"
	audit
	[[ $output != *"LUKS"* ]]
}
