#!/usr/bin/env bats
# LUKS2 on the host, end to end through hardinit's own code (block/): a
# volume made by Debian's cryptsetup luksFormat on a temporary file, opened
# by build/tools/luks2-tool (the header reader, the KDFs, the AF merge and
# the digest check are hardinit's; the area's cipher there is OpenSSL's),
# and the volume key compared with cryptsetup's own luksDump
# --dump-volume-key. The kernel side (AF_ALG, dm-crypt, the keyring) is
# tests/vm/luks.bats.

# stderr is set by bats' run --separate-stderr.
# shellcheck disable=SC2154

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	make -s -C "$REPO" build/tools/luks2-tool >&2
	export TOOL=$REPO/build/tools/luks2-tool
}

# luksFormat $BATS_TEST_TMPDIR/v.img with passphrase $1 and options.
format() {
	local pass=$1
	shift
	rm -f "$BATS_TEST_TMPDIR/v.img"
	truncate -s 20M "$BATS_TEST_TMPDIR/v.img"
	printf %s "$pass" | cryptsetup luksFormat -q --type luks2 --key-file - "$@" "$BATS_TEST_TMPDIR/v.img"
}

# cryptsetup's volume key of the image, as one hex string.
cryptsetup_key() {
	printf %s "$1" | cryptsetup luksDump --dump-volume-key -q --key-file - "$BATS_TEST_TMPDIR/v.img" |
		sed -n '/MK dump:/,/^[^[:space:]]/p' | sed 's/MK dump://' | tr -d ' \t\n' | grep -o '^[0-9a-f]*'
}

opens_as_cryptsetup() {
	local pass=$1
	run "$TOOL" open "$BATS_TEST_TMPDIR/v.img" < <(printf %s "$pass")
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'digest ok' <<<"$output"
	local want
	want=$(cryptsetup_key "$pass")
	[ ${#want} -ge 64 ]
	grep -qx "volume key $want" <<<"$output"
}

@test "pbkdf2-sha256 keyslot: hardinit's key is cryptsetup's" {
	format 'correct horse' --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --hash sha256
	opens_as_cryptsetup 'correct horse'
}

@test "argon2id keyslot (Debian's default KDF): hardinit's key is cryptsetup's" {
	format 'correct horse' --pbkdf argon2id --pbkdf-force-iterations 4 --pbkdf-memory 64 --pbkdf-parallel 2
	opens_as_cryptsetup 'correct horse'
}

@test "argon2i keyslot with a 256-bit key (AES-128-XTS): hardinit's key is cryptsetup's" {
	format 'p' --pbkdf argon2i --pbkdf-force-iterations 4 --pbkdf-memory 32 --key-size 256
	opens_as_cryptsetup 'p'
}

@test "a wrong passphrase opens no keyslot and reveals nothing" {
	format 'right' --pbkdf pbkdf2 --pbkdf-force-iterations 1000
	run "$TOOL" open "$BATS_TEST_TMPDIR/v.img" < <(printf wrong)
	[ "$status" -eq 1 ]
	[ "$output" = "no keyslot opened" ]
}

@test "a second keyslot (luksAddKey) opens with its own passphrase" {
	format 'first' --pbkdf pbkdf2 --pbkdf-force-iterations 1000
	printf 'second' >"$BATS_TEST_TMPDIR/new"
	printf 'first' | cryptsetup luksAddKey -q --key-file - --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		"$BATS_TEST_TMPDIR/v.img" "$BATS_TEST_TMPDIR/new"
	opens_as_cryptsetup 'second'
	grep -qx 'keyslot 1' <<<"$output"
}

@test "a damaged primary header: the volume opens from the secondary copy" {
	format 'pw' --pbkdf pbkdf2 --pbkdf-force-iterations 1000
	printf 'XXXX' | dd of="$BATS_TEST_TMPDIR/v.img" bs=1 seek=5000 conv=notrunc status=none
	opens_as_cryptsetup 'pw'
	grep -q '^note primary copy checksum mismatch' <<<"$output"
}

@test "both headers damaged: one clear error naming both copies" {
	format 'pw' --pbkdf pbkdf2 --pbkdf-force-iterations 1000
	printf 'XXXX' | dd of="$BATS_TEST_TMPDIR/v.img" bs=1 seek=5000 conv=notrunc status=none
	printf 'XXXX' | dd of="$BATS_TEST_TMPDIR/v.img" bs=1 seek=$((16384 + 5000)) conv=notrunc status=none
	run "$TOOL" open "$BATS_TEST_TMPDIR/v.img" < <(printf pw)
	[ "$status" -eq 2 ]
	grep -q 'primary copy: checksum mismatch.*secondary copy: checksum mismatch' <<<"$output"
}

# ---- the builder's --crypttab and --luks ---------------------------------

build() {
	local kroot=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12
	[ -d "$kroot/lib/modules" ] || skip "no 6.12 kernel in $kroot (scripts/fetch-kernel)"
	make -s -C "$REPO" build/hardinit build/mkcpio >&2
	"$REPO/initramfs/hardinit-mkinitramfs" -o "$BATS_TEST_TMPDIR/i.img" --compress none \
		--hardinit "$REPO/build/hardinit" --moddir "$kroot" "$@"
}

archive_file() {
	(cd "$BATS_TEST_TMPDIR" && rm -rf x && mkdir x && cd x && cpio -id --quiet <../i.img && cat "./$1")
}

@test "builder: --crypttab embeds /etc/crypttab and adds dm-crypt and the AF_ALG skcipher" {
	printf 'cryptroot UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,discard\n' >"$BATS_TEST_TMPDIR/crypttab"
	run build --crypttab "$BATS_TEST_TMPDIR/crypttab"
	[ "$status" -eq 0 ]
	run archive_file etc/crypttab
	[ "$output" = 'cryptroot UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,discard' ]
	run archive_file etc/hardinit/modules
	local order
	order=" $(sed 's|.*/||; s|\.ko.*||' <<<"$output" | tr '\n' ' ')"
	for m in dm-mod dm-crypt af_alg algif_skcipher xts; do
		[[ $order == *" $m "* ]] || { echo "no $m in:$order"; false; }
	done
}

@test "builder: --luks adds the modules without a crypttab; a missing --crypttab file is refused" {
	run build --luks
	[ "$status" -eq 0 ]
	run archive_file etc/hardinit/modules
	grep -q '/dm-crypt\.ko' <<<"$output"
	run build --crypttab "$BATS_TEST_TMPDIR/nope"
	[ "$status" -ne 0 ]
	grep -q -- "--crypttab: .*nope is not a readable file" <<<"$output"
}

@test "builder: a --crypttab the boot would refuse (keyslot=1) writes no image, names the line and the option, keeps the last image" {
	printf '# comment\ncryptroot UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,keyslot=1\n' >"$BATS_TEST_TMPDIR/crypttab"
	echo "last good image" >"$BATS_TEST_TMPDIR/i.img"
	run --separate-stderr build --crypttab "$BATS_TEST_TMPDIR/crypttab"
	[ "$status" -eq 1 ]
	[[ $stderr == *"invalid crypttab $BATS_TEST_TMPDIR/crypttab: crypttab line 2: option keyslot is not supported"* ]]
	[[ $stderr == *"no image written (the last one is kept)"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/i.img")" = "last good image" ]
}

@test "check-crypttab: the boot's parser; refused lines exit 1 naming line and option, ignored options are named" {
	make -s -C "$REPO" build/hardinit >&2
	local f=$BATS_TEST_TMPDIR/ct
	printf 'cryptroot UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,tries=20\n' >"$f"
	run --separate-stderr "$REPO/build/hardinit" check-crypttab "$f"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hardinit: $f: crypttab line 1: tries=20: hardinit takes 0 to 10 (systemd-cryptsetup takes more); the boot would refuse it" ]
	printf 'cryptroot UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,tpm2-device=auto,password-echo=no,x-foo\n' >"$f"
	run --separate-stderr "$REPO/build/hardinit" check-crypttab "$f"
	[ "$status" -eq 0 ]
	[ "$output" = "hardinit: $f is valid (1 volume)" ]
	[[ $stderr == *"cryptroot: options hardinit ignores at boot (as systemd-cryptsetup ignores unknown ones): password-echo,x-foo"* ]]
	run "$REPO/build/hardinit" check-crypttab
	[ "$status" -eq 2 ]
}

@test "check-ima-policy: the ima stage's reader; a rule over its length is refused, the example policy taken" {
	make -s -C "$REPO" build/hardinit >&2
	run "$REPO/build/hardinit" check-ima-policy "$REPO/config/ima-policy.example"
	[ "$status" -eq 0 ]
	[[ $output == *"is valid ("*" rules)" ]]
	printf 'measure func=BPRM_CHECK %0300d\n' 0 >"$BATS_TEST_TMPDIR/pol"
	run --separate-stderr "$REPO/build/hardinit" check-ima-policy "$BATS_TEST_TMPDIR/pol"
	[ "$status" -eq 1 ]
	[[ $stderr == *"the rule on line 1 is longer than 255 bytes; the boot would refuse it"* ]]
}

# ---- hardinit dry-run with rd.luks.* -------------------------------------

@test "dry-run: rd.luks.name= and rd.luks.options= say which volume would open and which options are ignored" {
	make -s -C "$REPO" build/hardinit >&2
	run "$REPO/build/hardinit" dry-run --config "$REPO/config/baseline.conf" \
		--cmdline "root=/dev/mapper/cr rd.luks.name=0f2c6b4e-1111-4a55-8d9c-0123456789ab=cr rd.luks.options=discard,x-unknown"
	[ "$status" -eq 0 ]
	grep -q 'luks: would open UUID 0f2c6b4e-1111-4a55-8d9c-0123456789ab as /dev/mapper/cr' <<<"$output"
	grep -q 'luks: cr: ignoring unknown options x-unknown (as systemd-cryptsetup does)' <<<"$output"
}

@test "dry-run: a bad rd.luks.uuid= is the luks stage's clear error and the failure action" {
	make -s -C "$REPO" build/hardinit >&2
	run "$REPO/build/hardinit" dry-run --config "$REPO/config/baseline.conf" --cmdline "root=/dev/vda rd.luks.uuid=bogus"
	grep -q 'luks: rd.luks.uuid=bogus: not a UUID; give the LUKS UUID (cryptsetup luksUUID); fix the kernel command line' <<<"$output"
	grep -q 'at boot this would take the failure action' <<<"$output"
}
