#!/usr/bin/env bats
# The VM suites share their set-up through tests/vm/lib.bash: a TPM is
# made and started by its vm_swtpm_* functions, UEFI firmware is named and
# booted by its VM_OVMF_* paths and vm_efi_boot / vm_ovmf_boot, and the
# firmware's event log is read by vm_eventlog_events. A file that starts
# swtpm, names Debian's firmware files, writes its own pflash lines or
# parses the event log again is a second copy that drifts (another socket
# wait, another variables copy, another Secure Boot machine line, another
# reader of the log's layout). tests/vm/cel-replay, a program, keeps its own
# reader: it checks the userspace log independently of the harness.

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
}

# vm_files_with REGEX: file:line:text of each line of a tests/vm file,
# lib.bash aside, that matches REGEX (grep -E), comment lines left out.
vm_files_with() {
	local f
	(
		cd "$REPO" || exit 1
		git ls-files --cached --others --exclude-standard -- tests/vm | while IFS= read -r f; do
			[[ $f == tests/vm/lib.bash || $f == *.md ]] && continue
			grep -nHE -- "$1" "$f" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#'
		done
	)
}

@test "vm lib: no tests/vm file but lib.bash runs swtpm_setup or swtpm socket itself" {
	run vm_files_with '(^|[^_[:alnum:]])swtpm(_setup|[[:space:]]+socket)([^_[:alnum:]]|$)'
	[ -z "$output" ] || { echo "use vm_swtpm_setup, vm_swtpm_start or vm_swtpm_serve:"; echo "$output"; false; }
}

@test "vm lib: no tests/vm file but lib.bash names the OVMF firmware files or writes pflash drives" {
	run vm_files_with '/usr/share/(OVMF|ovmf)|if=pflash'
	[ -z "$output" ] || { echo "use VM_OVMF_*, vm_need_ovmf and vm_ovmf_boot (or vm_efi_boot):"; echo "$output"; false; }
}

@test "vm lib: no tests/vm shell file but lib.bash parses the firmware's event log itself" {
	# Its first event's header unpacked: where a reader of the log begins.
	run vm_files_with 'unpack_from\("<II20sI"'
	output=$(grep -E '^[^:]+\.(bats|bash):' <<<"$output" || true)
	[ -z "$output" ] || { echo "use vm_eventlog_events and vm_pcr_replay:"; echo "$output"; false; }
}

@test "vm lib: the patterns above find what they are for" {
	local d=$BATS_TEST_TMPDIR/t
	mkdir -p "$d/tests/vm"
	git -C "$d" init -q
	printf '%s\n' '	swtpm_setup --tpm2 --tpmstate x' '	swtpm socket --tpm2' '	command -v swtpm_setup' \
		'OVMF=/usr/share/OVMF' '	-drive "if=pflash,format=raw"' '# swtpm_setup in a comment' \
		'vm_swtpm_setup "$d" sha1' >"$d/tests/vm/x.bats"
	cp "$REPO/tests/vm/lib.bash" "$d/tests/vm/lib.bash"
	REPO=$d run vm_files_with '(^|[^_[:alnum:]])swtpm(_setup|[[:space:]]+socket)([^_[:alnum:]]|$)'
	[ "$(wc -l <<<"$output")" -eq 3 ] || { echo "$output"; false; }
	REPO=$d run vm_files_with '/usr/share/(OVMF|ovmf)|if=pflash'
	[ "$(wc -l <<<"$output")" -eq 2 ] || { echo "$output"; false; }
	printf '%s\n' 'pcr, etype, _, size = struct.unpack_from("<II20sI", data, 0)' \
		'out = struct.pack("<II20sI", 0, 3, bytes(20), len(spec)) + spec' >"$d/tests/vm/y.bash"
	REPO=$d run vm_files_with 'unpack_from\("<II20sI"'
	[ "$output" = 'tests/vm/y.bash:1:pcr, etype, _, size = struct.unpack_from("<II20sI", data, 0)' ] || { echo "$output"; false; }
}
