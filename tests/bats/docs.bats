#!/usr/bin/env bats
# The docs' examples, judged by the code they describe: every hardinit.*
# kernel command-line word in README.md, the man pages and
# tests/vm/README.md is fed to the built hardinit's own command-line parser
# (dry-run), and every option of an example command line of hardinit,
# hardinit-mkinitramfs or update-hardinit is one that program's --help names.
# A wrong example (hardinit.failure=poweroff, a renamed option) fails here.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO HARDINIT="$REPO/build/hardinit"
	make -s -C "$REPO" build/hardinit >&2
}

doc_files() {
	printf '%s\n' "$REPO/README.md" "$REPO"/man/*.[0-9] "$REPO/tests/vm/README.md"
}

# FILE as plain text: roff's font changes and escapes removed, continued
# lines (a trailing \ in Markdown, \e in roff) joined.
plain() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/\\&//g' -e 's/\\e$/\\/' \
		-e 's/\\ / /g' "$1" | sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*/ /;ba' -e '}'
}

# The hardinit.* words of FILE, one a line; a trailing '.' or ',' is the
# sentence's.
doc_words() {
	plain "$1" | grep -oE 'hardinit\.[a-z][A-Za-z0-9_.,-]*(=("[^"]*"|[^][:space:]`"'\''(){}<>]*))?' |
		sed -E 's/[.,]+$//'
}

# Why WORD is not what hardinit's command-line parser takes, or nothing.
#   hardinit.debug                 the one flag
#   hardinit.conf|img|prom|install[-...]  file names (hardinit.conf(5), hardinit.img-KVER, ...)
#   hardinit.SECTION.KEY=VALUE     applied by dry-run as written
#   hardinit.SECTION.KEY[=]        a key named in prose: the parser knows it
word_problem() {
	local w=$1 name=${1%%=*} out why
	name=${name#hardinit.}
	if [[ $w != *=* && $name != *.* ]]; then
		case ${name%%-*} in
		debug | conf | img | prom | install) return 0 ;;
		*) echo "$w: neither hardinit.debug, a file name nor hardinit.SECTION.KEY=VALUE"; return 0 ;;
		esac
	fi
	mkdir -p "$BATS_TEST_TMPDIR/root"
	printf '[boot]\nfailure_action = halt\n' >"$BATS_TEST_TMPDIR/w.conf"
	out=$("$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/w.conf" --root "$BATS_TEST_TMPDIR/root" \
		--cmdline "root=/dev/vda $w" 2>&1) || :
	why=$(grep -m1 'error: config:' <<<"$out" | sed 's/^.*error: config: //') || :
	if [[ $w == *=?* ]]; then
		[[ $out == *"override ${w//\"/} applied"* && -z $why ]] || echo "$w: ${why:-not applied by dry-run}"
	elif grep -qE 'unknown section|unknown key|not a SECTION\.KEY' <<<"$out"; then
		echo "$w: $why"
	fi
}

# Every problem of the words of the files given, one a line.
check_words() {
	local f w
	for f in "$@"; do
		while IFS= read -r w; do
			word_problem "$w" | sed "s|^|${f#"$REPO"/}: |"
		done < <(doc_words "$f" | sort -u)
	done
}

@test "docs: every hardinit.* word in README.md, the man pages and tests/vm/README.md is taken by hardinit" {
	local files n=0 f
	mapfile -t files < <(doc_files)
	# The words are really found: the examples of hardinit.conf(5) and the VM template.
	for f in "${files[@]}"; do n=$((n + $(doc_words "$f" | grep -c '=' || :))); done
	echo "words with a value: $n"
	[ "$n" -ge 10 ]
	doc_words "$REPO/tests/vm/README.md" | grep -qx 'hardinit.boot.failure_action=poweroff'
	run check_words "${files[@]}"
	echo "$output"
	[ -z "$output" ]
}

@test "docs: the word check refuses a wrong example (the old VM template's hardinit.failure=poweroff)" {
	local f=$BATS_TEST_TMPDIR/bad.md
	printf '%s\n' '--append "root=LABEL=testroot hardinit.failure=poweroff"' \
		'.BR hardinit.selinux.enforce=1 ,' 'Use `hardinit.debgu`.' \
		'.BR hardinit.boot.failure_action=sometimes .' \
		'a key in prose: \fBhardinit.boot.nokey=\fR.' >"$f"
	run check_words "$f"
	echo "$output"
	[[ $output == *"hardinit.failure=poweroff: "*"not a SECTION.KEY name"* ]]
	[[ $output == *"hardinit.selinux.enforce=1: "*"unknown key 'enforce'"* ]]
	[[ $output == *"hardinit.debgu: neither hardinit.debug"* ]]
	[[ $output == *"hardinit.boot.failure_action=sometimes: "*"invalid value"* ]]
	[[ $output == *"hardinit.boot.nokey=: "*"unknown key 'nokey'"* ]]
	[ "$(wc -l <<<"$output")" -eq 5 ]
}

# The example command lines of FILE (Markdown code blocks, roff .nf/.fi
# blocks) that run PROG, continued lines joined.
doc_commands() {
	local file=$1 prog=$2
	if [[ $file == *.md ]]; then
		plain "$file" | awk '/^```/{f=!f; next} f'
	else
		plain "$file" | awk '/^\.nf/{f=1; next} /^\.fi/{f=0} f'
	fi | sed -E 's/^[[:space:]]*(sudo[[:space:]]+|# )?//' | grep -E "^$prog( |$)" || :
}

# Every option of an example command line that PROG's --help does not name.
check_commands() {
	local prog=$1 bin=$2 help f line opt sub
	shift 2
	help=$("$bin" --help 2>&1)
	for f in "$@"; do
		while IFS= read -r line; do
			line=${line%%#*}
			if [[ $prog == hardinit ]]; then
				sub=$(awk '{print $2}' <<<"$line")
				[[ -z $sub || $sub == -* ]] || grep -qE "^  $sub( |$)" <<<"$help" ||
					echo "${f#"$REPO"/}: $prog $sub: no such command in $prog --help"
			fi
			for opt in $(grep -oE '(^|[[ ])--?[a-z][a-z0-9-]*' <<<"$line" | tr -d '[ '); do
				grep -qE -- "(^|[^a-z-])$opt([^a-z0-9-]|$)" <<<"$help" ||
					echo "${f#"$REPO"/}: $prog $opt: not an option in $prog --help"
			done
		done < <(doc_commands "$f" "$prog")
	done
}

@test "docs: every example command of hardinit, hardinit-mkinitramfs and update-hardinit uses options their --help names" {
	local files n
	mapfile -t files < <(doc_files)
	n=$(for f in "${files[@]}"; do doc_commands "$f" 'hardinit|hardinit-mkinitramfs|update-hardinit'; done | wc -l)
	echo "example command lines: $n"
	[ "$n" -ge 8 ]
	run check_commands hardinit "$HARDINIT" "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	run check_commands hardinit-mkinitramfs "$REPO/initramfs/hardinit-mkinitramfs" "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	run check_commands update-hardinit "$REPO/hooks/update-hardinit" "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	# The check can fail: a command and an option that do not exist.
	printf '```sh\nhardinit verify /etc/hardinit.conf\nhardinit audit --yaml\n```\n' >"$BATS_TEST_TMPDIR/bad.md"
	run check_commands hardinit "$HARDINIT" "$BATS_TEST_TMPDIR/bad.md"
	echo "$output"
	[[ $output == *"hardinit verify: no such command"* ]]
	[[ $output == *"hardinit --yaml: not an option"* ]]
}

# The config examples of the man pages: .nf/.fi blocks holding a [section].
# An include names the reader's own file: it becomes an empty one here.
config_examples() {
	local dir=$1 page
	for page in "$REPO"/man/*.[0-9]; do
		plain "$page" | awk -v dir="$dir" -v base="${page##*/}" '
			/^\.nf/ { f = 1; buf = ""; next }
			/^\.fi/ { if (f && buf ~ /(^|\n)\[[a-z]+\]/) { n++; file = dir "/" base "." n ".conf"; printf "%s", buf > file; close(file); print file } f = 0; next }
			f && !/^\.R[SE]/ { buf = buf $0 "\n" }'
	done
}

@test "docs: the config examples of the man pages are valid, and hardinit.conf(5)'s does what its text says" {
	local d=$BATS_TEST_TMPDIR/ex f files
	mkdir -p "$d"
	: >"$d/empty.conf"
	mapfile -t files < <(config_examples "$d")
	[ "${#files[@]}" -ge 1 ]
	for f in "${files[@]}"; do
		sed -i "s|^include = .*|include = $d/empty.conf|" "$f"
		run "$HARDINIT" check-config "$f"
		[ "$status" -eq 0 ] || { echo "${f##*/}: $output" >&2; return 1; }
	done
	# "With this file, hardinit.selinux.mode=permissive on the command line is
	# refused and logged, and hardinit.capabilities.drop=cap_sys_rawio is applied."
	f=$(grep -l '^lock_cmdline = yes' "${files[@]}" | head -n 1)
	[[ $f == */hardinit.conf.5.* ]]
	mkdir -p "$d/root"
	run "$HARDINIT" dry-run --config "$f" --root "$d/root" \
		--cmdline "root=/dev/vda hardinit.selinux.mode=permissive hardinit.capabilities.drop=cap_sys_rawio"
	echo "$output"
	[[ $output == *"hardinit.selinux.mode=permissive refused: it weakens the locked config"* ]]
	[[ $output == *"override hardinit.capabilities.drop=cap_sys_rawio applied"* ]]
}

# An example command line made runnable here: its placeholders (an output,
# a kernel, a key, a UUID, FILE...) replaced by this test's own, and
# nothing written outside $T. The replacements are the whole list: an
# example that needs another one fails the test below.
runnable() {
	local line=$1 uuid=0a1b2c3d-0000-4000-8000-000000000001
	line=${line%%#*}
	line=${line//\$(git log -1 --format=%ct)/0}
	line=${line//\[--json\]/--json}
	line=${line//\/path\/to\/unpacked-kernel/$KROOT}
	line=${line//\/var\/cache\/hardinit\/kernels\/6.12/$KROOT}
	line=$(sed -E "s/--kver [^ ]+/--kver $KVER/; s|--kernel [^ ]+|--kernel $KROOT/boot/vmlinuz-$KVER|;
		s/UUID=[.0-9a-f]*\\.\\.\\./UUID=$uuid/g; s| -o [^ ]+| -o $T/out.img|; s|--uki [^ ]+|--uki $T/out.efi|;
		s|--sign-key db.key|--sign-key $T/db.key|; s|--sign-cert db.pem|--sign-cert $T/db.pem|;
		s|--policy /etc/selinux/[^ ]+|--policy $T/policy.33|; s|/etc/hardinit.conf|$REPO/config/baseline.conf|;
		s| FILE| $REPO/config/baseline.conf|g; s|--format prometheus|--format prometheus --output $T/h.prom|;
		s|private-tmp alice /bin/sh|private-tmp nobody /bin/true|" <<<"$line")
	# The machine's own /lib/modules (this host has none): the cached kernel's.
	[[ $line != *hardinit-mkinitramfs* || $line == *--moddir* ]] || line+=" --moddir $KROOT"
	printf '%s\n' "$line"
}

@test "docs: every example command of hardinit and hardinit-mkinitramfs runs as written (placeholders aside)" {
	local T=$BATS_TEST_TMPDIR f line cmd rc out n=0
	export KROOT=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12 T
	[ -d "$KROOT/lib/modules" ] || skip "no 6.12 kernel in $KROOT (scripts/install-deps fetches it)"
	KVER=$(cd "$KROOT/lib/modules" && ls | head -n 1)
	export KVER hash=9b4332f63d3b62e3fa38037cb624dafd1942e3c9a4336e28fc95417d7eca8a2d size=1048576
	export PATH="$REPO/build:$REPO/initramfs:$PATH"
	openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=db -days 1 -keyout "$T/db.key" -out "$T/db.pem" 2>/dev/null
	printf '\x8c\xff\x7c\xf9\x08\x00\x00\x00SE Linux' >"$T/policy.33"
	local -a files
	mapfile -t files < <(doc_files)
	for f in "${files[@]}"; do
		while IFS= read -r line; do
			[[ $line == *" ... "* ]] && { echo "not runnable (an elided command): $line"; continue; }
			cmd=$(runnable "$line")
			n=$((n + 1))
			rc=0
			out=$(cd "$T" && unshare --mount --propagation private bash -c "$cmd" 2>&1) || rc=$?
			case $cmd in
			# audit on this host, which hardinit did not boot: 2, it cannot audit
			*"hardinit audit"*) [[ $rc == 2 && $out == *"/run/hardinit/config: cannot read"* || $rc == 0 || $rc == 1 ]] ;;
			*) [[ $rc == 0 ]] ;;
			esac || { echo "${f#"$REPO"/}: '$line' as '$cmd' exited $rc: $out"; return 1; }
		done < <(doc_commands "$f" 'hardinit|hardinit-mkinitramfs')
	done
	echo "example commands run: $n"
	[ "$n" -ge 12 ]
}

# The make targets the docs name as commands (`make demo`, `make install
# PREFIX=...` in backquotes, or a code line starting with make), one a
# line: the first word after "make" that is not an assignment.
doc_make_targets() {
	plain "$1" | grep -oE '(`make|^make)( [A-Z_]+=[^[:space:]`]*)* [a-z][a-z0-9-]*' |
		sed -E 's/^`?make( [A-Z_]+=[^[:space:]`]*)* //' | sort -u
}

@test "docs: every man page section the docs, the schemas, the scripts and --help cite exists" {
	local n=0 f cite page sec
	while IFS=: read -r f cite; do
		page=${cite%%(*}
		sec=${cite#*), }
		[[ -f $REPO/man/$page.${cite:${#page}+1:1} ]] || continue
		grep -qE "^\.SH \"?$sec" "$REPO/man/$page.${cite:${#page}+1:1}" ||
			{ echo "$f cites $cite: man/$page has no section $sec"; false; }
		n=$((n + 1))
	done < <(grep -oE '[a-z-]+\([0-9]\), [A-Z][A-Z]+( [A-Z]+)*' -r "$REPO/README.md" "$REPO/man" "$REPO/contrib" \
		"$REPO/prog/cli.c" "$REPO/initramfs/hardinit-mkinitramfs" | sed 's/ *$//')
	[ "$n" -ge 5 ]
}

@test "docs: every make target README.md, the man pages and tests/vm/README.md name is a rule of the Makefile" {
	local f t bad='' n=0
	for f in $(doc_files); do
		for t in $(doc_make_targets "$f"); do
			n=$((n + 1))
			grep -qE "^([^:=#[:space:]]+[[:space:]]+)*$t([[:space:]]+[^:=#[:space:]]+)*[[:space:]]*:([^=]|$)" \
				"$REPO/Makefile" || bad+=" ${f#"$REPO"/}:$t"
		done
	done
	# README names demo, check, bench, fuzz, install, deb and cross at least
	[ "$n" -ge 7 ]
	[ -z "$bad" ] || { echo "no such make target:$bad" >&2; false; }
	# the reader: commands, not prose
	[ "$(doc_make_targets <(printf 'run `make ARCH=arm64 cross` to make the tree\nmake demo  # x\n') |
		tr '\n' ' ')" = "cross demo " ]
}
