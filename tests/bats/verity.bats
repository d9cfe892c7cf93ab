#!/usr/bin/env bats
# The verity parts that run on the host: the builder's --verity-* options
# (the [verity] section it writes, read back from the archive with GNU cpio,
# and the modules it adds from the real modules.dep), and hardinit dry-run
# with systemd's verity names, the lock, and an embedded root hash against
# which every command-line word is judged, and with the devices' images
# what the boot decides from their bytes (superblock, sizes, the root
# hash's length). The kernel side is tests/vm/verity.bats.

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

@test "dry-run: under the lock without an embedded hash, verity off and weaker options are refused and logged" {
	printf '[boot]\nlock_cmdline = yes\n[verity]\nenabled = yes\non_corruption = restart\n' >"$BATS_TEST_TMPDIR/l.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/l.conf" \
		--cmdline "systemd.verity=no hardinit.verity.enabled=no roothash=$HASH systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdc systemd.verity_root_options=check-at-most-once"
	[ "$status" -eq 0 ]
	[[ $output == *"refused systemd.verity=no: the config is locked"* ]]
	[[ $output == *"hardinit.verity.enabled=no refused"* ]]
	[[ $output == *"refused systemd.verity_root_options=check-at-most-once: it weakens verity"* ]]
	[[ $output == *"root hash from the command line"* ]]
	[[ $output == *"root hash $HASH, on corruption restart"* ]]
}

@test "dry-run: unlocked without an embedded hash, systemd.verity=no turns verity off; enabled without a hash fails" {
	printf '[verity]\nenabled = yes\n' >"$BATS_TEST_TMPDIR/e.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/e.conf" --cmdline "root=/dev/vda systemd.verity=no"
	[ "$status" -eq 0 ]
	[[ $output == *"verity turned off by systemd.verity=no"* ]]
	[[ $output != *"would set up verity"* ]]
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/e.conf" --cmdline "root=/dev/vda"
	[ "$status" -eq 1 ]
	[[ $output == *"enabled = yes but there is no root hash"* ]]
}

# ---- an embedded root hash: the trust anchor of the root ---------------

# The config a user's initramfs carries: baseline (lock_cmdline = no) with
# the builder's [verity] section, taken out of the archive; $1... are more
# builder options.
embedded_conf() {
	build --profile baseline --verity-roothash "$HASH" --verity-data LABEL=vroot --verity-hash /dev/vdb "$@" >/dev/null
	archive_file etc/hardinit.conf >"$BATS_TEST_TMPDIR/embedded.conf"
	grep -qx "lock_cmdline = no" "$BATS_TEST_TMPDIR/embedded.conf"
	grep -qx "roothash = $HASH" "$BATS_TEST_TMPDIR/embedded.conf"
}

# dry_run_refused CMDLINE WORD HOW: the boot fails on the verity or config
# stage with one line naming WORD and saying HOW ("weakens", "changes", or
# the lock's words for hardinit.verity.*), then the failure action.
dry_run_refused() {
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/embedded.conf" --cmdline "$1"
	echo "cmdline: $1"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"refused"* ]]
	[[ $output == *"$2"* ]]
	[[ $output == *"$3"* ]]
	[[ $output == *"embeds"*"whatever lock_cmdline says"* ]]
	[[ $output == *"would take the failure action: reboot"* ]]
	[[ $output != *"would set up verity"* ]]
	[[ $output != *"would mount the verity root"* && $output != *"would wait up to"* ]]
}

@test "embedded hash, unlocked: another root hash and devices, verity off and weaker options are refused, then the failure action" {
	embedded_conf
	local other=${HASH//9/8}
	dry_run_refused "roothash=$other systemd.verity_root_data=/dev/sdb systemd.verity_root_hash=/dev/sdc" \
		"refused roothash=$other" "it changes verity: it replaces the embedded root hash"
	dry_run_refused "systemd.verity_root_data=/dev/sdb" "refused systemd.verity_root_data=/dev/sdb" "another data device"
	dry_run_refused "systemd.verity_root_hash=/dev/sdc" "refused systemd.verity_root_hash=/dev/sdc" "another hash device"
	dry_run_refused "systemd.verity=no root=/dev/sdb1" "refused systemd.verity=no" "it weakens verity: it turns verity off"
	dry_run_refused "systemd.verity_root_options=ignore-corruption" "refused systemd.verity_root_options=ignore-corruption" \
		"it weakens verity: a corrupted block would be read as if it verified"
}

@test "embedded hash: held-out spellings of the same classes are refused too" {
	embedded_conf
	local w
	for w in systemd.verity=0 systemd.verity=false systemd.verity=off rd.systemd.verity=0; do
		dry_run_refused "$w root=/dev/sdb1" "refused $w" "it weakens verity"
	done
	dry_run_refused "systemd.verity=maybe" "refused systemd.verity=maybe" "not a yes/no value"
	for w in ignore_corruption ignore-zero-blocks ignore_zero_blocks check-at-most-once check_at_most_once; do
		dry_run_refused "systemd.verity_root_options=$w" "(its word '$w')" "it weakens verity"
	done
	# A weakening word among strong ones, either side; options given twice.
	dry_run_refused "systemd.verity_root_options=restart-on-corruption,ignore-corruption" "(its word 'ignore-corruption')" "weakens"
	dry_run_refused "systemd.verity_root_options=ignore-corruption,panic-on-corruption" "(its word 'ignore-corruption')" "weakens"
	dry_run_refused "systemd.verity_root_options=superblock=yes systemd.verity_root_options=check-at-most-once" \
		"(its word 'check-at-most-once')" "weakens"
	# Another corruption mode than the builder's, or another tree layout.
	dry_run_refused "systemd.verity_root_options=panic-on-corruption" "(its word 'panic-on-corruption')" "it changes verity"
	dry_run_refused "systemd.verity_root_options=restart-on-corruption" "(its word 'restart-on-corruption')" "it changes verity"
	for w in superblock=no hash-offset=4096 hash=sha1 salt=00 data-blocks=1 format=0 frobnicate; do
		dry_run_refused "systemd.verity_root_options=$w" "(its word '$w')" "it changes verity"
	done
	# The overrides of [verity], through the config lock's rules.
	for w in hardinit.verity.roothash=off hardinit.verity.enabled=no hardinit.verity.on_corruption=ignore \
		hardinit.verity.on_corruption=panic hardinit.verity.options=ignore-zero-blocks \
		hardinit.verity.data=/dev/sdb hardinit.verity.hash=off "hardinit.verity.roothash=${HASH//9/8}"; do
		dry_run_refused "$w" "config: $w refused" "embeds a verity root hash"
	done
}

@test "embedded hash: words that say the same or strengthen are taken, root= is ignored, and the embedded setup stands" {
	embedded_conf
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/embedded.conf" \
		--cmdline "roothash=$HASH systemd.verity=yes systemd.verity=1 systemd.verity_root_data=LABEL=vroot systemd.verity_root_options=superblock=yes root=/dev/sdb1 hardinit.verity.enabled=yes"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"root=/dev/sdb1 on the command line is ignored: / is the verity device"* ]]
	[[ $output == *"root hash from the config"* ]]
	[[ $output == *"would set up verity on data LABEL=vroot, hash /dev/vdb (offset 0), root hash $HASH, on corruption eio"* ]]
	[[ $output == *"would mount the verity root /dev/mapper/root read-only"* ]]
	[[ $output != *"sdb1"*"would wait"* ]]
	# An embedded ignore-corruption can be made stronger from the command
	# line, by the option word or by the override.
	embedded_conf --verity-options ignore-corruption
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/embedded.conf" \
		--cmdline "systemd.verity_root_options=restart-on-corruption,root-hash-signature-key=verity:root"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"took systemd.verity_root_options=restart-on-corruption,root-hash-signature-key=verity:root from the command line"* ]]
	[[ $output == *"on corruption restart"* ]]
	sed -i 's/^options = ignore-corruption$/options = off\non_corruption = ignore/' "$BATS_TEST_TMPDIR/embedded.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/embedded.conf" --cmdline "hardinit.verity.on_corruption=panic"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"on corruption panic"* ]]
}

# The VM boot's command lines, judged here: each refusal is taken from the
# config and the command line before any device is read.
@test "embedded hash, unlocked (baseline): systemd.verity=no root=/dev/vda is refused with the failure action, nothing mounted" {
	embedded_conf
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/embedded.conf" \
		--cmdline "hardinit.boot.failure_action=poweroff hardinit.boot.failure_delay=0 systemd.verity=no root=/dev/vda"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"verity: refused systemd.verity=no on the kernel command line: it weakens verity"* ]]
	[[ $output == *"whatever lock_cmdline says"* ]]
	[[ $output == *"would take the failure action: poweroff"* ]]
	[[ $output != *"would set up verity"* && $output != *"would mount the verity root"* && $output != *"would wait up to"* ]]
}

@test "embedded hash, locked (appliance): a weakening word among strong options is refused with the failure action" {
	sed 's/^require_signature = yes$/require_signature = no/' "$REPO/config/appliance.conf" >"$BATS_TEST_TMPDIR/app.conf"
	grep -qx "lock_cmdline = yes" "$BATS_TEST_TMPDIR/app.conf"
	build --config "$BATS_TEST_TMPDIR/app.conf" --verity-roothash "$HASH" --verity-data LABEL=vroot --verity-hash /dev/vdb >/dev/null
	archive_file etc/hardinit.conf >"$BATS_TEST_TMPDIR/locked.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/locked.conf" \
		--cmdline "hardinit.boot.failure_delay=0 systemd.verity_root_options=restart-on-corruption,ignore-corruption"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"verity: refused systemd.verity_root_options=restart-on-corruption,ignore-corruption (its word 'ignore-corruption')"* ]]
	[[ $output == *"it weakens verity: a corrupted block would be read as if it verified"* ]]
	[[ $output == *"would take the failure action: reboot"* ]]
	[[ $output != *"would set up verity"* && $output != *"would mount the verity root"* && $output != *"would exec"* ]]
}

# ---- the devices' images: what the boot decides from their bytes ------------

# Images as the VM test makes them: an ext4 of 4096-byte blocks, its tree
# with veritysetup's defaults; made once per file.
images() {
	command -v veritysetup >/dev/null || skip "veritysetup missing (cryptsetup-bin; scripts/install-deps)"
	local d=$BATS_FILE_TMPDIR/img
	IMG=$d
	[[ -s $d/roothash ]] && return 0
	mkdir -p "$d"
	truncate -s 4M "$d/root.img"
	mkfs.ext4 -q -b 4096 -L vroot "$d/root.img"
	veritysetup format "$d/root.img" "$d/hash.img" | awk '/^Root hash:/ { print $3 }' >"$d/roothash.new"
	# A root whose ext4 has 1024-byte blocks, hashed with 4096-byte ones.
	truncate -s 4M "$d/small.img"
	mkfs.ext4 -q -b 1024 "$d/small.img"
	veritysetup format "$d/small.img" "$d/small-hash.img" | awk '/^Root hash:/ { print $3 }' >"$d/small.roothash"
	head -c 8192 "$d/hash.img" >"$d/hash-trunc.img"
	mv "$d/roothash.new" "$d/roothash"
}

# image_dry_run ROOTHASH DATA HASH: the VM test's unlocked eio config and
# command line, with DATA and HASH as the devices' images.
image_dry_run() {
	printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\nroot_timeout = 3\nlock_cmdline = no\n[verity]\non_corruption = eio\n' \
		>"$BATS_TEST_TMPDIR/eio.conf"
	run "$REPO/build/hardinit" dry-run --config "$BATS_TEST_TMPDIR/eio.conf" \
		--cmdline "roothash=$1 systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb" \
		--verity-data-image "$2" --verity-hash-image "$3"
	echo "$output"
}

# refused_by_images: the boot would stop in the verity stage, before any
# table is loaded or anything mounted, and take the config's action.
refused_by_images() {
	[ "$status" -eq 1 ]
	[[ $output == *"stage verity failed"* ]]
	[[ $output == *"would take the failure action: poweroff (from the config)"* ]]
	[[ $output != *"would exec"* ]]
}

@test "images: images that match the root hash pass the boot's checks" {
	images
	image_dry_run "$(cat "$IMG/roothash")" "$IMG/root.img" "$IMG/hash.img"
	[ "$status" -eq 0 ]
	[[ $output == *"would set up verity on data /dev/vda, hash /dev/vdb"* ]]
	[[ $output == *"would exec"* ]]
}

@test "root hash of the wrong length: a clear message and the failure action" {
	images
	image_dry_run abcd "$IMG/root.img" "$IMG/hash.img"
	refused_by_images
	[[ $output == *"verity root hash has 4 hex digits, sha256 needs 64"* ]]
}

@test "truncated hash image: the superblock's tree does not fit, a clear message and the failure action" {
	images
	image_dry_run "$(cat "$IMG/roothash")" "$IMG/root.img" "$IMG/hash-trunc.img"
	refused_by_images
	[[ $output == *"holds 8192 bytes, its tree needs"* ]]
	[[ $output == *"the hash image is truncated"* ]]
}

@test "no superblock: bad magic on a hash device that is not one, a clear message" {
	images
	image_dry_run "$(cat "$IMG/roothash")" "$IMG/root.img" "$IMG/root.img"
	refused_by_images
	[[ $output == *"no verity superblock (bad magic)"* ]]
}

@test "ext4 blocks smaller than the verity data blocks: a clear message before the device is made" {
	images
	image_dry_run "$(cat "$IMG/small.roothash")" "$IMG/small.img" "$IMG/small-hash.img"
	refused_by_images
	[[ $output == *"has 1024-byte blocks, smaller than the verity data block size 4096"* ]]
	[[ $output == *"veritysetup format --data-block-size=1024"* ]]
}

# ---- a signed root hash ---------------------------------------------------

@test "builder: --verity-roothash-sig embeds the signature and names it with root-hash-signature=" {
	local sig=$BATS_TEST_TMPDIR/root.roothash.p7s
	printf '\x30\x82\x01\x00signature' >"$sig"
	run build --profile appliance --verity-roothash "$HASH" --verity-data LABEL=vroot --verity-hash /dev/vdb \
		--verity-roothash-sig "$sig"
	[ "$status" -eq 0 ]
	archive_file etc/hardinit.conf >"$BATS_TEST_TMPDIR/c.conf"
	grep -qx "options = root-hash-signature=/etc/hardinit/root.roothash.p7s" "$BATS_TEST_TMPDIR/c.conf"
	grep -qx "require_signature = yes" "$BATS_TEST_TMPDIR/c.conf"
	archive_file etc/hardinit/root.roothash.p7s | cmp - "$sig"
	# Not DER, empty, or without a root hash: one clear line, nothing written.
	printf 'PEM' >"$BATS_TEST_TMPDIR/bad.p7s"
	run build --verity-roothash "$HASH" --verity-data /dev/vda --verity-hash /dev/vdb --verity-roothash-sig "$BATS_TEST_TMPDIR/bad.p7s"
	[ "$status" -eq 1 ] && [[ $output == *"is not DER (PKCS#7)"* ]]
	: >"$BATS_TEST_TMPDIR/empty.p7s"
	run build --verity-roothash "$HASH" --verity-data /dev/vda --verity-hash /dev/vdb --verity-roothash-sig "$BATS_TEST_TMPDIR/empty.p7s"
	[ "$status" -eq 1 ] && [[ $output == *"has 0 bytes"* ]]
	run build --verity-roothash-sig "$sig"
	[ "$status" -eq 1 ] && [[ $output == *"need --verity-roothash HEX"* ]]
}

@test "dry-run: require_signature refuses an unsigned root hash; a signature from the config or the command line is taken" {
	local conf=$BATS_TEST_TMPDIR/sig.conf
	printf '[boot]\nlock_cmdline = yes\n[verity]\nroothash = %s\ndata = /dev/vda\nhash = /dev/vdb\nrequire_signature = yes\n' "$HASH" >"$conf"
	run "$REPO/build/hardinit" dry-run --config "$conf" --cmdline "root=/dev/vda"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"has no signature, and [verity] require_signature = yes refuses an unsigned root"* ]]
	[[ $output == *"would take the failure action: reboot"* ]]
	[[ $output != *"would set up verity"* ]]
	# Embedded by the config, or (where the config embeds none) from the command line: the kernel checks it.
	run "$REPO/build/hardinit" dry-run --config "$conf" --cmdline "root=/dev/vda systemd.verity_root_options=root-hash-signature=base64:MIIBAA=="
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"would set up verity"*"signature hardinit:verity:root"* ]]
	printf 'options = root-hash-signature=/etc/hardinit/root.roothash.p7s\n' >>"$conf"
	run "$REPO/build/hardinit" dry-run --config "$conf" --cmdline "root=/dev/vda"
	[ "$status" -eq 0 ]
	[[ $output == *"would set up verity"*"signature hardinit:verity:root"* ]]
	# ... but another signature than the embedded one is refused.
	run "$REPO/build/hardinit" dry-run --config "$conf" --cmdline "root=/dev/vda systemd.verity_root_options=root-hash-signature=base64:MIIBAA=="
	[ "$status" -eq 1 ]
	[[ $output == *"refused systemd.verity_root_options"*"replaces the signature the embedded config checks"* ]]
}

@test "dry-run: dm_verity.require_signatures=1 on the command line is honoured and reported, whatever the config says" {
	local conf=$BATS_TEST_TMPDIR/k.conf
	printf '[verity]\nroothash = %s\ndata = /dev/vda\nhash = /dev/vdb\n' "$HASH" >"$conf"
	run "$REPO/build/hardinit" dry-run --config "$conf" --cmdline "root=/dev/vda"
	[ "$status" -eq 0 ]
	run "$REPO/build/hardinit" dry-run --config "$conf" --cmdline "root=/dev/vda dm_verity.require_signatures=1"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"has no signature, and dm_verity.require_signatures=1 on the command line refuses an unsigned root"* ]]
}
