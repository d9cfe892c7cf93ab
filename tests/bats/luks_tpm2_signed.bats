#!/usr/bin/env bats
# The signed PCR policy on the host, interoperable with systemd 252: a
# LUKS2 volume enrolled by Debian 12's systemd-cryptenroll with
# --tpm2-public-key= --tpm2-public-key-pcrs=11 (and PCR 7 by value)
# against a swtpm, a tpm2-pcr-signature.json made by its own
# systemd-measure sign for a UKI's sections, PCR 11 extended in swtpm as
# systemd-stub and the enter-initrd phase extend it (checked against
# systemd-measure calculate), then unsealed by hardinit's code
# (build/tools/luks2-tool tpm2-open-signed: tpm/'s LoadExternal,
# VerifySignature, PolicyAuthorize; stages/luks_tpm2.c opens the keyslot)
# and the volume key compared with cryptsetup's. Then what must be
# refused: PCR 11 not what was signed (a changed UKI), a signature by
# another key, a signature altered. The stage's fallback to the
# passphrase and /.extra/ are the VM's.

bats_require_minimum_version 1.5.0

load lib/host

setup_file() {
	repo_make build/tools/luks2-tool
	export TOOL=$REPO/build/tools/luks2-tool
	export MEASURE=/usr/lib/systemd/systemd-measure
}

setup() {
	T=$BATS_TEST_TMPDIR
	swtpm_start "$T"
	truncate -s 20M "$T/v.img"
	(umask 077 && printf pass >"$T/pass")
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$T/pass" "$T/v.img"
	openssl genrsa -out "$T/key.pem" 2048 2>/dev/null
	openssl rsa -in "$T/key.pem" -pubout -out "$T/pub.pem" 2>/dev/null
	printf 'kernel bytes' >"$T/linux"
	printf 'ID=debian\n' >"$T/osrel"
	printf 'root=/dev/vda quiet' >"$T/cmdline"
	timeout 120 systemd-cryptenroll --unlock-key-file="$T/pass" --tpm2-device="swtpm:path=$T/sock" \
		--tpm2-pcrs=7 --tpm2-public-key="$T/pub.pem" --tpm2-public-key-pcrs=11 "$T/v.img"
}

teardown() {
	swtpm_stop "$BATS_TEST_TMPDIR"
}

extend11() {
	tpm2_pcrextend -T "swtpm:path=$T/sock" "11:sha256=$1" >/dev/null
}

# PCR 11 as systemd-stub leaves it for a UKI of these sections (each
# section's name with its NUL, then its content), then pcrphase's
# enter-initrd.
boot_uki() {
	local s
	for s in linux osrel cmdline; do
		extend11 "$(printf '.%s\0' "$s" | sha256sum | cut -c1-64)"
		extend11 "$(sha256sum <"$T/$s" | cut -c1-64)"
	done
	extend11 "$(printf enter-initrd | sha256sum | cut -c1-64)"
}

# systemd-measure sign for those sections (every phase systemd signs by
# default), with KEY.
sign() {
	"$MEASURE" sign --tpm2-device="swtpm:path=$T/sock" --linux="$T/linux" --osrel="$T/osrel" \
		--cmdline="$T/cmdline" --bank=sha256 --private-key="$1" --public-key="$2" >"$T/sig.json"
}

cryptsetup_key() {
	cryptsetup luksDump --dump-volume-key -q --key-file "$T/pass" "$T/v.img" |
		sed -n '/MK dump:/,/^[^[:space:]]/p' | sed 's/MK dump://' | tr -d ' \t\n' | grep -o '^[0-9a-f]*'
}

@test "cryptenroll --tpm2-public-key-pcrs=11, systemd-measure sign: hardinit opens the volume through PolicyAuthorize" {
	cryptsetup token export --token-id 0 "$T/v.img" | grep -q '"tpm2_pubkey_pcrs":\[11\]'
	boot_uki
	want11=$("$MEASURE" calculate --linux="$T/linux" --osrel="$T/osrel" --cmdline="$T/cmdline" --bank=sha256 \
		--phase=enter-initrd | sed -n 's/^11:sha256=//p')
	tpm2_pcrread -T "swtpm:path=$T/sock" sha256:11 | grep -qi "0x$want11"
	sign "$T/key.pem" "$T/pub.pem"
	run "$TOOL" tpm2-open-signed "$T/v.img" "$T/sock" - "$T/sig.json"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'token 0' <<<"$output"
	grep -qx 'pcrs 0x80' <<<"$output"
	grep -qx 'signed pcrs 0x800' <<<"$output"
	want=$(cryptsetup_key)
	[ ${#want} -eq 128 ]
	grep -qx "volume key $want" <<<"$output"
	# Again: the loaded key and the session were flushed.
	for _ in 1 2 3; do "$TOOL" tpm2-open-signed "$T/v.img" "$T/sock" - "$T/sig.json" | grep -qx "volume key $want"; done
	# The next phase (leave-initrd) is signed too: another entry of the array.
	extend11 "$(printf leave-initrd | sha256sum | cut -c1-64)"
	"$TOOL" tpm2-open-signed "$T/v.img" "$T/sock" - "$T/sig.json" | grep -qx "volume key $want"
}

@test "a changed UKI (command line): PCR 11 is not what was signed, the unseal is refused and says so" {
	printf 'root=/dev/vda init=/bin/sh' >"$T/cmdline.new"
	sign "$T/key.pem" "$T/pub.pem"
	mv "$T/cmdline.new" "$T/cmdline"
	boot_uki
	run "$TOOL" tpm2-open-signed "$T/v.img" "$T/sock" - "$T/sig.json"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q 'refused token 0: tpm2-pcr-signature.json signs no sha256 policy for PCR 11 as it is now' <<<"$output"
	[[ $output != *'volume key'* ]]
}

@test "a signature by another key, or altered: refused, no key" {
	boot_uki
	openssl genrsa -out "$T/other.pem" 2048 2>/dev/null
	openssl rsa -in "$T/other.pem" -pubout -out "$T/otherpub.pem" 2>/dev/null
	sign "$T/other.pem" "$T/otherpub.pem"
	run "$TOOL" tpm2-open-signed "$T/v.img" "$T/sock" - "$T/sig.json"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "by the token's public key (signed with another key)" <<<"$output"
	# The other key's signatures under this key's fingerprint: the TPM's
	# VerifySignature refuses them.
	fp=$(openssl rsa -pubin -in "$T/pub.pem" -RSAPublicKey_out -outform DER 2>/dev/null | sha256sum | cut -c1-64)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for e in d["sha256"]: e["pkfp"]=sys.argv[2]
json.dump(d, open(sys.argv[1], "w"))' "$T/sig.json" "$fp"
	run "$TOOL" tpm2-open-signed "$T/v.img" "$T/sock" - "$T/sig.json"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "does not verify with the token's public key" <<<"$output"
	[[ $output != *'volume key'* ]]
}
