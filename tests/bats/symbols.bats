#!/usr/bin/env bats
# hardinit shares one static binary with libselinux, libsepol, libcap-ng,
# PCRE2 and libargon2: every global symbol it defines carries the prefix
# hi_, so none can meet (or silently replace) a library's (copy_str,
# unescape_octal, format_uuid and set_boolean once could). nm on the
# objects of init/, crypto/, arch/, block/, tpm/, stages/ and prog/.

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

# The global symbols defined by every C file of the floors and prog/,
# compiled here (-O0: the names are what counts), so no stale object of a
# moved file can hide or add one.
defined_globals() {
	local c o
	for c in "$REPO"/{init,crypto,arch,block,tpm,stages,prog}/*.c; do
		o=${c#"$REPO"/}
		printf '%s\0%s\0' "$c" "$BATS_TEST_TMPDIR/${o//\//_}.o"
	done | xargs -0 -n 2 -P 2 sh -c 'gcc -std=gnu11 -O0 -I"$0"/init -I"$0"/crypto -I"$0"/arch -I"$0"/block -I"$0"/tpm \
		-I"$0"/stages -I"$0"/prog -DHARDINIT_VERSION="\"x\"" -DHARDINIT_PROFILE_DIR="\"x\"" -c "$1" -o "$2"' "$REPO" || return 1
	nm -g --defined-only "$BATS_TEST_TMPDIR"/*.o | awk 'NF == 3 { print $3 }' | sort -u
}

# Allowed without the prefix: main; the glibc fortify entry points that
# prog/compat.c defines for Debian's static archives (they must have glibc's
# names), and glibc's newer names of prog/glibc_names.c (__isoc23_*,
# fcntl64); PCRE2's JIT entry points that prog/pcre2_nojit.c replaces.
unprefixed() {
	grep -vE '^(hi_|main$|__[a-z_0-9]+_(chk|2)$|__isoc23_[a-z]+$|fcntl64$|_?pcre2_jit_[a-z_]+_8$)' || :
}

@test "symbols: every global symbol hardinit defines has the prefix hi_ (or is main, a fortify shim, a glibc name, a PCRE2 JIT stub)" {
	local all bad
	all=$(defined_globals)
	[ "$(wc -l <<<"$all")" -ge 300 ]
	grep -qx hi_stage_root <<<"$all"
	grep -qx __snprintf_chk <<<"$all"
	bad=$(unprefixed <<<"$all")
	[ -z "$bad" ] || { echo "without the prefix hi_: $bad"; return 1; }
}

@test "symbols: the check finds a global without the prefix" {
	printf 'int copy_str(void);\nint copy_str(void) { return 0; }\n' >"$BATS_TEST_TMPDIR/probe.c"
	gcc -c "$BATS_TEST_TMPDIR/probe.c" -o "$BATS_TEST_TMPDIR/probe.o"
	run unprefixed < <(nm -g --defined-only "$BATS_TEST_TMPDIR/probe.o" | awk 'NF == 3 { print $3 }')
	[ "$output" = copy_str ]
}
