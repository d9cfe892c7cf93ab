#!/usr/bin/env bats
# tests/vm/cel-replay, the independent reader of systemd's userspace event
# log that tests/vm/attest.bats runs over a guest's log: it replays a
# firmware log and good records to the PCR Python's hashlib computes, and
# refuses each break of systemd's format, so the VM test can fail.

setup() {
	REPLAY=$BATS_TEST_DIRNAME/../vm/cel-replay
	# A crypto-agile firmware log (sha1, sha256) with one PCR 11 event, as
	# systemd-stub measures a UKI section (event type 13, EV_IPL).
	python3 - "$BATS_TEST_TMPDIR/fw.hex" <<-'PY'
		import hashlib, struct, sys
		spec = b"Spec ID Event03\0" + struct.pack("<IBBBBI", 0, 0, 2, 0, 2, 2) + struct.pack("<HHHH", 4, 20, 0xB, 32) + b"\0"
		log = struct.pack("<II20sI", 0, 3, bytes(20), len(spec)) + spec
		sect = b".linux"
		d1, d2 = hashlib.sha1(sect).digest(), hashlib.sha256(sect).digest()
		log += struct.pack("<III", 11, 13, 2) + struct.pack("<H", 4) + d1 + struct.pack("<H", 0xB) + d2
		log += struct.pack("<I", len(sect)) + sect
		open(sys.argv[1], "w").write(log.hex())
	PY
}

# record PCR STRING [EVENTTYPE] [python expression changing r]
record() {
	python3 - "$@" <<-'PY'
		import hashlib, json, sys
		pcr, s = int(sys.argv[1]), sys.argv[2]
		c = {"string": s, "bootId": "0123456789abcdef0123456789abcdef", "timestamp": 12}
		if len(sys.argv) > 3 and sys.argv[3]:
		    c["eventType"] = sys.argv[3]
		r = {"pcr": pcr, "digests": [{"hashAlg": a, "digest": hashlib.new(a, s.encode()).hexdigest()}
		                             for a in ("sha1", "sha256")], "content_type": "systemd", "content": c}
		if len(sys.argv) > 4:
		    exec(sys.argv[4])
		sys.stdout.write("\x1e" + json.dumps(r) + "\n")
	PY
}

@test "good records: listed, and PCR 11 replayed from the firmware's event and the records" {
	{ record 11 enter-initrd phase; record 12 "hardinit:handoff:1"; } >"$BATS_TEST_TMPDIR/cel"
	run "$REPLAY" "$BATS_TEST_TMPDIR/fw.hex" "$BATS_TEST_TMPDIR/cel"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"rec1 pcr=11 type=phase string=enter-initrd"* ]]
	[[ $output == *"rec2 pcr=12 type=- string=hardinit:handoff:1"* ]]
	want=$(python3 -c 'import hashlib
v = bytes(32)
for d in (hashlib.sha256(b".linux").digest(), hashlib.sha256(b"enter-initrd").digest()):
    v = hashlib.sha256(v + d).digest()
print(v.hex())')
	[[ $output == *"pcr11 sha256=$want"* ]]
}

@test "each break of systemd's format is refused with the record's number" {
	local -a breaks=(
		'r["digests"][1]["digest"] = "00" * 32'
		'r["recnum"] = 1'
		'r["content_type"] = "pcclient_std"'
		'del r["content"]["bootId"]'
		'r["content"]["timestamp"] = "12"'
		'r["content"]["eventType"] = "stage"'
		'r["content"]["extra"] = 1'
		'r["pcr"] = 24'
		'r["digests"] = r["digests"][:1]'
	)
	local b
	for b in "${breaks[@]}"; do
		{ record 11 enter-initrd phase; record 11 leave-initrd phase "$b"; } >"$BATS_TEST_TMPDIR/cel"
		run "$REPLAY" "$BATS_TEST_TMPDIR/fw.hex" "$BATS_TEST_TMPDIR/cel"
		echo "$b: $output"
		[ "$status" -eq 1 ]
		[[ $output == *"cel-replay: record 2"* ]]
	done
	record 11 enter-initrd phase | tr -d '\036' >"$BATS_TEST_TMPDIR/cel"
	run "$REPLAY" "$BATS_TEST_TMPDIR/fw.hex" "$BATS_TEST_TMPDIR/cel"
	[ "$status" -eq 1 ]
	[[ $output == *"record separator"* ]]
}
