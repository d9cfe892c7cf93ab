#!/usr/bin/env bats
# The unified kernel image builder (hardinit-mkinitramfs --uki) and the
# firmware facts in hardinit check-config/audit. Host-only: the images are
# read back with objdump, objcopy, sbverify and zstd, never with the
# builder's own claims. Booting them under OVMF is tests/vm/uki.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	export BUILDER="$REPO/initramfs/hardinit-mkinitramfs"
	export HARDINIT="$REPO/build/hardinit"
	export STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
	export SNAKEOIL=/usr/share/ovmf/PkKek-1-snakeoil
	local k=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12
	KDIR=""
	[[ -s $k/kver ]] && KDIR=$k
	export KDIR
	# Two builds shared by the layout, content and reproducibility tests.
	if [[ -n $KDIR && -x $HARDINIT && -f $STUB ]]; then
		export KVER
		KVER=$(cat "$KDIR/kver")
		export U1=$BATS_FILE_TMPDIR/one.efi U2=$BATS_FILE_TMPDIR/two.efi
		uki_build "$U1" -o "$BATS_FILE_TMPDIR/one.img" >"$BATS_FILE_TMPDIR/one.log"
		sleep 1   # a time stamp taken from the clock would now differ
		uki_build "$U2" >"$BATS_FILE_TMPDIR/two.log"
	fi
}

uki_build() {
	local out=$1
	shift
	"$BUILDER" --uki "$out" --kernel "$KDIR/boot/vmlinuz-$KVER" --hardinit "$HARDINIT" \
		--moddir "$KDIR" --kver "$KVER" --target virtio --profile strict \
		--cmdline "root=LABEL=testroot console=ttyS0" "$@"
}

setup() {
	[[ -n $KDIR ]] || skip "no 6.12 kernel in the cache (scripts/fetch-kernel 6.12)"
	[[ -x $HARDINIT ]] || skip "build/hardinit not built"
	[[ -f $STUB ]] || { echo "$STUB missing: systemd-boot-efi (scripts/install-deps)"; return 1; }
	T=$BATS_TEST_TMPDIR
}

# The bytes of one section.
section() {
	objcopy -O binary --only-section="$2" "$1" "$T/section" && cat "$T/section"
}

@test "uki: objdump -h lists the stub's sections, then .osrel .cmdline .uname .initrd .linux, aligned and apart" {
	local align stub_end=0 prev_end=0 idx name size vma rest names=""
	align=$((16#$(objdump -p "$STUB" | awk '$1 == "SectionAlignment" { print $2 }')))
	while read -r idx name size vma rest; do
		[[ $idx =~ ^[0-9]+$ ]] || continue
		((16#$vma + 16#$size > stub_end)) && stub_end=$((16#$vma + 16#$size))
	done < <(objdump -h "$STUB")
	while read -r idx name size vma rest; do
		[[ $idx =~ ^[0-9]+$ ]] || continue
		names+=" $name"
		case $name in
		.osrel | .cmdline | .uname | .initrd | .linux)
			(((16#$vma) % align == 0)) || { echo "$name at 0x$vma is not aligned to $align"; false; }
			((16#$vma >= stub_end)) || { echo "$name at 0x$vma overlaps the stub (ends $stub_end)"; false; }
			((16#$vma >= prev_end)) || { echo "$name at 0x$vma overlaps the previous section"; false; }
			((16#$size > 0)) || { echo "$name is empty"; false; }
			;;
		esac
		prev_end=$((16#$vma + 16#$size))
	done < <(objdump -h "$U1")
	echo "sections:$names"
	[[ $names == *" .sbat .sdmagic .osrel .cmdline .uname .initrd .linux" ]]
	objdump -p "$U1" | grep -q 'Subsystem.*EFI application'
}

@test "uki: the sections hold the command line, the kernel, its version and the initramfs" {
	local cmdline
	cmdline=$(section "$U1" .cmdline)
	echo "cmdline: $cmdline"
	[[ $cmdline == "root=LABEL=testroot console=ttyS0 "* ]]
	# Every word of strict's [kernel] section, from the binary that reads it.
	local w
	while read -r w; do
		[[ " $cmdline " == *" $w "* ]] || { echo "missing $w"; false; }
	done < <("$HARDINIT" check-config --print-kernel-words "$REPO/config/strict.conf")
	[[ $(section "$U1" .uname) == "$KVER" ]]
	section "$U1" .linux | cmp - "$KDIR/boot/vmlinuz-$KVER"
	# .initrd is the same archive -o wrote, and it has hardinit as /init.
	section "$U1" .initrd | cmp - "$BATS_FILE_TMPDIR/one.img"
	section "$U1" .initrd >"$BATS_TEST_TMPDIR/initrd"
	# The virtio target's image is not compressed; others are zstd.
	{ zstd -dcq "$BATS_TEST_TMPDIR/initrd" 2>/dev/null || cat "$BATS_TEST_TMPDIR/initrd"; } |
		cpio -it --quiet 2>/dev/null | grep -qx init
	# efivarfs is a module on Debian's kernels: the firmware stage needs it.
	{ zstd -dcq "$BATS_TEST_TMPDIR/initrd" 2>/dev/null || cat "$BATS_TEST_TMPDIR/initrd"; } |
		cpio -i --quiet --to-stdout etc/hardinit/modules 2>/dev/null | grep -q '/efivarfs.ko'
	section "$U1" .osrel | grep -q '^ID='
}

@test "uki: two builds of the same inputs are the same bytes; the PE time stamp is SOURCE_DATE_EPOCH" {
	local a b
	a=$(sha256sum <"$U1")
	b=$(sha256sum <"$U2")
	echo "$a / $b"
	[[ $a == "$b" ]]
	objdump -p "$U1" | grep -q 'Time/Date.*Thu Jan  1 00:00:00 1970'
	objdump -p "$U1" | grep -q 'CheckSum.*00000000'
	SOURCE_DATE_EPOCH=1700000000 uki_build "$T/epoch.efi" >/dev/null
	objdump -p "$T/epoch.efi" | grep 'Time/Date' | grep -q 'Nov 14 .* 2023'
}

@test "uki: a --cmdline word that contradicts the profile is refused at build time, nothing written" {
	local word
	for word in mitigations=off init_on_free=0 lockdown=none slab_merge iommu.strict=0; do
		run -1 uki_build "$T/bad.efi" --cmdline "$word"
		echo "$word: $output"
		[[ $output == *"--cmdline word $word contradicts"*"profile strict"* ]]
		[[ ! -e $T/bad.efi ]]
	done
	# A word the profile does not mention is added.
	run -0 uki_build "$T/ok.efi" --cmdline "quiet"
	[[ $(section "$T/ok.efi" .cmdline) == *" quiet "* ]]
}

@test "uki: a command line without root= is refused; so is a kernel that does not match --kver" {
	run -1 "$BUILDER" --uki "$T/x.efi" --kernel "$KDIR/boot/vmlinuz-$KVER" --hardinit "$HARDINIT" \
		--profile strict --cmdline "console=ttyS0"
	[[ $output == *"names no root="* ]]
	run -1 "$BUILDER" --uki "$T/x.efi" --kernel /etc/hostname --hardinit "$HARDINIT" --cmdline root=/dev/vda
	[[ $output == *"not an x86 bzImage"* ]]
	local old=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.1
	if [[ -s $old/kver ]]; then
		run -1 "$BUILDER" --uki "$T/x.efi" --kernel "$KDIR/boot/vmlinuz-$KVER" --hardinit "$HARDINIT" \
			--moddir "$old" --kver "$(cat "$old/kver")" --target virtio --cmdline root=/dev/vda
		[[ $output == *"is $KVER but the modules are for $(cat "$old/kver")"* ]]
	fi
	run -1 "$BUILDER" -o "$T/x.img" --cmdline root=/dev/vda
	[[ $output == *"add --uki OUT.efi"* ]]
	[[ ! -e $T/x.efi ]]
}

@test "uki: signed with --sign-key/--sign-cert, sbverify --cert accepts it; unsigned and other keys fail" {
	[[ -f $SNAKEOIL.key ]] || skip "ovmf's snakeoil key not installed"
	openssl pkey -in "$SNAKEOIL.key" -passin pass:snakeoil -out "$T/key.pem"
	run -0 uki_build "$T/signed.efi" --sign-key "$T/key.pem" --sign-cert "$SNAKEOIL.pem"
	run -0 sbverify --cert "$SNAKEOIL.pem" "$T/signed.efi"
	[[ $output == *"Signature verification OK"* ]]
	run ! sbverify --cert "$SNAKEOIL.pem" "$U1"
	openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=other -days 1 \
		-keyout "$T/other.key" -out "$T/other.pem" 2>/dev/null
	run ! sbverify --cert "$T/other.pem" "$T/signed.efi"
	# The encrypted key as shipped: refused with what to do, not a prompt.
	run -1 uki_build "$T/enc.efi" --sign-key "$SNAKEOIL.key" --sign-cert "$SNAKEOIL.pem"
	[[ $output == *"is encrypted; decrypt it"* ]]
	run -1 uki_build "$T/enc.efi" --sign-key "$T/key.pem"
	[[ $output == *"needs both --sign-key KEY and --sign-cert CERT"* ]]
}

@test "check-config --print-kernel-words: the [kernel] words, and security=selinux when SELinux is needed" {
	run -0 "$HARDINIT" check-config --print-kernel-words "$REPO/config/baseline.conf"
	[[ -z $output ]]
	run -0 "$HARDINIT" check-config --print-kernel-words "$REPO/config/strict.conf"
	[[ $output == *slab_nomerge* && $output != *security=* ]]
	printf '[selinux]\nmode = enforcing\n[kernel]\nwarn = slab_nomerge\n' >"$T/se.conf"
	run -0 "$HARDINIT" check-config --print-kernel-words "$T/se.conf"
	[[ $output == $'slab_nomerge\nsecurity=selinux' ]]
	printf '[selinux]\nmode = enforcing\n[kernel]\nwarn = lsm=selinux,lockdown,yama\n' >"$T/lsm.conf"
	run -0 "$HARDINIT" check-config --print-kernel-words "$T/lsm.conf"
	[[ $output == "lsm=selinux,lockdown,yama" ]]
	printf '[bogus]\n' >"$T/bad.conf"
	run -1 "$HARDINIT" check-config --print-kernel-words "$T/bad.conf"
}

# A fake /sys for audit: efivarfs files (attributes, then the value).
fake_firmware() {
	local sys=$T/sys vars=$T/sys/firmware/efi/efivars
	mkdir -p "$vars" "$sys/kernel/security" "$T/proc/1" "$T/run"
	printf '\7\0\0\0\1' >"$vars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
	printf '\7\0\0\0s\0d\0\0\0' >"$vars/StubInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
	echo 'none [integrity] confidentiality' >"$sys/kernel/security/lockdown"
	printf '[mounts]\nshared = no\n' >"$T/run/config"
	printf 'Name:\tinit\n' >"$T/proc/1/status"
	cat >"$T/run/report.txt" <<-EOF
	firmware efi info yes
	firmware secure_boot info on
	firmware uki info yes stub=sd
	firmware lockdown info integrity
	EOF
}

audit() {
	run "$HARDINIT" audit --config "$T/run/config" --report "$T/run/report.txt" --proc "$T/proc" --sys "$T/sys"
}

@test "audit: Secure Boot, UKI and the kernel's lockdown against efivarfs and securityfs" {
	fake_firmware
	audit
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"ok    secure boot"*"expected on"*"actual on"* ]]
	[[ $output == *"ok    started from a unified kernel image"*"expected yes"*"actual yes"* ]]
	[[ $output == *"ok    kernel lockdown (at least the level at boot)"*"actual integrity"* ]]
	# Secure Boot now off (a different boot than the report says) is drift;
	# lockdown below the boot's level too.
	printf '\7\0\0\0\0' >"$T/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
	echo '[none] integrity confidentiality' >"$T/sys/kernel/security/lockdown"
	audit
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"drift secure boot"*"expected on"*"actual off"* ]]
	[[ $output == *"drift kernel lockdown"*"actual none"* ]]
	# efivarfs not mounted: unknown, not drift.
	rm -f "$T"/sys/firmware/efi/efivars/*
	echo 'none [integrity] confidentiality' >"$T/sys/kernel/security/lockdown"
	audit
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"ok    secure boot"*"unknown (efivarfs not mounted)"* ]]
}

@test "uki: with --verity-roothash, a --cmdline word that weakens verity is refused before anything is written" {
	local hash=9b4332f63d3b62e3fa38037cb624dafd1942e3c9a4336e28fc95417d7eca8a2d
	run uki_build "$T/v.efi" --verity-roothash "$hash" --verity-data LABEL=testroot --verity-hash /dev/vdb \
		--cmdline systemd.verity_root_options=ignore-corruption
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"the UKI's command line would fail every boot: verity: refused systemd.verity_root_options=ignore-corruption"* ]]
	[ ! -e "$T/v.efi" ]
	run uki_build "$T/v.efi" --verity-roothash "$hash" --verity-data LABEL=testroot --verity-hash /dev/vdb \
		--cmdline systemd.verity=1
	[ "$status" -eq 0 ]
	[ -s "$T/v.efi" ]
}
