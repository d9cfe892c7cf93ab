#!/usr/bin/env bats
# A hostile or broken root and command line, on the host: what dry-run
# predicts (the failure action, the init it would run, a root whose /run
# is a link), audit's mountinfo parser, and the mounts stage in a private
# mount namespace with /tmp a link to /etc. The VM side is
# tests/vm/hostile.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO HARDINIT="$REPO/build/hardinit"
	make -s -C "$REPO" build/hardinit build/unit/test_mounts >&2
}

conf() {
	printf '[boot]\nfailure_action = halt\nlock_cmdline = %s\n' "$1" >"$BATS_TEST_TMPDIR/h.conf"
}

# dry-run with the config above and this command line; the root is an
# empty directory, so a stage after the config always fails (no init).
predict() {
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run "$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/h.conf" --root "$BATS_TEST_TMPDIR/empty" --cmdline "$1"
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "dry-run: under lock_cmdline the command line does not change the failure action" {
	conf yes
	predict "root=/dev/vda hardinit.boot.failure_action=poweroff"
	[[ $output == *"would take the failure action: halt (from the config)"* ]]
}

@test "dry-run: without the lock the command line's failure action is taken" {
	conf no
	predict "root=/dev/vda hardinit.boot.failure_action=poweroff"
	# Said to come from where it came from: the command line's override.
	[[ $output == *"would take the failure action: poweroff (from the command line)"* ]]
}

@test "dry-run: a malformed command line (empty root=) still takes the config's action" {
	conf no
	predict "root= hardinit.boot.failure_action=poweroff"
	[[ $output == *"root= is empty"* ]]
	[[ $output == *"would take the failure action: halt (from the initramfs config)"* ]]
}

@test "an empty root= on the command line: the initramfs config's failure action, not the default" {
	# The VM test's hostile.conf and command line.
	printf '%s\n' '[boot]' 'failure_action = poweroff' 'failure_delay = 0' 'root_timeout = 10' \
		'[mounts]' 'tmp_size = 16m' 'polyinstantiate = yes' 'polydirs = /tmp /var/tmp' >"$BATS_TEST_TMPDIR/h.conf"
	predict "root="
	[[ $output == *"root= is empty"* ]]
	[[ $output == *"would take the failure action: poweroff (from the initramfs config)"* ]]
}

@test "dry-run: with a broken config the command line may choose, but not a shell" {
	printf '[boot]\nfailure_action = halt\nnot a line\n' >"$BATS_TEST_TMPDIR/h.conf"
	predict "root=/dev/vda hardinit.boot.failure_action=poweroff"
	[[ $output == *"would take the failure action: poweroff (from the command line)"* ]]
	predict "root=/dev/vda hardinit.boot.failure_action=shell"
	[[ $output == *"would take the failure action: reboot"* ]]
}

@test "dry-run --root DIR: an init that exists only under DIR is found there" {
	local dir=$BATS_TEST_TMPDIR/r
	mkdir -p "$dir/usr/local/sbin"
	cp /bin/true "$dir/usr/local/sbin/only-here"
	[ ! -e /usr/local/sbin/only-here ]
	conf no
	run "$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/h.conf" --root "$dir" --cmdline "root=/dev/vda init=/usr/local/sbin/only-here"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"would exec /usr/local/sbin/only-here"* ]]
}

@test "dry-run --root DIR: an init that only the host has is not found" {
	[ -x /sbin/init ] || skip "the host has no /sbin/init"
	conf no
	predict "root=/dev/vda"
	[[ $output == *"no init found in $BATS_TEST_TMPDIR/empty"* ]]
	[[ $output != *"would exec /sbin/init"* ]]
}

@test "dry-run --root DIR: a #! init whose interpreter is missing names the interpreter" {
	local dir=$BATS_TEST_TMPDIR/s
	mkdir -p "$dir/sbin"
	printf '#!/usr/bin/no-such-shell -e\necho hi\n' >"$dir/sbin/init"
	chmod 755 "$dir/sbin/init"
	conf no
	run "$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/h.conf" --root "$dir" --cmdline "root=/dev/vda"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"/sbin/init is a script whose interpreter /usr/bin/no-such-shell (its #! line) is missing"* ]]
}

@test "the root's /run a link to /etc: hardinit's /run is not moved over /etc; one line, the failure action" {
	# The VM test's hostile.conf, and a root whose /run links to /etc.
	local dir=$BATS_TEST_TMPDIR/runlink
	printf '%s\n' '[boot]' 'failure_action = poweroff' 'failure_delay = 0' 'root_timeout = 10' \
		'[mounts]' 'tmp_size = 16m' 'polyinstantiate = yes' 'polydirs = /tmp /var/tmp' >"$BATS_TEST_TMPDIR/h.conf"
	mkdir -p "$dir/sbin" "$dir/etc" "$dir/dev" "$dir/proc" "$dir/sys"
	install -m 0755 "$HARDINIT" "$dir/sbin/init"
	ln -s /etc "$dir/run"
	run "$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/h.conf" --root "$dir" --cmdline "root=/dev/vda"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"stage switchroot failed"* ]]
	[[ $output == *"the new root's /run is a symbolic link (/run -> /etc); hardinit does not move /run through it"* ]]
	[[ $output == *"would take the failure action: poweroff"* ]]
	[[ $output != *"would exec"* ]]
	# the same root with /run a directory goes on
	rm "$dir/run" && mkdir "$dir/run"
	run "$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/h.conf" --root "$dir" --cmdline "root=/dev/vda"
	[ "$status" -eq 0 ]
}

@test "check-config names a UTF-8 byte-order mark" {
	printf '\xef\xbb\xbf[boot]\nfailure_action = halt\n' >"$BATS_TEST_TMPDIR/bom.conf"
	run "$HARDINIT" check-config "$BATS_TEST_TMPDIR/bom.conf"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"<UTF-8 byte-order mark>[boot]"* ]]
	[[ $output == *"without a byte-order mark"* ]]
}

# ---- audit reads mountinfo with the mounts stage's parser ----

audit_shared() {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/proc/1" "$t/sys" "$t/run"
	printf '[mounts]\nshared = yes\n' >"$t/run/config"
	printf 'stage mounts ok 0.1 ms\n' >"$t/run/report.txt"
	run "$HARDINIT" audit --config "$t/run/config" --report "$t/run/report.txt" --proc "$t/proc" --sys "$t/sys"
	echo "$output"
}

@test "audit: the last mountinfo entry for / is the kernel's view" {
	mkdir -p "$BATS_TEST_TMPDIR/proc/1"
	printf '%s\n' '22 1 254:0 / / ro shared:1 - ext4 /dev/vda ro' \
		'40 22 0:30 / / rw - tmpfs none rw' >"$BATS_TEST_TMPDIR/proc/1/mountinfo"
	audit_shared
	[ "$status" -eq 1 ]
	[[ $output == *"drift mount propagation /"*"actual private"* ]]
}

@test "audit: a mountinfo over the limit is not half-read" {
	mkdir -p "$BATS_TEST_TMPDIR/proc/1"
	{
		echo '22 1 254:0 / / ro shared:1 - ext4 /dev/vda ro'
		for i in $(seq 1 15000); do echo "$((100 + i)) 22 0:$i / /mnt/m$i rw - tmpfs none rw"; done
	} >"$BATS_TEST_TMPDIR/proc/1/mountinfo"
	audit_shared
	[ "$status" -eq 1 ]
	[[ $output == *"drift mount propagation /"*"over the limit"* ]]
}

# ---- the mounts stage with /tmp a link, in a private mount namespace ----

# The driver's line, shared by the test and the guard's test below.
# HI_HOST_MNTNS is read from the environment when the line runs (the caller
# exports it outside unshare), never expanded into the script beforehand.
write_driver() {
	cat >"$BATS_TEST_TMPDIR/driver.sh" <<-EOF
	: "\${HI_HOST_MNTNS:?export HI_HOST_MNTNS outside unshare}"
	echo "=== host ns \$HI_HOST_MNTNS"
	HI_HIDEPID=0 HI_TMP_SIZE=10% "$REPO/build/unit/test_mounts" --sandbox "\$1"
	EOF
}

@test "mounts stage: the driver gets the host's namespace and refuses to run in it" {
	write_driver
	HI_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
	export HI_HOST_MNTNS
	[[ $HI_HOST_MNTNS == mnt:* ]]
	# A directory that does not exist: were the guard broken, nothing is mounted.
	run bash "$BATS_TEST_TMPDIR/driver.sh" "$BATS_TEST_TMPDIR/not-there"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ $output == *"=== host ns $HI_HOST_MNTNS"* ]]
	[[ $output == *"runs only in a mount namespace of its own"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/not-there" ]
}

@test "mounts stage: /tmp a link to /etc gets no tmpfs, /etc stays visible" {
	if [ "$(id -u)" != 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
		skip "needs root and unshare --mount"
	fi
	local d=$BATS_TEST_TMPDIR/sb
	mkdir -p "$d"
	write_driver
	cat >"$BATS_TEST_TMPDIR/run.sh" <<-EOF
	set -eu
	D=$d
	mount -t tmpfs -o mode=755 sandbox "\$D"
	mkdir -p "\$D/proc" "\$D/dev" "\$D/run" "\$D/root"
	mount -t proc proc "\$D/proc"
	mount -t tmpfs -o mode=755 dev "\$D/dev"
	mount -t tmpfs -o mode=755 run "\$D/run"
	mount -t tmpfs -o mode=755 newroot "\$D/root"
	mkdir -p "\$D/root/etc" "\$D/root/var"
	echo keep >"\$D/root/etc/marker"
	ln -s /etc "\$D/root/tmp"
	ln -s ../etc "\$D/root/var/tmp"
	bash "$BATS_TEST_TMPDIR/driver.sh" "\$D" || true
	echo "=== mounts"
	findmnt -rn -o TARGET,FSTYPE | grep "\$D/root" || true
	echo "=== marker \$(cat "\$D/root/etc/marker" 2>&1)"
	echo "=== etc \$(stat -c %a "\$D/root/etc")"
	EOF
	HI_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
	export HI_HOST_MNTNS
	run unshare --mount --propagation private bash "$BATS_TEST_TMPDIR/run.sh"
	echo "$output"
	# The guard compared against the real namespace, not an empty string.
	[[ $output == *"=== host ns $HI_HOST_MNTNS"* ]]
	[[ $output == *"=== marker keep"* ]]
	[[ $output == *"=== etc 755"* ]]
	[[ $output != *"$d/root/etc tmpfs"* ]]
	[[ $output == *"report /tmp refused: symbolic link /tmp -> /etc"* ]]
	[[ $output == *"report polydir /var/tmp refused"*"/var/tmp -> ../etc"* ]]
}
