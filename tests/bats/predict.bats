#!/usr/bin/env bats
# hardinit predict and the builder's --predict: the PCR value
# and event log a boot will produce, computed at build time. Checked here
# against Python's hashlib over the input files (the texts' digests and the
# extend chain), for reproducibility, and for changing with each input. The
# VM tests (tests/vm/measure.bats, tests/vm/verity.bats) check the
# prediction against the PCR a booted guest reads.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO HI="$REPO/build/hardinit" BUILDER="$REPO/initramfs/hardinit-mkinitramfs"
	make -s -C "$REPO" build/hardinit >&2
	export POLICY=/etc/selinux/default/policy/policy.33
	local k=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12
	KDIR=""
	compgen -G "$k/lib/modules/6.12*" >/dev/null && KDIR=$k
	export KDIR
}

setup() {
	T=$BATS_TEST_TMPDIR
	[[ -f $POLICY ]] || skip "selinux-policy-default is not installed"
}

# builder OUT.img OUT.json [args]: the strict profile with the example IMA policy.
builder() {
	local img=$1 json=$2
	shift 2
	"$BUILDER" -o "$img" --hardinit "$HI" --profile strict --predict "$json" "$@"
}

# The PCR from the events' texts, and each event's digest, recomputed.
check_json() {
	python3 - "$1" <<-'PY'
		import hashlib, json, sys
		p = json.load(open(sys.argv[1]))
		assert p["format"] == "hardinit-predict" and p["bank"] == "sha256", p
		pcr = bytes.fromhex(p["initial"])
		names = [e["name"] for e in p["events"]]
		assert names == ["ima-policy", "verity-root-hash", "config", "selinux-policy", "handoff"], names
		for e in p["events"]:
		    assert e["text"].startswith("hardinit:" + e["name"] + ":"), e
		    d = hashlib.sha256(e["text"].encode()).digest()
		    assert e["digests"]["sha256"] == d.hex(), e
		    pcr = hashlib.sha256(pcr + d).digest()
		assert p["value"] == pcr.hex(), (p["value"], pcr.hex())
		print(p["value"])
	PY
}

event() {
	python3 -c 'import json, sys
print(next(e["text"] for e in json.load(open(sys.argv[1]))["events"] if e["name"] == sys.argv[2]))' "$1" "$2"
}

@test "predict: the builder writes the PCR and its events, each from the files the image embeds and the root loads" {
	builder "$T/a.img" "$T/a.json" --ima-policy "$REPO/config/ima-policy.example" \
		--predict-selinux-policy "$POLICY" --predict-cmdline "root=/dev/vda"
	check_json "$T/a.json"
	# The schema a verifier reads it with (contrib/), checked as one.
	python3 - "$REPO/contrib/hardinit-predict.schema.json" "$T/a.json" <<-'PY'
		import json, sys, jsonschema
		schema = json.load(open(sys.argv[1]))
		jsonschema.Draft202012Validator.check_schema(schema)
		jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
	PY
	[ "$(event "$T/a.json" ima-policy)" = "hardinit:ima-policy:$(sha256sum <"$REPO/config/ima-policy.example" | cut -d' ' -f1)" ]
	# SELinux as the boot applies it: the strict profile follows the
	# root's config, and with no root given the policy loads permissive.
	[ "$(event "$T/a.json" selinux-policy)" = "hardinit:selinux-policy:permissive:$(sha256sum <"$POLICY" | cut -d' ' -f1)" ]
	[ "$(event "$T/a.json" verity-root-hash)" = "hardinit:verity-root-hash:none" ]
	# The hand-off: the version, then sha256 of the program and init's
	# words, each NUL-ended (root=/dev/vda hands init no word).
	[ "$(event "$T/a.json" handoff)" = "hardinit:handoff:$("$HI" --version | cut -d' ' -f2):$(printf '/sbin/init\0' | sha256sum | cut -d' ' -f1)" ]
	# The config's digest is checked against the booted guest's
	# /run/hardinit/config in tests/vm/measure.bats.
	# The strict profile leaves [tpm] pcr: the PCR is hardinit's default.
	[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pcr"])' "$T/a.json")" = \
		"$("$HI" limits | sed -n 's/^TPM_PCR_DEFAULT=//p')" ]
}

@test "predict: two builds from the same inputs give the same prediction; each changed input changes it" {
	local -a base=(--ima-policy "$REPO/config/ima-policy.example" --predict-selinux-policy "$POLICY"
		--predict-cmdline "root=/dev/vda")
	builder "$T/a.img" "$T/a.json" "${base[@]}"
	builder "$T/b.img" "$T/b.json" "${base[@]}"
	cmp "$T/a.json" "$T/b.json"
	local a v
	a=$(check_json "$T/a.json")
	# Each input changed (hardinit predict, which the builder ran above).
	local -a same=(--config "$REPO/config/strict.conf" --ima-policy "$REPO/config/ima-policy.example"
		--selinux-policy "$POLICY" --cmdline "root=/dev/vda")
	"$HI" predict "${same[@]}" --output "$T/same.json"
	[ "$(check_json "$T/same.json")" = "$a" ]
	# An IMA policy one rule longer.
	{ cat "$REPO/config/ima-policy.example"; echo "measure func=MODULE_CHECK"; } >"$T/ima2"
	"$HI" predict "${same[@]}" --ima-policy "$T/ima2" --output "$T/c.json"
	v=$(check_json "$T/c.json"); [ "$v" != "$a" ]
	# A command-line override the config takes.
	"$HI" predict "${same[@]}" --cmdline "root=/dev/vda hardinit.boot.failure_delay=3" --output "$T/d.json"
	v=$(check_json "$T/d.json"); [ "$v" != "$a" ]
	[ "$(event "$T/d.json" config)" != "$(event "$T/a.json" config)" ]
	# Another SELinux policy, or none.
	head -c 4096 "$POLICY" >"$T/pol"; cat "$POLICY" >>"$T/pol"
	"$HI" predict "${same[@]}" --selinux-policy "$T/pol" --output "$T/e.json"
	v=$(check_json "$T/e.json"); [ "$v" != "$a" ]
	"$HI" predict --config "$REPO/config/strict.conf" --ima-policy "$REPO/config/ima-policy.example" \
		--cmdline "root=/dev/vda" --output "$T/f.json"
	[ "$(event "$T/f.json" selinux-policy)" = "hardinit:selinux-policy:disabled" ]
	# A PCR a UKI's stub extended before hardinit.
	"$HI" predict "${same[@]}" --initial "$(printf '%064d' 1)" --output "$T/g.json"
	v=$(check_json "$T/g.json"); [ "$v" != "$a" ]
}

@test "predict: another hand-off or SELinux state than the built one is another PCR; under the lock, the kernel's init= is not" {
	local -a same=(--config "$REPO/config/strict.conf" --selinux-policy "$POLICY")
	local a v
	"$HI" predict "${same[@]}" --cmdline "root=/dev/vda" --output "$T/a.json"
	a=$(check_json "$T/a.json")
	# The kernel's init=: the program handed off to.
	"$HI" predict "${same[@]}" --cmdline "root=/dev/vda init=/bin/sh" --output "$T/b.json"
	v=$(check_json "$T/b.json"); [ "$v" != "$a" ]
	[ "$(event "$T/b.json" handoff)" != "$(event "$T/a.json" handoff)" ]
	# A word the kernel hands init (single: a rescue shell).
	"$HI" predict "${same[@]}" --cmdline "root=/dev/vda single" --output "$T/c.json"
	v=$(check_json "$T/c.json"); [ "$v" != "$a" ]
	# enforcing=1: the mode the kernel holds, not only the policy.
	"$HI" predict "${same[@]}" --cmdline "root=/dev/vda enforcing=1" --output "$T/d.json"
	v=$(check_json "$T/d.json"); [ "$v" != "$a" ]
	[[ $(event "$T/d.json" selinux-policy) == "hardinit:selinux-policy:enforcing:"* ]]
	# The root's /etc/selinux/config decides the mode under mode = config.
	mkdir -p "$T/root/etc/selinux" "$T/root/sbin"
	printf 'SELINUX=enforcing\nSELINUXTYPE=default\n' >"$T/root/etc/selinux/config"
	printf '#!/bin/sh\n' >"$T/root/sbin/init"; chmod +x "$T/root/sbin/init"
	"$HI" predict "${same[@]}" --cmdline "root=/dev/vda" --root "$T/root" --output "$T/e.json"
	[ "$(event "$T/e.json" selinux-policy)" = "$(event "$T/d.json" selinux-policy)" ]
	# The appliance profile locks the command line: init= is ignored there,
	# the prediction is the built hand-off's, and enforcing=0 is no boot.
	"$HI" predict --config "$REPO/config/appliance.conf" --cmdline "root=/dev/vda" --output "$T/f.json"
	"$HI" predict --config "$REPO/config/appliance.conf" --cmdline "root=/dev/vda init=/bin/sh" --output "$T/g.json"
	[ "$(check_json "$T/f.json")" = "$(check_json "$T/g.json")" ]
	run -1 "$HI" predict --config "$REPO/config/appliance.conf" --selinux-policy "$POLICY" \
		--cmdline "root=/dev/vda security=selinux enforcing=0"
	[[ $output == *"enforcing=0 refused under the lock"* ]]
}

@test "predict: an include of the embedded config is read from the file the image carries, not the build host's path" {
	local inc=$T/host/etc/sysctl.d/90-site.conf
	mkdir -p "$(dirname "$inc")"
	sed "s|^\[sysctl\]\$|&\ninclude = $inc|" "$REPO/config/strict.conf" >"$T/inc.conf"
	grep -qx "include = $inc" "$T/inc.conf"
	echo "vm.swappiness = 10" >"$T/carried.conf"
	local -a b=(--config "$T/inc.conf" --add "$T/carried.conf:$inc" --predict-cmdline "root=/dev/vda")
	# The host's file at that path holds one thing, then another: the
	# images are the same bytes, and so are their predictions.
	echo "vm.swappiness = 20" >"$inc"
	"$BUILDER" -o "$T/a.img" --hardinit "$HI" --predict "$T/a.json" "${b[@]}"
	echo "vm.swappiness = 30" >"$inc"
	"$BUILDER" -o "$T/b.img" --hardinit "$HI" --predict "$T/b.json" "${b[@]}"
	cmp "$T/a.img" "$T/b.img"
	cmp "$T/a.json" "$T/b.json"
	# The image carries another file: another prediction.
	echo "vm.swappiness = 40" >"$T/carried.conf"
	"$BUILDER" -o "$T/c.img" --hardinit "$HI" --predict "$T/c.json" "${b[@]}"
	[ "$(check_json "$T/c.json")" != "$(check_json "$T/a.json")" ]
	# hardinit predict reads no host path for it: without the image's files
	# it says where the boot reads the include from.
	run -1 "$HI" predict --config "$T/inc.conf" --cmdline "root=/dev/vda"
	[[ $output == *"cannot read include"*"give --image-root DIR"* ]]
	mkdir -p "$T/img/$(dirname "$inc")"; echo "vm.swappiness = 10" >"$T/img/$inc"
	"$HI" predict --config "$T/inc.conf" --cmdline "root=/dev/vda" --image-root "$T/img" --output "$T/d.json"
	[ "$(check_json "$T/d.json")" = "$(check_json "$T/a.json")" ]
}

@test "predict: a verity root is described from the devices' images as the boot describes it" {
	[[ -n $KDIR ]] || skip "no unpacked 6.12 kernel (scripts/fetch-kernel 6.12)"
	command -v veritysetup >/dev/null || skip "cryptsetup-bin is not installed"
	local kver rh size
	kver=$(basename "$(compgen -G "$KDIR/lib/modules/6.12*" | head -n1)")
	truncate -s 1M "$T/data.img"
	mkfs.ext4 -q -b 4096 -L vroot "$T/data.img" 2>/dev/null
	rh=$(veritysetup format "$T/data.img" "$T/hash.img" | awk '/^Root hash:/ { print $3 }')
	sed 's/^require_signature = yes$/require_signature = no/' "$REPO/config/appliance.conf" >"$T/app.conf"
	local -a v=(-o "$T/v.img" --hardinit "$HI" --moddir "$KDIR" --kver "$kver" --target virtio --config "$T/app.conf"
		--verity-roothash "$rh" --verity-data LABEL=vroot --verity-hash /dev/vdb --predict "$T/v.json")
	# Without the images there is nothing to describe: no image, no prediction.
	run -1 "$BUILDER" "${v[@]}"
	[[ $output == *"cannot predict the PCR (--predict): / is on verity"* ]]
	[ ! -e "$T/v.img" ] && [ ! -e "$T/v.json" ]
	"$BUILDER" "${v[@]}" --predict-verity-data-image "$T/data.img" --predict-verity-hash-image "$T/hash.img"
	check_json "$T/v.json"
	size=$(stat -c %s "$T/hash.img")
	[ "$(event "$T/v.json" verity-root-hash)" = "hardinit:verity-root-hash:$rh;data=LABEL=vroot,1048576;hash=/dev/vdb,$size;hash_offset=0;format=1;alg=sha256;blocks=4096/4096;data_blocks=256;options=restart_on_corruption;on_corruption=restart" ]
}

@test "predict: a config that measures nothing, reads the root's config without --root, or a bad option is one clear line" {
	run -1 "$HI" predict --config "$REPO/config/baseline.conf"
	[[ $output == *"has [tpm] measure = no: a boot measures nothing"* ]]
	printf '[boot]\nread_root_config = yes\n[tpm]\nmeasure = yes\n' >"$T/rr.conf"
	run -1 "$HI" predict --config "$T/rr.conf"
	[[ $output == "hardinit: predict: "*"read_root_config"*"--root DIR"* ]]
	# The root's file is read over the embedded one, as after the switch.
	mkdir -p "$T/root/etc"
	printf '[tpm]\nmeasure = no\n' >"$T/root/etc/hardinit.conf"
	run -1 "$HI" predict --config "$T/rr.conf" --root "$T/root"
	[[ $output == *"[tpm] measure = no: a boot measures nothing"* ]]
	printf '[tpm]\npcr = 13\n' >"$T/root/etc/hardinit.conf"
	run -0 "$HI" predict --config "$T/rr.conf" --root "$T/root"
	[[ $output == *'"pcr":13,'* ]]
	run -2 "$HI" predict --config "$REPO/config/strict.conf" --bogus x
	[[ $output == *"unknown option --bogus"* ]]
	run -1 "$HI" predict --config "$REPO/config/strict.conf" --ima-policy /nonexistent
	[[ $output == *"cannot read the IMA policy /nonexistent"* ]]
	run -1 "$HI" predict --config "$REPO/config/strict.conf" --initial 12
	[[ $output == *"--initial must be 64 hex digits"* ]]
}
