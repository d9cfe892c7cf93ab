#!/usr/bin/env bats
# The include graph of init/ crypto/ arch/ block/ tpm/ stages/ prog/ has no circle
# (tests/tools/include-graph.py: X.c and X.h are one node, an edge is an
# #include "Y.h"), so every file sits above the files it uses and a reader
# can start at the bottom; and no file includes a header its floor (the
# Makefile's FLOOR_*) does not see.

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	GRAPH="$REPO/tests/tools/include-graph.py"
}

@test "includes: no include circle across the tree" {
	run python3 "$GRAPH" circles "$REPO"
	[ "$status" -eq 0 ] || {
		echo "include circles:" >&2
		echo "$output" >&2
		false
	}
	[ -z "$output" ]
}

@test "includes: the finder sees a circle through a .c and the other's header" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/init" "$t/stages"
	printf '#include "b.h"\n' >"$t/init/a.c"
	printf 'int a(void);\n' >"$t/init/a.h"
	printf '#include "c.h"\n' >"$t/init/b.c"
	printf 'int b(void);\n' >"$t/init/b.h"
	printf '#include "a.h"\n' >"$t/init/c.h"
	printf '#include "a.h"\n' >"$t/stages/d.c"
	run python3 "$GRAPH" circles "$t"
	[ "$status" -eq 1 ]
	[ "$output" = 'init/a -> init/b -> init/c -> init/a' ]
	rm "$t/init/c.h"
	run python3 "$GRAPH" circles "$t"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "includes: every non-static function or object of X.c is declared in X.h and no other header" {
	run python3 "$GRAPH" headers "$REPO"
	[ "$status" -eq 0 ] || {
		printf 'declared away from their own header:\n%s\n' "$output" >&2
		false
	}
	[ -z "$output" ]
}

@test "includes: the header check sees a function declared in another file's header" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/block"
	printf '#include "a.h"\nint hi_a(void) { return 0; }\n' >"$t/block/a.c"
	printf 'int hi_a(void);\n' >"$t/block/a.h"
	printf '#include "b.h"\nint hi_b(void) { return 1; }\nstatic int c(void) { return 2; }\nint main(void) { return c(); }\n' >"$t/block/b.c"
	printf 'int hi_b(void);\n' >"$t/block/b.h"
	run python3 "$GRAPH" headers "$t"
	[ "$status" -eq 0 ]
	printf 'int hi_b(void);\n' >"$t/block/a.h"
	printf '#include "a.h"\n#include "b.h"\nint hi_a(void) { return 0; }\n' >"$t/block/a.c"
	run python3 "$GRAPH" headers "$t"
	[ "$status" -eq 1 ]
	[[ $output == *'block/a.c: hi_a is not declared in block/a.h'* ]]
	[[ $output == *'block/b.c: hi_b is declared in block/a.h, not only in block/b.h'* ]]
}

# The include paths of each C folder, as the Makefile compiles it
# (floor_inc, the one home of the floors): "FOLDER=-IA -IB ..." lines.
floor_paths() {
	local d
	for d in init crypto arch block tpm stages prog; do
		printf '\t@echo %s=$(call floor_inc,%s/x.c)\n' "$d" "$d"
	done | { printf 'floor-paths:\n'; cat; } |
		make -s -C "$REPO" --no-print-directory -f Makefile -f - floor-paths
}

# floors.bats shows the compiler refusing a probe; this reads every real
# include, so a file that crosses (block/ taking a tpm/ header, tpm/ a
# block/ one, crypto/ anything above init/) is named without a build.
@test "includes: every file includes only headers its floor sees: none from above, none across block/, tpm/ and arch/" {
	local spec
	spec=$(floor_paths)
	[[ $spec == *'block=-Iinit -Icrypto -Iblock'* ]]
	run python3 "$GRAPH" floors "$REPO" <<<"$spec"
	[ "$status" -eq 0 ] || {
		echo "includes across the floors:" >&2
		echo "$output" >&2
		false
	}
	[ -z "$output" ]
}

@test "includes: the floor check sees block/ taking a tpm/ header, tpm/ a block/ one, and crypto/ one from above" {
	local t=$BATS_TEST_TMPDIR/tree spec
	spec=$(floor_paths)
	mkdir -p "$t/init" "$t/crypto" "$t/block" "$t/tpm"
	printf 'int hi_i(void);\n' >"$t/init/i.h"
	printf '#include "i.h"\n' >"$t/crypto/c.h"
	printf '#include "c.h"\n#include "i.h"\n' >"$t/block/b.h"
	printf '#include "c.h"\n' >"$t/tpm/t.h"
	run python3 "$GRAPH" floors "$t" <<<"$spec"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	printf '#include "b.h"\n#include "t.h"\n' >"$t/block/b.c"
	printf '/* #include "b.h" in a comment is no include */\n#include "b.h"\n' >"$t/tpm/t.c"
	printf '#include "t.h"\n' >"$t/crypto/c.c"
	run python3 "$GRAPH" floors "$t" <<<"$spec"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ $output == *'block/b.c: includes tpm/t.h, which block/ may not see'* ]]
	[[ $output == *'tpm/t.c: includes block/b.h, which tpm/ may not see'* ]]
	[[ $output == *'crypto/c.c: includes tpm/t.h, which crypto/ may not see'* ]]
}
