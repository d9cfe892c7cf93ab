#!/usr/bin/env bats
# The initramfs builder (initramfs/hardinit-mkinitramfs) and its cpio
# writer (initramfs/mkcpio.c). Host-only: no network, no root needed beyond
# reading the kernel cache; archives are inspected with GNU cpio and the
# modules with modinfo, never with the builder's own claims.

# stderr and stderr_lines are set by bats' run --separate-stderr.
# shellcheck disable=SC2154

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	export BUILDER="$REPO/initramfs/hardinit-mkinitramfs"
	make -s -C "$REPO" build/mkcpio build/hardinit >&2
	export MKCPIO="$REPO/build/mkcpio"

	# Debian's 6.12 cloud kernel, unpacked by scripts/fetch-kernel; an
	# older unpack is the fallback. Empty when neither exists.
	local cache=${HARDINIT_CACHE:-/var/cache/hardinit} root
	REAL_ROOT=""
	for root in "$cache/kernels/6.12" /var/cache/hardinit/k/x612; do
		if compgen -G "$root/lib/modules/6.12*" >/dev/null; then
			REAL_ROOT=$root
			break
		fi
	done
	export REAL_ROOT
}

setup() {
	T=$BATS_TEST_TMPDIR
	# A stand-in for hardinit: /init only needs to be a file here, and its
	# check-config follows the real contract (0 valid; 1 invalid with the
	# reason on stderr), rejecting any config with a "bogus" line. Its
	# paths and limits are the real binary's (HI_LIMITS replaces them).
	cat >"$T/hardinit" <<EOF
#!/bin/sh
if [ "\$1" = limits ]; then
	if [ -n "\${HI_LIMITS:-}" ]; then printf '%s\n' "\$HI_LIMITS"; exit 0; fi
	exec "$REPO/build/hardinit" limits
fi
EOF
	cat >>"$T/hardinit" <<'EOF'
if [ "$1" = check-config ]; then
	if grep -q '^bogus' "$2"; then
		echo "hardinit: $2:1: unknown key 'bogus'; remove it" >&2
		exit 1
	fi
	exit 0
fi
exit 2
EOF
	chmod 0755 "$T/hardinit"
	printf '# test config\n' >"$T/test.conf"
	OUT="$T/out.img"
}

builder() {
	"$BUILDER" -o "$OUT" --hardinit "$T/hardinit" --config "$T/test.conf" "$@"
}

# The raw cpio of an image, whatever its compression.
raw_cpio() {
	case $(od -An -tx1 -N4 "$1" | tr -d ' ') in
	28b52ffd) zstd -dcq "$1" ;;
	1f8b*) gzip -dc "$1" ;;
	30373037) cat "$1" ;;
	*) echo "unknown format: $1" >&2; return 1 ;;
	esac
}

listing() {
	raw_cpio "$1" | TZ=UTC LC_ALL=C cpio -itv --numeric-uid-gid --quiet
}

names() {
	raw_cpio "$1" | cpio -it --quiet
}

extract() {
	raw_cpio "$1" | cpio -i --quiet --to-stdout "$2"
}

require_real_tree() {
	[[ -n $REAL_ROOT ]] ||
		skip "no unpacked 6.12 kernel in ${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12 or /var/cache/hardinit/k/x612; run scripts/fetch-kernel 6.12"
}

# A small module tree with a hand-written modules.dep (no modules.builtin
# for "inkernel": it is listed as built in).
make_fake_tree() {
	local kdir="$T/fake/lib/modules/9.9.9-test"
	mkdir -p "$kdir"/kernel/{a,b,c,d,e}
	for f in a/top.ko.xz b/mid-one.ko.xz c/base.ko.zst d/other.ko e/lonely.ko.gz; do
		printf 'module %s\n' "$f" >"$kdir/kernel/$f"
	done
	cat >"$kdir/modules.dep" <<'EOF'
kernel/a/top.ko.xz: kernel/b/mid-one.ko.xz kernel/c/base.ko.zst
kernel/b/mid-one.ko.xz: kernel/c/base.ko.zst
kernel/c/base.ko.zst:
kernel/d/other.ko: kernel/c/base.ko.zst
kernel/e/lonely.ko.gz:
EOF
	printf 'kernel/f/inkernel.ko\n' >"$kdir/modules.builtin"
	FAKE_KDIR=$kdir
}

# Every error: exit 1 and exactly one line on stderr, containing $1.
assert_one_line_error() {
	[ "$status" -eq 1 ] || { echo "status $status, stderr: $stderr"; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "stderr has ${#stderr_lines[@]} lines: $stderr"; return 1; }
	[[ $stderr == hardinit-mkinitramfs:* ]] || { echo "no program prefix: $stderr"; return 1; }
	local want
	for want in "$@"; do
		[[ $stderr == *"$want"* ]] || { echo "stderr lacks '$want': $stderr"; return 1; }
	done
}

# ---- help and documentation --------------------------------------------------

@test "--help prints the usage and exits 0" {
	run --separate-stderr "$BUILDER" --help
	[ "$status" -eq 0 ]
	[[ $output == *"Usage: hardinit-mkinitramfs -o OUT"* ]]
	for opt in --hardinit --profile --config --target --modules --module-params --kver \
		--moddir --policy --policy-type --file-contexts --add --compress --no-check SOURCE_DATE_EPOCH; do
		[[ $output == *"$opt"* ]] || { echo "help lacks $opt"; false; }
	done
}

@test "the man page documents every option --help lists" {
	local man="$REPO/man/hardinit-mkinitramfs.8"
	[ -f "$man" ]
	run man --warnings -l -Tutf8 "$man"
	[ "$status" -eq 0 ]
	local text
	text=$(MANWIDTH=200 man -l "$man" 2>/dev/null | col -b)
	for opt in $("$BUILDER" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		[[ $text == *"$opt"* ]] || { echo "man page lacks $opt"; false; }
	done
	[[ $text == *SOURCE_DATE_EPOCH* ]]
}

# ---- mkcpio --------------------------------------------------------------------

@test "mkcpio writes entries in order, device nodes without root, fixed mtime" {
	printf 'hello\n' >"$T/f"
	cat >"$T/spec" <<EOF
# a comment
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/vda 0660 0 6 b 254 0
file /init $T/f 0755 0 0
slink /bin/sh busybox 0777 0 0
EOF
	"$MKCPIO" -t 1700000000 -o "$T/a.cpio" "$T/spec"
	run bash -c "TZ=UTC cpio -itv --numeric-uid-gid --quiet <'$T/a.cpio'"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == drwxr-xr-x*" 0 "*" 0 "*"Nov 14  2023 dev" ]]
	[[ ${lines[1]} == crw-------*"5,"*"1 Nov 14  2023 dev/console" ]]
	[[ ${lines[2]} == brw-rw----*" 0 "*" 6 "*"254,"*"0 Nov 14  2023 dev/vda" ]]
	[[ ${lines[3]} == -rwxr-xr-x*" 6 Nov 14  2023 init" ]]
	[[ ${lines[4]} == lrwxrwxrwx*"bin/sh -> busybox" ]]
	[ "${#lines[@]}" -eq 5 ]
	[ "$(cpio -i --quiet --to-stdout init <"$T/a.cpio")" = hello ]
	# stdin and -o give the same bytes; another mtime gives other bytes.
	"$MKCPIO" -t 1700000000 <"$T/spec" >"$T/b.cpio"
	cmp "$T/a.cpio" "$T/b.cpio"
	"$MKCPIO" -t 1 -o "$T/c.cpio" "$T/spec"
	run ! cmp -s "$T/a.cpio" "$T/c.cpio"
	# The archive ends with the trailer and is padded to 4 bytes.
	grep -q 'TRAILER!!!' "$T/a.cpio"
	[ $(($(stat -c %s "$T/a.cpio") % 4)) -eq 0 ]
}

@test "mkcpio rejects bad specs with one line naming the problem" {
	local -a bad=(
		"dir /a 0755 0"
		"dir ../a 0755 0 0"
		"dir /a/./b 0755 0 0"
		"dir /a 0855 0 0"
		"nod /c 0600 0 0 x 5 1"
		"nod /c 0600 0 0 c 5000 1"
		"file /x /nonexistent/file 0644 0 0"
		"file /x /tmp 0644 0 0"
		"fifo /p 0644 0 0"
		"dir /a 0755 -1 0"
	)
	local spec
	for spec in "${bad[@]}"; do
		run --separate-stderr "$MKCPIO" -o "$T/bad.cpio" <<<"$spec"
		[ "$status" -eq 1 ] || { echo "accepted: $spec"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "mkcpio: -:1: "* ]]
		[ ! -e "$T/bad.cpio" ]   # no partial archive
	done
	run --separate-stderr "$MKCPIO" -o "$T/bad.cpio" < <(head -c 9000 /dev/zero | tr '\0' a)
	[ "$status" -eq 1 ]
	[[ $stderr == *MKCPIO_LINE_MAX* ]]
	run --separate-stderr "$MKCPIO" -o "$T/bad.cpio" < <(printf 'dir /a 0755 0 0\0 junk\n')
	[ "$status" -eq 1 ]
	[[ $stderr == *"NUL byte"* ]]
	run --separate-stderr "$MKCPIO" -o "$T/bad.cpio" <<<"dir /$(head -c 1100 /dev/zero | tr '\0' a) 0755 0 0"
	[ "$status" -eq 1 ]
	[[ $stderr == *MKCPIO_PATH_MAX* ]]
	run --separate-stderr "$MKCPIO" -t 4294967296 </dev/null
	[ "$status" -eq 1 ]
}

# ---- the archive -----------------------------------------------------------------

@test "a minimal image holds /init, the config, /dev/console 5,1 and the mount points" {
	run --separate-stderr builder
	[ "$status" -eq 0 ]
	[[ $output == *"add /init"* && $output == *"add /dev/console"* && $output == *"wrote $OUT"* ]]
	run listing "$OUT"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ $output == *$'\n'crw-------*" 0 "*" 0 "*"5,"*"1 Jan  1  1970 dev/console"* ]]
	[[ $output == *-rwxr-xr-x*" 0 "*" 0 "*" init"* ]]
	[[ $output == *-rw-r--r--*" etc/hardinit.conf"* ]]
	[[ $output == *-rw-r--r--*" etc/hardinit/modules"* ]]
	for d in dev proc sys run root etc; do
		grep -qE "^d.* $d\$" <<<"$output" || { echo "no dir $d"; false; }
	done
	# Every entry is owned by 0:0 and dated SOURCE_DATE_EPOCH (default 0).
	[ "$(listing "$OUT" | awk '$3 != 0 || $4 != 0' | wc -l)" -eq 0 ]
	[ "$(listing "$OUT" | grep -vc 'Jan  1  1970')" -eq 0 ]
	[ "$(extract "$OUT" init)" = "$(cat "$T/hardinit")" ]
	[ "$(extract "$OUT" etc/hardinit.conf)" = "# test config" ]
	[ -z "$(extract "$OUT" etc/hardinit/modules)" ]
}

@test "two builds are byte-identical; another SOURCE_DATE_EPOCH gives another file" {
	make_fake_tree
	SOURCE_DATE_EPOCH=1700000000 builder --moddir "$T/fake" --modules "top other" >/dev/null
	cp "$OUT" "$T/first.img"
	# A different working directory, umask and source mtimes must not matter.
	touch -d '2001-01-01' "$T/hardinit" "$FAKE_KDIR"/kernel/*/*
	(cd / && umask 077 && SOURCE_DATE_EPOCH=1700000000 TMPDIR="$T" \
		"$BUILDER" -o "$OUT" --hardinit "$T/hardinit" --config "$T/test.conf" \
		--moddir "$T/fake" --modules "top other" >/dev/null)
	cmp "$T/first.img" "$OUT"
	[ "$(stat -c %a "$OUT")" = 644 ]
	SOURCE_DATE_EPOCH=1700000001 builder --moddir "$T/fake" --modules "top other" >/dev/null
	run ! cmp -s "$T/first.img" "$OUT"
	[[ $(listing "$OUT") == *"Nov 14  2023 init"* ]]
	# No temporary files are left next to the output or in TMPDIR.
	[ -z "$(find "$T" -maxdepth 1 -name '.out.img.*' -o -maxdepth 1 -name 'hardinit-mkinitramfs.*')" ]
}

@test "entries are sorted, so parents come before their children" {
	make_fake_tree
	printf 'x\n' >"$T/busybox"
	builder --moddir "$T/fake" --modules top --add "$T/busybox:/bin/busybox" >/dev/null
	run names "$OUT"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' "${lines[@]}" | LC_ALL=C sort)" ]
	[ "${lines[0]}" = bin ]
	[ "${lines[1]}" = bin/busybox ]
}

# ---- modules: the fake tree (exact order) ----------------------------------------

@test "fake tree: dependencies come first, each module once, in an exact order" {
	make_fake_tree
	run --separate-stderr builder --moddir "$T/fake" --modules "top other,mid_one"
	[ "$status" -eq 0 ]
	[[ $output == *"kernel 9.9.9-test"* ]]
	local m=/lib/modules/9.9.9-test/kernel
	[ "$(extract "$OUT" etc/hardinit/modules)" = "$(printf '%s\n' \
		$m/c/base.ko.zst $m/b/mid-one.ko.xz $m/a/top.ko.xz $m/d/other.ko)" ]
	# The request order decides among independent modules.
	builder --moddir "$T/fake" --modules "other top" >/dev/null
	[ "$(extract "$OUT" etc/hardinit/modules)" = "$(printf '%s\n' \
		$m/c/base.ko.zst $m/d/other.ko $m/b/mid-one.ko.xz $m/a/top.ko.xz)" ]
	# Every listed module is in the archive, byte for byte.
	local p
	while read -r p; do
		[ "$(extract "$OUT" "${p#/}")" = "module ${p#"$m"/}" ]
	done < <(extract "$OUT" etc/hardinit/modules)
	# A module not asked for is not carried.
	! names "$OUT" | grep -q lonely
}

@test "fake tree: built-in modules are skipped with a note; parameters reach the list" {
	make_fake_tree
	run --separate-stderr builder --moddir "$T/fake" --kver 9.9.9-test \
		--modules "inkernel lonely" --module-params "lonely debug=1  mode=fast"
	[ "$status" -eq 0 ]
	[[ $output == *"note: module inkernel is built into kernel 9.9.9-test; skipped"* ]]
	[ "$(extract "$OUT" etc/hardinit/modules)" = \
		"/lib/modules/9.9.9-test/kernel/e/lonely.ko.gz debug=1 mode=fast" ]
	! names "$OUT" | grep -q inkernel
}

@test "real 6.12 modules: a tree without modules.dep is indexed by depmod on a private copy" {
	require_real_tree
	local kver src
	src=$(compgen -G "$REAL_ROOT/lib/modules/6.12*" | head -n 1)
	kver=${src##*/}
	# Three real modules with a dependency chain, without any index files.
	mkdir -p "$T/small/lib/modules/$kver"
	(cd "$src" && cp --parents kernel/fs/btrfs/btrfs.ko.xz kernel/crypto/xor.ko.xz \
		kernel/lib/raid6/raid6_pq.ko.xz kernel/lib/libcrc32c.ko.xz "$T/small/lib/modules/$kver/")
	local before
	before=$(cd "$T/small" && find . | sort)
	run --separate-stderr builder --moddir "$T/small" --modules btrfs
	[ "$status" -eq 0 ]
	[[ $output == *"ran depmod on a private copy"* ]]
	local list
	list=$(extract "$OUT" etc/hardinit/modules | sed 's|.*/||')
	[ "$(echo "$list" | tail -n 1)" = btrfs.ko.xz ]
	[ "$(echo "$list" | sort | tr '\n' ' ')" = "btrfs.ko.xz libcrc32c.ko.xz raid6_pq.ko.xz xor.ko.xz " ]
	# The given tree is untouched: no modules.dep or other file written into it.
	[ "$(cd "$T/small" && find . | sort)" = "$before" ]
}

@test "fake tree: a dependency cycle and a dangling dependency are clear errors" {
	make_fake_tree
	printf 'kernel/a/top.ko.xz: kernel/b/mid-one.ko.xz\nkernel/b/mid-one.ko.xz: kernel/a/top.ko.xz\n' \
		>"$FAKE_KDIR/modules.dep"
	run --separate-stderr builder --moddir "$T/fake" --modules top
	assert_one_line_error "dependency cycle"
	printf 'kernel/a/top.ko.xz: kernel/z/gone.ko.xz\n' >"$FAKE_KDIR/modules.dep"
	run --separate-stderr builder --moddir "$T/fake" --modules top
	assert_one_line_error "kernel/z/gone.ko.xz" "top"
	printf 'kernel/a/top.ko.xz:\n' >"$FAKE_KDIR/modules.dep"
	rm "$FAKE_KDIR/kernel/a/top.ko.xz"
	run --separate-stderr builder --moddir "$T/fake" --modules top
	assert_one_line_error "top" "missing"
}

# ---- modules: Debian's real 6.12 cloud kernel -----------------------------------

# Check with modinfo (the modules' own "depends" field, independent of
# modules.dep) that every module's dependencies precede it, each once.
check_load_order() {
	local img=$1 dir="$T/unpacked" path name dep
	local -A seen=()
	rm -rf "$dir" && mkdir -p "$dir"
	(cd "$dir" && raw_cpio "$img" | cpio -idm --quiet 'lib/*' 'etc/*')
	while read -r path _; do
		[ -f "$dir$path" ] || { echo "listed but not in the archive: $path"; return 1; }
		name=${path##*/}
		name=${name%.ko*}
		name=${name//-/_}
		[ -z "${seen[$name]:-}" ] || { echo "listed twice: $name"; return 1; }
		for dep in $(modinfo -F depends "$dir$path" | tr ',' ' '); do
			[ -n "${seen[${dep//-/_}]:-}" ] || { echo "$name loads before its dependency $dep"; return 1; }
		done
		seen[$name]=1
	done <"$dir/etc/hardinit/modules"
	echo "${#seen[@]}"
}

@test "real 6.12 tree: deep dependency chains resolve dependencies-first" {
	require_real_tree
	run --separate-stderr builder --moddir "$REAL_ROOT" --modules "vport-vxlan btrfs sd_mod virtio_scsi"
	[ "$status" -eq 0 ]
	run check_load_order "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	# vport-vxlan alone pulls in a dozen modules (openvswitch, nf_nat, ...).
	[ "$output" -ge 18 ]
	local list
	list=$(extract "$OUT" etc/hardinit/modules)
	# Shared dependencies are carried once: scsi_mod serves sd_mod and virtio_scsi.
	[ "$(grep -c '/scsi_mod.ko' <<<"$list")" -eq 1 ]
	[[ $(tail -n 1 <<<"$list") == */virtio_scsi.ko.xz ]]
}

@test "real 6.12 tree: --target virtio carries virtio_blk and notes virtio_pci is built in" {
	require_real_tree
	run --separate-stderr builder --moddir "$REAL_ROOT" --target virtio
	[ "$status" -eq 0 ]
	[[ $output == *"note: module virtio_pci is built into kernel"* ]]
	run extract "$OUT" etc/hardinit/modules
	[[ $output == /lib/modules/6.12*/kernel/drivers/block/virtio_blk.ko.xz ]]
	run check_load_order "$OUT"
	[ "$status" -eq 0 ]
}

@test "real 6.12 tree: --target xen carries xen-blkfront and says hvc0 and xvda" {
	require_real_tree
	run --separate-stderr builder --moddir "$REAL_ROOT" --target xen --compress gzip
	[ "$status" -eq 0 ]
	[[ $output == *hvc0* && $output == */dev/xvda* ]]
	run extract "$OUT" etc/hardinit/modules
	[[ $output == /lib/modules/6.12*/kernel/drivers/block/xen-blkfront.ko.xz ]]
	run check_load_order "$OUT"
	[ "$status" -eq 0 ]
}

@test "real 6.12 tree: an unknown module is an error naming it and the tree" {
	require_real_tree
	run --separate-stderr builder --moddir "$REAL_ROOT" --modules "virtio_blk no_such_module"
	assert_one_line_error "no_such_module" "$REAL_ROOT/lib/modules/6.12"
}

# ---- compression ---------------------------------------------------------------

@test "zstd, gzip and none hold the same archive" {
	make_fake_tree
	builder --moddir "$T/fake" --modules top >/dev/null
	[ "$(od -An -tx1 -N4 "$OUT" | tr -d ' ')" = 28b52ffd ]
	zstd -t -q "$OUT"
	zstd -dcq "$OUT" >"$T/from-zstd.cpio"
	builder --moddir "$T/fake" --modules top --compress gzip >/dev/null
	[ "$(od -An -tx1 -N2 "$OUT" | tr -d ' ')" = 1f8b ]
	gzip -t "$OUT"
	gzip -dc "$OUT" >"$T/from-gzip.cpio"
	cp "$OUT" "$T/a.gz"
	builder --moddir "$T/fake" --modules top --compress gzip >/dev/null
	cmp "$T/a.gz" "$OUT"
	run --separate-stderr builder --moddir "$T/fake" --modules top --compress none
	[ "$status" -eq 0 ]
	[[ $output == *"unpacked $(stat -c %s "$OUT") bytes"* ]]
	cmp "$OUT" "$T/from-zstd.cpio"
	cmp "$OUT" "$T/from-gzip.cpio"
	[[ $(cpio -it --quiet <"$OUT") == *dev/console* ]]
}

@test "the default compression follows the target: none for virtio and xen, zstd otherwise" {
	local kdir="$T/vm/lib/modules/9.9.9-test" target magic
	mkdir -p "$kdir/kernel/v"
	for m in virtio_pci virtio_blk xen-blkfront; do
		printf 'module %s\n' "$m" >"$kdir/kernel/v/$m.ko.xz"
		printf 'kernel/v/%s.ko.xz:\n' "$m" >>"$kdir/modules.dep"
	done
	for target in virtio xen; do
		run --separate-stderr builder --moddir "$T/vm" --target "$target"
		[ "$status" -eq 0 ] || { echo "$target: $stderr"; false; }
		[[ $output == *"bytes (none), unpacked $(stat -c %s "$OUT") bytes"* ]] || { echo "$target: $output"; false; }
		magic=$(od -An -tx1 -N4 "$OUT" | tr -d ' ')
		[ "$magic" = 30373037 ] || { echo "$target: magic $magic, not a plain cpio"; false; }
		builder --moddir "$T/vm" --target "$target" --compress zstd >/dev/null
		[ "$(od -An -tx1 -N4 "$OUT" | tr -d ' ')" = 28b52ffd ] || { echo "$target: --compress zstd not obeyed"; false; }
	done
	builder --moddir "$T/vm" --target none --modules virtio_blk >/dev/null
	[ "$(od -An -tx1 -N4 "$OUT" | tr -d ' ')" = 28b52ffd ]
}

# ---- SELinux policy and extra files ------------------------------------------------

@test "--policy embeds the policy, its type and file contexts" {
	printf '\x8c\xff\x7c\xf9\x08\x00\x00\x00SE Linux fake body' >"$T/policy.33"
	printf '/.* system_u:object_r:default_t:s0\n' >"$T/file_contexts"
	run --separate-stderr builder --policy "$T/policy.33" --policy-type default \
		--file-contexts "$T/file_contexts"
	[ "$status" -eq 0 ]
	extract "$OUT" etc/hardinit/selinux/policy >"$T/got"
	cmp "$T/policy.33" "$T/got"
	[ "$(extract "$OUT" etc/hardinit/selinux/type)" = default ]
	[ "$(extract "$OUT" etc/hardinit/selinux/file_contexts)" = "$(cat "$T/file_contexts")" ]
	[[ $(listing "$OUT") == *d*" etc/hardinit/selinux"* ]]
}

@test "--policy refuses a file that is not a binary policy, and a missing type" {
	printf 'not a policy' >"$T/policy.33"
	run --separate-stderr builder --policy "$T/policy.33" --policy-type default
	assert_one_line_error "$T/policy.33" "not a binary SELinux policy"
	run --separate-stderr builder --policy "$T/policy.33"
	assert_one_line_error "--policy-type"
	run --separate-stderr builder --policy-type default
	assert_one_line_error "--policy"
	run --separate-stderr builder --policy "$T/nope" --policy-type default
	assert_one_line_error "$T/nope"
}

@test "--add places extra files with parents; sources with spaces work" {
	printf '#!/bin/sh\n' >"$T/busy box"
	chmod 0700 "$T/busy box"
	printf 'data\n' >"$T/motd"
	run --separate-stderr builder --add "$T/busy box:/bin/busybox" --add "$T/motd:/etc/motd"
	[ "$status" -eq 0 ]
	run listing "$OUT"
	[[ $output == *-rwxr-xr-x*" bin/busybox"* ]]
	[[ $output == *-rw-r--r--*" etc/motd"* ]]
	[[ $output == *drwxr-xr-x*" bin"$'\n'* ]]
	[ "$(extract "$OUT" bin/busybox)" = '#!/bin/sh' ]
}

@test "--add refuses a clash with the builder's files and bad destinations" {
	printf 'x\n' >"$T/x"
	run --separate-stderr builder --add "$T/x:/init"
	assert_one_line_error "/init" "already in the archive"
	run --separate-stderr builder --add "$T/x:/init/sub"
	assert_one_line_error "/init"
	run --separate-stderr builder --add "$T/x:relative/path"
	assert_one_line_error "relative/path"
	run --separate-stderr builder --add "$T/x:/a/../b"
	assert_one_line_error "/a/../b"
	run --separate-stderr builder --add "$T/missing:/bin/x"
	assert_one_line_error "$T/missing"
	run --separate-stderr builder --add "no-colon"
	assert_one_line_error "SRC:DEST"
}

# ---- configs and profiles -----------------------------------------------------------

@test "an invalid config (check-config exit 1) stops the build with its reason" {
	printf 'bogus = 1\n' >"$T/bad.conf"
	printf 'old\n' >"$OUT"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/hardinit" --config "$T/bad.conf"
	assert_one_line_error "invalid config $T/bad.conf" "unknown key 'bogus'"
	[ "$(cat "$OUT")" = old ]
}

@test "a hardinit without check-config is reported, and --no-check skips the check" {
	printf '#!/bin/sh\n[ "$1" = limits ] && exec "%s" limits\necho "hardinit: unknown command" >&2\nexit 2\n' \
		"$REPO/build/hardinit" >"$T/old-hardinit"
	chmod +x "$T/old-hardinit"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/old-hardinit" --config "$T/test.conf"
	assert_one_line_error "cannot validate" "--no-check"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/old-hardinit" --config "$T/test.conf" --no-check
	[ "$status" -eq 0 ]
	[[ $output == *"not validated"* ]]
}

@test "the real hardinit's check-config accepts a good config and rejects a bad one" {
	local hi="$REPO/build/hardinit"
	[ -x "$hi" ] || skip "build/hardinit is not built yet (make build/hardinit)"
	run "$hi" check-config /dev/null
	[ "$status" -ne 2 ] || skip "build/hardinit has no check-config subcommand yet"
	printf '[boot]\nfailure_action = poweroff\n' >"$T/good.conf"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$hi" --config "$T/good.conf"
	[ "$status" -eq 0 ]
	[[ $output == *"is valid"* ]]
	printf '[boot]\nfailure_action = explode\n' >"$T/bad.conf"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$hi" --config "$T/bad.conf"
	assert_one_line_error "invalid config $T/bad.conf" "bad.conf:2"
	# Every shipped profile is valid.
	local p
	for p in "$REPO"/config/*.conf; do
		[ -f "$p" ] || continue
		run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$hi" --profile "$(basename "$p" .conf)"
		[ "$status" -eq 0 ] || { echo "profile $p: $stderr"; false; }
	done
}

# The builder finds hardinit, mkcpio and profiles relative to itself, in a
# source tree and in an installed PREFIX.
@test "profiles and the default hardinit are found in a repo layout and an installed layout" {
	mkdir -p "$T/repo/initramfs" "$T/repo/build" "$T/repo/config"
	cp "$BUILDER" "$REPO/initramfs/facts.sh" "$T/repo/initramfs/"
	cp "$MKCPIO" "$T/hardinit" "$T/repo/build/"
	printf '# appliance\n' >"$T/repo/config/appliance.conf"
	printf '# baseline\n' >"$T/repo/config/baseline.conf"
	run --separate-stderr "$T/repo/initramfs/hardinit-mkinitramfs" -o "$OUT" --profile appliance
	[ "$status" -eq 0 ]
	[ "$(extract "$OUT" etc/hardinit.conf)" = "# appliance" ]
	run --separate-stderr "$T/repo/initramfs/hardinit-mkinitramfs" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(extract "$OUT" etc/hardinit.conf)" = "# baseline" ]
	run --separate-stderr "$T/repo/initramfs/hardinit-mkinitramfs" -o "$OUT" --profile nosuch
	assert_one_line_error "unknown profile 'nosuch'" "appliance baseline"
	run --separate-stderr "$T/repo/initramfs/hardinit-mkinitramfs" -o "$OUT" --profile ../x
	assert_one_line_error "bad profile name"

	mkdir -p "$T/prefix/sbin" "$T/prefix/lib/hardinit" "$T/prefix/share/hardinit/profiles"
	cp "$BUILDER" "$T/hardinit" "$T/prefix/sbin/"
	cp "$MKCPIO" "$T/prefix/lib/hardinit/"
	printf '# xen\n' >"$T/prefix/share/hardinit/profiles/xen.conf"
	# Without the facts it shares with update-hardinit: one line, no image.
	run --separate-stderr "$T/prefix/sbin/hardinit-mkinitramfs" -o "$OUT" --profile xen
	[ "$status" -eq 1 ] && [ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: facts.sh not found"* ]]
	cp "$REPO/initramfs/facts.sh" "$T/prefix/lib/hardinit/"
	run --separate-stderr "$T/prefix/sbin/hardinit-mkinitramfs" -o "$OUT" --profile xen
	[ "$status" -eq 0 ]
	[ "$(extract "$OUT" etc/hardinit.conf)" = "# xen" ]
	run --separate-stderr "$T/prefix/sbin/hardinit-mkinitramfs" -o "$OUT"
	assert_one_line_error "no baseline profile"
}

# ---- clear errors for bad input --------------------------------------------------------

@test "bad options, targets, compressions and SOURCE_DATE_EPOCH are one-line errors" {
	run --separate-stderr builder --bogus
	assert_one_line_error "unknown option '--bogus'"
	run --separate-stderr "$BUILDER" --hardinit "$T/hardinit"
	assert_one_line_error "no output given"
	run --separate-stderr builder --kver
	assert_one_line_error "--kver needs a value"
	run --separate-stderr builder --target arm
	assert_one_line_error "unknown target 'arm'"
	run --separate-stderr builder --compress lz4
	assert_one_line_error "unknown compression 'lz4'"
	SOURCE_DATE_EPOCH=yesterday run --separate-stderr builder
	assert_one_line_error "SOURCE_DATE_EPOCH 'yesterday'"
	SOURCE_DATE_EPOCH=4294967296 run --separate-stderr builder
	assert_one_line_error "SOURCE_DATE_EPOCH"
	run --separate-stderr builder --profile baseline
	assert_one_line_error "both --profile and --config"
	run --separate-stderr builder --modules 'bad/name' --moddir "$T"
	assert_one_line_error "bad/name"
	run --separate-stderr builder --module-params 'ghost x=1'
	assert_one_line_error "--module-params"
}

@test "a missing hardinit binary is a one-line error" {
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/no-hardinit" --config "$T/test.conf"
	assert_one_line_error "$T/no-hardinit" "make build/hardinit"
	printf 'x' >"$T/not-exec"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/not-exec" --config "$T/test.conf"
	assert_one_line_error "$T/not-exec"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/hardinit" --config "$T/no.conf"
	assert_one_line_error "$T/no.conf"
}

@test "missing, invalid and unknown module trees and versions are one-line errors" {
	make_fake_tree
	run --separate-stderr builder --moddir "$T/nowhere" --modules top
	assert_one_line_error "$T/nowhere"
	mkdir -p "$T/empty-root"
	run --separate-stderr builder --moddir "$T/empty-root" --modules top
	assert_one_line_error "missing module tree" "$T/empty-root/lib/modules"
	run --separate-stderr builder --moddir "$T/fake" --kver 1.2.3 --modules top
	assert_one_line_error "unknown kernel version 1.2.3" "9.9.9-test"
	mkdir -p "$T/fake/lib/modules/0.0.1-other"
	run --separate-stderr builder --moddir "$T/fake" --modules top
	assert_one_line_error "pass --kver"
	run --separate-stderr builder --moddir "$T/fake" --kver 0.0.1-other --modules top
	assert_one_line_error "invalid module tree $T/fake/lib/modules/0.0.1-other"
	run --separate-stderr builder --moddir "$T/fake" --kver 9.9.9-test --modules "top nosuch"
	assert_one_line_error "module nosuch not found" "$FAKE_KDIR"
	run --separate-stderr builder --moddir "$T/fake" --kver ../x --modules top
	assert_one_line_error "bad kernel version"
}

@test "an unwritable output is a one-line error and a failed build leaves no output" {
	run --separate-stderr builder -o /proc/hardinit-test.img
	assert_one_line_error "cannot write /proc/hardinit-test.img"
	run --separate-stderr builder -o "$T/no/such/dir/out.img"
	assert_one_line_error "cannot write $T/no/such/dir/out.img" "does not exist"
	run --separate-stderr builder -o "$T"
	assert_one_line_error "cannot write $T" "directory"
	# A build that fails late (missing module) keeps the previous image and
	# leaves no temporary file next to it.
	make_fake_tree
	builder >/dev/null
	cp "$OUT" "$T/previous.img"
	run --separate-stderr builder --moddir "$T/fake" --modules "top nosuch"
	[ "$status" -eq 1 ]
	cmp "$T/previous.img" "$OUT"
	[ -z "$(find "$T" -maxdepth 1 -name '.out.img.*')" ]
	rm "$OUT"
	run --separate-stderr builder --moddir "$T/fake" --modules "nosuch"
	[ "$status" -eq 1 ]
	[ ! -e "$OUT" ]
}

@test "the builder takes hardinit's paths and limits from the binary it embeds" {
	make_fake_tree
	# A binary whose limit is one module: the builder must obey it.
	HI_LIMITS=$("$REPO/build/hardinit" limits | sed 's/^MAX_MODULES=.*/MAX_MODULES=1/')
	export HI_LIMITS
	run --separate-stderr builder --moddir "$T/fake" --modules "top other"
	assert_one_line_error "MAX_MODULES (1)"
	# One that names another config path gets its config there.
	HI_LIMITS=$("$REPO/build/hardinit" limits | sed 's|^CONFIG_PATH=.*|CONFIG_PATH=/etc/other.conf|')
	run --separate-stderr builder
	[ "$status" -eq 0 ]
	[ "$(extract "$OUT" etc/other.conf)" = "# test config" ]
	# A binary that prints no limits is refused, not guessed around.
	HI_LIMITS="NOTHING=1"
	run --separate-stderr builder
	assert_one_line_error "did not print CONFIG_PATH"
	# One without the command at all (an older hardinit): one clear line.
	printf '#!/bin/sh\necho "hardinit: unknown command" >&2\nexit 2\n' >"$T/older"
	chmod +x "$T/older"
	run --separate-stderr "$BUILDER" -o "$OUT" --hardinit "$T/older" --config "$T/test.conf"
	assert_one_line_error "limits failed" "unknown command"
}

# ---- the facts the builder takes from the binary --------------------

@test "an embedded SELinux policy of exactly MAX_POLICY_BYTES is taken, as hardinit takes it; one byte more is refused" {
	local max
	max=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_POLICY_BYTES=//p')
	[ "$max" -gt 0 ]
	# Sparse: the size is what counts, not the bytes.
	truncate -s "$max" "$T/policy.big"
	printf '\x8c\xff\x7c\xf9\x08\x00\x00\x00SE Linux' | dd of="$T/policy.big" conv=notrunc status=none
	run --separate-stderr builder --compress none --policy "$T/policy.big" --policy-type default
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	[[ $output == *"add /etc/hardinit/selinux/policy (SELinux policy, $max bytes"* ]]
	truncate -s $((max + 1)) "$T/policy.big"
	run --separate-stderr builder --compress none --policy "$T/policy.big" --policy-type default
	assert_one_line_error "larger than MAX_POLICY_BYTES ($max)"
}

@test "a --policy-type as long as hardinit reads (MAX_POLICY_TYPE_LEN) is taken, one character longer is refused" {
	local max type
	max=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_POLICY_TYPE_LEN=//p')
	[ "$max" -gt 64 ]
	type=$(printf '%*s' "$max" '' | tr ' ' t)
	printf '\x8c\xff\x7c\xf9\x08\x00\x00\x00SE Linux' >"$T/se.pol"
	run --separate-stderr builder --compress none --policy "$T/se.pol" --policy-type "$type"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	[[ $output == *"(SELinux type $type)"* ]]
	run --separate-stderr builder --compress none --policy "$T/se.pol" --policy-type "${type}t"
	assert_one_line_error "at most MAX_POLICY_TYPE_LEN ($max)"
}

@test "IMA certificates: at most MAX_IMA_CERTS, each at most MAX_IMA_CERT_BYTES, as the binary says" {
	local n max i
	n=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_IMA_CERTS=//p')
	max=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_IMA_CERT_BYTES=//p')
	[ "$n" -gt 0 ] && [ "$max" -gt 0 ]
	local -a certs=()
	for ((i = 0; i < n; i++)); do
		printf '\x30 cert %d' "$i" >"$T/c$i.der"
		certs+=(--ima-cert "$T/c$i.der")
	done
	run --separate-stderr builder "${certs[@]}"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	[ "$(names "$OUT" | grep -c '^etc/hardinit/ima-certs/c')" -eq "$n" ]
	printf '\x30 one more' >"$T/extra.der"
	run --separate-stderr builder "${certs[@]}" --ima-cert "$T/extra.der"
	assert_one_line_error "more than MAX_IMA_CERTS ($n)"
	# Exactly the maximum is taken, one byte more is not.
	{ printf '\x30'; head -c $((max - 1)) /dev/zero; } >"$T/big.der"
	run --separate-stderr builder --ima-cert "$T/big.der"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	printf 'x' >>"$T/big.der"
	run --separate-stderr builder --ima-cert "$T/big.der"
	assert_one_line_error "$T/big.der" "larger than MAX_IMA_CERT_BYTES ($max)"
}

@test "the builder follows the binary's IMA, SELinux and verity limits, not numbers of its own" {
	local real
	real=$("$REPO/build/hardinit" limits)
	printf '\x30 a' >"$T/a.der"
	printf '\x30 b' >"$T/b.der"
	HI_LIMITS=$(sed 's/^MAX_IMA_CERTS=.*/MAX_IMA_CERTS=1/' <<<"$real") \
		run --separate-stderr builder --ima-cert "$T/a.der" --ima-cert "$T/b.der"
	assert_one_line_error "more than MAX_IMA_CERTS (1)"
	HI_LIMITS=$(sed 's/^MAX_IMA_CERT_BYTES=.*/MAX_IMA_CERT_BYTES=2/' <<<"$real") \
		run --separate-stderr builder --ima-cert "$T/a.der"
	assert_one_line_error "larger than MAX_IMA_CERT_BYTES (2)"
	# Another magic: the real policy's is refused, that one's taken.
	printf '\x8c\xff\x7c\xf9\x08\x00\x00\x00SE Linux' >"$T/se.pol"
	printf '\x78\x56\x34\x12\x08\x00\x00\x00SE Linux' >"$T/other.pol"
	export HI_LIMITS
	HI_LIMITS=$(sed 's/^SELINUX_POLICY_MAGIC=.*/SELINUX_POLICY_MAGIC=0x12345678/' <<<"$real")
	run --separate-stderr builder --policy "$T/se.pol" --policy-type default
	assert_one_line_error "not a binary SELinux policy"
	run --separate-stderr builder --policy "$T/other.pol" --policy-type default
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	HI_LIMITS=$(sed 's/^MAX_POLICY_BYTES=.*/MAX_POLICY_BYTES=15/' <<<"$real")
	run --separate-stderr builder --policy "$T/se.pol" --policy-type default
	assert_one_line_error "larger than MAX_POLICY_BYTES (15)"
	HI_LIMITS=$(sed 's/^MAX_ROOT_HASH_HEX=.*/MAX_ROOT_HASH_HEX=4/' <<<"$real")
	run --separate-stderr builder --verity-roothash abcdef --verity-data /dev/vda --verity-hash /dev/vdb
	assert_one_line_error "MAX_ROOT_HASH_HEX (4)"
	HI_LIMITS=$(sed 's/^SELINUX_POLICY_MAGIC=.*/SELINUX_POLICY_MAGIC=f97cff8c/' <<<"$real")
	run --separate-stderr builder
	assert_one_line_error "SELINUX_POLICY_MAGIC 'f97cff8c' is not 0x and 8 hex digits"
	HI_LIMITS=$(grep -v '^MAX_IMA_CERT_BYTES=' <<<"$real")
	run --separate-stderr builder
	assert_one_line_error "did not print MAX_IMA_CERT_BYTES"
}

@test "a root hash as long as hardinit takes (MAX_ROOT_HASH_HEX digits) is taken, one byte longer is refused" {
	local max hash
	max=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_ROOT_HASH_HEX=//p')
	[ "$max" -ge 64 ]
	hash=$(printf '%*s' "$max" '' | tr ' ' a)
	local kdir="$T/dm/lib/modules/9.9.9-test"
	mkdir -p "$kdir/kernel/md"
	for m in dm-mod dm-verity; do
		printf 'module %s\n' "$m" >"$kdir/kernel/md/$m.ko"
		printf 'kernel/md/%s.ko:\n' "$m" >>"$kdir/modules.dep"
	done
	# The real binary: its check-config takes the merged [verity] section.
	local -a args=(-o "$OUT" --hardinit "$REPO/build/hardinit" --profile baseline --moddir "$T/dm"
		--verity-data /dev/vda --verity-hash /dev/vdb)
	run --separate-stderr "$BUILDER" "${args[@]}" --verity-roothash "$hash"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	[[ $output == *"is valid ($REPO/build/hardinit check-config)"* ]]
	run --separate-stderr "$BUILDER" "${args[@]}" --verity-roothash "${hash}ab"
	assert_one_line_error "MAX_ROOT_HASH_HEX ($max)"
}
