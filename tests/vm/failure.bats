#!/usr/bin/env bats
# The failure action "shell": on a fatal error hardinit starts an emergency
# shell on the console (here a busybox the builder put in the initramfs),
# and reboots when it exits. The guest's console is driven through tmux, as
# a person at the serial console would type: the shell must really read and
# run what is typed.

# budget: 15 s

load lib

setup_file() {
	command -v tmux >/dev/null || skip "tmux missing (scripts/install-deps installs it)"
	local dir busybox
	dir=$(vm_cache_dir)/failure
	mkdir -p "$dir"
	export FDIR=$dir
	busybox=$(_vm_host_busybox)
	cat >"$dir/shell.conf" <<-'EOF'
		[boot]
		failure_action = shell
		failure_delay = 0
		root_timeout = 1
	EOF
	vm_initramfs "$dir/initrd.img" --config "$dir/shell.conf" --add "$busybox:/bin/busybox"
	mkdir -p "$dir/root" && vm_stage_root "$dir/root" && vm_rootfs "$dir/root.img" "$dir/root"
}

# Wait (bounded) until FILE contains TEXT.
wait_for() {
	local file=$1 text=$2 i
	for ((i = 0; i < 120; i++)); do
		grep -aq -- "$text" "$file" 2>/dev/null && return 0
		sleep 1
	done
	return 1
}

@test "failure_action=shell: an emergency shell on the console runs what is typed, and exiting it reboots" {
	log=$BATS_TEST_TMPDIR/shell.log
	session=hardinit-shell-$$
	tmux new-session -d -s "$session" -x 160 -y 40 \
		"bash -c 'source \"$HARDINIT_SRC/tests/vm/lib.bash\"; vm_boot \"$log\" --console --timeout 240 \
		--initrd \"$FDIR/initrd.img\" --disk \"$FDIR/root.img\" --append \"root=LABEL=nosuchlabel\"'"
	wait_for "$log" "starting emergency shell" || { tmux kill-session -t "$session"; vm_log_tail "$log"; false; }
	sleep 3
	tmux send-keys -t "$session" 'echo SHELL-$((6*7))' Enter
	wait_for "$log" "SHELL-42" || { tmux kill-session -t "$session"; vm_log_tail "$log"; false; }
	tmux send-keys -t "$session" 'exit' Enter
	for ((i = 0; i < 60; i++)); do
		tmux has-session -t "$session" 2>/dev/null || break
		sleep 1
	done
	tmux kill-session -t "$session" 2>/dev/null || true
	vm_assert_log_contains "$log" "did not appear within 1 s"
	vm_assert_log_contains "$log" "taking the failure action: shell"
	[ "$(vm_exit_reason "$log")" = reboot ]
}
