#!/usr/bin/env bats
# The UKI builder's signed PCR 11 policy (hardinit-mkinitramfs --pcrpkey,
# --pcrsig, --pcr-sign-key): .pcrpkey holds the public key, .pcrsig the
# signature file; signed at build time, .pcrsig is byte for byte what
# Debian 12's systemd-measure sign (252, against a swtpm) writes for the
# sections read back from the UKI with objcopy, PolicyPCR digests and
# RSA PKCS#1 v1.5 signatures being deterministic. Opening a volume with
# it is tests/bats/luks_tpm2_signed.bats (the TPM side).

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	export BUILDER="$REPO/initramfs/hardinit-mkinitramfs"
	export HARDINIT="$REPO/build/hardinit"
	export STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
	export MEASURE=/usr/lib/systemd/systemd-measure
	local k=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12
	KDIR=""
	[[ -s $k/kver ]] && KDIR=$k
	export KDIR
}

setup() {
	[[ -n $KDIR ]] || skip "no 6.12 kernel in the cache (scripts/fetch-kernel 6.12)"
	[[ -x $HARDINIT ]] || skip "build/hardinit not built"
	[[ -f $STUB ]] || { echo "$STUB missing: systemd-boot-efi (scripts/install-deps)"; return 1; }
	T=$BATS_TEST_TMPDIR
	KVER=$(cat "$KDIR/kver")
	openssl genrsa -out "$T/key.pem" 2048 2>/dev/null
	openssl rsa -in "$T/key.pem" -pubout -out "$T/pub.pem" 2>/dev/null
}

teardown() {
	[ -f "$BATS_TEST_TMPDIR/swtpm.pid" ] && kill "$(cat "$BATS_TEST_TMPDIR/swtpm.pid")" 2>/dev/null
	true
}

uki_build() {
	local out=$1
	shift
	"$BUILDER" --uki "$out" --kernel "$KDIR/boot/vmlinuz-$KVER" --hardinit "$HARDINIT" \
		--moddir "$KDIR" --kver "$KVER" --target virtio --profile strict \
		--cmdline "root=LABEL=testroot console=ttyS0" "$@"
}

section() {
	objcopy -O binary --only-section="$2" "$1" "$3"
}

canon() {
	python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$1"
}

@test "uki --pcrpkey --pcr-sign-key: .pcrpkey is the key, .pcrsig is what systemd-measure sign writes" {
	uki_build "$T/u.efi" --pcrpkey "$T/pub.pem" --pcr-sign-key "$T/key.pem" >"$T/log"
	objdump -h "$T/u.efi" | grep -q ' \.pcrpkey '
	objdump -h "$T/u.efi" | grep -q ' \.pcrsig '
	for s in linux osrel cmdline initrd pcrpkey pcrsig; do section "$T/u.efi" ".$s" "$T/$s"; done
	cmp "$T/pcrpkey" "$T/pub.pem"
	mkdir -p "$T/tpm"
	swtpm socket --tpm2 --tpmstate dir="$T/tpm" --server type=unixio,path="$T/sock" \
		--ctrl type=unixio,path="$T/sock.ctrl" --flags not-need-init,startup-clear \
		--daemon --pid file="$T/swtpm.pid" --log file="$T/swtpm.log"
	for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
	"$MEASURE" sign --tpm2-device="swtpm:path=$T/sock" --linux="$T/linux" --osrel="$T/osrel" \
		--cmdline="$T/cmdline" --initrd="$T/initrd" --pcrpkey="$T/pcrpkey" --bank=sha256 \
		--private-key="$T/key.pem" --public-key="$T/pub.pem" >"$T/want.json"
	[ "$(canon "$T/pcrsig")" = "$(canon "$T/want.json")" ]
	[ "$(grep -o '"pol"' "$T/pcrsig" | wc -l)" -eq 4 ]
}

@test "uki --pcrsig FILE: the file as .pcrsig; the options' mistakes refused before anything is built" {
	printf '{"sha256":[]}' >"$T/given.json"
	uki_build "$T/u.efi" --pcrpkey "$T/pub.pem" --pcrsig "$T/given.json" >"$T/log"
	section "$T/u.efi" .pcrsig "$T/got"
	cmp "$T/got" "$T/given.json"
	run uki_build "$T/x.efi" --pcrsig "$T/given.json"
	[ "$status" -eq 1 ]
	grep -q -- '--pcrsig and --pcr-sign-key need --pcrpkey PEM' <<<"$output"
	run uki_build "$T/x.efi" --pcrpkey "$T/pub.pem" --pcrsig "$T/given.json" --pcr-sign-key "$T/key.pem"
	[ "$status" -eq 1 ]
	grep -q 'give one' <<<"$output"
	run uki_build "$T/x.efi" --pcrpkey "$T/key.pem"
	[ "$status" -eq 1 ]
	grep -q 'is not a PEM public key' <<<"$output"
	run "$BUILDER" -o "$T/x.img" --pcrpkey "$T/pub.pem"
	[ "$status" -eq 1 ]
	grep -q 'build a UKI: add --uki OUT.efi' <<<"$output"
	[ ! -e "$T/x.efi" ]
}
