#!/usr/bin/env bats
# make bench's boot table read again from canned console logs
# (BENCH_FROM_LOGS: no build, no boot): the paced floor has its row beside
# floor and floor-nice, every case's "over paced" is the median of its
# per-round pairs with their spread, and the verdict reads the paced floor,
# not floor-nice. The logs are made up, so every figure is known.

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	L=$BATS_TEST_TMPDIR/logs
	mkdir -p "$L"
}

# canned NAME ROUND USERSPACE_MS [stage]: a console log whose real init
# starts USERSPACE_MS after "Run /init" (at 1000 ms), with the root mounted
# 5 ms before it; "stage" adds one of hardinit's stage lines.
canned() {
	local name=$1 i=$2 ms=$3
	awk -v ms="$ms" -v stage="${4:-}" 'BEGIN {
		printf "[    1.000000] Run /init as init process\r\n"
		if (stage != "") printf "[    1.001000] hardinit: stage early ok 1.5 ms\r\n"
		printf "[    %.6f] EXT4-fs (vda): mounted filesystem ro\r\n", (1000 + ms - 5) / 1000
		printf "[    %.6f] testinit: first instruction\r\n", (1000 + ms) / 1000
	}' >"$L/$name-$i.log"
}

# The three rounds: floor-paced takes 100, 200, 150 ms; floor-nice is far
# slower (300) and floor slower still (400), so a verdict read against
# either would call every case within. strict is 12 ms over the paced
# floor in rounds 1 and 2 and 20 under it in round 3: paired median +12.0
# (-20.0-12.0), over 10; the difference of the medians would be 130 - 150
# = -20. baseline is 5, 0 and 3 over: +3.0 (0.0-5.0), within 10.
rounds() {
	local i paced=(0 100 200 150) strict=(0 112 212 130) base=(0 105 200 153)
	for i in 1 2 3; do
		canned floor "$i" 400
		canned floor-nice "$i" 300
		canned floor-paced "$i" "${paced[i]}"
		canned strict "$i" "${strict[i]}" stage
		canned baseline "$i" "${base[i]}" stage
	done
}

bench_table() {
	run env BENCH_FROM_LOGS="$L" BENCH_RUNS=3 BENCH_CASES="baseline strict" "$REPO/bench/run"
	echo "$output"
}

@test "bench: the paced floor has its row beside floor and floor-nice" {
	rounds
	bench_table
	[ "$status" -eq 0 ]
	local row
	for row in floor floor-nice floor-paced baseline strict; do
		echo "$output" | grep -qE "^$row +[0-9.]+ " || { echo "no row $row"; return 1; }
	done
	# floor-paced's userspace: median 150 (100-200), and 0 over itself.
	echo "$output" | grep -E '^floor-paced ' | grep -qE ' 150\.0 +\(100\.0-200\.0\) '
	echo "$output" | grep -E '^floor-paced ' | grep -qE ' \+0\.0 +\(0\.0-0\.0\) '
}

@test "bench: over paced is the median of per-round pairs with their spread" {
	rounds
	bench_table
	[ "$status" -eq 0 ]
	echo "$output" | grep -E '^strict ' | grep -qE ' \+12\.0 +\(-20\.0-12\.0\) '
	echo "$output" | grep -E '^baseline ' | grep -qE ' \+3\.0 +\(0\.0-5\.0\) '
}

@test "bench: the verdict reads the paced floor, not floor-nice" {
	rounds
	bench_table
	[ "$status" -eq 0 ]
	echo "$output" | grep -qE '^  strict +\+12\.0 ms over floor-paced \(-20\.0-12\.0, 3 pairs\): over 10 ms$'
	echo "$output" | grep -qE '^  baseline +\+3\.0 ms over floor-paced \(0\.0-5\.0, 3 pairs\): within 10 ms$'
}

@test "bench: a round whose paced floor did not reach the real init pairs nothing" {
	rounds
	# Round 3's paced floor stopped before the real init.
	sed -i '/testinit/d' "$L/floor-paced-3.log"
	bench_table
	[ "$status" -eq 0 ]
	echo "$output" | grep -qE '^  strict +\+12\.0 ms over floor-paced \(12\.0-12\.0, 2 pairs\): over 10 ms$'
	echo "$output" | grep -qF 'boot floor-paced #3 did not reach the real init'
}

@test "bench: with no paced floor at all a case gets no verdict" {
	rounds
	rm "$L"/floor-paced-*.log
	bench_table
	[ "$status" -eq 0 ]
	echo "$output" | grep -qE '^  strict +no verdict'
	if echo "$output" | grep -qE '^  [a-z]+ .*: (within|over) 10 ms$'; then
		echo "a verdict without a paced floor"
		return 1
	fi
}

@test "bench: BENCH_FLOORS boots a subset of the floors, never without the paced one" {
	rounds
	run env BENCH_FROM_LOGS="$L" BENCH_RUNS=3 BENCH_CASES="strict" BENCH_FLOORS="floor-nice" "$REPO/bench/run"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -qE '^floor-nice '
	echo "$output" | grep -qE '^floor-paced '
	if echo "$output" | grep -qE '^floor '; then
		echo "floor booted, not asked for"
		return 1
	fi
	echo "$output" | grep -qE '^  strict +\+12\.0 ms over floor-paced \(-20\.0-12\.0, 3 pairs\): over 10 ms$'
}
