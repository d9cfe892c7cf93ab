#!/usr/bin/env bats
# Measured boot in QEMU with Debian's 6.12 cloud kernel and a
# TPM emulated by swtpm, which each test starts and stops itself. The
# guest's truth comes from sysfs (the PCR), securityfs (IMA's measurement
# list and policy file) and a probe that extends the PCR on its own; the
# PCR value a correct boot must reach is computed here, with Python's
# hashlib, from the files the test put in the image.

# budget: 130 s

load lib

bats_require_minimum_version 1.5.0

# The measurement PCR: hardinit's default (no config here sets [tpm] pcr).
PCR=$("$HARDINIT_SRC/build/hardinit" limits | sed -n 's/^TPM_PCR_DEFAULT=//p')
POLICY=/etc/selinux/default/policy/policy.33
FC=/etc/selinux/default/contexts/files/file_contexts
SEL="root=/dev/vda security=selinux"
# The verifier's nonce rides on the command line (the kernel keeps a
# dotted word it does not know in /proc/cmdline; hardinit ignores it).
NONCE=00112233445566778899aabbccddeeff
STRICT_WORDS="hardinit.boot.failure_action=poweroff hardinit.boot.failure_delay=0 attest.nonce=$NONCE"

# The root with Debian's tpm2-tools (the host's package: the binary, its
# libraries, the device TCTI it loads) and contrib/hardinit-quote, for the
# remote check: the guest quotes, the host verifies.
quote_root() {
	local dir=$1 q=$1/qroot lib t
	command -v tpm2_quote >/dev/null || { echo "tpm2-tools is not installed (scripts/install-deps)" >&2; return 1; }
	rm -rf "$q" && cp -a "$dir/root" "$q"
	mkdir -p "$q/usr/bin" "$q/lib64" "$q/lib/x86_64-linux-gnu"
	install -m 0755 "$(readlink -f "$(command -v tpm2)")" "$q/usr/bin/tpm2"
	for t in tpm2_createek tpm2_createak tpm2_quote tpm2_flushcontext tpm2_evictcontrol tpm2_readpublic; do
		ln -sf tpm2 "$q/usr/bin/$t"
	done
	# Another program to hand off to (init=), the same test init.
	install -m 0755 "$q/sbin/init" "$q/sbin/other-init"
	install -m 0755 "$HARDINIT_SRC/contrib/hardinit-quote" "$q/usr/bin/hardinit-quote"
	for lib in $(ldd "$(command -v tpm2)" | awk '$3 ~ /^\// { print $3 }') \
		/usr/lib/x86_64-linux-gnu/libtss2-tcti-device.so.0; do
		cp -L "$lib" "$q/lib/x86_64-linux-gnu/"
	done
	cp -L /lib64/ld-linux-x86-64.so.2 "$q/lib64/"
	vm_selinux_label "$q"
	vm_rootfs "$dir/qroot.img" "$q"
}

# The value hardinit-mkinitramfs --predict wrote (hardinit predict).
predicted() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["value"])' "$1"
}

# The guest's script; @PCR@ is the measurement PCR.
probe() {
	sed "s/@PCR@/$PCR/g" <<-'EOF'
		#!/bin/busybox sh
		echo "=== BEGIN TPM ==="
		for d in tpmrm0 tpm0; do [ -c /dev/$d ] && echo "dev=$d"; done
		echo "pcr=$(cat /sys/class/tpm/tpm0/pcr-sha256/@PCR@ 2>/dev/null || echo none)"
		[ -f /run/hardinit/measurements ] && echo "log_lines=$(grep -c '^event ' /run/hardinit/measurements)"
		[ -f /run/log/systemd/tpm2-measure.log ] &&
			echo "cel_records=$(tr -cd '\036' </run/log/systemd/tpm2-measure.log | wc -c)"
		grep '^measure ' /run/hardinit/report.txt
		# Not a UKI: no stub measured PCR 11, so no boot phase either (pcrphase.bats).
		echo "pcr11=$(cat /sys/class/tpm/tpm0/pcr-sha256/11 2>/dev/null || echo none)"
		grep '^pcrphase ' /run/hardinit/report.txt
		echo "=== END TPM ==="
		echo "=== BEGIN EVENTS ==="
		grep '^event ' /run/hardinit/measurements | cut -d' ' -f3
		echo "=== END EVENTS ==="
		echo "config_sha256=$(sha256sum /run/hardinit/config | cut -d' ' -f1)"
		echo "=== BEGIN CEL_B64 ==="
		[ -f /run/log/systemd/tpm2-measure.log ] && base64 /run/log/systemd/tpm2-measure.log
		echo "=== END CEL_B64 ==="
		echo "=== BEGIN IMA ==="
		m=/sys/kernel/security/ima/ascii_runtime_measurements
		echo "boot_aggregate=$(grep -c boot_aggregate $m)"
		echo "selinux_state=$(grep -c ' selinux-state ' $m)"
		echo "selinux_policy_hash=$(grep -c ' selinux-policy-hash ' $m)"
		# The _ima keyring, and how many keys it holds ("_ima: 1").
		echo "ima_keyring=$(grep -o ' keyring *_ima: [0-9a-z]*' /proc/keys | sed 's/.*: //')"
		if [ -e /sys/kernel/security/ima/policy ] &&
			echo 'measure func=BPRM_CHECK' 2>/dev/null >/sys/kernel/security/ima/policy; then
			echo "policy_write=accepted"
		else
			echo "policy_write=refused"
		fi
		grep '^ima ' /run/hardinit/report.txt
		echo "=== END IMA ==="
		echo "=== BEGIN AUDIT1 ==="
		/sbin/hardinit audit | grep -E 'tpm pcr|drift$'
		echo "rc=$?"
		/sbin/hardinit audit >/dev/null; echo "status=$?"
		echo "=== END AUDIT1 ==="
		if [ -x /usr/bin/hardinit-quote ]; then
			nonce=$(sed -n 's/.*attest\.nonce=\([0-9a-f]*\).*/\1/p' /proc/cmdline)
			echo "=== BEGIN QUOTE ==="
			hardinit-quote quote "$nonce" /run/quote 2>&1
			tar -C /run/quote -cf - ak.pem quote.msg quote.sig quote.pcrs | base64
			echo "=== END QUOTE ==="
		fi
		/probe/tpm_extend @PCR@
		echo "=== BEGIN AUDIT2 ==="
		/sbin/hardinit audit | grep 'tpm pcr'
		/sbin/hardinit audit >/dev/null; echo "status=$?"
		echo "=== END AUDIT2 ==="
	EOF
}

hardinit_conf() {
	cat <<-EOF
		[boot]
		failure_action = poweroff
		failure_delay = 0
		[selinux]
		mode = permissive
		[tpm]
		measure = yes
	EOF
}

setup_file() {
	[[ $PCR =~ ^[0-9]+$ ]] || { echo "build/hardinit limits gave no TPM_PCR_DEFAULT: make first" >&2; return 1; }
	[[ -f $POLICY && -f $FC ]] || skip "selinux-policy-default is not installed"
	command -v swtpm >/dev/null || skip "swtpm is not installed (apt-get install swtpm swtpm-tools)"
	local dir
	dir=$(vm_cache_dir)/measure
	mkdir -p "$dir"
	export MDIR=$dir
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/root/sbin/hardinit"
	mkdir -p "$dir/root/etc/selinux"
	cp -a /etc/selinux/default "$dir/root/etc/selinux/"
	printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$dir/root/etc/selinux/config"
	probe | vm_probe_script "$dir/root"
	vm_selinux_label "$dir/root"
	vm_rootfs "$dir/root.img" "$dir/root"
	hardinit_conf >"$dir/hardinit.conf"
	# A certificate for appraisal, added to the _ima keyring at boot.
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/ima.key" -out "$dir/ima.der" \
		-outform DER -subj /CN=hardinit-test-ima -days 2 2>/dev/null
	vm_initramfs "$dir/initrd.img" --config "$dir/hardinit.conf" \
		--ima-policy "$HARDINIT_SRC/config/ima-policy.example" --ima-cert "$dir/ima.der" \
		--predict "$dir/predict.json" --predict-cmdline "$SEL" --predict-selinux-policy "$POLICY"
	quote_root "$dir"
	# The strict profile as a user builds it, with the PCR it predicts
	#; the failure action on the command line, as predicted.
	vm_initramfs "$dir/strict.img" --profile strict --ima-policy "$HARDINIT_SRC/config/ima-policy.example" \
		--predict "$dir/strict.json" --predict-cmdline "$SEL $STRICT_WORDS" --predict-selinux-policy "$POLICY"
	appraise_image "$dir"
}

# What a root process runs after the boot to get its own key trusted
#: tests/probe/ima_keyring.c, raw keyctl(2) and add_key(2).
appraise_probe() {
	cat <<-'EOF'
		#!/bin/busybox sh
		echo "=== BEGIN APPRAISE ==="
		grep '^ima ' /run/hardinit/report.txt
		for f in good unsigned; do
			if /probe/ima/$f; then echo "exec_$f=ok"; else echo "exec_$f=refused"; fi
		done
		/probe/ima_keyring /probe/ima/evil.der /probe/ima/evil-direct /probe/ima/evil-session /probe/ima/evil-user
		if /probe/ima/good2; then echo "exec_good_after=ok"; else echo "exec_good_after=refused"; fi
		echo "=== END APPRAISE ==="
	EOF
}

# The same root with every executable signed by the test key (evmctl,
# security.ima, copied into the image by mke2fs -d), scripts signed by an
# attacker's key and one unsigned, and a policy that appraises every exec:
# hardinit's own exec of /sbin/init is then the first signature IMA
# checks, which fixes the _ima keyring it uses until reboot.
appraise_image() {
	local dir=$1 a=$1/appraise f
	rm -rf "$a" && mkdir -p "$a"
	cp -a "$dir/root" "$a/root"
	mkdir -p "$a/root/probe/ima"
	for f in good good2 unsigned evil-direct evil-session evil-user; do
		printf '#!/bin/sh\nexit 0\n' >"$a/root/probe/ima/$f"
		chmod 0755 "$a/root/probe/ima/$f"
	done
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$a/evil.key" -out "$a/root/probe/ima/evil.der" \
		-outform DER -subj /CN=attacker -days 2 2>/dev/null
	appraise_probe | vm_probe_script "$a/root"
	vm_selinux_label "$a/root"
	find "$a/root" -type f -perm -u+x ! -path '*/probe/ima/*' -print0 |
		xargs -0 -n1 evmctl ima_sign -a sha256 --key "$dir/ima.key" >/dev/null
	evmctl ima_sign -a sha256 --key "$dir/ima.key" "$a/root/probe/ima/good" >/dev/null
	evmctl ima_sign -a sha256 --key "$dir/ima.key" "$a/root/probe/ima/good2" >/dev/null
	for f in evil-direct evil-session evil-user; do
		evmctl ima_sign -a sha256 --key "$a/evil.key" "$a/root/probe/ima/$f" >/dev/null
	done
	vm_rootfs "$a/root.img" "$a/root"
	# Appraisal of every exec but from the initramfs (ramfs, tmpfs), which
	# hardinit leaves before it runs anything.
	{
		cat "$HARDINIT_SRC/config/ima-policy.example"
		echo "dont_appraise fsmagic=0x858458f6"
		echo "dont_appraise fsmagic=0x01021994"
		echo "appraise func=BPRM_CHECK appraise_type=imasig"
	} >"$a/ima-policy"
	vm_initramfs "$a/initrd.img" --config "$dir/hardinit.conf" --ima-policy "$a/ima-policy" --ima-cert "$dir/ima.der"
}

# swtpm (vm_swtpm_start in lib.bash) is the test's child; teardown stops it,
# so it is never left running.
teardown() {
	vm_swtpm_stop
}

# The PCR value of a correct boot: from zeros (no firmware measured
# anything: the kernel is booted directly), each event's text hashed with
# SHA-256 and extended, in hardinit's order. The config's digest comes from
# the guest's sha256sum (busybox) over /run/hardinit/config.
expected_pcr() {
	local config_sha=$1
	python3 - "$config_sha" "$POLICY" "$HARDINIT_SRC/config/ima-policy.example" \
		"$("$HARDINIT_SRC/build/hardinit" --version | awk '{print $2}')" <<-'PY'
		import base64, hashlib, sys
		policy = open(sys.argv[2], "rb").read()
		ima = open(sys.argv[3], "rb").read()
		h = lambda b: hashlib.sha256(b).hexdigest()
		# SELinux as applied (the config's permissive, read back), and the
		# hand-off: /sbin/init with no word for init, NUL-ended.
		events = ["hardinit:ima-policy:" + h(ima), "hardinit:verity-root-hash:none",
		          "hardinit:config:" + sys.argv[1], "hardinit:selinux-policy:permissive:" + h(policy),
		          "hardinit:handoff:" + sys.argv[4] + ":" + h(b"/sbin/init\0")]
		pcr = bytes(32)
		for e in events:
		    pcr = hashlib.sha256(pcr + hashlib.sha256(e.encode()).digest()).digest()
		print(pcr.hex())
	PY
}

@test "with swtpm: the PCR holds exactly hardinit's events, IMA measured SELinux, the policy is one-way, audit replays it" {
	vm_swtpm_start "$BATS_TEST_TMPDIR/swtpm"
	log=$BATS_TEST_TMPDIR/tpm.log
	vm_boot "$log" --timeout 300 --initrd "$MDIR/initrd.img" --disk "$MDIR/root.img" --append "$SEL" -- "${VM_TPM_ARGS[@]}"
	vm_assert_done "$log"
	vm_assert_section_line "$log" TPM "dev=tpmrm0"
	local config_sha want got
	config_sha=$(vm_clean_log "$log" | sed -n 's/^config_sha256=//p')
	want=$(expected_pcr "$config_sha")
	got=$(vm_section "$log" TPM | sed -n 's/^pcr=//p' | tr 'A-F' 'a-f')
	echo "pcr from sysfs: $got; computed here: $want"
	echo "events hardinit logged:"; vm_section "$log" EVENTS
	echo "config sha256 in the guest: $config_sha"
	[ -n "$want" ] && [ "$got" = "$want" ]
	# The builder's prediction is that value, before any boot.
	echo "predicted at build time: $(predicted "$MDIR/predict.json")"
	[ "$(predicted "$MDIR/predict.json")" = "$got" ]
	vm_assert_section_line "$log" TPM "log_lines=5"
	vm_assert_section_line "$log" TPM "cel_records=5"
	# The CEL-JSON records parse, name the PCR and carry the same texts.
	vm_section "$log" CEL_B64 | tr -d ' \n' | base64 -d | python3 -c '
import json, sys
recs = [json.loads(r) for r in sys.stdin.read().split("\x1e") if r.strip()]
assert len(recs) == 5, recs
assert all(r["pcr"] == int(sys.argv[1]) and r["content_type"] == "systemd" for r in recs)
names = [r["content"]["string"].split(":")[1] for r in recs]
assert names == ["ima-policy", "verity-root-hash", "config", "selinux-policy", "handoff"], names
assert any(d["hashAlg"] == "sha256" and len(d["digest"]) == 64 for d in recs[0]["digests"])
# The convention of systemd-pcrextend: every active bank in every record, each RS-led
# and newline-ended, the sha256 digest that of the content string.
import hashlib
banks = sorted(d["hashAlg"] for d in recs[0]["digests"])
assert all(sorted(d["hashAlg"] for d in r["digests"]) == banks for r in recs), recs
for r in recs:
    sha = next(d["digest"] for d in r["digests"] if d["hashAlg"] == "sha256")
    assert sha == hashlib.sha256(r["content"]["string"].encode()).hexdigest(), r
print("banks in every record:", banks)
' "$PCR"
	vm_assert_section_contains "$log" TPM "measure handoff ok"
	vm_assert_section_line "$log" TPM "pcr11=$(printf '0%.0s' {1..64})"
	vm_assert_section_contains "$log" TPM "pcrphase enter-initrd skipped systemd-stub did not measure"
	# The thread measured while the boot went on: the report has the
	# stage's own cost and the thread's time at the TPM.
	vm_assert_section_contains "$log" TPM "measure extend_ms info"
	vm_assert_section_contains "$log" TPM "measure tpm_ms info"
	# IMA: a policy hardinit loaded before SELinux measured SELinux.
	vm_assert_section_line "$log" IMA "boot_aggregate=1"
	run vm_section "$log" IMA
	[[ $output =~ selinux_state=[1-9] ]] || { echo "$output"; false; }
	[[ $output =~ selinux_policy_hash=[1-9] ]] || { echo "$output"; false; }
	vm_assert_section_line "$log" IMA "policy_write=refused"
	vm_assert_section_line "$log" IMA "ima_keyring=1"
	vm_assert_section_contains "$log" IMA "ima cert applied ima.der in _ima"
	vm_assert_section_contains "$log" IMA "ima policy applied"
	vm_assert_section_contains "$log" IMA "ima policy_lock ok"
	# audit: no drift after boot; drift once the PCR was extended again.
	vm_assert_section_contains "$log" AUDIT1 "ok    tpm pcr $PCR (sha256)"
	vm_assert_section_line "$log" AUDIT1 "status=0"
	vm_assert_section_contains "$log" AUDIT2 "drift tpm pcr $PCR (sha256)"
	vm_assert_section_line "$log" AUDIT2 "status=1"
}

@test "with swtpm: the strict profile's boot reaches the PCR value the builder predicted, event by event" {
	vm_swtpm_start "$BATS_TEST_TMPDIR/swtpm"
	log=$BATS_TEST_TMPDIR/strict.log
	vm_boot "$log" --timeout 300 --initrd "$MDIR/strict.img" --disk "$MDIR/qroot.img" --append "$SEL $STRICT_WORDS" \
		-- "${VM_TPM_ARGS[@]}"
	cp "$log" "$MDIR/strict.log"
	vm_assert_done "$log"
	local got want
	got=$(vm_section "$log" TPM | sed -n 's/^pcr=//p' | tr 'A-F' 'a-f')
	want=$(predicted "$MDIR/strict.json")
	vm_section "$log" TPM
	echo "pcr from sysfs: $got; predicted: $want"
	[ -n "$got" ] && [ "$got" = "$want" ]
	# The log's texts are the prediction's, in order.
	diff <(vm_section "$log" EVENTS) <(python3 -c 'import json, sys
for e in json.load(open(sys.argv[1]))["events"]: print(e["text"])' "$MDIR/strict.json")
	vm_assert_section_contains "$log" AUDIT1 "ok    tpm pcr $PCR (sha256)"
}

# The remote check (contrib/hardinit-quote) on the strict boot
# above: the guest made an attestation key and quoted the PCR over the
# nonce with Debian's tpm2-tools; here tpm2_checkquote verifies it and the
# PCR is compared with the builder's prediction.
@test "with swtpm: a quote made in the guest verifies on the host against the prediction; a wrong nonce or a changed PCR fails" {
	[[ -f $MDIR/strict.log ]] || { echo "no log of the strict boot: run it with the test above"; false; }
	local q=$BATS_TEST_TMPDIR/quote log=$MDIR/strict.log
	vm_assert_section_contains "$log" QUOTE "hardinit-quote: quoted sha256:$PCR"
	mkdir -p "$q"
	vm_section "$log" QUOTE | grep -v '^hardinit-quote:' | tr -d ' \r\n' | base64 -d | tar -C "$q" -xf -
	run -0 "$HARDINIT_SRC/contrib/hardinit-quote" check "$NONCE" "$q" "$MDIR/strict.json"
	[[ $output == *"verified:"*"PCR $PCR is the predicted $(predicted "$MDIR/strict.json")"* ]]
	run -1 "$HARDINIT_SRC/contrib/hardinit-quote" check "${NONCE%?}0" "$q" "$MDIR/strict.json"
	[[ $output == *"the quote does not verify"* ]]
	# Another build's prediction (one input changed): the boot is not it.
	"$HARDINIT_SRC/build/hardinit" predict --config "$HARDINIT_SRC/config/strict.conf" \
		--ima-policy "$HARDINIT_SRC/config/ima-policy.example" --selinux-policy "$POLICY" \
		--cmdline "$SEL $STRICT_WORDS hardinit.boot.failure_delay=1" --output "$q/other.json"
	[ "$(predicted "$q/other.json")" != "$(predicted "$MDIR/strict.json")" ]
	run -1 "$HARDINIT_SRC/contrib/hardinit-quote" check "$NONCE" "$q" "$q/other.json"
	[[ $output == *"is not the one that was built"* ]]
	# A PCR value changed in what the guest sent: the signed digest disagrees.
	cp -r "$q" "$q.bad"
	python3 - "$q.bad/quote.pcrs" "$(predicted "$MDIR/strict.json")" <<-'PY'
		import sys
		data, value = open(sys.argv[1], "rb").read(), bytes.fromhex(sys.argv[2])
		at = data.index(value)   # the PCR's value, as the guest read it
		open(sys.argv[1], "wb").write(data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
	PY
	run -1 "$HARDINIT_SRC/contrib/hardinit-quote" check "$NONCE" "$q.bad" "$MDIR/strict.json"
	[[ $output == *"the quote does not verify"* ]]
}

# The measured hand-off: the strict image (no lock) booted with the
# kernel's init= naming another program. The PCR is not the built boot's,
# so the remote check fails; it is the prediction of that other hand-off.
@test "with swtpm: a boot handed off to another program (init=) reaches another PCR, and the quote check fails" {
	vm_swtpm_start "$BATS_TEST_TMPDIR/swtpm"
	local log=$BATS_TEST_TMPDIR/otherinit.log q=$BATS_TEST_TMPDIR/quote got
	vm_boot "$log" --timeout 300 --initrd "$MDIR/strict.img" --disk "$MDIR/qroot.img" \
		--append "$SEL $STRICT_WORDS init=/sbin/other-init" -- "${VM_TPM_ARGS[@]}"
	vm_assert_done "$log"
	got=$(vm_section "$log" TPM | sed -n 's/^pcr=//p' | tr 'A-F' 'a-f')
	echo "pcr from sysfs: $got; the built boot's: $(predicted "$MDIR/strict.json")"
	[ -n "$got" ] && [ "$got" != "$(predicted "$MDIR/strict.json")" ]
	# Only the hand-off event differs from the built boot's.
	diff <(vm_section "$log" EVENTS | grep -v '^hardinit:handoff:') <(python3 -c 'import json, sys
for e in json.load(open(sys.argv[1]))["events"]:
    if e["name"] != "handoff": print(e["text"])' "$MDIR/strict.json")
	mkdir -p "$q"
	vm_section "$log" QUOTE | grep -v '^hardinit-quote:' | tr -d ' \r\n' | base64 -d | tar -C "$q" -xf -
	run -1 "$HARDINIT_SRC/contrib/hardinit-quote" check "$NONCE" "$q" "$MDIR/strict.json"
	[[ $output == *"is not the one that was built"* ]]
	# What was applied is what is measured: the prediction of that hand-off.
	"$HARDINIT_SRC/build/hardinit" predict --config "$HARDINIT_SRC/config/strict.conf" \
		--ima-policy "$HARDINIT_SRC/config/ima-policy.example" --selinux-policy "$POLICY" \
		--cmdline "$SEL $STRICT_WORDS init=/sbin/other-init" --output "$q/other.json"
	[ "$(predicted "$q/other.json")" = "$got" ]
	run -0 "$HARDINIT_SRC/contrib/hardinit-quote" check "$NONCE" "$q" "$q/other.json"
}

@test "without a TPM the boot goes on and the report says so" {
	log=$BATS_TEST_TMPDIR/notpm.log
	vm_boot "$log" --initrd "$MDIR/initrd.img" --disk "$MDIR/root.img" --append "$SEL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" TPM "pcr=none"
	vm_assert_section_contains "$log" TPM "measure tpm skipped no TPM"
	vm_assert_section_contains "$log" AUDIT1 "ok    tpm pcr $PCR (sha256)"
}

@test "without a TPM, [tpm] require = yes takes the failure action with one clear line" {
	log=$BATS_TEST_TMPDIR/require.log
	vm_boot "$log" --initrd "$MDIR/initrd.img" --disk "$MDIR/root.img" --append "$SEL hardinit.tpm.require=yes"
	vm_assert_log_contains "$log" "no TPM at /dev/tpmrm0 or /dev/tpm0, and [tpm] require = yes"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	[ "$(vm_exit_reason "$log")" = poweroff ]
	vm_assert_log_lacks "$log" "=== BEGIN TPM ==="
}

# Debian 12 with systemd: systemd's own IMA setup finds the policy already
# loaded (its file gone) and goes on; the system reaches multi-user.target
# with no failed unit, and hardinit audit replays the PCR there.
@test "debian/systemd with swtpm: multi-user.target, no failed unit, systemd accepts the loaded IMA policy, audit replays" {
	load images
	local conf=$BATS_TEST_TMPDIR/debian.conf img
	awk '/^\[tpm\]/ { print; print "measure = yes"; skip = 1; next }
		skip && /^measure *=/ { skip = 0; next } { print }' \
		"$HARDINIT_SRC/config/baseline.conf" >"$conf"
	grep -qx 'measure = yes' "$conf"
	vm_initramfs "$BATS_TEST_TMPDIR/debian.img" --config "$conf" \
		--ima-policy "$HARDINIT_SRC/config/ima-policy.example" >/dev/null
	img=$(img_debian_systemd permissive)
	vm_swtpm_start "$BATS_TEST_TMPDIR/swtpm"
	log=$BATS_TEST_TMPDIR/debian.log
	vm_boot "$log" --initrd "$BATS_TEST_TMPDIR/debian.img" --disk "$img" --mem 1024 --timeout 600 \
		--append "root=/dev/vda security=selinux systemd.show_status=error hardinit.boot.failure_action=poweroff" \
		-- -snapshot "${VM_TPM_ARGS[@]}"
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_line "$log" SYSTEMD "state=running"
	vm_assert_section_lacks "$log" SYSTEMD "failed:"
	vm_assert_section_contains "$log" REPORT "ima policy applied"
	vm_assert_section_contains "$log" REPORT "measure handoff ok"
	vm_assert_section_contains "$log" AUDIT "ok    tpm pcr $PCR (sha256)"
	vm_assert_section_line "$log" AUDIT "audit-exit=0"
}

# hardinit restricts _ima and takes write and setattr from it
# once the certificate is in. A root process after the boot tries every
# way the kernel offers; the errors are the kernel's own (the permission
# check comes before the restriction: EACCES). The name lookup IMA does
# ("_ima" via request_key) is fixed at the first signature checked: here
# hardinit's exec of init, so the attacker's own "_ima" (in its session
# keyring or in place of hardinit's) is never consulted.
@test "appraisal: the _ima keyring takes no later key by any path, and its key still verifies signed files" {
	local log=$BATS_TEST_TMPDIR/appraise.log
	vm_boot "$log" --initrd "$MDIR/appraise/initrd.img" --disk "$MDIR/appraise/root.img" --append "$SEL"
	vm_assert_done "$log"
	vm_assert_section_contains "$log" APPRAISE "ima keyring ok _ima restricted, perm 0b0b0000, 1 certificates"
	vm_assert_section_contains "$log" APPRAISE "ima appraise_mode ok enforce (no ima_appraise= word), 1 appraise rules"
	# Appraisal works: the signed file runs, the unsigned one does not.
	vm_assert_section_line "$log" APPRAISE "exec_good=ok"
	vm_assert_section_line "$log" APPRAISE "exec_unsigned=refused"
	vm_assert_section_line "$log" APPRAISE "found=ok"
	vm_assert_section_contains "$log" APPRAISE "describe=keyring;0;0;0b0b0000;_ima"
	vm_assert_section_line "$log" APPRAISE "keys_before=1"
	local k
	for k in add_key add_keyring session_add_key link move setperm chown restrict clear unlink_cert \
		revoke_cert setperm_cert; do
		vm_assert_section_line "$log" APPRAISE "$k=EACCES"
	done
	# The attacker's own steps did work: the refusals are _ima's.
	vm_assert_section_line "$log" APPRAISE "join_session=ok"
	vm_assert_section_line "$log" APPRAISE "link_user_into_session=ok"
	vm_assert_section_line "$log" APPRAISE "session_finds_ima=yes"
	vm_assert_section_line "$log" APPRAISE "own_key=ok"
	vm_assert_section_line "$log" APPRAISE "keys_after=1"
	vm_assert_section_line "$log" APPRAISE "exec_direct=EACCES"
	vm_assert_section_line "$log" APPRAISE "session_fake_key=ok"
	vm_assert_section_line "$log" APPRAISE "session_search_finds_fake=yes"
	vm_assert_section_line "$log" APPRAISE "exec_session=EACCES"
	vm_assert_section_line "$log" APPRAISE "unlink_ima_from_user=ok"
	vm_assert_section_line "$log" APPRAISE "user_fake_key=ok"
	vm_assert_section_line "$log" APPRAISE "exec_user=EACCES"
	vm_assert_section_line "$log" APPRAISE "exec_good_after=ok"
}

# ima_appraise=log would leave the appraise rules a log line.
@test "appraisal: ima-appraise=log under [ima] require takes the failure action with one clear line" {
	local log=$BATS_TEST_TMPDIR/appraise-log.log
	vm_boot "$log" --initrd "$MDIR/appraise/initrd.img" --disk "$MDIR/appraise/root.img" \
		--append "$SEL ima-appraise=log hardinit.ima.require=yes"
	vm_assert_log_contains "$log" "IMA: the kernel command line says ima_appraise=log, so the kernel only logs"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	[ "$(vm_exit_reason "$log")" = poweroff ]
	vm_assert_log_lacks "$log" "=== BEGIN APPRAISE ==="
}
