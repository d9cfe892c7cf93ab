# hardinit: a static PID 1 that hardens Linux before the real init runs.
#
#   make            build/hardinit (static, musl) and the test probes
#   make check      every test suite; ends with "N passed, N failed"
#   make demo       install what is missing, build, boot the demo in QEMU
#   make bench      boot timings and sizes (not a test)
#   make fuzz       every fuzz target to 10 million executions (FUZZ_RUNS)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        the Debian package, build/deb/hardinit_VERSION_ARCH.deb
#   make ARCH=arm64 the same for arm64 (cross from amd64 into build/arm64/;
#                   `make ARCH=arm64 all unit`; make check runs its unit
#                   tests under qemu-aarch64-static)

# The one place the version is written: debian/changelog's first line
# (hardinit --version, the report, the man pages and the package follow it).
VERSION    := ${shell sed -n '1s/^hardinit (\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null}
ifeq ($(VERSION),)
$(error no version: debian/changelog is missing or its first line is not "hardinit (VERSION) ...")
endif
# Every core unless a -j was given: make check's build is a few hundred
# independent compilations. Only the top make decides; a sub-make (make
# cross's) shares its job server, and sees no -j in MAKEFLAGS when parsing.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS  += -j$(shell nproc 2>/dev/null || echo 1)
endif
PREFIX     ?= /usr/local
DESTDIR    ?=
HOSTCC     ?= gcc

# ---- the target architecture --------------------------------------------
# ARCH is a Debian architecture name (amd64, arm64); it defaults to the
# build host's. Building for the host writes build/; building for another
# (a cross build) writes build/ARCH/ and runs its unit tests under qemu-user.
# The facts hardinit's C code needs per architecture are in arch/, not here.
HOST_ARCH  := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
ARCH       ?= $(HOST_ARCH)
override ARCH := $(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(ARCH)))
TRIPLET_amd64 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
MUSLARCH_amd64 := x86_64
MUSLARCH_arm64 := aarch64
QEMU_arm64 := qemu-aarch64-static
# -mbranch-protection=standard: PAC return addresses and BTI landing pads
# (hint instructions, no-ops on CPUs without them). The linker keeps the
# BTI and PAC property note on the binary only when every object linked
# carries it, so the arm64 build links only such objects (BTI_DIR, below);
# forcing the note (-z force-bti) instead would fault on the first
# indirect call into unmarked code (tests/bats/arm64.bats checks both).
ARCHFLAGS_arm64 := -mbranch-protection=standard
TRIPLET    := $(TRIPLET_$(ARCH))
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH): hardinit builds for amd64 and arm64)
endif
ifeq ($(ARCH),$(HOST_ARCH))
BUILD      := build
MUSLCC     ?= musl-gcc
else
BUILD      := build/$(ARCH)
# Debian's musl-dev:$(ARCH) ships the specs musl-gcc would use; the cross
# gcc takes them directly.
MUSLCC     ?= $(TRIPLET)-gcc -specs /usr/lib/$(MUSLARCH_$(ARCH))-linux-musl/musl-gcc.specs
CROSS      := $(ARCH)
endif
ARCHIVES   := /usr/lib/$(TRIPLET)
# The library headers (selinux, sepol, cap-ng.h, argon2.h, bearssl).
LIBINC     := /usr/include
ifeq ($(ARCH),arm64)
# scripts/build-bti (cached; minutes when cold, install-deps fills it):
# musl and libgcc's soft-float routines rebuilt from Debian's sources with
# branch protection, a specs file for that musl without gcc's
# crtbeginS/crtendS, and Debian 13's arm64 static libselinux, libsepol,
# libcap-ng, libpcre2-8, libargon2 and libbearssl (built with it, unlike
# Debian 12's) with their headers. tests/bats/arm64.bats reads the link map.
BTI_DIR    := $(shell scripts/build-bti)
ifeq ($(BTI_DIR),)
$(error scripts/build-bti failed (its message is above); it needs Debian's archive through apt)
endif
MUSLCC     := $(TRIPLET)-gcc -specs $(BTI_DIR)/musl-gcc.specs
ARCHIVES   := $(BTI_DIR)/lib
LIBINC     := $(BTI_DIR)/include
# The link map, for that test; no PT_GNU_RELRO: in a static musl program
# nothing applies it (musl's dynamic linker does, the kernel never), and
# aligning its end to arm64's 64 KiB pages padded the file by up to 64 KiB
# (Debian 13's libraries took the binary over 1 MiB).
HARDINIT_LDFLAGS := -Wl,-Map=$(BUILD)/hardinit.map -Wl,-z,norelro
endif
STATIC_LIBS := $(ARCHIVES)/libselinux.a $(ARCHIVES)/libsepol.a \
               $(ARCHIVES)/libcap-ng.a $(ARCHIVES)/libpcre2-8.a
# LUKS2's argon2 keyslots (block/luks2_keyslot.c): Debian's libargon2-dev.
STATIC_LIBS += $(ARCHIVES)/libargon2.a
# The TPM2 unseal's salted session (tpm/tpm2_session.c): P-256 ECDH,
# RSA-OAEP and AES from Debian's libbearssl-dev (constant-time code, no
# libc but memcpy and friends; its glibc fortify calls are prog/compat.c's).
STATIC_LIBS += $(ARCHIVES)/libbearssl.a

WARN       := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-format-truncation
COMMON     := -std=gnu11 $(WARN) -DHARDINIT_VERSION='"$(VERSION)"'
# The floors (shared/DESIGN.md section 3): each is compiled with the
# include paths of its own floor and those below it, never above, so an
# include the wrong way up fails the build (tests/bats/floors.bats).
# prog/ over stages/ over the machinery (block/, tpm/, arch/) over the
# primitives (crypto/) over init/. The machinery's families are peers: each
# sees only its own folder and the floors below, so block/ including a tpm/
# header (or the reverse) fails the build like an include from above.
FLOOR_init   := -Iinit
FLOOR_crypto := $(FLOOR_init) -Icrypto
FLOOR_arch   := $(FLOOR_crypto) -Iarch
FLOOR_block  := $(FLOOR_crypto) -Iblock
FLOOR_tpm    := $(FLOOR_crypto) -Itpm
FLOOR_stages := $(FLOOR_crypto) -Iarch -Iblock -Itpm -Istages
FLOOR_prog   := $(FLOOR_stages) -Iprog
# The include paths of a source file's floor (its top directory); the tests
# stand above every floor.
floor_inc   = $(FLOOR_$(firstword $(subst /, ,$(1))))
INC_ALL     := $(FLOOR_prog)
# musl must not see glibc's /usr/include: a private directory holds only the
# library and kernel uapi headers hardinit needs.
# MUSL_EXTRA: size options to try (bench/size builds with -flto).
MUSL_EXTRA ?=
MUSLFLAGS  := $(COMMON) $(ARCHFLAGS_$(ARCH)) -Os -static -isystem $(BUILD)/include \
              -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables $(MUSL_EXTRA)
MUSLLDFLAGS := -static -Wl,--gc-sections -s $(MUSL_EXTRA)

# The core: what runs as PID 1 and what the tests link (init/: boot,
# cmdline, config, report, log, fsutil, sink; stages/: every stage and the
# stage table). It is compiled once per flavour into a static library; the
# program around it (prog/: main, the CLI commands, audit, private-tmp, the
# link shims) is linked only into build/hardinit.
CORE_SRC   := $(sort $(wildcard init/*.c crypto/*.c arch/*.c block/*.c tpm/*.c stages/*.c))
PROG_SRC   := $(sort $(wildcard prog/*.c))
# crypto/: the primitives block/ and tpm/ share (hashes, HMAC, PBKDF2,
# base64, AF_ALG). block/: the machinery that turns disks into the root
# device (dm, LUKS2, LVM2).
HDR        := $(wildcard init/*.h crypto/*.h arch/*.h block/*.h tpm/*.h stages/*.h prog/*.h)
# The version is compiled in (HARDINIT_VERSION): a new changelog entry
# rebuilds what depends on the headers.
HDR        += debian/changelog

PROBES     := $(patsubst tests/probe/%.c,$(BUILD)/probe/%,$(wildcard tests/probe/*.c))

all: $(BUILD)/hardinit $(BUILD)/mkcpio $(PROBES)

# The builder's reproducible newc cpio writer runs on the build host.
$(BUILD)/mkcpio: initramfs/mkcpio.c
	@mkdir -p $(BUILD)
	$(HOSTCC) $(COMMON) -O2 $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@

# Which LIBINC the links point at: a build directory made with another
# (before scripts/build-bti, on arm64) relinks them and rebuilds.
LIBINC_STAMP := $(BUILD)/include/.libinc.$(shell printf '%s' '$(LIBINC)' | sha256sum | cut -c1-12)
$(LIBINC_STAMP):
	@mkdir -p $(BUILD)/include
	rm -f $(BUILD)/include/.libinc.*
	touch $@

$(BUILD)/include/.stamp: $(LIBINC_STAMP)
	@mkdir -p $(BUILD)/include
	ln -sfn $(LIBINC)/selinux $(BUILD)/include/selinux
	ln -sfn $(LIBINC)/sepol $(BUILD)/include/sepol
	ln -sfn $(LIBINC)/cap-ng.h $(BUILD)/include/cap-ng.h
	ln -sfn /usr/include/linux $(BUILD)/include/linux
	ln -sfn /usr/include/asm-generic $(BUILD)/include/asm-generic
	ln -sfn /usr/include/$(TRIPLET)/asm $(BUILD)/include/asm
	@touch $@

# libargon2's header for the musl build (its own link: a build directory
# made before it keeps its stamp).
$(BUILD)/include/argon2.h: $(BUILD)/include/.stamp
	ln -sfn $(LIBINC)/argon2.h $@

# BearSSL's headers for the musl build.
$(BUILD)/include/bearssl.h: $(BUILD)/include/.stamp
	ln -sfn $(LIBINC)/bearssl $(BUILD)/include/bearssl
	ln -sfn $(LIBINC)/bearssl.h $@

# One library per flavour: musl (the binary), host (unit tests), host with
# ASan+UBSan (unit tests again), clang with libFuzzer's instrumentation.
lib_objs = $(patsubst %.c,$(BUILD)/obj/$(1)/%.o,$(CORE_SRC))

$(BUILD)/obj/musl/%.o: %.c $(HDR) $(BUILD)/include/.stamp $(BUILD)/include/argon2.h $(BUILD)/include/bearssl.h
	@mkdir -p $(dir $@)
	$(MUSLCC) $(MUSLFLAGS) $(call floor_inc,$<) -c $< -o $@

$(BUILD)/obj/host/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTFLAGS) $(call floor_inc,$<) -c $< -o $@

$(BUILD)/obj/san/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTFLAGS) $(SANFLAGS) $(call floor_inc,$<) -c $< -o $@

$(BUILD)/obj/fuzz/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) -fsanitize=fuzzer-no-link,address,undefined $(call floor_inc,$<) -c $< -o $@

# The hashes are not what the fuzz targets explore: built at -O2 without
# libFuzzer's coverage or ASan (whose memcpy interceptor still checks the
# bytes a caller hands them), they no longer take most of fuzz_luks2's time.
FUZZ_HASH_OBJ := $(BUILD)/obj/fuzz/crypto/sha256.o $(BUILD)/obj/fuzz/crypto/sha512.o
$(FUZZ_HASH_OBJ): $(BUILD)/obj/fuzz/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) -O2 $(call floor_inc,$<) -c $< -o $@

$(BUILD)/lib/libhardinit-musl.a: $(call lib_objs,musl)
$(BUILD)/lib/libhardinit-host.a: $(call lib_objs,host)
$(BUILD)/lib/libhardinit-san.a: $(call lib_objs,san)
$(BUILD)/lib/libhardinit-fuzz.a: $(call lib_objs,fuzz)
$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The profile directory is compiled in from PREFIX (its one home): a build
# for another PREFIX (the package's /usr) must not reuse a binary made for
# the last one, so the prefix is a file the binary depends on, rewritten
# only when it changes.
PREFIX_STAMP := $(BUILD)/prefix.$(shell printf '%s' '$(PREFIX)' | sha256sum | cut -c1-12)
$(PREFIX_STAMP):
	@mkdir -p $(BUILD)
	rm -f $(BUILD)/prefix.*
	printf '%s\n' '$(PREFIX)' >$@

$(BUILD)/hardinit: $(PROG_SRC) $(HDR) $(BUILD)/lib/libhardinit-musl.a $(BUILD)/include/.stamp $(PREFIX_STAMP)
	$(MUSLCC) $(MUSLFLAGS) $(FLOOR_prog) -DHARDINIT_PROFILE_DIR='"$(PREFIX)/share/hardinit/profiles"' $(PROG_SRC) $(BUILD)/lib/libhardinit-musl.a -o $@ $(MUSLLDFLAGS) $(HARDINIT_LDFLAGS) $(STATIC_LIBS)
	@printf 'hardinit: %s is %s bytes (static, stripped)\n' $@ $$(stat -c %s $@)

$(BUILD)/probe/%: tests/probe/%.c $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/probe
	$(MUSLCC) $(MUSLFLAGS) $< -o $@ $(MUSLLDFLAGS)

# ---- host-side tests: unit tests, sanitizer build, fuzz targets ----------
HOSTFLAGS  := $(COMMON) -g -O1
HOSTLIBS   := -lselinux -lcap-ng
HOSTLIBS   += -largon2
HOSTLIBS   += -l:libbearssl.a
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZFLAGS  := $(COMMON) -Wno-unknown-warning-option -g -O1
# As OSS-Fuzz: code that must differ under fuzzing tests this (block/luks2_hdr.c).
FUZZFLAGS  += -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
UNIT_SAN   := $(patsubst tests/unit/%.c,$(BUILD)/unit-san/%,$(UNIT_SRC))
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
TEST_HDR   := $(wildcard tests/unit/*.h)

# The exporter of hardinit audit is the program's (prog/), not the core's;
# its unit test and fuzz target link its one self-contained source.
PROG_TESTED := prog/audit_export.c
$(BUILD)/unit/test_audit_export $(BUILD)/unit-san/test_audit_export $(BUILD)/unit/test_audit_export $(BUILD)/fuzz/fuzz_boot_json: EXTRA_SRC = $(PROG_TESTED)

$(BUILD)/unit/%: tests/unit/%.c $(TEST_HDR) $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-host.a
	@mkdir -p $(BUILD)/unit
	$(HOSTCC) $(HOSTFLAGS) $(INC_ALL) -Itests/unit $< $(EXTRA_SRC) $(BUILD)/lib/libhardinit-host.a -o $@ $(HOSTLIBS)

$(BUILD)/unit-san/%: tests/unit/%.c $(TEST_HDR) $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-san.a
	@mkdir -p $(BUILD)/unit-san
	$(HOSTCC) $(HOSTFLAGS) $(SANFLAGS) $(INC_ALL) -Itests/unit $< $(EXTRA_SRC) $(BUILD)/lib/libhardinit-san.a -o $@ $(HOSTLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-fuzz.a
	@mkdir -p $(BUILD)/fuzz
	clang $(FUZZFLAGS) -fsanitize=fuzzer,address,undefined $(INC_ALL) $< $(EXTRA_SRC) $(BUILD)/lib/libhardinit-fuzz.a -o $@ $(HOSTLIBS)

# The fortify shims are musl-only code: tested built with musl, as shipped.
$(BUILD)/unit/test_compat_musl: tests/unit-musl/test_compat.c prog/compat.c $(TEST_HDR) $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/unit
	$(MUSLCC) $(COMMON) $(ARCHFLAGS_$(ARCH)) -O1 -static -isystem $(BUILD)/include -Itests/unit $< prog/compat.c -o $@

# LUKS2's KDFs built with musl as PID 1 links them: Debian's libargon2.a
# (built against glibc) through the fortify shims, RFC 9106's vectors.
$(BUILD)/unit/test_luks2_kdf_musl: tests/unit/test_luks2_kdf.c prog/compat.c $(TEST_HDR) $(BUILD)/lib/libhardinit-musl.a
	@mkdir -p $(BUILD)/unit
	$(MUSLCC) $(COMMON) -O1 -static -isystem $(BUILD)/include $(INC_ALL) -Itests/unit $< prog/compat.c $(BUILD)/lib/libhardinit-musl.a $(ARCHIVES)/libargon2.a -o $@

# The TPM2 session built with musl as PID 1 links it: Debian's
# libbearssl.a through the fortify shims.
$(BUILD)/unit/test_tpm2_session_musl: tests/unit/test_tpm2_session.c prog/compat.c $(TEST_HDR) $(BUILD)/lib/libhardinit-musl.a
	@mkdir -p $(BUILD)/unit
	$(MUSLCC) $(COMMON) -O1 -static -isystem $(BUILD)/include $(INC_ALL) -Itests/unit $< prog/compat.c $(BUILD)/lib/libhardinit-musl.a $(ARCHIVES)/libbearssl.a -o $@

# The LUKS2 host helper of tests/bats/luks.bats and tests/vm/luks.bats.
$(BUILD)/tools/luks2-tool: tests/tools/luks2-tool.c $(HDR) $(BUILD)/lib/libhardinit-host.a
	@mkdir -p $(BUILD)/tools
	$(HOSTCC) $(HOSTFLAGS) $(INC_ALL) $< $(BUILD)/lib/libhardinit-host.a -o $@ $(HOSTLIBS) -lcrypto

ifeq ($(CROSS),)
# The C23 names' shims (prog/glibc_names.c) tested on the host too.
$(BUILD)/unit/test_glibc_names $(BUILD)/unit-san/test_glibc_names: EXTRA_SRC = prog/glibc_names.c
unit: $(UNIT_BIN) $(UNIT_SAN) $(BUILD)/unit/test_compat_musl $(BUILD)/unit/test_luks2_kdf_musl $(BUILD)/unit/test_tpm2_session_musl $(BUILD)/tools/luks2-tool
else
# A cross build's unit tests: the same tests, built with the target's musl
# against the library that goes into the binary (and the static archives
# it links), run under qemu-user by tests/run-suites.
CROSS_UNIT := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
CROSS_LINKED := prog/compat.c prog/pcre2_nojit.c prog/glibc_names.c
$(CROSS_UNIT): $(BUILD)/unit/%: tests/unit/%.c $(TEST_HDR) $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-musl.a $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/unit
	$(MUSLCC) $(COMMON) $(ARCHFLAGS_$(ARCH)) -O1 -static -isystem $(BUILD)/include $(INC_ALL) -Itests/unit $< $(EXTRA_SRC) $(CROSS_LINKED) $(BUILD)/lib/libhardinit-musl.a -o $@ $(STATIC_LIBS)
unit: $(CROSS_UNIT) $(BUILD)/unit/test_compat_musl
endif
fuzz-build: $(FUZZ_BIN)

# The cross build make check runs: arm64 from an amd64 host.
CHECK_CROSS_amd64 := arm64
cross: $(patsubst %,cross-%,$(CHECK_CROSS_$(HOST_ARCH)))
cross-%:
	$(MAKE) --no-print-directory ARCH=$* all unit

# ---- the suites ---------------------------------------------------------
# The .deb is built once here; the suites that read or install it take
# build/deb's (tests/run-suites exports HARDINIT_DEB_DIR).
check: all unit fuzz-build cross deb
	tests/run-suites

# Every target to FUZZ_RUNS executions (tests/fuzz/run), niced: run it
# before resolving a change to a parser.
fuzz: fuzz-build
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} nice -n 19 tests/fuzz/run

demo: 
	scripts/demo

demo-shell:
	DEMO_SHELL=1 scripts/demo

# The control paces itself with hardinit's own init/boot_pace.c (one home
# for the pace): it links the core library, of which it keeps that file and
# what it calls (fsutil, log, report).
$(BUILD)/bench/control-init: bench/control-init.c $(BUILD)/lib/libhardinit-musl.a $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/bench
	$(MUSLCC) $(MUSLFLAGS) $(FLOOR_init) $< $(BUILD)/lib/libhardinit-musl.a -o $@ $(MUSLLDFLAGS)

# bench/run's arm64 rows: the cross build and its control /init (from amd64).
bench-cross-%:
	$(MAKE) ARCH=$* all build/$*/bench/control-init

bench: all $(BUILD)/bench/control-init $(patsubst %,bench-cross-%,$(CHECK_CROSS_$(HOST_ARCH)))
	bench/run

deps:
	scripts/install-deps

install: $(BUILD)/hardinit $(BUILD)/mkcpio
	install -D -m 0755 $(BUILD)/hardinit $(DESTDIR)$(PREFIX)/sbin/hardinit
	install -D -m 0755 initramfs/hardinit-mkinitramfs $(DESTDIR)$(PREFIX)/sbin/hardinit-mkinitramfs
	install -D -m 0755 $(BUILD)/mkcpio $(DESTDIR)$(PREFIX)/lib/hardinit/mkcpio
	install -D -m 0644 initramfs/hostonly.sh $(DESTDIR)$(PREFIX)/lib/hardinit/hostonly.sh
	install -D -m 0644 initramfs/facts.sh $(DESTDIR)$(PREFIX)/lib/hardinit/facts.sh
	install -d $(DESTDIR)$(PREFIX)/share/hardinit/profiles
	install -m 0644 config/*.conf $(DESTDIR)$(PREFIX)/share/hardinit/profiles/
	install -d $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man5
	$(MAN_VERSION) man/hardinit.8 >$(DESTDIR)$(PREFIX)/share/man/man8/hardinit.8
	$(MAN_VERSION) man/hardinit-mkinitramfs.8 >$(DESTDIR)$(PREFIX)/share/man/man8/hardinit-mkinitramfs.8
	install -d $(DESTDIR)$(PREFIX)/share/doc/hardinit
	install -m 0644 doc/*.md README.md $(DESTDIR)$(PREFIX)/share/doc/hardinit/
	$(MAN_VERSION) man/hardinit.conf.5 >$(DESTDIR)$(PREFIX)/share/man/man5/hardinit.conf.5
	$(MAKE) --no-print-directory install-fleet

# The fleet export (hardinit audit --format prometheus): the systemd units,
# the cron line, the alerting rules and the --json schema, with the
# installed binary's path.
UNITDIR    ?= $(PREFIX)/lib/systemd/system
install-fleet:
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(PREFIX)/share/hardinit/cron $(DESTDIR)$(PREFIX)/share/hardinit/prometheus
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' contrib/systemd/hardinit-audit.service.in >$(DESTDIR)$(UNITDIR)/hardinit-audit.service
	install -m 0644 contrib/systemd/hardinit-audit.timer $(DESTDIR)$(UNITDIR)/hardinit-audit.timer
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' contrib/cron/hardinit-audit.in >$(DESTDIR)$(PREFIX)/share/hardinit/cron/hardinit-audit
	install -m 0644 contrib/prometheus/hardinit-alerts.yml $(DESTDIR)$(PREFIX)/share/hardinit/prometheus/hardinit-alerts.yml
	install -m 0644 contrib/hardinit-audit.schema.json $(DESTDIR)$(PREFIX)/share/hardinit/hardinit-audit.schema.json
	install -m 0644 contrib/hardinit-predict.schema.json $(DESTDIR)$(PREFIX)/share/hardinit/hardinit-predict.schema.json
	install -m 0755 contrib/hardinit-quote $(DESTDIR)$(PREFIX)/share/hardinit/hardinit-quote
	chmod 0644 $(DESTDIR)$(UNITDIR)/hardinit-audit.service $(DESTDIR)$(PREFIX)/share/hardinit/cron/hardinit-audit

# The installed man pages carry VERSION in their .TH line whatever the
# tree's copy says (tests/bats/deb.bats checks the tree's too).
MAN_VERSION = sed 's/"hardinit [0-9][^"]*"/"hardinit $(VERSION)"/'

# The package is built from a copy of the tree's files (tracked and new,
# never build/), so what is in build/ cannot leak into it.
DEB        := $(BUILD)/deb/hardinit_$(VERSION)_$(ARCH).deb
DEB_INPUTS := $(wildcard $(filter-out build/%,$(shell git ls-files -co --exclude-standard 2>/dev/null)))

deb: $(DEB)

$(DEB): $(DEB_INPUTS) scripts/build-deb
	scripts/build-deb $(BUILD)/deb $(ARCH)

clean:
	rm -rf $(BUILD)


.PRECIOUS: $(BUILD)/obj/%.o
.PHONY: cross all check unit fuzz fuzz-build demo demo-shell bench deps install install-fleet deb clean
