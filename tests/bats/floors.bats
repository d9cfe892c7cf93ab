#!/usr/bin/env bats
# The floors of shared/DESIGN.md section 3 are kept by the compiler: a file
# is compiled with the include paths of its own floor and the floors below
# it (the Makefile's FLOOR_*), so an include the wrong way up, or across
# the peer families block/, tpm/ and arch/, fails the build. Each case
# compiles a probe file through the Makefile's own object rule in a copy of
# the tree made of links (the tree itself is not touched), once including
# a header from above or across (must fail) and once from below (must
# build, so the failure is the floor's and nothing else's).

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	TREE=$BATS_TEST_TMPDIR/tree
	mkdir -p "$TREE"
	local d
	for d in Makefile debian init crypto arch block tpm stages prog tests; do
		ln -s "$REPO/$d" "$TREE/$d"
	done
}

# probe FLOOR HEADER: compile FLOOR/floor_probe.c, which includes HEADER,
# with the Makefile's host object rule; leaves make's status and output.
probe() {
	local floor=$1 header=$2
	rm -rf "${TREE:?}/$floor"
	mkdir -p "$TREE/$floor"
	ln -s "$REPO/$floor"/* "$TREE/$floor/"
	printf '#include "%s"\nint floor_probe(void);\nint floor_probe(void) { return 0; }\n' \
		"$header" >"$TREE/$floor/floor_probe.c"
	run make -s -C "$TREE" "build/obj/host/$floor/floor_probe.o"
}

@test "floors: init/ cannot include a stage's header, and builds with its own" {
	probe init table.h
	[ "$status" -ne 0 ]
	[[ $output == *'table.h: No such file'* ]]
	probe init dm.h
	[ "$status" -ne 0 ]
	[[ $output == *'dm.h: No such file'* ]]
	probe init boot.h
	[ "$status" -eq 0 ]
}

@test "floors: crypto/ cannot include the machinery's, a stage's or the program's header, and builds with init's" {
	local h
	for h in dm.h luks2.h tpm.h arch.h table.h cli.h; do
		probe crypto "$h"
		[ "$status" -ne 0 ]
		[[ $output == *"$h: No such file"* ]]
	done
	probe crypto fsutil.h
	[ "$status" -eq 0 ]
	probe crypto sha256.h
	[ "$status" -eq 0 ]
}

@test "floors: block/, tpm/ and arch/ cannot include a stage's or the program's header, and build with init's and crypto's" {
	local floor
	for floor in block tpm arch; do
		probe "$floor" table.h
		[ "$status" -ne 0 ]
		[[ $output == *'table.h: No such file'* ]]
		probe "$floor" cli.h
		[ "$status" -ne 0 ]
		probe "$floor" fsutil.h
		[ "$status" -eq 0 ]
		probe "$floor" pbkdf2.h
		[ "$status" -eq 0 ]
	done
}

# The families of the machinery are peers: what two of them share sits in
# crypto/ (or init/), so none builds on another and each can be read and
# tested alone.
@test "floors: block/, tpm/ and arch/ are peers: none can include another's header" {
	probe block tpm.h
	[ "$status" -ne 0 ]
	[[ $output == *'tpm.h: No such file'* ]]
	probe block arch.h
	[ "$status" -ne 0 ]
	probe tpm luks2_json.h
	[ "$status" -ne 0 ]
	[[ $output == *'luks2_json.h: No such file'* ]]
	probe tpm arch.h
	[ "$status" -ne 0 ]
	probe arch dm.h
	[ "$status" -ne 0 ]
	probe arch tpm.h
	[ "$status" -ne 0 ]
	probe block luks2.h
	[ "$status" -eq 0 ]
	probe tpm tpm.h
	[ "$status" -eq 0 ]
	probe arch arch.h
	[ "$status" -eq 0 ]
}

@test "floors: stages/ cannot include the program's header, and builds with the machinery's" {
	probe stages cli.h
	[ "$status" -ne 0 ]
	[[ $output == *'cli.h: No such file'* ]]
	probe stages audit.h
	[ "$status" -ne 0 ]
	probe stages dm.h
	[ "$status" -eq 0 ]
	probe stages boot.h
	[ "$status" -eq 0 ]
}

@test "floors: the Makefile gives each floor only its own and lower include paths" {
	run make -s -C "$REPO" --no-print-directory -f Makefile -f - floors-print <<'MK'
floors-print:
	@echo init=$(call floor_inc,init/x.c)
	@echo crypto=$(call floor_inc,crypto/x.c)
	@echo block=$(call floor_inc,block/x.c)
	@echo tpm=$(call floor_inc,tpm/x.c)
	@echo arch=$(call floor_inc,arch/x.c)
	@echo stages=$(call floor_inc,stages/x.c)
	@echo prog=$(call floor_inc,prog/x.c)
MK
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == 'init=-Iinit' ]]
	[[ ${lines[1]} == 'crypto=-Iinit -Icrypto' ]]
	[[ ${lines[2]} == 'block=-Iinit -Icrypto -Iblock' ]]
	[[ ${lines[3]} == 'tpm=-Iinit -Icrypto -Itpm' ]]
	[[ ${lines[4]} == 'arch=-Iinit -Icrypto -Iarch' ]]
	[[ ${lines[5]} == *-Iblock* && ${lines[5]} == *-Itpm* && ${lines[5]} == *-Istages* && ${lines[5]} != *-Iprog* ]]
	[[ ${lines[6]} == *-Iprog* ]]
}
