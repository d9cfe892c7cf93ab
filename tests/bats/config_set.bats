#!/usr/bin/env bats
# hardinit config-set (the builder's --verity-roothash writes [verity] with
# it, not with a second parser) and check-config --cmdline (the UKI's
# words judged by hardinit's table, not the builder's). Pure logic is in
# tests/unit/test_config_edit.c; here the command as the builder runs it.

# stderr and stderr_lines are set by bats' run --separate-stderr.
# shellcheck disable=SC2154

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO HARDINIT="$REPO/build/hardinit"
	make -s -C "$REPO" build/hardinit build/mkcpio >&2
}

setup() {
	T=$BATS_TEST_TMPDIR
	cat >"$T/c.conf" <<-'EOF2'
		# my profile
		[boot]
		failure_action = halt

		[verity]
		# why restart: a corrupted block reboots
		on_corruption = restart
		enabled = no
	EOF2
}

@test "config-set: prints the file with the keys set, every other line kept; the file is not changed" {
	local before
	before=$(sha256sum <"$T/c.conf")
	run --separate-stderr "$HARDINIT" config-set "$T/c.conf" verity.enabled=yes verity.roothash=abcd tpm.pcr=13
	[ "$status" -eq 0 ]
	[ "$output" = "# my profile
[boot]
failure_action = halt

[verity]
enabled = yes
roothash = abcd
# why restart: a corrupted block reboots
on_corruption = restart

[tpm]
pcr = 13" ]
	[ "$(sha256sum <"$T/c.conf")" = "$before" ]
	printf '%s\n' "$output" >"$T/out.conf"
	"$HARDINIT" check-config "$T/out.conf"
}

@test "config-set: a bad key, value or argument is one line and exit 1, nothing printed" {
	local a
	for a in verity.enabled=maybe verity.nosuch=1 nosection.x=1 kernel.require=nokaslr sysctl.kernel.x=1 verity; do
		run --separate-stderr "$HARDINIT" config-set "$T/c.conf" "$a"
		[ "$status" -eq 1 ] || { echo "$a: status $status"; return 1; }
		[ -z "$output" ] && [ "${#stderr_lines[@]}" -eq 1 ] || { echo "$a: $output / $stderr"; return 1; }
		[[ $stderr == "hardinit: config-set: "* ]]
	done
	run --separate-stderr "$HARDINIT" config-set "$T/nope.conf" verity.enabled=yes
	[ "$status" -eq 1 ] && [[ $stderr == *"cannot read $T/nope.conf"* ]]
	run --separate-stderr "$HARDINIT" config-set "$T/c.conf"
	[ "$status" -eq 2 ] && [[ $stderr == *"usage: hardinit config-set FILE SECTION.KEY=VALUE"* ]]
}

@test "builder: --verity-roothash sets [verity] through config-set, keeping the config's comments" {
	local kdir="$T/m/lib/modules/9.9.9-test" hash
	mkdir -p "$kdir/kernel/md"
	for m in dm-mod dm-verity; do
		printf 'module %s\n' "$m" >"$kdir/kernel/md/$m.ko"
		printf 'kernel/md/%s.ko:\n' "$m" >>"$kdir/modules.dep"
	done
	hash=$(printf 'ab%.0s' {1..32})
	run --separate-stderr "$REPO/initramfs/hardinit-mkinitramfs" -o "$T/i.img" --compress none \
		--hardinit "$HARDINIT" --config "$T/c.conf" --moddir "$T/m" \
		--verity-roothash "$hash" --verity-data /dev/vda --verity-hash-offset 4096
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	(cd "$T" && mkdir x && cd x && cpio -id --quiet <../i.img)
	[ "$("$HARDINIT" config-set "$T/c.conf" verity.enabled=yes "verity.roothash=$hash" verity.data=/dev/vda \
		verity.hash=off verity.options=hash-offset=4096)" = "$(cat "$T/x/etc/hardinit.conf")" ]
	grep -qx '# why restart: a corrupted block reboots' "$T/x/etc/hardinit.conf"
	# A value hardinit refuses (a control character, which the builder's
	# own whitespace check lets by) stops the build with hardinit's reason.
	run --separate-stderr "$REPO/initramfs/hardinit-mkinitramfs" -o "$T/i.img" --hardinit "$HARDINIT" \
		--config "$T/c.conf" --moddir "$T/m" --verity-roothash "$hash" --verity-data /dev/vda \
		--verity-hash /dev/vdb --verity-options $'a\x01b'
	[ "$status" -eq 1 ] && [ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: cannot put the [verity] keys into $T/c.conf: config-set: verity.options="*"control character"* ]] || { echo "$stderr"; return 1; }
	# No second parser of the config in the builder.
	run ! grep -nE '\bawk\b.*(sec|section)' "$REPO/initramfs/hardinit-mkinitramfs"
}

@test "check-config --cmdline: a word that contradicts the config's kernel words is one line and exit 1" {
	local w
	for w in mitigations=off init_on_free=0 init-on-free=0 lockdown=none slab_merge nopti iommu.strict=0; do
		run --separate-stderr "$HARDINIT" check-config --cmdline "quiet $w" "$REPO/config/strict.conf"
		[ "$status" -eq 1 ] || { echo "$w: status $status"; return 1; }
		[[ $stderr == "hardinit: word $w contradicts "*" that $REPO/config/strict.conf asks for; "* ]] || { echo "$stderr"; return 1; }
	done
	# The config's own words, and words it does not name, are fine; with
	# --print-kernel-words the words are printed as without --cmdline.
	run --separate-stderr "$HARDINIT" check-config --cmdline "slab_nomerge quiet root=/dev/vda" \
		--print-kernel-words "$REPO/config/strict.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$("$HARDINIT" check-config --print-kernel-words "$REPO/config/strict.conf")" ]
	# security=selinux, which the config needs, counts as one of its words.
	printf '[selinux]\nmode = enforcing\n' >"$T/se.conf"
	run --separate-stderr "$HARDINIT" check-config --cmdline "security=apparmor" "$T/se.conf"
	[ "$status" -eq 1 ] && [[ $stderr == *"contradicts security=selinux"* ]]
	run --separate-stderr "$HARDINIT" check-config --cmdline "$T/se.conf"
	[ "$status" -eq 2 ]
}
