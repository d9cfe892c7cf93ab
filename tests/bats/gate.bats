#!/usr/bin/env bats
# tests/run-suites, the gate make check ends in, run over a small tree of
# its own: made-up unit tests and bats files whose results are known, so the
# counts, the lanes, the per-file suites with their seconds, the budget
# warnings, the slowest tests and the cached-artefact list can be checked
# exactly. And every real tests/vm file declares the budget it is held to.

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/tests/vm" "$T/tests/bats" "$T/build/unit" "$T/build/unit-san"
	cp "$REPO/tests/run-suites" "$T/tests/"
	# Two unit binaries (TAP on stdout) and their sanitizer twins.
	for d in unit unit-san; do
		printf '#!/bin/sh\necho 1..2\necho "ok 1 a"\necho "ok 2 b"\n' >"$T/build/$d/test_good"
		printf '#!/bin/sh\necho 1..1\necho "ok 1 # skip not here"\n' >"$T/build/$d/test_skip"
		chmod +x "$T/build/$d"/test_*
	done
	# (printf: a line of this file starting with @test would be read as a
	# test of this file.)
	printf '@test "host %s" { true; }\n' one two >"$T/tests/bats/host.bats"
}

# A VM file: NAME BUDGET SLEEP, then the bodies of its tests.
vm_file() {
	local name=$1 budget=$2
	shift 2
	{
		printf '# budget: %s s\n\n' "$budget"
		local i=0 body
		for body in "$@"; do
			i=$((i + 1))
			printf '@test "%s %d" {\n\t%s\n}\n' "$name" "$i" "$body"
		done
	} >"$T/tests/vm/$name.bats"
}

# The PATH without bats' own libexec, which the bats running this file puts
# first: the gate must find /usr/bin/bats, as make check does.
clean_path() {
	tr ':' '\n' <<<"$PATH" | grep -v 'bats-core' | paste -sd:
}

run_gate() {
	# A clean environment: the bats running this test must not leak its
	# own variables into the bats runs of the gate under test.
	run env -i PATH="$(clean_path)" HOME="$HOME" HARDINIT_VM_LANES="${LANES:-2}" \
		HARDINIT_GATE_TARGET="${TARGET:-1620}" HARDINIT_CACHE="$BATS_TEST_TMPDIR/cache" FUZZ_BUDGET=1 \
		"$T/tests/run-suites"
}

# The arm64 unit tests are make cross's: on an amd64 host without them the
# gate counts one failure, so a tree that forgot the cross build fails.
arm64_fail() {
	[[ $(dpkg --print-architecture) == amd64 ]] && echo 1 || echo 0
}

@test "gate: every unit binary, host bats file and VM file is a suite; the last line sums them all" {
	vm_file alpha 60 'sleep 1' 'true'
	vm_file beta 60 'true' 'skip "not today"'
	run_gate
	local af
	af=$(arm64_fail)
	[[ ${lines[-1]} == "9 passed, $af failed, 3 skipped" ]] || { echo "$output"; false; }
	if ((af)); then [ "$status" -ne 0 ]; else [ "$status" -eq 0 ]; fi
	# One suite per VM file and per host bats file, each with its seconds.
	grep -Eq '^ +[0-9]+ s +2 passed +0 failed +0 skipped +bats tests/vm/alpha\.bats$' <<<"$output"
	grep -Eq '^ +[0-9]+ s +1 passed +0 failed +1 skipped +bats tests/vm/beta\.bats$' <<<"$output"
	grep -Eq '^ +[0-9]+ s +2 passed +0 failed +0 skipped +bats tests/bats/host\.bats$' <<<"$output"
	grep -Eq '^ +[0-9]+ s +2 passed .* build/unit-san/test_good$' <<<"$output"
	# Each suite's own output is printed whole between its header and its end line.
	grep -qx '==> bats tests/vm/alpha.bats' <<<"$output"
	grep -q '^<== bats tests/vm/alpha.bats: 2 passed, 0 failed, 0 skipped in [0-9]* s$' <<<"$output"
	[ -f "$T/build/test-logs/summary.txt" ]
}

@test "gate: a failing VM test fails the gate; a suite that dies without a failing line counts one failure" {
	vm_file alpha 60 'false'
	printf '#!/bin/sh\necho 1..3\necho "ok 1 a"\nexit 3\n' >"$T/build/unit/test_dies"
	chmod +x "$T/build/unit/test_dies"
	run_gate
	[ "$status" -ne 0 ]
	local af
	af=$(arm64_fail)
	[[ ${lines[-1]} == "7 passed, $((2 + af)) failed, 2 skipped" ]] || { echo "$output"; false; }
	grep -q 'build/unit/test_dies (exited with status 3 without a failing test: counted as one failure)' <<<"$output"
}

@test "gate: two VM lanes run two files at once; one lane runs them one after the other" {
	# Each file's test marks that it started, then waits (at most 20 s) for
	# the other's mark: side by side both find it; one after the other the
	# first waits in vain and fails. A handshake, not a stopwatch.
	local m=$BATS_TEST_TMPDIR/marks
	mkdir -p "$m"
	vm_file alpha 60 "touch $m/alpha; timeout 20 sh -c 'until [ -e $m/beta ]; do sleep 0.1; done'"
	vm_file beta 60 "touch $m/beta; timeout 20 sh -c 'until [ -e $m/alpha ]; do sleep 0.1; done'"
	LANES=2 run_gate
	grep -q 'all suites in [0-9]* s (2 VM lanes beside the host lane)' <<<"$output"
	grep -Eq '^ +[0-9]+ s +1 passed +0 failed .*tests/vm/alpha\.bats$' <<<"$output" || { echo "$output"; false; }
	grep -Eq '^ +[0-9]+ s +1 passed +0 failed .*tests/vm/beta\.bats$' <<<"$output"
	rm -f "$m"/*
	LANES=1 run_gate
	grep -q 'all suites in [0-9]* s (1 VM lanes beside the host lane)' <<<"$output"
	grep -Eq '^ +[0-9]+ s +0 passed +1 failed .*tests/vm/alpha\.bats$' <<<"$output" || { echo "$output"; false; }
}

@test "gate: a file whose slow cache entry is missing starts first; once filled, its budget alone orders it" {
	# One lane, so the order the files ran in is the order of their marks.
	local order=$BATS_TEST_TMPDIR/order
	vm_file long 60 "echo long >>$order"
	vm_file first 10 "echo first >>$order"
	sed -i '1a # cold: 100 s images/tree-*/tree.done' "$T/tests/vm/first.bats"
	LANES=1 run_gate
	[[ $(paste -sd' ' "$order") == "first long" ]] || { cat "$order"; echo "$output"; false; }
	mkdir -p "$BATS_TEST_TMPDIR/cache/images/tree-0123"
	touch "$BATS_TEST_TMPDIR/cache/images/tree-0123/tree.done"
	rm -f "$order"
	LANES=1 run_gate
	[[ $(paste -sd' ' "$order") == "long first" ]] || { cat "$order"; echo "$output"; false; }
}

@test "gate: a VM file over its budget, or without one, gets a warning line, not a failure" {
	vm_file slow 1 'sleep 3'
	printf '@test "unbudgeted" { true; }\n' >"$T/tests/vm/free.bats"
	run_gate
	grep -Eq '^warning: tests/vm/slow\.bats took [0-9]+ s, over its budget of 1 s$' <<<"$output" ||
		{ echo "$output"; false; }
	grep -qx "warning: tests/vm/free.bats declares no budget (a '# budget: N s' line in its header)" <<<"$output"
	[[ ${lines[-1]} == "8 passed, $(arm64_fail) failed, 2 skipped" ]] || { echo "$output"; false; }
}

@test "gate: a run past the gate's goal says so in a warning line, and still passes" {
	vm_file slow 60 'sleep 3'
	TARGET=1 run_gate
	grep -Eq "^warning: the suites took [0-9]+ s, over the gate's goal of 1 s$" <<<"$output" ||
		{ echo "$output"; false; }
	[[ ${lines[-1]} == "7 passed, $(arm64_fail) failed, 2 skipped" ]] || { echo "$output"; false; }
	run_gate
	! grep -q "over the gate's goal" <<<"$output"
}

@test "gate: the slowest tests are listed, slowest first, from every bats suite" {
	vm_file alpha 60 'sleep 2' 'true'
	run_gate
	local slow
	slow=$(sed -n '/^==> the 10 slowest tests$/,/^$/p' <<<"$output")
	[[ $(sed -n 2p <<<"$slow") =~ ^\ +[0-9]+\ s\ +alpha\ 1$ ]] || { echo "$slow"; false; }
	grep -q 'host one' <<<"$slow"
}

@test "gate: cached artefacts are listed as hit, or miss with what it cost" {
	# A VM test that uses the harness's cache note as vm_build_once does.
	printf '%s\n' '# budget: 60 s' "load $REPO/tests/vm/lib" '@test "cached" {' \
		'vm_cache_note images/tree miss 42' 'vm_cache_note kernels/6.12 hit' \
		'vm_cache_note kernels/6.12 hit' '}' >"$T/tests/vm/cached.bats"
	run_gate
	local list
	list=$(sed -n '/^==> cached artefacts$/,/^$/p' <<<"$output")
	grep -qx 'miss images/tree: built in 42 s' <<<"$list" || { echo "$list"; false; }
	grep -qx 'hit  kernels/6.12 (x2)' <<<"$list"
}

@test "gate: HARDINIT_SKIP_VM=1 counts every VM test as skipped" {
	vm_file alpha 60 'true' 'true'
	run env -i PATH="$(clean_path)" HOME="$HOME" HARDINIT_SKIP_VM=1 FUZZ_BUDGET=1 "$T/tests/run-suites"
	[[ ${lines[-1]} == "6 passed, $(arm64_fail) failed, 4 skipped" ]] || { echo "$output"; false; }
}

@test "gate: every tests/vm file declares its budget, and the budgets fit the gate" {
	local f b c total=0 cold=0 missing=""
	for f in "$REPO"/tests/vm/*.bats; do
		b=$(sed -n 's/^# budget: \([0-9][0-9]*\) s$/\1/p' "$f" | head -n 1)
		[[ -n $b ]] || { missing+=" ${f#"$REPO"/}"; continue; }
		total=$((total + b))
		c=$(sed -n 's/^# cold: \([0-9][0-9]*\) s ..*$/\1/p' "$f" | head -n 1)
		cold=$((cold + ${c:-0}))
	done
	[[ -z $missing ]] || { echo "no '# budget: N s' line in:$missing"; false; }
	# CI stops at 90 minutes. A make check on a machine whose caches were
	# emptied must end well inside it: about 10 minutes for the install
	# and the build, then the VM files in two lanes with the host lane
	# beside them, their cold seconds (the `# cold: N s GLOB` lines)
	# included, within 60, leaving 20 for a slower machine. The budgets (a
	# warm run's seconds with some room) alone must fit 45 minutes of two
	# lanes. The goals, 30 minutes warm and 45 cold, are the summary's to
	# show: tests/run-suites warns past HARDINIT_GATE_TARGET.
	((total / 2 <= 45 * 60)) || { echo "the VM files' budgets add up to $total s, over 2 x 45 minutes"; false; }
	(((total + cold) / 2 <= 60 * 60)) ||
		{ echo "budgets and cold seconds add up to $((total + cold)) s, over 2 x 60 minutes"; false; }
}
