#!/usr/bin/env bats
# One home for each fact: what hardinit's C code knows, the
# builder and update-hardinit ask the binary (`hardinit limits`); what only
# they share is in initramfs/facts.sh; the docs name what the binary
# prints. A copy coming back fails here.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	make -s -C "$REPO" build/hardinit >&2
}

# The shell that ships: the builder, update-hardinit, the hooks and the
# package's scripts; facts.sh itself is the one home.
shipped_shell() {
	cd "$REPO" && printf '%s\n' initramfs/hardinit-mkinitramfs initramfs/hostonly.sh hooks/update-hardinit \
		hooks/postinst.d/hardinit hooks/postrm.d/hardinit hooks/install.d/50-hardinit.install \
		debian/postrm debian/postinst debian/rules
}

@test "onehome: no copy of the binary's limits or magic numbers in the shipped shell" {
	local pattern out name value files
	mapfile -t files < <(shipped_shell)
	# The numbers `hardinit limits` prints (in decimal and, for the magic,
	# in either byte order), but the paths, which are words of prose too.
	while IFS='=' read -r name value; do
		case $value in
		/*) continue ;;
		0x*) pattern="${value#0x}|$(sed -E 's/(..)(..)(..)(..)/\4 ?\3 ?\2 ?\1/' <<<"${value#0x}")" ;;
		# Small numbers (8, 128) are everywhere; their checks are the
		# builder's tests against a binary that prints others.
		[0-9][0-9][0-9][0-9]*) pattern="(^|[^0-9])$value([^0-9]|$)" ;;
		*) continue ;;
		esac
		# Comments aside, and the builder's own named limits (readonly
		# MAX_...=N, hostonly.sh's HO_MAX_...=N), which may happen to be the
		# same number.
		out=$(cd "$REPO" && grep -nE -i -- "$pattern" "${files[@]}" |
			grep -vE '^[^:]*:[0-9]*:[[:space:]]*(#|readonly ([A-Z]+_)?MAX_[A-Z_]+=[0-9]+ )') || :
		[[ -z $out ]] || { echo "$name=$value copied:"$'\n'"$out"; return 1; }
	done < <("$REPO/build/hardinit" limits)
}

@test "onehome: targets, compressions, profile names, kernel versions and the /boot names of others are only in facts.sh" {
	local p out files
	mapfile -t files < <(shipped_shell)
	for p in 'auto *\| *virtio *\| *xen' 'zstd *\| *gzip *\| *none' '== *gzip *\|\|' '== *virtio *\|\|' \
		'vmlinuz-\*? *\|? *vmlinux-' 'initrd\.img-\*? *\| *initramfs-' 'A-Za-z0-9_-\]\{1,64\}' \
		'A-Za-z0-9\._\+~-\]'; do
		out=$(cd "$REPO" && grep -nE -- "$p" "${files[@]}" | grep -v '^[^:]*:[0-9]*:[[:space:]]*#') || :
		[[ -z $out ]] || { echo "'$p' outside facts.sh:"$'\n'"$out"; return 1; }
	done
}

@test "onehome: hardinit(8) names every value hardinit limits prints, and the builder reads each" {
	local names doc
	names=$("$REPO/build/hardinit" limits | cut -d= -f1 | sort)
	[ "$(wc -l <<<"$names")" -ge 15 ]
	doc=$(sed -n '/^\.B limits$/,/^\.SH/{/^\.SH/d;s/NAME=VALUE//;p}' "$REPO/man/hardinit.8" |
		grep -oE '\b[A-Z][A-Z_]{4,}\b' | sort -u)
	[ "$names" = "$doc" ] || { diff <(echo "$names") <(echo "$doc"); return 1; }
	# The builder's table has all but PROFILE_DIR (update-hardinit and
	# audit use it, the image does not) and TPM_PCR_DEFAULT (the docs'
	# and tests' PCR; the builder's prediction takes the config's).
	local n
	for n in $names; do
		[[ $n == PROFILE_DIR || $n == TPM_PCR_DEFAULT ]] && continue
		grep -qE "\[$n\]=(path|number|hex32)" "$REPO/initramfs/hardinit-mkinitramfs" ||
			{ echo "the builder does not read $n"; return 1; }
	done
}

@test "onehome: hardinit-mkinitramfs(8) gives the IMA certificate limits hardinit has" {
	local n bytes
	n=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_IMA_CERTS=//p')
	bytes=$("$REPO/build/hardinit" limits | sed -n 's/^MAX_IMA_CERT_BYTES=//p')
	grep -qF "(repeatable, at most $n, each at most $((bytes / 1024)) KiB)" "$REPO/man/hardinit-mkinitramfs.8"
}

# hi_report_status_names of init/report.c, one word a line, sorted.
status_table() {
	sed -n '/^const char \*const hi_report_status_names/,/^};/p' "$REPO/init/report.c" |
		grep -oE '\] = "[a-z]+"' | grep -oE '[a-z]+' | sort
}

@test "onehome: hardinit(8)'s report statuses are hi_report_status_names, no more, no fewer" {
	local table doc
	table=$(status_table)
	[ "$(wc -l <<<"$table")" -ge 10 ]
	doc=$(sed -n '/Statuses: /,/report\.txt has the same/p' "$REPO/man/hardinit.8" | tr '\n' ' ' |
		sed 's/.*Statuses: //; s/report\.txt has the same.*//; s/and a few stage-specific ones//' |
		grep -oE '[a-z]+' | sort)
	[ "$table" = "$doc" ] || { diff <(echo "$table") <(echo "$doc"); return 1; }
}

@test "onehome: every status a stage gives hi_report_add is in hi_report_status_names" {
	local table used w
	table=$(status_table)
	used=$(python3 "$REPO/tests/tools/report-statuses.py" "$REPO")
	[ "$(wc -l <<<"$used")" -ge 10 ]
	while IFS= read -r w; do
		[[ $w != EXPRESSION* ]] || { echo "a status that is not a literal: ${w#EXPRESSION }"; return 1; }
		grep -qx -- "$w" <<<"$table" || { echo "status '$w' is not in hi_report_status_names"; return 1; }
	done <<<"$used"
	# The scan sees a wrong word: verity's old "fail" would be caught.
	mkdir -p "$BATS_TEST_TMPDIR/t/stages"
	printf 'void f(void) { hi_report_add(&b->rep, "verity", "status",\n x ? "ok" : "fail", "%%s", s); }\n' \
		>"$BATS_TEST_TMPDIR/t/stages/x.c"
	[ "$(python3 "$REPO/tests/tools/report-statuses.py" "$BATS_TEST_TMPDIR/t")" = $'fail\nok' ]
}

# A value of `hardinit limits`.
limit() {
	"$REPO/build/hardinit" limits | sed -n "s/^$1=//p"
}

# The PCR numbers after "PCR" in FILEs (roff's line breaks and font
# escapes between), one a line, sorted: "PCRs 0-23" is a range, not a PCR.
pcr_numbers() {
	cat -- "$@" | tr '\n' ' ' | grep -oE '\bPCR([[:space:]]|\\f[BIR])+[0-9]+\b' | grep -oE '[0-9]+$' | sort -un
}

# The PCRs the docs name for other facts: Secure Boot's 7, GRUB's command
# line 8 and files read 9, IMA's 10, a UKI's and systemd's boot phases' 11,
# a LUKS volume's identity's 15.
OTHER_PCRS=" 7 8 9 10 11 15 "

@test "onehome: no shipped profile restates the default measurement PCR: [tpm] pcr is hardinit's" {
	local pcr n out
	pcr=$(limit TPM_PCR_DEFAULT)
	[[ $pcr =~ ^[0-9]+$ ]]
	# A profile that sets pcr (to the default or another) is a second home.
	out=$(cd "$REPO" && grep -nE '^[[:space:]]*pcr[[:space:]]*=' config/*.conf) || :
	[[ -z $out ]] || { echo "a profile sets [tpm] pcr (hardinit's default is $pcr):"$'\n'"$out"; return 1; }
	# Nor names a measurement PCR in its comments.
	for n in $(pcr_numbers "$REPO"/config/*.conf); do
		[[ $OTHER_PCRS == *" $n "* ]] ||
			{ echo "a profile names PCR $n; the measurement PCR is hardinit's default ($pcr): name no number"; return 1; }
	done
	# The profiles that measure do it into the default: the builder's
	# prediction (hardinit predict, the config read as at boot) says so.
	local measuring=0
	for n in "$REPO"/config/*.conf; do
		grep -qE '^measure *= *yes' "$n" || continue
		"$REPO/build/hardinit" predict --config "$n" | grep -qx "  \"pcr\":$pcr," ||
			{ echo "$n: the predicted PCR is not $pcr"; return 1; }
		measuring=$((measuring + 1))
	done
	[ "$measuring" -ge 3 ]
}

@test "onehome: README.md, hardinit(8) and hardinit.conf(5) name the default measurement PCR hardinit limits prints" {
	local pcr n nums
	pcr=$(limit TPM_PCR_DEFAULT)
	[[ $pcr =~ ^[0-9]+$ ]]
	cd "$REPO"
	# Every "PCR N" is the measurement PCR or one of the other facts.
	nums=$(pcr_numbers README.md man/hardinit.8 man/hardinit.conf.5)
	grep -qx "$pcr" <<<"$nums" || { echo "no doc names PCR $pcr"; return 1; }
	for n in $nums; do
		[[ $n == "$pcr" || $OTHER_PCRS == *" $n "* ]] ||
			{ echo "a doc names PCR $n; hardinit measures into $pcr:"; grep -nE "PCR( |$)" README.md man/hardinit.8 man/hardinit.conf.5 | grep -E "\b$n\b"; return 1; }
	done
	# README's two, and hardinit(8)'s remote attestation (the PCR the
	# prediction holds, quoted, and Keylime's tpm_policy).
	[ "$(tr '\n' ' ' <README.md | grep -oE "\bPCR $pcr\b" | wc -l)" -ge 2 ]
	sed -n '/^\.SH REMOTE ATTESTATION/,/^\.SH FILES/p' man/hardinit.8 >"$BATS_TEST_TMPDIR/attest"
	[ "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/attest" | grep -oE "\bPCR $pcr\b" | wc -l)" -ge 3 ]
	grep -qF "{\"$pcr\": [\"VALUE\"]}" "$BATS_TEST_TMPDIR/attest"
	[ "$(grep -oE '\{"[0-9]+": \["VALUE"\]\}' man/hardinit.8 | wc -l)" -eq 1 ]
	# hardinit.conf(5): the pcr entry's default.
	grep -qxF ".BR pcr \" = \" 8 .. 14 \" [$pcr]\"" man/hardinit.conf.5
}

# The literals naming a TPM node outside tpm/tpm_dev.c, as FILE: LITERAL.
tpm_nodes_outside_home() {
	python3 "$REPO/tests/tools/tpm-node-literals.py" "$1" | grep -v '^tpm/tpm_dev\.c:' | sed -E 's/:[0-9]+: /: /'
}

@test "onehome: only tpm/tpm_dev.c names a TPM node (which one, in which order, for what), and the scan sees one" {
	local out allowed node
	# block/luks_plan.c compares crypttab's tpm2-device= word with the
	# names a user writes there; it opens nothing (and block/ takes no
	# tpm/ header). Those names must stay the nodes tpm_dev.c opens.
	allowed='block/luks_plan.c: "/dev/tpmrm0"
block/luks_plan.c: "/dev/tpm0"
block/luks_plan.c: "tpm2-device=%s: hardinit uses the first TPM, /dev/tpm0 or /dev/tpmrm0 (tpm2-device=auto)"'
	out=$(tpm_nodes_outside_home "$REPO")
	[ "$out" = "$allowed" ] || { echo "a TPM node named outside tpm/tpm_dev.c (give it a TPM_USE_ there):"; diff <(echo "$allowed") <(echo "$out"); return 1; }
	for node in $(grep -oE '/dev/tpm[a-z]*[0-9]+' <<<"$allowed" | sort -u); do
		grep -qE "^#define NODE_[A-Z]+ +\"${node#/dev/}\"" "$REPO/tpm/tpm_dev.c" ||
			{ echo "block/luks_plan.c's crypttab word $node is not a node tpm/tpm_dev.c opens"; return 1; }
	done
	# The scan sees a node chosen elsewhere: a stage opening tpmrm0 by
	# itself, a message naming the order, the sysfs class.
	mkdir -p "$BATS_TEST_TMPDIR/t/stages" "$BATS_TEST_TMPDIR/t/prog"
	printf '%s\n' '/* "tpm0" in a comment is prose */' \
		'static int f(struct boot *b) { char p[64]; hi_boot_path(p, sizeof p, b->dev, "tpmrm0");' \
		' log_warn("no TPM at %s/tpm0", b->dev); return open("/dev/tpm0", O_RDWR); }' >"$BATS_TEST_TMPDIR/t/stages/x.c"
	printf '%s\n' 'const char *s = "%s/class/tpm/tpm0/pcr-sha256/%u", *t = "systemd-tpm2", *u = "tpm2-pcrs";' \
		>"$BATS_TEST_TMPDIR/t/prog/y.c"
	out=$(tpm_nodes_outside_home "$BATS_TEST_TMPDIR/t")
	[ "$out" = 'stages/x.c: "tpmrm0"
stages/x.c: "no TPM at %s/tpm0"
stages/x.c: "/dev/tpm0"
prog/y.c: "%s/class/tpm/tpm0/pcr-sha256/%u"' ] || { echo "the scan found: $out"; return 1; }
}

# The product's C files (what the binary is built of), one path a line.
product_c() {
	cd "$REPO" && ls init/*.[ch] crypto/*.[ch] arch/*.[ch] block/*.[ch] tpm/*.[ch] stages/*.[ch] prog/*.[ch]
}

# Lines of the product's C matching the extended regex $1, comments
# aside (a line starting with /* or *), as FILE:LINE:TEXT.
product_grep() {
	local files
	mapfile -t files < <(product_c)
	(cd "$REPO" && grep -nE -- "$1" "${files[@]}" | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*)') || :
}

@test "onehome: only init/clock.c reads a clock, sleeps or computes a deadline" {
	local out
	# A clock read, a sleep, or the timespec arithmetic of a private
	# deadline helper (tv_nsec carried into tv_sec).
	out=$(product_grep '\b(clock_gettime|clock_nanosleep|nanosleep|usleep|sleep)[[:space:]]*\(|tv_nsec[[:space:]]*[-+]=' |
		grep -v '^init/clock\.c:') || :
	[[ -z $out ]] || { echo "a clock, sleep or deadline outside init/clock.c (use its hi_clock_ns, hi_deadline_ts, hi_sleep_ms):"$'\n'"$out"; return 1; }
	# The scan sees one.
	[[ -n $(cd "$REPO" && grep -nE '\bnanosleep[[:space:]]*\(' init/clock.c) ]]
	[[ -n $(cd "$REPO" && grep -nE 'tv_nsec[[:space:]]*[-+]=' init/clock.c) ]]
}

@test "onehome: block/dev_wait.c is the one wait for a device; the other sleeps wait for something else" {
	local out allowed
	# Who sleeps: the device wait, and three waits that are not for a
	# device (the failure action's delay and a halt's forever, rootdelay=,
	# the event log's lock). A loop polling for a disk anywhere else is a
	# second device wait: give it block/dev_wait.h's.
	allowed='block/dev_wait.c
prog/main.c
prog/main.c
stages/measure.c
stages/root.c'
	out=$(product_grep '\bhi_sleep_ms[[:space:]]*\(' | grep -v '^init/clock\.[ch]:' | cut -d: -f1 | sort)
	[ "$out" = "$allowed" ] || { echo "hi_sleep_ms's callers changed:"; diff <(echo "$allowed") <(echo "$out"); return 1; }
	# The stages that wait for a device use it: root= (and verity's
	# devices through it), the LUKS volume's device, the LVM PVs.
	for f in stages/root.c stages/luks.c stages/lvm.c; do
		grep -q 'hi_dev_wait_next(' "$REPO/$f" || { echo "$f does not wait through block/dev_wait.h"; return 1; }
	done
	grep -q 'hi_root_device_wait(' "$REPO/stages/verity.c"
}

@test "onehome: only block/dm.c makes a /dev/mapper node (the luks, lvm and verity stages call hi_dm_mapper_node)" {
	local out f
	# mknod anywhere else is a second home; dm.c makes mapper/control
	# and mapper/NAME. The md arrays' own nodes (/dev/mdN, as mdadm
	# makes them) are block/md_assemble.c's, never under mapper/.
	out=$(product_grep '\bmknod(at)?[[:space:]]*\(' | grep -v -e '^block/dm\.c:' -e '^block/md_assemble\.c:') || :
	[[ -z $out ]] || { echo "a node made outside block/dm.c (use hi_dm_mapper_node):"$'\n'"$out"; return 1; }
	[ "$(cd "$REPO" && grep -cE '\bmknod[[:space:]]*\(' block/dm.c)" -eq 2 ]
	run ! grep -q 'mapper' "$REPO/block/md_assemble.c"
	for f in stages/luks.c stages/lvm.c stages/verity.c; do
		grep -q 'hi_dm_mapper_node(' "$REPO/$f" || { echo "$f makes its mapper node some other way"; return 1; }
	done
}

@test "onehome: only init/worker.c starts or joins a thread; every worker goes through its bounded join" {
	local out f
	out=$(product_grep '\bpthread_(create|join|timedjoin_np|tryjoin_np|detach)[[:space:]]*\(' |
		grep -v '^init/worker\.c:') || :
	[[ -z $out ]] || { echo "a thread started or joined outside init/worker.c (use hi_worker_start, hi_worker_join):"$'\n'"$out"; return 1; }
	[[ -n $(cd "$REPO" && grep -nE '\bpthread_create[[:space:]]*\(' init/worker.c) ]]
	# The six kinds: a TPM command, the unseal's warm-up and its salt,
	# the early sysctl writer, the measuring thread, the prefetch lookups.
	for f in tpm/tpm_dev.c tpm/tpm2_warmup.c tpm/tpm2_unseal.c stages/sysctl_start.c stages/measure_queue.c \
		stages/prefetch.c; do
		grep -q 'hi_worker_start(' "$REPO/$f" && grep -qE 'hi_worker_join(_until)?\(' "$REPO/$f" ||
			{ echo "$f: its thread is not a worker of init/worker.h, joined bounded"; return 1; }
	done
}
