#!/usr/bin/env bats
# Linting every shell program of the tree: the builder, the
# scripts, the benchmark, the suite runner, the VM harness and the bats
# files themselves. Warnings and errors fail (a bats `! cmd` that cannot
# fail a test is one of them); style and info notes do not.

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
}

# Every file whose first line names bash or sh, plus the sourced harness
# files (.bash) and the bats files, as git sees the tree.
shell_files() {
	local f
	while IFS= read -r f; do
		case $f in
		*.bats | *.bash | *.sh) printf '%s\n' "$f" ;;
		*.c | *.h | *.md | *.conf | *.[0-9]) ;;
		*) head -n 1 "$f" 2>/dev/null | grep -qE '^#!.*\b(ba)?sh\b' && printf '%s\n' "$f" ;;
		esac
	done < <(cd "$REPO" && git ls-files --cached --others --exclude-standard)
}

@test "shellcheck finds no warning in the shell programs" {
	cd "$REPO"
	mapfile -t files < <(shell_files)
	[ "${#files[@]}" -ge 10 ] || { echo "only ${#files[@]} shell files found: ${files[*]}"; return 1; }
	printf '%s\n' "${files[@]}" | grep -qx initramfs/hardinit-mkinitramfs
	run shellcheck -S warning -s bash "${files[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "the shell file list covers the builder, the scripts and the harness" {
	cd "$REPO"
	mapfile -t files < <(shell_files)
	local want
	for want in initramfs/hardinit-mkinitramfs initramfs/facts.sh scripts/install-deps scripts/fetch-kernel \
		tests/run-suites tests/vm/lib.bash tests/vm/images.bash bench/run; do
		printf '%s\n' "${files[@]}" | grep -qx "$want" || { echo "missing $want"; return 1; }
	done
}

# The product's C files: what the binary is built of.
product_c_files() {
	cd "$REPO" && ls init/*.c crypto/*.c arch/*.c block/*.c tpm/*.c stages/*.c prog/*.c
}

# Functions longer than $1 lines in the C files given, as "LINES FILE:LINE
# NAME": a definition starts at a line beginning with a name and holding
# a '(' without a ';' after it, and ends at the next line that is only
# '}' (the tree's style: the body's closing brace alone in column one).
long_functions() {
	local max=$1
	shift
	awk -v max="$max" 'FNR == 1 { start = 0 }
		/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { start = FNR; name = $0 }
		/^}$/ && start { n = FNR - start + 1; if (n > max) print n, FILENAME ":" start, substr(name, 1, 60); start = 0 }' "$@"
}

# A file, a function: short enough to read in one sitting, so a newcomer
# can follow one stage or one parser without scrolling through another.
LINT_FILE_LINES_MAX=700
LINT_FUNCTION_LINES_MAX=60

@test "lint: no product C file over $LINT_FILE_LINES_MAX lines, no function over $LINT_FUNCTION_LINES_MAX" {
	local files out
	mapfile -t files < <(product_c_files)
	[ "${#files[@]}" -ge 80 ] || { echo "only ${#files[@]} product C files"; return 1; }
	out=$(cd "$REPO" && wc -l "${files[@]}" | awk -v max="$LINT_FILE_LINES_MAX" '$2 != "total" && $1 > max')
	[[ -z $out ]] || { echo "files over $LINT_FILE_LINES_MAX lines (split them by what they hold):"$'\n'"$out"; return 1; }
	out=$(cd "$REPO" && long_functions "$LINT_FUNCTION_LINES_MAX" "${files[@]}")
	[[ -z $out ]] || { echo "functions over $LINT_FUNCTION_LINES_MAX lines (give their steps names):"$'\n'"$out"; return 1; }
}

@test "lint: the length check sees a long function and measures a short one exactly" {
	local f=$BATS_TEST_TMPDIR/x.c i
	{
		printf 'static int short_one(void)\n{\n\treturn 0;\n}\n\n'
		printf 'int long_one(int a,\n\t     int b)\n{\n'
		for ((i = 0; i < 90; i++)); do printf '\ta += b;\n'; done
		printf '\treturn a;\n}\n'
	} >"$f"
	run long_functions 3 "$f"
	[ "$output" = "4 $f:1 static int short_one(void)
95 $f:6 int long_one(int a," ] || { echo "$output"; return 1; }
	run long_functions "$LINT_FUNCTION_LINES_MAX" "$f"
	[ "$output" = "95 $f:6 int long_one(int a," ]
}
