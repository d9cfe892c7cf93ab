#!/usr/bin/env bats
# The verity parts that run on the host: the builder's --verity-* options
# (the [verity] section it writes, read back from the archive with GNU cpio,
# and the modules it adds from the real modules.dep), and hardinit dry-run
# with systemd's verity names and the lock. The kernel side is
# tests/vm/verity.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	make -s -C "$REPO" build/hardinit build/mkcpio >&2
	export KROOT=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12
	export HASH=9b4332f63d3b62e3fa38037cb624dafd1942e3c9a4336e28fc95417d7eca8a2d
}

# The builder resolves dm-mod and dm-verity, so it needs a module tree.
build() {
	[ -d "$KROOT/lib/modules" ] || skip "no 6.12 kernel in $KROOT (scripts/fetch-kernel)"
	"$REPO/initramfs/hardinit-mkinitramfs" -o "$BATS_TEST_TMPDIR/i.img" --compress none \
		--hardinit "$REPO/build/hardinit" --moddir "$KROOT" "$@"
}

# The archive's file $1 on stdout.
archive_file() {
	(cd "$BATS_TEST_TMPDIR" && rm -rf x && mkdir x && cd x && cpio -id --quiet <../i.img && cat "./$1")
}

@test "builder: --verity-roothash joins appliance.conf's [verity] section, replacing its enabled" {
	run build --profile appliance --verity-roothash "$HASH" --verity-data LABEL=root --verity-hash /dev/vdb
	[ "$status" -eq 0 ]
	run archive_file etc/hardinit.conf
	[ "$(grep -c '^\[verity\]' <<<"$output")" -eq 1 ]
	grep -qx "enabled = yes" <<<"$output"
	[ "$(grep -cx "enabled = no" <<<"$output")" -eq 0 ]
	grep -qx "roothash = $HASH" <<<"$output"
	grep -qx "data = LABEL=root" <<<"$output"
	grep -qx "hash = /dev/vdb" <<<"$output"
	grep -qx "on_corruption = restart" <<<"$output"
	"$REPO/build/hardinit" check-config "$BATS_TEST_TMPDIR/x/etc/hardinit.conf"
}

@test "builder: a profile without [verity] gets the section appended; the hash offset becomes an option" {
	run build --profile baseline --verity-roothash "$HASH" --verity-data /dev/vda --verity-hash-offset 1048576 \
		--verity-options superblock=yes
	[ "$status" -eq 0 ]
	run archive_file etc/hardinit.conf
	grep -qx "options = hash-offset=1048576,superblock=yes" <<<"$output"
	grep -qx "hash = off" <<<"$output"
}

@test "builder: dm-mod, dm-verity and their dependencies come from modules.dep, in load order" {
	run build --profile baseline --verity-roothash "$HASH" --verity-data /dev/vda --verity-hash /dev/vdb
	[ "$status" -eq 0 ]
	run archive_file etc/hardinit/modules
	local order
	order=$(sed 's|.*/||; s|\.ko.*||' <<<"$output" | tr '\n' ' ')
	[[ $order == *"dm-mod "*"dm-bufio "*"dm-verity "* ]] || { echo "order: $order"; false; }
	[[ $order == *reed_solomon* ]]
}

@test "builder: bad verity options are one clear line each" {
	run build --verity-roothash xyz --verity-data /dev/vda --verity-hash /dev/vdb
	[ "$status" -eq 1 ] && [[ $output == *"bad --verity-roothash 'xyz'"* ]]
	run build --verity-roothash "$HASH" --verity-hash /dev/vdb
	[ "$status" -eq 1 ] && [[ $output == *"needs --verity-data"* ]]
	run build --verity-roothash "$HASH" --verity-data /dev/vda
	[ "$status" -eq 1 ] && [[ $output == *"needs --verity-hash DEV, or --verity-hash-offset"* ]]
	run build --verity-roothash "$HASH" --verity-data /dev/vda --verity-hash-offset 1000
	[ "$status" -eq 1 ] && [[ $output == *"a multiple of 512"* ]]
	run build --verity-data /dev/vda
	[ "$status" -eq 1 ] && [[ $output == *"need --verity-roothash"* ]]
	run build --verity-roothash "$HASH" --verity-data /dev/vda --verity-hash /dev/vdb --verity-options "a b"
	[ "$status" -eq 1 ] && [[ $output == *"one word without spaces"* ]]
}

@test "dry-run: systemd's names put / on verity and the root stage on the dm device" {
	run "$REPO/build/hardinit" dry-run --config "$REPO/config/baseline.conf" \
		--cmdline "roothash=$HASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=panic-on-corruption"
	[ "$status" -eq 0 ]
	[[ $output == *"root hash from the command line"* ]]
	[[ $output == *"would set up verity on data /dev/vda, hash /dev/vdb (offset 0), root hash $HASH, on corruption panic"* ]]
	[[ $output == *"would mount the verity root /dev/mapper/root read-only"* ]]
}

@test "dry-run: under the lock, verity off, another hash or device and weaker options are refused and logged" {
	printf '[boot]\nlock_cmdline = yes\n[verity]\nroothash = %s\ndata = /dev/vda\nhash = /dev/vdb\non_corruption = restart\n' \
		"$HASH" >"$BATS_TEST_TMPDIR/l.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/l.conf" \
		--cmdline "systemd.verity=no hardinit.verity.roothash=off roothash=${HASH//9/8} systemd.verity_root_hash=/dev/vdc systemd.verity_root_options=check-at-most-once"
	[ "$status" -eq 0 ]
	[[ $output == *"refused systemd.verity=no: the config is locked"* ]]
	[[ $output == *"hardinit.verity.roothash=off refused"* ]]
	[[ $output == *"refused roothash=${HASH//9/8}"* ]]
	[[ $output == *"refused systemd.verity_root_hash=/dev/vdc"* ]]
	[[ $output == *"refused systemd.verity_root_options=check-at-most-once: it weakens verity"* ]]
	[[ $output == *"root hash $HASH, on corruption restart"* ]]
}

@test "dry-run: unlocked, systemd.verity=no turns verity off; enabled without a hash fails" {
	printf '[verity]\nroothash = %s\ndata = /dev/vda\nhash = /dev/vdb\n' "$HASH" >"$BATS_TEST_TMPDIR/u.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/u.conf" --cmdline "root=/dev/vda systemd.verity=no"
	[ "$status" -eq 0 ]
	[[ $output == *"verity turned off by systemd.verity=no"* ]]
	[[ $output != *"would set up verity"* ]]
	printf '[verity]\nenabled = yes\n' >"$BATS_TEST_TMPDIR/e.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/e.conf" --cmdline "root=/dev/vda"
	[ "$status" -eq 1 ]
	[[ $output == *"enabled = yes but there is no root hash"* ]]
}
