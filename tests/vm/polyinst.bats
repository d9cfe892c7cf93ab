#!/usr/bin/env bats
# Polyinstantiated /tmp and /var/tmp end to end, in QEMU with Debian's 6.12
# kernel: hardinit prepares the instance parents (tests/vm/mounts_tty.bats
# checks that part alone), then Debian's own pam_namespace (linux-pam 1.5.2,
# copied with runuser and its libraries into the test root by
# tests/vm/pam-root.bash) gives alice and bob each their own /tmp and
# /var/tmp, and root, exempt in namespace.conf, sees neither.
#
# Two boots of the same root (a fresh copy of one image each, booted rw so
# /var/tmp/tmp-inst can be created on the root file system; /tmp is
# hardinit's tmpfs):
#   plain    the kernel's default LSM (AppArmor): no SELinux labels
#   selinux  security=selinux, Debian's refpolicy, permissive: the same
#            sessions, and the parents' labels (security.selinux, read raw
#            by tests/probe/selinux_label) compared with the label the
#            policy gives them, worked out on the host from the same
#            file_contexts and policy.
#
# The guest's truth: stat, cat and mountinfo from the probe script and from
# scripts run inside the users' PAM sessions, never hardinit's report alone.

# budget: 30 s

load lib
load pam-root

FAIL="hardinit.boot.failure_action=poweroff"
APPEND="root=/dev/vda rw $FAIL"
POLICY=/etc/selinux/default/policy/policy.33
FC=/etc/selinux/default/contexts/files/file_contexts
# How long a session waits for the other side of the propagation check
# (tenths of a second).
WAIT_TENTHS=300

selinux_available() {
	[[ -f $POLICY && -f $FC ]] && command -v setfiles >/dev/null && command -v matchpathcon >/dev/null
}

# Scripts the users run inside their PAM sessions (runuser -u USER).
write_user_scripts() {
	local dir=$1
	cat >"$dir/probe/user-write" <<-'EOF'
		#!/bin/busybox sh
		me=$(id -un)
		echo "$me" >/tmp/x && echo "$me" >/var/tmp/x && echo "$me wrote uid=$(id -u)"
	EOF
	cat >"$dir/probe/user-read" <<-'EOF'
		#!/bin/busybox sh
		me=$(id -un)
		echo "$me tmp=$(cat /tmp/x 2>&1) vartmp=$(cat /var/tmp/x 2>&1)"
		echo "$me ls-tmp=$(ls -A /tmp | tr '\n' ' ')"
		echo "$me ls-vartmp=$(ls -A /var/tmp | tr '\n' ' ')"
		# The session's mounts: the instance bound over each polydir, and
		# / as pam_namespace left it (rslave when it found it shared).
		awk -v me="$me" '$5 == "/" || $5 == "/tmp" || $5 == "/var/tmp" {
			opt = ""
			for (i = 7; $i != "-"; i++) opt = opt " " $i
			print me " mount " $5 " root=" $4 opt
		}' /proc/self/mountinfo
	EOF
	# Started before root mounts something: a mount root makes later must
	# still reach the session (the reason / is shared).
	cat >"$dir/probe/user-wait" <<-EOF
		#!/bin/busybox sh
		touch /tmp/ready
		i=0
		while [ ! -e /run/go ] && [ \$i -lt $WAIT_TENTHS ]; do sleep 0.1; i=\$((i + 1)); done
		line=\$(awk '\$5 == "/mnt"' /proc/self/mountinfo)
		echo "\$(id -un) late-mount=\${line#* - }"
	EOF
	chmod 0755 "$dir/probe/user-write" "$dir/probe/user-read" "$dir/probe/user-wait"
}

write_probe() {
	vm_probe_script "$1" <<-EOF
		#!/bin/busybox sh
		session() {
			runuser -u "\$1" -- /bin/busybox sh "\$2" 2>&1
			echo "\$1 status=\$?"
		}
		echo "=== BEGIN PARENTS ==="
		stat -c '%n %a %u:%g %F' /tmp/tmp-inst /var/tmp/tmp-inst 2>&1
		echo "=== END PARENTS ==="
		echo "=== BEGIN LABELS ==="
		/probe/selinux_label /tmp /tmp/tmp-inst /var/tmp /var/tmp/tmp-inst
		echo "=== END LABELS ==="
		echo "=== BEGIN WRITE ==="
		session alice /probe/user-write
		session bob /probe/user-write
		echo "=== END WRITE ==="
		echo "=== BEGIN READ ==="
		session alice /probe/user-read
		session bob /probe/user-read
		echo "=== END READ ==="
		echo "=== BEGIN ROOTVIEW ==="
		for f in /tmp/x /var/tmp/x; do
			if [ -e "\$f" ]; then echo "root \$f=\$(cat "\$f")"; else echo "root \$f=absent"; fi
		done
		echo "root ls-tmp=\$(ls -A /tmp | tr '\n' ' ')"
		for p in /tmp /var/tmp; do
			for u in alice bob; do
				echo "root \$p/tmp-inst/\$u/x=\$(cat "\$p/tmp-inst/\$u/x" 2>&1)"
			done
		done
		stat -c '%n %a %u:%g %F' /tmp/tmp-inst /var/tmp/tmp-inst 2>&1
		/probe/selinux_label /tmp/tmp-inst/alice /var/tmp/tmp-inst/alice
		echo "=== END ROOTVIEW ==="
		echo "=== BEGIN LATEMOUNT ==="
		rm -f /run/go
		runuser -u alice -- /bin/busybox sh /probe/user-wait 2>&1 &
		pid=\$!
		i=0
		while [ ! -e /tmp/tmp-inst/alice/ready ] && [ \$i -lt $WAIT_TENTHS ]; do sleep 0.1; i=\$((i + 1)); done
		mount -t tmpfs -o size=1m latemount /mnt && echo "root mounted /mnt"
		touch /run/go
		wait \$pid
		echo "alice status=\$?"
		umount /mnt
		echo "=== END LATEMOUNT ==="
	EOF
}

stage_root() {
	local dir=$1
	rm -rf "$dir" && mkdir -p "$dir"
	vm_stage_root "$dir"
	pam_stage_root "$dir"
	write_user_scripts "$dir"
	write_probe "$dir"
	if selinux_available; then
		mkdir -p "$dir/etc/selinux"
		cp -a /etc/selinux/default "$dir/etc/selinux/"
		printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$dir/etc/selinux/config"
		vm_selinux_label "$dir"
	fi
}

# baseline.conf with /tmp as a 64 MiB tmpfs; polyinstantiation and shared
# propagation set explicitly (they are baseline's defaults today).
make_config() {
	local out=$1 kv key
	cp "$HARDINIT_SRC/config/baseline.conf" "$out"
	for kv in "tmp_size = 64M" "polyinstantiate = yes" "shared = yes" "polydirs = /tmp /var/tmp"; do
		key=${kv%% =*}
		grep -q "^$key = " "$out" || { echo "make_config: no key $key in baseline.conf" >&2; return 1; }
		sed -i "s|^$key = .*|$kv|" "$out"
	done
	"$HARDINIT_SRC/build/hardinit" check-config "$out" >&2
}

# Each boot gets a fresh copy: the guest writes to its root (rw).
boot() {
	local name=$1
	shift
	cp --sparse=always "$PI_DIR/root.img" "$PI_DIR/$name.img"
	vm_boot "$PI_DIR/$name.log" --initrd "$PI_DIR/initrd.img" --disk "$PI_DIR/$name.img" \
		--append "$APPEND $*" || true
	rm -f "$PI_DIR/$name.img"
}

setup_file() {
	local dir
	dir=$(vm_cache_dir)/polyinst
	mkdir -p "$dir"
	export PI_DIR=$dir
	stage_root "$dir/root"
	vm_rootfs "$dir/root.img" "$dir/root"
	make_config "$dir/hardinit.conf"
	vm_initramfs "$dir/initrd.img" --config "$dir/hardinit.conf"
	boot plain
	if selinux_available; then
		boot selinux security=selinux
	fi
}

# The label the policy gives directory PATH when PID 1 creates it: its
# file_contexts entry; when that is <<none>> (Debian's refpolicy says so for
# everything below /tmp and /var/tmp: "keep what it was created with"), the
# label the kernel computes for a new directory: the creator's user, role
# object_r, level s0 (Debian's refpolicy has no MLS categories), and the
# type of a type_transition rule for the creator's domain on the parent's
# type, else the parent's type. The creator is hardinit, still in kernel_t
# (a process changes domain only on exec, and hardinit execs nothing before
# the real init).
policy_dir_label() {
	local path=$1 want parent ptype ttype
	want=$(matchpathcon -n -f "$FC" -m dir "$path") || return 1
	if [[ $want != "<<none>>" ]]; then
		echo "$want"
		return 0
	fi
	parent=$(policy_dir_label "$(dirname "$path")") || return 1
	ptype=$(cut -d: -f3 <<<"$parent")
	ttype=$ptype
	if command -v sesearch >/dev/null; then
		# "type_transition kernel_t tmp_t:dir T;" or with a name: "... T NAME;"
		local rule
		rule=$(sesearch -T -s kernel_t -t "$ptype" -c dir "$POLICY" | tr -d ';"' |
			awk -v base="$(basename "$path")" '$1 == "type_transition" && (NF == 4 || $5 == base) { print $4 }' |
			tail -n 1)
		[[ -n $rule ]] && ttype=$rule
	fi
	echo "system_u:object_r:$ttype:s0"
}

@test "plain: the boot completes; hardinit reports both instance parents created" {
	log=$PI_DIR/plain.log
	vm_assert_done "$log"
	vm_assert_section_contains "$log" REPORT "/tmp/tmp-inst 0000 root:root"
	vm_assert_section_contains "$log" REPORT "/var/tmp/tmp-inst 0000 root:root"
	vm_assert_section_lacks "$log" REPORT " wrong "
}

@test "plain: the instance parents are mode 000 root:root before and after the sessions" {
	log=$PI_DIR/plain.log
	vm_assert_section_line "$log" PARENTS "/tmp/tmp-inst 0 0:0 directory"
	vm_assert_section_line "$log" PARENTS "/var/tmp/tmp-inst 0 0:0 directory"
	vm_assert_section_line "$log" ROOTVIEW "/tmp/tmp-inst 0 0:0 directory"
	vm_assert_section_line "$log" ROOTVIEW "/var/tmp/tmp-inst 0 0:0 directory"
}

@test "plain: alice and bob open pam_namespace sessions and write /tmp/x and /var/tmp/x" {
	log=$PI_DIR/plain.log
	vm_assert_section_line "$log" WRITE "alice wrote uid=1001"
	vm_assert_section_line "$log" WRITE "alice status=0"
	vm_assert_section_line "$log" WRITE "bob wrote uid=1002"
	vm_assert_section_line "$log" WRITE "bob status=0"
}

@test "plain: each user reads back only their own /tmp/x and /var/tmp/x" {
	log=$PI_DIR/plain.log
	vm_assert_section_line "$log" READ "alice tmp=alice vartmp=alice"
	vm_assert_section_line "$log" READ "bob tmp=bob vartmp=bob"
	# Nothing else in their instances: not the other's file, not tmp-inst.
	vm_assert_section_line "$log" READ "alice ls-tmp=x "
	vm_assert_section_line "$log" READ "bob ls-tmp=x "
	vm_assert_section_line "$log" READ "alice ls-vartmp=x "
	vm_assert_section_line "$log" READ "bob ls-vartmp=x "
}

@test "plain: root (exempt) sees no x; the files live in the users' instances" {
	log=$PI_DIR/plain.log
	vm_assert_section_line "$log" ROOTVIEW "root /tmp/x=absent"
	vm_assert_section_line "$log" ROOTVIEW "root /var/tmp/x=absent"
	vm_assert_section_line "$log" ROOTVIEW "root ls-tmp=tmp-inst "
	vm_assert_section_line "$log" ROOTVIEW "root /tmp/tmp-inst/alice/x=alice"
	vm_assert_section_line "$log" ROOTVIEW "root /tmp/tmp-inst/bob/x=bob"
	vm_assert_section_line "$log" ROOTVIEW "root /var/tmp/tmp-inst/alice/x=alice"
	vm_assert_section_line "$log" ROOTVIEW "root /var/tmp/tmp-inst/bob/x=bob"
}

@test "plain: in a session the instances are bound over the polydirs and / is rslave" {
	log=$PI_DIR/plain.log
	# mountinfo field 4 is the mount's root within its file system.
	vm_assert_section_contains "$log" READ "alice mount /tmp root=/tmp-inst/alice "
	vm_assert_section_contains "$log" READ "alice mount /var/tmp root=/var/tmp/tmp-inst/alice "
	vm_assert_section_contains "$log" READ "bob mount /tmp root=/tmp-inst/bob "
	# pam_namespace saw hardinit's shared / and made its namespace a slave.
	vm_assert_section_contains "$log" READ "alice mount / root=/ master:"
	run vm_section "$log" MOUNTINFO
	[[ $(awk '$5 == "/"' <<<"$output") == *" shared:"* ]] || { echo "/ not shared in root's namespace"; false; }
}

@test "plain: a mount root makes after a session started reaches that session" {
	log=$PI_DIR/plain.log
	vm_assert_section_line "$log" LATEMOUNT "root mounted /mnt"
	vm_assert_section_contains "$log" LATEMOUNT "alice late-mount=tmpfs latemount "
	vm_assert_section_line "$log" LATEMOUNT "alice status=0"
}

@test "plain: without SELinux the parents carry no label" {
	log=$PI_DIR/plain.log
	vm_assert_section_line "$log" LABELS "/tmp/tmp-inst -ENODATA"
}

@test "selinux: the boot completes in permissive mode with the policy loaded" {
	selinux_available || skip "selinux-policy-default or policycoreutils not installed"
	log=$PI_DIR/selinux.log
	vm_assert_done "$log"
	vm_assert_section_contains "$log" REPORT "/tmp/tmp-inst 0000 root:root"
	vm_assert_section_contains "$log" REPORT "$POLICY"
	vm_assert_log_lacks "$log" "continuing without a policy"
}

@test "selinux: the instance parents carry the label the policy gives them" {
	selinux_available || skip "selinux-policy-default or policycoreutils not installed"
	log=$PI_DIR/selinux.log
	local p want
	for p in /tmp /tmp/tmp-inst /var/tmp /var/tmp/tmp-inst; do
		want=$(policy_dir_label "$p")
		[[ $want == *:*:*:* ]] || { echo "no policy label for $p on the host: '$want'"; false; }
		vm_assert_section_line "$log" LABELS "$p $want"
	done
	vm_assert_section_line "$log" PARENTS "/tmp/tmp-inst 0 0:0 directory"
	vm_assert_section_line "$log" PARENTS "/var/tmp/tmp-inst 0 0:0 directory"
}

@test "selinux: the pam_namespace sessions isolate alice and bob there too" {
	selinux_available || skip "selinux-policy-default or policycoreutils not installed"
	log=$PI_DIR/selinux.log
	vm_assert_section_line "$log" WRITE "alice status=0"
	vm_assert_section_line "$log" WRITE "bob status=0"
	vm_assert_section_line "$log" READ "alice tmp=alice vartmp=alice"
	vm_assert_section_line "$log" READ "bob tmp=bob vartmp=bob"
	vm_assert_section_line "$log" ROOTVIEW "root /tmp/x=absent"
	vm_assert_section_line "$log" ROOTVIEW "root /var/tmp/x=absent"
	vm_assert_section_contains "$log" LATEMOUNT "alice late-mount=tmpfs latemount "
}
