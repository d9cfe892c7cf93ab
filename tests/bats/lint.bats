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
