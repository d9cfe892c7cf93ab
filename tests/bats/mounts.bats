#!/usr/bin/env bats
# The mounts stage for real, on a tmpfs sandbox inside a mount namespace of
# its own (`unshare --mount --propagation private`): never the host's
# mounts. The stage runs through build/unit/test_mounts --sandbox DIR; the
# truth is read back with findmnt and stat, not from the stage's report.
# A new proc instance stands in for /proc: hidepid is per instance since
# Linux 5.8, so its remount does not reach the host's /proc.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	make -s -C "$REPO" build/unit/test_mounts >&2
	export DRIVER="$REPO/build/unit/test_mounts"
	# The driver refuses to run in this namespace: it must see another.
	HI_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
	export HI_HOST_MNTNS
}

setup() {
	if [ "$(id -u)" != 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
		skip "needs root and unshare --mount"
	fi
	D=$BATS_TEST_TMPDIR/sb
	mkdir -p "$D"
	P=""
}

teardown() {
	[ -z "$P" ] || rm -rf "$P"
}

# Build the sandbox, run the stage, then the checks of $1 (a bash snippet
# with $D set), all inside one private mount namespace.
in_sandbox() {
	cat >"$BATS_TEST_TMPDIR/run.sh" <<EOF
set -eu
D=$D
mount -t tmpfs -o mode=755 sandbox "\$D"
mkdir -p "\$D/proc" "\$D/dev" "\$D/run" "\$D/root"
mount -t proc proc "\$D/proc"
mount -t tmpfs -o mode=755 dev "\$D/dev"
mount -t tmpfs -o mode=755 run "\$D/run"          # no nosuid,nodev: the stage adds them
mount -t tmpfs -o mode=755 newroot "\$D/root"
mkdir -p "\$D/root/tmp" "\$D/root/var" "\$D/root/etc/security" "\$D/root/sbin"
chmod 1777 "\$D/root/tmp"
ln -s /lib/systemd/systemd "\$D/root/sbin/init"
printf '/tmp /tmp/tmp-inst/ user root\n/var/tmp /var/tmp/tmp-inst/ user root\n' \
	>"\$D/root/etc/security/namespace.conf"
printf 'UUID=1 / ext4 ro 0 1\nUUID=2 /var ext4 defaults 0 2\n' >"\$D/root/etc/fstab"
${ENVS:-} "$DRIVER" --sandbox "\$D"
opts() { findmnt -n -o "\$1" --mountpoint "\$2" | tail -n 1; }
$1
EOF
	run unshare --mount --propagation private bash "$BATS_TEST_TMPDIR/run.sh"
	echo "$output"
}

@test "refuses to run in the host's mount namespace" {
	run "$DRIVER" --sandbox "$BATS_TEST_TMPDIR/not-there"
	[ "$status" -eq 2 ]
	run env -u HI_HOST_MNTNS unshare --mount --propagation private "$DRIVER" --sandbox "$BATS_TEST_TMPDIR/not-there"
	[ "$status" -eq 2 ]
	run env HI_HOST_MNTNS= "$DRIVER" --sandbox "$BATS_TEST_TMPDIR/not-there"
	[ "$status" -eq 2 ]
	run env HI_HOST_MNTNS=nonsense "$DRIVER" --sandbox "$BATS_TEST_TMPDIR/not-there"
	[ "$status" -eq 2 ]
	[[ "$output" == *"mount namespace of its own"* ]]
}

@test "/dev/shm is mounted nosuid,nodev,noexec; /run gains nosuid,nodev" {
	in_sandbox '
echo "shm=$(opts FSTYPE "$D/dev/shm") $(opts VFS-OPTIONS "$D/dev/shm")"
echo "shmmode=$(stat -c %a "$D/dev/shm")"
echo "run=$(opts VFS-OPTIONS "$D/run")"'
	[ "$status" -eq 0 ]
	[[ "$output" =~ shm=tmpfs\ [^$'\n']*nosuid ]]
	[[ "$output" =~ shm=tmpfs\ [^$'\n']*nodev ]]
	[[ "$output" =~ shm=tmpfs\ [^$'\n']*noexec ]]
	[[ "$output" == *"shmmode=1777"* ]]
	[[ "$output" =~ run=[^$'\n']*nosuid,nodev ]]
}

@test "/proc instance remounted with hidepid=invisible and gid" {
	ENVS="HI_HIDEPID=2 HI_PROC_GID=4" in_sandbox '
echo "proc=$(opts FS-OPTIONS "$D/proc")"'
	[ "$status" -eq 0 ]
	[[ "$output" =~ proc=[^$'\n']*hidepid=invisible ]]
	[[ "$output" =~ proc=[^$'\n']*gid=4 ]]
	# The host's own /proc is untouched.
	! grep -Eq ' /proc .*hidepid=invisible,gid=4' /proc/self/mountinfo
}

@test "/tmp becomes a tmpfs with size, nosuid,nodev (noexec when asked)" {
	ENVS="HI_TMP_SIZE=16m HI_TMP_NOEXEC=1" in_sandbox '
echo "tmp=$(opts FSTYPE "$D/root/tmp") $(opts VFS-OPTIONS "$D/root/tmp") $(opts FS-OPTIONS "$D/root/tmp")"
echo "tmpmode=$(stat -c %a "$D/root/tmp")"'
	[ "$status" -eq 0 ]
	[[ "$output" =~ tmp=tmpfs\ [^$'\n']*nosuid,nodev,noexec ]]
	[[ "$output" =~ tmp=tmpfs\ [^$'\n']*size=16384k ]]
	[[ "$output" == *"tmpmode=1777"* ]]
}

@test "no tmp_size: /tmp is left on the root" {
	in_sandbox '
echo "tmp=[$(opts FSTYPE "$D/root/tmp")]"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"tmp=[]"* ]]
}

@test "the new root and every mount under it are shared afterwards" {
	ENVS="HI_TMP_SIZE=8m" in_sandbox '
echo "root=$(opts PROPAGATION "$D/root")"
echo "tmpprop=$(opts PROPAGATION "$D/root/tmp")"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"root=shared"* ]]
	[[ "$output" == *"tmpprop=shared"* ]]
}

@test "mount_shared off leaves propagation private" {
	ENVS="HI_NO_SHARED=1" in_sandbox '
echo "root=$(opts PROPAGATION "$D/root")"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"root=private"* ]]
}

@test "instance parents: /tmp's created 000 root:root in the new tmpfs, /var/tmp's deferred to tmpfiles.d" {
	ENVS="HI_TMP_SIZE=8m" in_sandbox '
echo "inst=$(stat -c "%a %U:%G %F" "$D/root/tmp/tmp-inst")"
echo "instfs=$(stat -f -c %T "$D/root/tmp/tmp-inst")"
test ! -e "$D/root/var/tmp"
cat "$D/run/tmpfiles.d/hardinit-polyinstantiation.conf"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"inst=0 root:root directory"* ]]
	[[ "$output" == *"instfs=tmpfs"* ]]
	[[ "$output" == *"d /var/tmp/tmp-inst 0000 root root -"* ]]
}

@test "hardinit private-tmp: the command sees its own instance; others see nothing" {
	"$REPO/build/hardinit" --help 2>&1 | grep -q private-tmp || skip "private-tmp not wired into the CLI yet"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	# Not under BATS_TEST_TMPDIR: its parents are 0700, so nobody could not reach it.
	P=$(mktemp -d /tmp/hardinit-poly.XXXXXX)
	chmod 1777 "$P"
	run unshare --mount --propagation private "$REPO/build/hardinit" private-tmp --dir "$P" nobody \
		sh -c 'id -u; cd "$1" && echo secret >x && ls -A .' sh "$P"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$(id -u nobody)"* ]]
	# Outside: the file is only in nobody's instance, under a 000 root parent.
	[ ! -e "$P/x" ]
	[ "$(stat -c '%a %U' "$P/tmp-inst")" = "0 root" ]
	[ "$(stat -c '%a %U' "$P/tmp-inst/nobody")" = "700 nobody" ]
	[ "$(cat "$P/tmp-inst/nobody/x")" = secret ]
	# A parent with the wrong mode is refused, not fixed.
	chmod 755 "$P/tmp-inst"
	run unshare --mount --propagation private "$REPO/build/hardinit" private-tmp --dir "$P" nobody true
	[ "$status" -eq 1 ]
	[[ "$output" == *"mode 0755"* ]]
	[ "$(stat -c '%a' "$P/tmp-inst")" = 755 ]
}
