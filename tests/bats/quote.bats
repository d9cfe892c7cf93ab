#!/usr/bin/env bats
# contrib/hardinit-quote against a swtpm on the host, through tpm2-tools'
# swtpm TCTI: the attestation key is kept at its persistent handle and
# reused, so a verifier can pin it; the check reads the prediction as
# JSON, in any layout a JSON tool writes it, and refuses what is not.

bats_require_minimum_version 1.5.0

load lib/host

setup_file() {
	repo_make
	export QUOTE=$REPO/contrib/hardinit-quote
}

# A fresh swtpm (swtpm_start); the measurement log names PCR 12, and no
# sysfs PCR 7 or 11 is read.
setup() {
	command -v tpm2_quote >/dev/null || skip "tpm2-tools is not installed"
	command -v swtpm >/dev/null || skip "swtpm is not installed"
	T=$BATS_TEST_TMPDIR
	swtpm_start "$T"
	export TPM2TOOLS_TCTI="swtpm:path=$T/sock" HARDINIT_MEASUREMENTS=$T/measurements HARDINIT_TPM_SYSFS=$T/nosysfs
	echo "initial 12 $(printf '%064d' 0)" >"$T/measurements"
	NONCE=0123456789abcdef
	# The prediction of a PCR 12 nothing extended: zeros.
	printf '{\n  "format":"hardinit-predict",\n  "version":"0",\n  "pcr":12,\n  "bank":"sha256",\n  "initial":"%s",\n  "value":"%s",\n  "cmdline":"",\n  "events":[]\n}\n' \
		"$(printf '%064d' 0)" "$(printf '%064d' 0)" >"$T/predict.json"
}

teardown() {
	swtpm_stop "$BATS_TEST_TMPDIR"
}

@test "quote: two quotes are signed by the same attestation key, kept at its persistent handle" {
	run -0 "$QUOTE" quote "$NONCE" "$T/q1"
	[[ $output == *"quoted sha256:12 over nonce $NONCE into $T/q1 with the AK 0x81010051"* ]]
	run -0 "$QUOTE" quote "${NONCE}00" "$T/q2"
	cmp "$T/q1/ak.pem" "$T/q2/ak.pem"
	tpm2_getcap handles-persistent | grep -qi 0x81010051
	run -0 "$QUOTE" check "$NONCE" "$T/q1" "$T/predict.json"
	run -0 "$QUOTE" check "${NONCE}00" "$T/q2" "$T/predict.json"
	# The first quote's signature verifies with the second's key: one AK.
	run -0 "$QUOTE" check "$NONCE" "$T/q1" "$T/predict.json"
	cp "$T/q2/ak.pem" "$T/q1/ak.pem"
	run -0 "$QUOTE" check "$NONCE" "$T/q1" "$T/predict.json"
}

@test "check: with the enrolled AK, a quote signed by another key (an AK a root replaced, another TPM) is refused" {
	run -0 "$QUOTE" quote "$NONCE" "$T/q1"
	cp "$T/q1/ak.pem" "$T/enrolled.pem"
	run -0 "$QUOTE" check "$NONCE" "$T/q1" "$T/predict.json" "$T/enrolled.pem"
	[[ $output != *"not compared with an enrolled AK"* ]]
	# Root replaces the AK at its handle: the next quote is made by a new key,
	# over the same (predicted) PCR, and tpm2_checkquote alone accepts it.
	tpm2_evictcontrol -C o -c 0x81010051 >/dev/null
	run -0 "$QUOTE" quote "$NONCE" "$T/q2"
	run ! cmp -s "$T/q2/ak.pem" "$T/enrolled.pem"
	run -0 "$QUOTE" check "$NONCE" "$T/q2" "$T/predict.json"
	[[ $output == *"not compared with an enrolled AK"* ]]
	run -1 "$QUOTE" check "$NONCE" "$T/q2" "$T/predict.json" "$T/enrolled.pem"
	[[ $output == *"is not the enrolled AK"* ]]
	run -2 "$QUOTE" check "$NONCE" "$T/q2" "$T/predict.json" "$T/absent.pem"
}

@test "check: the prediction is read as JSON, in any layout or key order; what is not JSON, or not a prediction, is one clear line" {
	run -0 "$QUOTE" quote "$NONCE" "$T/q"
	python3 -m json.tool "$T/predict.json" >"$T/tool.json"
	python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
print(json.dumps(dict(reversed(list(p.items()))), separators=(",", ":")))' "$T/predict.json" >"$T/oneline.json"
	run -1 cmp -s "$T/tool.json" "$T/predict.json"
	for f in predict tool oneline; do
		run -0 "$QUOTE" check "$NONCE" "$T/q" "$T/$f.json"
		[[ $output == *"verified:"*"PCR 12 is the predicted"* ]]
	done
	# Not JSON.
	head -c 40 "$T/predict.json" >"$T/cut.json"
	run -2 "$QUOTE" check "$NONCE" "$T/q" "$T/cut.json"
	[[ $output == "hardinit-quote: $T/cut.json is not JSON: "* ]]
	[ "${#lines[@]}" -eq 1 ]
	# JSON, but not a prediction (the value is not 64 hex digits).
	sed 's/"value":"0/"value":"/' "$T/predict.json" >"$T/short.json"
	run -2 "$QUOTE" check "$NONCE" "$T/q" "$T/short.json"
	[[ $output == "hardinit-quote: $T/short.json is not hardinit predict's JSON"* ]]
	# Another value: the boot is not the one built.
	sed 's/"value":"0/"value":"1/' "$T/predict.json" >"$T/other.json"
	run -1 "$QUOTE" check "$NONCE" "$T/q" "$T/other.json"
	[[ $output == *"is not the one that was built"* ]]
}
