# Shared by the arm64 suites (arm64.bats, arm64_debian.bats): reading the
# guest's ARM64 probe section.

LAST_CAP=40   # both arm64 kernels (6.1 and 6.12)

# A key's value in the ARM64 section. Leading blanks are skipped: the
# character root's TIOCSTI pushes into ttyAMA0 is echoed by the tty onto
# the console, ahead of the line that reports it.
guest() {
	vm_section "$1" ARM64 | sed -n "s|^[[:blank:]]*$2=||p" | head -n1
}

expect() {
	local log=$1 key=$2 want=$3 got
	got=$(guest "$log" "$key")
	[[ $got == "$want" ]] || {
		echo "$key: guest reads '$got', expected '$want'"
		vm_section "$log" ARM64
		return 1
	}
}

# The bounding set's hex mask with the given capabilities dropped.
capbnd_without() {
	local mask=$(((1 << (LAST_CAP + 1)) - 1)) c
	for c in "$@"; do
		mask=$((mask & ~(1 << c)))
	done
	printf '%016x\n' "$mask"
}
