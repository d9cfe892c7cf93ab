# shellcheck shell=bash
# The host bats files' shared setup (tests/bats/*.bats load it with
# `load lib/host`): the tree's top and what it builds, the made-up host
# hardinit audit reads, and a swtpm on a unix socket. Each fact of a
# test's world is made here once; what a test checks stays in its file.
# The VM harness is tests/vm/lib.bash, not this.

# REPO, the tree's top, exported for the tests; then each make target
# named is built there (make's errors on stderr), e.g. `repo_make
# build/hardinit` in setup_file.
repo_make() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	[ "$#" -eq 0 ] || make -s -C "$REPO" "$@" >&2
}

# REPO as repo_make sets it, and HARDINIT, its build/hardinit, made now and
# exported for the tests (for setup_file).
hardinit_built() {
	repo_make build/hardinit
	export HARDINIT="$REPO/build/hardinit"
}

# T, the test's own directory, as the host hardinit audit reads: PID 1's
# status (full bounding set) and mountinfo (a read-only ext4 root), an
# empty sysfs, and T/run for the config and report the test writes.
# Skips the test when $HARDINIT is not built.
audit_host() {
	[ -x "$HARDINIT" ] || skip "build/hardinit not built"
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/proc/1" "$T/sys" "$T/run"
	printf 'Name:\tinit\nCapBnd:\t000001ffffffffff\n' >"$T/proc/1/status"
	echo '22 1 254:0 / / ro,relatime shared:1 - ext4 /dev/vda ro' >"$T/proc/1/mountinfo"
}

# hardinit audit of audit_host's tree: status and output in bats' $status
# and $output, the output also printed (bats shows it when a test fails).
audit() {
	run "$HARDINIT" audit --config "$T/run/config" --report "$T/run/report.txt" --proc "$T/proc" --sys "$T/sys"
	# shellcheck disable=SC2154 # bats' run sets output; shellcheck reads this file as plain bash
	echo "$output"
}

# The socket wait's bound: tries 0.1 s apart (5 s).
SWTPM_SOCKET_TRIES=50

# A fresh swtpm in DIR (its state DIR/tpm) on the unix socket DIR/sock,
# started (TPM2_Startup) by itself, daemonised with its pid in
# DIR/swtpm.pid and its log in DIR/swtpm.log. Fails when no socket comes.
swtpm_start() {
	local dir=$1
	mkdir -p "$dir/tpm"
	swtpm socket --tpm2 --tpmstate dir="$dir/tpm" --server type=unixio,path="$dir/sock" \
		--ctrl type=unixio,path="$dir/sock.ctrl" --flags not-need-init,startup-clear \
		--daemon --pid file="$dir/swtpm.pid" --log file="$dir/swtpm.log"
	for _ in $(seq "$SWTPM_SOCKET_TRIES"); do [ -S "$dir/sock" ] && break; sleep 0.1; done
	[ -S "$dir/sock" ] || {
		echo "swtpm made no socket at $dir/sock in $SWTPM_SOCKET_TRIES tries: see $dir/swtpm.log" >&2
		return 1
	}
}

# Stops swtpm_start's swtpm in DIR, if one was started (for teardown:
# never fails).
swtpm_stop() {
	[ -f "$1/swtpm.pid" ] && kill "$(cat "$1/swtpm.pid")" 2>/dev/null
	true
}
