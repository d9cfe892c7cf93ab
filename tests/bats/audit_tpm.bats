#!/usr/bin/env bats
# hardinit audit of measured boot against made-up trees: the config
# (/run/hardinit/config), the boot report, the event log beside it, and the
# PCR in a fake sysfs holding what a TPM extended. The log is never trusted
# for what it must prove: the PCR is the config's, the start the reset value
# (or the report's), each digest is recomputed from its text, the whole
# sequence must be there in order, and a missing log is drift unless the
# boot found no TPM and the config allowed that. Python's hashlib computes
# the PCRs here, independently of hardinit's SHA-256. Only reads the host.

HARDINIT=${HARDINIT:-$BATS_TEST_DIRNAME/../../build/hardinit}

load lib/host

PY=/usr/bin/python3
ZEROS=0000000000000000000000000000000000000000000000000000000000000000

setup() {
	audit_host
	printf '[tpm]\nmeasure = yes\npcr = 12\n' >"$T/run/config"
	printf 'stage measure ok 1.000 ms\nmeasure initial info %s\n' "$ZEROS" >"$T/run/report.txt"
}

# The text hardinit extends for an event name.
text() {
	printf 'hardinit:%s:%s' "$1" "$(printf '%s' "$1" | sha256sum | cut -c1-64)"
}

ORDER=(ima-policy verity-root-hash config selinux-policy handoff)

# tpm PCR START TEXT...: what a TPM holds in PCR after extending the texts
# (TPM2_PCR_Event: sha256 of each) from START, written to the fake sysfs.
tpm() {
	local pcr=$1 start=$2
	shift 2
	mkdir -p "$T/sys/class/tpm/tpm0/pcr-sha256"
	"$PY" - "$start" "$@" >"$T/sys/class/tpm/tpm0/pcr-sha256/$pcr" <<-'EOF'
	import hashlib, sys
	v = bytes.fromhex(sys.argv[1])
	for t in sys.argv[2:]:
	    v = hashlib.sha256(v + hashlib.sha256(t.encode()).digest()).digest()
	print(v.hex().upper())
	EOF
}

# log PCR INITIAL LINE...: the event log, each LINE "TEXT" (its digest that
# of TEXT) or "TEXT@HASHED" (the digest of HASHED: an edited text).
log() {
	local pcr=$1 initial=$2 line t h
	shift 2
	{
		echo "# hardinit measurements (hardinit(8))"
		echo "initial $pcr sha256 $initial"
		for line in "$@"; do
			t=${line%%@*}
			h=${line#*@}
			printf 'event %s %s sha1=%s sha256=%s\n' "$pcr" "$t" "$(printf '%s' "$h" | sha1sum | cut -c1-40)" \
				"$(printf '%s' "$h" | sha256sum | cut -c1-64)"
		done
	} >"$T/run/measurements"
}

all_texts() {
	local n
	for n in "${ORDER[@]}"; do text "$n"; echo; done
}

# The audit's tpm line is drift (exit 1) and says want.
drift() {
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift tpm pcr 12 (sha256)"*"$1"* ]]
}

@test "a complete log that replays to the live PCR is ok" {
	mapfile -t texts < <(all_texts)
	tpm 12 "$ZEROS" "${texts[@]}"
	log 12 "$ZEROS" "${texts[@]}"
	audit
	[ "$status" -eq 0 ]
	[[ $output == *"ok    tpm pcr 12 (sha256)"* ]]
}

@test "the report's initial value is the start when the PCR was extended before hardinit (a UKI's stub)" {
	mapfile -t texts < <(all_texts)
	stub=$(printf 'stub' | sha256sum | cut -c1-64)
	tpm 12 "$stub" "${texts[@]}"
	log 12 "$stub" "${texts[@]}"
	printf 'measure initial info %s\n' "$stub" >"$T/run/report.txt"
	audit
	[ "$status" -eq 0 ]
	[[ $output == *"ok    tpm pcr 12 (sha256)"* ]]
	# The same log against a report without it: the start is the reset value.
	printf 'stage measure ok 1.000 ms\n' >"$T/run/report.txt"
	drift "the log starts from"
}

@test "no log with [tpm] measure and a failed measurement in the report is drift" {
	printf 'measure tpm warn TPM /dev/tpmrm0: extending PCR 12 with config failed: no answer\n' >"$T/run/report.txt"
	drift "no log; the report says: warn TPM /dev/tpmrm0"
	printf '[tpm]\nmeasure = yes\nrequire = yes\n' >"$T/run/config"
	drift "no log"
}

@test "no log and a report that says nothing of the TPM is drift (held out)" {
	printf 'stage measure ok 1.000 ms\n' >"$T/run/report.txt"
	drift "no log; the report says: nothing"
}

@test "no log is ok only when the boot found no TPM and the config allowed it" {
	printf 'measure tpm skipped no TPM (/dev/tpmrm0, /dev/tpm0)\n' >"$T/run/report.txt"
	audit
	[ "$status" -eq 0 ]
	[[ $output == *"ok    tpm pcr 12 (sha256)"*"not measured: no TPM at boot, [tpm] require = no"* ]]
	printf '[tpm]\nmeasure = yes\nrequire = yes\n' >"$T/run/config"
	drift "no log; the report says: skipped no TPM"
}

@test "a log cut short after a failure is drift, though it replays to the PCR" {
	mapfile -t texts < <(all_texts)
	tpm 12 "$ZEROS" "${texts[@]:0:2}"
	log 12 "$ZEROS" "${texts[@]:0:2}"
	drift "cut short: 2 of 5 events, no config"
	# Held out: everything but the hand-off.
	tpm 12 "$ZEROS" "${texts[@]:0:4}"
	log 12 "$ZEROS" "${texts[@]:0:4}"
	drift "no handoff"
}

@test "the PCR is the config's: a log of PCR 14 that replays to PCR 14 is drift" {
	mapfile -t texts < <(all_texts)
	tpm 14 "$ZEROS" "${texts[@]}"
	tpm 12 "$ZEROS" "${texts[@]}" extended-after-boot
	log 14 "$ZEROS" "${texts[@]}"
	drift "the log is of PCR 14, the config's is 12"
	# Held out: another PCR in the initial line.
	tpm 13 "$ZEROS" "${texts[@]}"
	log 13 "$ZEROS" "${texts[@]}"
	drift "the log is of PCR 13"
}

@test "the start is not the log's: an initial value that hides earlier extends is drift" {
	mapfile -t texts < <(all_texts)
	# A boot measured something else; the PCR was then extended with the
	# texts of a clean boot, and the log starts from the value in between.
	mid=$("$PY" -c 'import hashlib; print(hashlib.sha256(bytes(32) + hashlib.sha256(b"hostile").digest()).hexdigest())')
	tpm 12 "$mid" "${texts[@]}"
	log 12 "$mid" "${texts[@]}"
	drift "the log starts from ${mid:0:12}"
	# Held out: a report without the initial line; the reset value still holds.
	printf 'stage measure ok 1.000 ms\n' >"$T/run/report.txt"
	drift "the log starts from ${mid:0:12}"
}

@test "an edited event text is drift: each digest is recomputed from its text" {
	mapfile -t texts < <(all_texts)
	tpm 12 "$ZEROS" "${texts[@]}"
	forged="hardinit:verity-root-hash:$(printf 'other' | sha256sum | cut -c1-64)"
	log 12 "$ZEROS" "${texts[0]}" "$forged@${texts[1]}" "${texts[@]:2}"
	drift "event 2 (verity-root-hash): its text does not hash to its digest"
	# Held out: the config event edited.
	log 12 "$ZEROS" "${texts[@]:0:2}" "hardinit:config:00@${texts[2]}" "${texts[@]:3}"
	drift "event 3 (config): its text does not hash to its digest"
	# The edit with its own digest no longer replays to the PCR.
	log 12 "$ZEROS" "${texts[0]}" "$forged" "${texts[@]:2}"
	audit
	[ "$status" -eq 1 ]
	[[ $output == *"drift tpm pcr 12 (sha256)"* ]]
}

@test "a log out of hardinit's order is drift, though the PCR was extended in that order" {
	mapfile -t texts < <(all_texts)
	reordered=("${texts[0]}" "${texts[2]}" "${texts[1]}" "${texts[3]}" "${texts[4]}")
	tpm 12 "$ZEROS" "${reordered[@]}"
	log 12 "$ZEROS" "${reordered[@]}"
	drift "event 2 is 'hardinit:config:"
	# Held out: the hand-off first; an event twice.
	reordered=("${texts[4]}" "${texts[@]:0:4}")
	tpm 12 "$ZEROS" "${reordered[@]}"
	log 12 "$ZEROS" "${reordered[@]}"
	drift "event 1 is 'hardinit:handoff:"
	doubled=("${texts[0]}" "${texts[@]}")
	tpm 12 "$ZEROS" "${doubled[@]}"
	log 12 "$ZEROS" "${doubled[@]}"
	drift "expected verity-root-hash"
}

@test "an extend after the boot is drift" {
	mapfile -t texts < <(all_texts)
	tpm 12 "$ZEROS" "${texts[@]}" "later"
	log 12 "$ZEROS" "${texts[@]}"
	drift ""
}
