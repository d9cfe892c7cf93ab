#!/usr/bin/env bats
# tests/vm/README.md's examples, run where they need no VM: its typical
# test is extracted and its setup_file runs on the host, building the root
# image and the strict initramfs it names with tests/vm/lib.bash; its
# @test's boot is checked without booting (every vm_ function it calls is
# lib.bash's, every vm_boot option it uses and the README lists is one
# vm_boot takes, and VM suites boot with the same calls); its other
# commands name files, targets and variables that exist; each claim its
# table says moved off a boot is a test of the file that holds it.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO README="$REPO/tests/vm/README.md" LIB="$REPO/tests/vm/lib.bash"
}

# The README's first ```bash block: its typical test.
typical() {
	awk '/^```bash$/ { on = 1; next } on && /^```$/ { exit } on' "$README"
}

# vm_boot's options: the words of its case patterns in lib.bash.
vm_boot_options() {
	sed -n '/^vm_boot() {/,/^}/p' "$LIB" | grep -oE '^[[:space:]]+--[a-z]+\)' | tr -d ' \t)'
}

@test "vm README: the typical test is bats-valid and calls only lib.bash's functions" {
	typical >"$BATS_TEST_TMPDIR/typical.bats"
	grep -q '^@test ' "$BATS_TEST_TMPDIR/typical.bats"
	bash -n <(sed 's/^@test \(.*\) {$/t() {/' "$BATS_TEST_TMPDIR/typical.bats")
	local f missing=
	# shellcheck source=tests/vm/lib.bash
	source "$LIB"
	for f in $(grep -oE '\bvm_[a-z_]+' "$BATS_TEST_TMPDIR/typical.bats" | sort -u); do
		declare -F "$f" >/dev/null || missing+=" $f"
	done
	[ -z "$missing" ] || { echo "not defined by tests/vm/lib.bash:$missing" >&2; false; }
}

@test "vm README: the typical test's setup_file builds its root image and strict initramfs on the host" {
	make -s -C "$REPO" build/hardinit build/probe/testinit >&2
	typical | sed -n '/^setup_file() {$/,/^}$/p' >"$BATS_TEST_TMPDIR/setup.bash"
	[ -s "$BATS_TEST_TMPDIR/setup.bash" ]
	export VM_RUN_DIR=$BATS_TEST_TMPDIR/vm BATS_FILE_TMPDIR=$BATS_TEST_TMPDIR/file
	mkdir -p "$BATS_FILE_TMPDIR"
	# shellcheck source=tests/vm/lib.bash
	source "$LIB"
	# shellcheck source=/dev/null
	source "$BATS_TEST_TMPDIR/setup.bash"
	setup_file
	[ -s "$VM_RUN_DIR/root.img" ]
	[ -s "$VM_RUN_DIR/strict.img" ]
	# the root holds the probe the README wrote, the initramfs the strict profile
	debugfs -R 'cat /probe/run' "$VM_RUN_DIR/root.img" 2>/dev/null | grep -q 'cat /proc/sys/kernel/kptr_restrict'
	cpio -i --quiet --to-stdout etc/hardinit.conf <"$VM_RUN_DIR/strict.img" | cmp - "$REPO/config/strict.conf"
}

@test "vm README: every vm_boot option it uses or lists is one vm_boot takes, and VM suites boot the same way" {
	local opts o missing=
	opts=$(vm_boot_options)
	# the typical test's vm_boot call, its continued lines joined
	for o in $(typical | sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' | grep -E '^[[:space:]]*vm_boot ' |
		grep -oE '[[:space:]]--[a-z]+' | tr -d ' \t' | sort -u) \
		$(grep -A3 '^Options: ' "$README" | grep -oE '`--[a-z]+' | tr -d '`' | sort -u); do
		grep -qx -- "$o" <<<"$opts" || missing+=" $o"
	done
	[ -z "$missing" ] || { echo "vm_boot does not take:$missing" >&2; false; }
	# the typical test's calls, as VM suites make them (their own file names)
	local call
	for call in 'vm_boot "\$log" --initrd "[^"]+\.img" --disk "[^"]+\.img"' '--append "root=LABEL=' \
		'vm_assert_done "\$log"' 'vm_assert_section_line "\$log" [A-Z]+ ' 'vm_rootfs .* -L ' \
		'vm_initramfs .* --profile strict' 'vm_build_once "[^"]+" vm_' 'vm_probe_script "\$[a-z]+" <<-'; do
		typical | grep -qE -- "$call" || { echo "the README's test no longer makes: $call" >&2; false; }
		grep -qE -- "$call" "$REPO"/tests/vm/*.bats "$REPO"/tests/vm/*.bash ||
			{ echo "no VM suite makes: $call" >&2; false; }
	done
	# the qemu line it shows is vm_boot's
	for o in -accel -nodefaults -nographic -no-reboot -kernel -append -initrd -serial; do
		sed -n '/^vm_boot() {/,/^}/p' "$LIB" | grep -qF -- "$o" || { echo "vm_boot does not pass $o" >&2; false; }
	done
}

@test "vm README: its commands name files, targets and variables that exist" {
	ls "$REPO"/tests/vm/*.bats >/dev/null
	[ -f "$REPO/tests/vm/harness.bats" ]
	[ -f "$REPO/tests/vm/arm64.bats" ]
	grep -q 'HARDINIT_SKIP_VM' "$REPO/tests/run-suites" "$REPO/Makefile"
	grep -qE '^check:' "$REPO/Makefile"
	grep -qE '^ARCH[[:space:]]*[?:]?=' "$REPO/Makefile"
	# and each of them is in the README as written here
	local c
	for c in 'bats --tap tests/vm' 'HARDINIT_SKIP_VM=1 make check' 'tests/vm/harness.bats' 'make ARCH=arm64'; do
		grep -qF -- "$c" "$README" || { echo "tests/vm/README.md no longer says: $c" >&2; false; }
	done
}

# The table "Which boot proves which claim": rows of "| VM file | test name | held by |".
claims() {
	awk '/^### Which boot proves which claim$/ { on = 1; next } on && /^#/ { exit } on' "$README" |
		grep -E '^\| [a-z_0-9]+\.bats \|' | awk -F' [|] ' '{ sub(/^\| /, "", $1); sub(/ \|$/, "", $3); print $1 "\t" $2 "\t" $3 }'
}

@test "vm README: each claim moved off a boot is a test of the file the table names" {
	local rows=0 vm name held file missing=
	while IFS=$'\t' read -r vm name held; do
		rows=$((rows + 1))
		file=$REPO/${held%%,*}
		[ -f "$file" ] || { missing+=" [$held: no such file]"; continue; }
		grep -qxF "@test \"$name\" {" "$file" || missing+=" [$held: no test '$name']"
		# a claim the host holds is no longer a boot of the VM file
		[[ $held == tests/vm/* ]] || ! grep -qF "@test \"$name\"" "$REPO/tests/vm/$vm" ||
			missing+=" [tests/vm/$vm still boots for '$name']"
	done < <(claims)
	[ "$rows" -ge 10 ] || { echo "the table has $rows rows" >&2; false; }
	[ -z "$missing" ] || { echo "tests/vm/README.md's claims:$missing" >&2; false; }
}
