#!/usr/bin/env bats
# The arm64 cross build (make ARCH=arm64, run by make check's cross): a
# static aarch64 binary built with branch protection whose every linked
# object carries the BTI and PAC property note, so the binary does
# (scripts/build-bti), and why the note is never forced.

# run --separate-stderr sets stderr and stderr_lines.
# shellcheck disable=SC2154
bats_require_minimum_version 1.5.0

ARM64=build/arm64

setup() {
	[[ -x $ARM64/hardinit ]] || {
		echo "no $ARM64/hardinit: run make ARCH=arm64 (make check does)" >&2
		return 1
	}
}

# Its size is a figure of make bench (bench/size), not a verdict here.
@test "arm64: a static aarch64 executable that runs under qemu-user" {
	run readelf -h "$ARM64/hardinit"
	[[ $output == *"Machine:"*"AArch64"* ]]
	run readelf -l "$ARM64/hardinit"
	[[ $output != *INTERP* ]]
	run qemu-aarch64-static "$ARM64/hardinit" --version
	[[ $status -eq 0 && $output == "hardinit "* ]]
}

@test "arm64: every object of hardinit's own code carries BTI and PAC (-mbranch-protection=standard)" {
	local o n=0
	for o in "$ARM64"/obj/musl/*/*.o; do
		run readelf -n "$o"
		[[ $output == *"AArch64 feature: BTI, PAC"* ]] || {
			echo "$o: no BTI, PAC property: $output"
			return 1
		}
		n=$((n + 1))
	done
	((n > 20))
}

# The objects of link map MAP (archive members and input files; prog/'s
# objects are gcc's deleted temporaries, covered by the binary's own note)
# without the BTI and PAC note, one a line; the count checked in
# $BATS_TEST_TMPDIR/checked.
unmarked_objects() {
	local map=$1 dir m a o n=0
	local -A at=()
	dir=$(mktemp -d "$BATS_TEST_TMPDIR/members.XXXXXX")
	while read -r m; do
		a=${m%%(*}
		o=${m#*(}
		o=${o%)}
		# Each archive unpacked once.
		if [[ -z ${at[$a]:-} ]]; then
			at[$a]=$dir/${#at[@]}
			mkdir -p "${at[$a]}" && (cd "${at[$a]}" && ar x "$a")
		fi
		readelf -n "${at[$a]}/$o" | grep -q 'AArch64 feature: BTI, PAC' || echo "$m"
		n=$((n + 1))
	done < <(sed -n '/^Archive member included/,/^Discarded input sections/p' "$map" |
		grep -oE '^/[^ ]+\.a\([^)]+\)' | sort -u)
	while read -r o; do
		readelf -n "$o" | grep -q 'AArch64 feature: BTI, PAC' || echo "$o"
		n=$((n + 1))
	done < <(awk '$1 == "LOAD" && $2 ~ /\.o$/ && $2 !~ "^/tmp/" { print $2 }' "$map" | sort -u)
	echo "$n" >"$BATS_TEST_TMPDIR/checked"
}

@test "arm64: hardinit carries the BTI and PAC property note and runs with BTI enforced" {
	run readelf -n "$ARM64/hardinit"
	[[ $output == *"AArch64 feature: BTI, PAC"* ]]
	# qemu-user maps a marked binary's code guarded on a CPU with BTI.
	run qemu-aarch64-static -cpu max "$ARM64/hardinit" --version
	[[ $status -eq 0 && $output == "hardinit "* ]]
	run -0 qemu-aarch64-static -cpu max "$ARM64/hardinit" check-config config/strict.conf
}

# The linker ANDs the property over every input: one object without it
# drops the note. scripts/build-bti gives musl (libc.a, crt) and libgcc's
# soft-float routines rebuilt with branch protection and Debian 13's
# static libraries; gcc's crtbeginS/crtendS are not linked.
@test "arm64: every object linked into hardinit carries BTI and PAC (the link map)" {
	local map=$ARM64/hardinit.map missing
	[[ -f $map ]] || { echo "no $map (make ARCH=arm64 writes it)"; return 1; }
	grep -q '/bti/[0-9a-f]*/musl/libc.a' "$map"
	grep -q '/bti/[0-9a-f]*/musl/crti.o' "$map"
	grep -q '/bti/[0-9a-f]*/lib/libselinux.a' "$map"
	if grep -E 'crtbeginS.o|crtendS.o|/usr/lib/aarch64-linux-(musl|gnu)/' "$map"; then return 1; fi
	missing=$(unmarked_objects "$map")
	echo "# $(cat "$BATS_TEST_TMPDIR/checked") objects checked" >&3
	(($(cat "$BATS_TEST_TMPDIR/checked") > 300))
	[[ -z $missing ]] || { printf 'no BTI, PAC note: %s\n' "$missing"; return 1; }
}

# The check above can fail: Debian 12's libselinux.a and musl's crt1.o
# (musl-dev:arm64) have no note.
@test "arm64: the link-map check names an object without the note" {
	local map=$BATS_TEST_TMPDIR/t.map missing
	printf '%s\n' 'Archive member included to satisfy reference by file (symbol)' '' \
		'/usr/lib/aarch64-linux-gnu/libselinux.a(avc.o)' '                              x.o (avc_open)' \
		'Discarded input sections' 'LOAD /usr/lib/aarch64-linux-musl/crt1.o' >"$map"
	missing=$(unmarked_objects "$map")
	[[ $missing == "/usr/lib/aarch64-linux-gnu/libselinux.a(avc.o)"$'\n'"/usr/lib/aarch64-linux-musl/crt1.o" ]]
	[[ $(cat "$BATS_TEST_TMPDIR/checked") == 2 ]]
}

# prog/glibc_names.c's __isoc23_sscanf is musl's sscanf, without C23's %b
# and binary %i: the linked callers' formats must use neither.
@test "arm64: the formats of the linked __isoc23_sscanf callers use no %b or %i" {
	local map=$ARM64/hardinit.map m a o n=0 dir
	dir=$BATS_TEST_TMPDIR/scanf
	mkdir -p "$dir"
	while read -r m; do
		a=${m%%(*}
		o=${m#*(}
		o=${o%)}
		[[ $a == */lib/lib*.a && $a != */musl/* ]] || continue
		(cd "$dir" && ar x "$a" "$o")
		aarch64-linux-gnu-nm "$dir/$o" | grep -q ' U __isoc23_sscanf$' || continue
		if strings -n 2 "$dir/$o" | grep -E '%[*0-9hljztL]*[bi]'; then
			echo "$m: a %b or %i format"
			return 1
		fi
		n=$((n + 1))
	done < <(sed -n '/^Archive member included/,/^Discarded input sections/p' "$map" |
		grep -oE '^/[^ ]+\.a\([^)]+\)' | sort -u)
	echo "# $n callers" >&3
	((n >= 3))
}

@test "arm64: forcing the BTI note over musl faults on the first indirect branch (why it is not forced)" {
	local dir
	dir=$(mktemp -d)
	printf '#include <stdio.h>\nint main(void) { puts("ran"); return 0; }\n' >"$dir/t.c"
	aarch64-linux-gnu-gcc -specs /usr/lib/aarch64-linux-musl/musl-gcc.specs \
		-mbranch-protection=standard -static -Os "$dir/t.c" -o "$dir/t" -Wl,-z,force-bti 2>/dev/null
	run readelf -n "$dir/t"
	[[ $output == *"AArch64 feature: BTI"* ]]
	run qemu-aarch64-static -cpu max "$dir/t"
	rm -rf "$dir"
	[[ $status -ne 0 && $output != *ran* ]]
}

@test "arm64: --print-kernel-words gives each architecture's binary only the words its kernel reads" {
	run -0 qemu-aarch64-static "$ARM64/hardinit" check-config --print-kernel-words config/strict.conf
	local arm=" ${lines[*]} "
	run -0 build/hardinit check-config --print-kernel-words config/strict.conf
	local x86=" ${lines[*]} "
	local w
	for w in vsyscall=none ia32_emulation=0 tsx=off spectre_v2=on pti=on iommu=force; do
		[[ $arm != *" $w "* && $x86 == *" $w "* ]] || { echo "x86 word $w: arm64 '$arm'"; return 1; }
	done
	for w in kpti=1 ssbd=force-on rodata=full; do
		[[ $arm == *" $w "* && $x86 != *" $w "* ]] || { echo "arm64 word $w: x86 '$x86'"; return 1; }
	done
	for w in slab_nomerge iommu.strict=1 mitigations=auto,nosmt; do
		[[ $arm == *" $w "* && $x86 == *" $w "* ]] || { echo "common word $w missing"; return 1; }
	done
}

@test "arm64: hardinit-mkinitramfs takes the architecture from the binary, --arch must agree, the module tree too" {
	local t
	t=$(mktemp -d)
	run -0 initramfs/hardinit-mkinitramfs -o "$t/a.img" --hardinit "$ARM64/hardinit" --profile strict --target none
	[[ $output == *"architecture arm64"* ]]
	[[ -s $t/a.img ]]
	run -0 initramfs/hardinit-mkinitramfs -o "$t/b.img" --arch aarch64 --hardinit "$ARM64/hardinit" --profile strict
	[[ $output == *"architecture arm64 (--arch)"* ]]
	run -1 --separate-stderr initramfs/hardinit-mkinitramfs -o "$t/c.img" --arch amd64 --hardinit "$ARM64/hardinit"
	[[ ${#stderr_lines[@]} -eq 1 && $stderr == *"--arch amd64 but $ARM64/hardinit is an arm64 binary"* ]]
	run -1 --separate-stderr initramfs/hardinit-mkinitramfs -o "$t/c.img" --arch sparc --hardinit "$ARM64/hardinit"
	[[ ${#stderr_lines[@]} -eq 1 && $stderr == *"unknown --arch 'sparc'"* ]]
	# The amd64 kernel's tree (install-deps caches it) is refused for an arm64 image.
	local k=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.1
	run -1 --separate-stderr initramfs/hardinit-mkinitramfs -o "$t/d.img" --hardinit "$ARM64/hardinit" \
		--moddir "$k" --kver "$(cat "$k/kver")" --target virtio
	[[ ${#stderr_lines[@]} -eq 1 && $stderr == *"are amd64 modules but the image is for arm64"* ]]
	[[ ! -e $t/c.img && ! -e $t/d.img ]]
	rm -rf "$t"
}

# The arm64 UKI's inputs (scripts/fetch-kernel 6.1-arm64: the kernel tree
# with systemd-boot-efi:arm64's stub unpacked beside it; install-deps
# fetches it). tests/vm/arm64.bats builds and boots the real one.
arm64_kernel() {
	KDIR=$(scripts/fetch-kernel 6.1-arm64) || return 1
	KVER=$(cat "$KDIR/kver")
}

@test "arm64 UKI: a compressed arm64 kernel is refused with the reason (systemd 252's stub cannot decompress)" {
	arm64_kernel
	gzip -1 -c "$KDIR/boot/vmlinuz-$KVER" >"$BATS_TEST_TMPDIR/vmlinuz.gz"
	run --separate-stderr initramfs/hardinit-mkinitramfs --uki "$BATS_TEST_TMPDIR/t.efi" \
		--kernel "$BATS_TEST_TMPDIR/vmlinuz.gz" --hardinit "$ARM64/hardinit" --moddir "$KDIR" --kver "$KVER" \
		--target virtio --profile strict --cmdline root=/dev/vda --stub "$KDIR/efi/linuxaa64.efi.stub"
	[[ $status -eq 1 ]]
	[[ $stderr == *"is a compressed arm64 kernel, which systemd 252's stub cannot start; give the uncompressed Image"* ]] ||
		{ echo "$stderr"; false; }
	[[ ! -e $BATS_TEST_TMPDIR/t.efi ]]
	# An x86 bzImage is not an arm64 Image either.
	run --separate-stderr initramfs/hardinit-mkinitramfs --uki "$BATS_TEST_TMPDIR/t.efi" \
		--kernel "$(scripts/fetch-kernel 6.1)/boot/vmlinuz-$(cat "$(scripts/fetch-kernel 6.1)/kver")" \
		--hardinit "$ARM64/hardinit" --moddir "$KDIR" --kver "$KVER" \
		--target virtio --profile strict --cmdline root=/dev/vda --stub "$KDIR/efi/linuxaa64.efi.stub"
	[[ $status -eq 1 && $stderr == *"is not an arm64 Image with a PE header"* ]] || { echo "$stderr"; false; }
}

@test "arm64 UKI: the x86 stub is refused for an arm64 UKI; the default stub is linuxaa64.efi.stub" {
	arm64_kernel
	run --separate-stderr initramfs/hardinit-mkinitramfs --uki "$BATS_TEST_TMPDIR/t.efi" \
		--kernel "$KDIR/boot/vmlinuz-$KVER" --hardinit "$ARM64/hardinit" --moddir "$KDIR" --kver "$KVER" \
		--target virtio --profile strict --cmdline root=/dev/vda --stub /usr/lib/systemd/boot/efi/linuxx64.efi.stub
	[[ $status -eq 1 && $stderr == *"is not a pei-aarch64-little PE"*"give systemd's linuxaa64.efi.stub for arm64"* ]] ||
		{ echo "$stderr"; false; }
	[[ ! -e $BATS_TEST_TMPDIR/t.efi ]]
	# Without --stub: systemd-boot-efi:arm64's path (not installed on this amd64 host).
	run --separate-stderr initramfs/hardinit-mkinitramfs --uki "$BATS_TEST_TMPDIR/t.efi" \
		--kernel "$KDIR/boot/vmlinuz-$KVER" --hardinit "$ARM64/hardinit" --moddir "$KDIR" --kver "$KVER" \
		--target virtio --profile strict --cmdline root=/dev/vda
	[[ $status -eq 1 && $stderr == *"UEFI stub /usr/lib/systemd/boot/efi/linuxaa64.efi.stub not found; install systemd-boot-efi:arm64"* ]] ||
		{ echo "$stderr"; false; }
}

# The package as an arm64 appliance builder makes it on an amd64 machine:
# make deb ARCH=arm64 (scripts/build-deb OUTDIR arm64, dpkg-buildpackage -a arm64).
@test "arm64 deb: cross-built, lintian clean, the aarch64 hardinit and mkcpio inside" {
	local out=$BATS_TEST_TMPDIR/deb deb version
	version=$(dpkg-parsechangelog -S Version)
	run scripts/build-deb "$out" arm64
	[[ $status -eq 0 ]] || { echo "$output"; tail -n 30 "$out/build.log"; false; }
	deb=$out/hardinit_${version}_arm64.deb
	[[ ${lines[-1]} == "$deb" && -f $deb ]]
	grep -qxF "build-deb: dpkg-buildpackage -a arm64 -us -uc -b in $out/src/hardinit-$version" "$out/build.log"
	[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]]
	# Built-Using names each static archive's source once: the arm64 ones.
	run dpkg-deb -f "$deb" Built-Using
	[[ $output == *"musl (= "* && $output == *"libselinux (= "* && $(grep -o 'musl (' <<<"$output" | wc -l) -eq 1 ]] ||
		{ echo "$output"; false; }
	dpkg-deb -x "$deb" "$BATS_TEST_TMPDIR/pkg"
	run readelf -h "$BATS_TEST_TMPDIR/pkg/usr/sbin/hardinit"
	[[ $output == *"Machine:"*"AArch64"* ]]
	run readelf -l "$BATS_TEST_TMPDIR/pkg/usr/sbin/hardinit"
	[[ $output != *INTERP* ]]
	run readelf -h "$BATS_TEST_TMPDIR/pkg/usr/lib/hardinit/mkcpio"
	[[ $output == *"Machine:"*"AArch64"* ]]
	run qemu-aarch64-static "$BATS_TEST_TMPDIR/pkg/usr/sbin/hardinit" --version
	[[ $status -eq 0 && $output == "hardinit $version"* ]]
	run lintian --fail-on error,warning "$deb"
	[[ $status -eq 0 ]] || { echo "$output"; false; }
}

@test "arm64 image: no x86 early microcode, even with --microcode all and Intel and AMD files at hand" {
	local f=$BATS_TEST_TMPDIR/firmware out=$BATS_TEST_TMPDIR/arm64.img
	mkdir -p "$f/intel-ucode" "$f/amd-ucode"
	printf 'INTEL-06-8e-0a.' >"$f/intel-ucode/06-8e-0a"
	printf 'AMD-fam19h.' >"$f/amd-ucode/microcode_amd_fam19h.bin"
	run --separate-stderr initramfs/hardinit-mkinitramfs --hardinit "$ARM64/hardinit" --profile baseline \
		--firmware "$f" --microcode all -o "$out"
	[[ $status -eq 0 ]] || { echo "$stderr"; false; }
	[[ $output$stderr != *"early microcode"* && $output$stderr != *"no early microcode"* ]]
	# No uncompressed early archive in front: the file is the zstd archive alone.
	[[ $(head -c 4 "$out" | od -An -tx1 | tr -d ' \n') == 28b52ffd ]]
	run bash -c "zstd -dc '$out' | cpio -it --quiet"
	[[ $output != *kernel/x86* && $output == *init* ]]
	# The same files in an amd64 image: the early archive is there.
	run --separate-stderr initramfs/hardinit-mkinitramfs --hardinit build/hardinit --profile baseline \
		--firmware "$f" --microcode all -o "$out"
	[[ $status -eq 0 && $(head -c 6 "$out") == 070701 ]]
}
