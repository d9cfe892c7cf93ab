#!/usr/bin/env bats
# The order of a boot is written once, in stages/table.c; hardinit(8)'s BOOT
# ORDER, doc/design.md's numbered list and README's layout line describe it.
# Each description must name every stage of the table, once, in its order,
# so a stage added or moved in the table without its docs fails here.

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
}

# The names of stage_table[], in order.
table_order() {
	awk '/stage_table\[\] = \{/ { on = 1; next }
		on && /^\};/ { exit }
		on && match($0, /^[ \t]*\{ "[a-z_0-9]+",/) {
			s = substr($0, RSTART, RLENGTH); sub(/^[ \t]*\{ "/, "", s); sub(/",$/, "", s); print s
		}' "$REPO/stages/table.c"
}

# hardinit(8): each stage is a ".TP" paragraph whose tag is ".B NAME",
# between ".SH BOOT ORDER" and the next section.
man_order() {
	awk '/^\.SH BOOT ORDER/ { on = 1; next }
		on && /^\.SH / { exit }
		on && prev == ".TP" && /^\.B [a-z_0-9]+$/ { print $2 }
		on { prev = $0 }' "$REPO/man/hardinit.8"
}

# doc/design.md: the bold names of the numbered list under "The order of a
# boot", a bold run such as **memory, sysctl** naming several in order.
design_order() {
	awk '/^## The order of a boot/ { on = 1; next }
		on && /^## / { exit }
		on { print }' "$REPO/doc/design.md" |
		grep -o '\*\*[a-z_0-9, ]*\*\*' | tr -d '*' | tr ',' '\n' |
		sed 's/^ *//; s/^then //; s/ *$//' | grep -v '^$'
}

# README: the layout's line "in the order of the table in stages/table.c:
# early, config, ...; then the hand-off."
readme_order() {
	tr '\n' ' ' <"$REPO/README.md" |
		sed -n 's/.*in the order of the table in `stages\/table\.c`: \([^;]*\); then the hand-off.*/\1/p' |
		tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$'
}

same_as_table() {
	local what=$1 got want
	got=$("$what")
	want=$(table_order)
	[[ -n $want ]] || { echo "no stages read from stages/table.c" >&2; return 1; }
	if [[ $got != "$want" ]]; then
		echo "$what differs from stages/table.c (< table, > doc):" >&2
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") >&2
		return 1
	fi
}

@test "stage order: the table names each stage once" {
	run table_order
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 20 ]
	# config runs twice (rootconfig); every other name is its own.
	[ -z "$(printf '%s\n' "${lines[@]}" | sort | uniq -d)" ]
}

@test "stage order: hardinit(8) BOOT ORDER lists the table's stages in its order" {
	same_as_table man_order
}

@test "stage order: doc/design.md's numbered list follows the table" {
	same_as_table design_order
}

@test "stage order: README's layout line follows the table" {
	same_as_table readme_order
}

# hardinit(8)'s BOOT ORDER entries longer than 3 lines, as "NAME LINES",
# from PAGE (default the repo's): the order is read at a glance, each
# stage's details are in STAGES.
long_entries() {
	awk '/^\.SH BOOT ORDER/ { on = 1; next }
		on && /^\.SH / { exit }
		on && /^\.(TP|PP)$/ { if (name != "" && n > 3) print name, n; name = ""; n = 0; tp = ($0 == ".TP"); next }
		on && tp && /^\.B [a-z_0-9]+$/ { name = $2; tp = 0; next }
		on && name != "" { n++ }
		END { if (name != "" && n > 3) print name, n }' "${1:-$REPO/man/hardinit.8}"
}

@test "stage order: hardinit(8)'s BOOT ORDER entries are at most 3 lines, each long one's details in STAGES" {
	run long_entries
	echo "$output"
	[ -z "$output" ]
	# the stages whose details are long have their own subsection
	local s
	for s in early luks lvm verity root measure hand-off; do
		sed -n '/^\.SH STAGES/,/^\.SH [^S]/p' "$REPO/man/hardinit.8" | grep -qx ".SS $s" ||
			{ echo "STAGES has no subsection $s" >&2; return 1; }
	done
	# the check can fail: an entry of 4 lines
	printf '.SH BOOT ORDER\n.TP\n.B early\na\nb\nc\nd\n.TP\n.B config\na\n.SH X\n' >"$BATS_TEST_TMPDIR/p.8"
	run long_entries "$BATS_TEST_TMPDIR/p.8"
	[ "$output" = "early 4" ]
}
