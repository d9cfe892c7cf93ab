# hardinit: a static PID 1 that hardens Linux before the real init runs.
#
#   make            build/hardinit (static, musl) and the test probes
#   make check      every test suite; ends with "N passed, N failed"
#   make demo       install what is missing, build, boot the demo in QEMU
#   make bench      boot timings and sizes (not a test)
#   make fuzz       every fuzz target to 10 million executions (FUZZ_RUNS)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        the Debian package, build/deb/hardinit_VERSION_ARCH.deb

# The one place the version is written: debian/changelog's first line
# (hardinit --version, the report, the man pages and the package follow it).
VERSION    := ${shell sed -n '1s/^hardinit (\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null}
ifeq ($(VERSION),)
$(error no version: debian/changelog is missing or its first line is not "hardinit (VERSION) ...")
endif
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      := build
MUSLCC     ?= musl-gcc
HOSTCC     ?= gcc
ARCHIVES   := /usr/lib/x86_64-linux-gnu
STATIC_LIBS := $(ARCHIVES)/libselinux.a $(ARCHIVES)/libsepol.a \
               $(ARCHIVES)/libcap-ng.a $(ARCHIVES)/libpcre2-8.a

WARN       := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-format-truncation
COMMON     := -std=gnu11 $(WARN) -Iinit -Iblock -Istages -Iprog -DHARDINIT_VERSION='"$(VERSION)"'
# musl must not see glibc's /usr/include: a private directory holds only the
# library and kernel uapi headers hardinit needs.
# MUSL_EXTRA: size options to try (bench/size builds with -flto).
MUSL_EXTRA ?=
MUSLFLAGS  := $(COMMON) -Os -static -isystem $(BUILD)/include \
              -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables $(MUSL_EXTRA)
MUSLLDFLAGS := -static -Wl,--gc-sections -s $(MUSL_EXTRA)

# The core: what runs as PID 1 and what the tests link (init/: boot,
# cmdline, config, report, log, fsutil, sink; stages/: every stage and the
# stage table). It is compiled once per flavour into a static library; the
# program around it (prog/: main, the CLI commands, audit, private-tmp, the
# link shims) is linked only into build/hardinit.
CORE_SRC   := $(sort $(wildcard init/*.c block/*.c stages/*.c))
PROG_SRC   := $(sort $(wildcard prog/*.c))
HDR        := $(wildcard init/*.h block/*.h stages/*.h prog/*.h)
# The version is compiled in (HARDINIT_VERSION): a new changelog entry
# rebuilds what depends on the headers.
HDR        += debian/changelog
INCLUDES   := -Iinit -Iblock -Istages

PROBES     := $(patsubst tests/probe/%.c,$(BUILD)/probe/%,$(wildcard tests/probe/*.c))

all: $(BUILD)/hardinit $(BUILD)/mkcpio $(PROBES)

# The builder's reproducible newc cpio writer runs on the build host.
$(BUILD)/mkcpio: initramfs/mkcpio.c
	@mkdir -p $(BUILD)
	$(HOSTCC) $(COMMON) -O2 $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@

$(BUILD)/include/.stamp:
	@mkdir -p $(BUILD)/include
	ln -sfn /usr/include/selinux $(BUILD)/include/selinux
	ln -sfn /usr/include/sepol $(BUILD)/include/sepol
	ln -sfn /usr/include/cap-ng.h $(BUILD)/include/cap-ng.h
	ln -sfn /usr/include/linux $(BUILD)/include/linux
	ln -sfn /usr/include/asm-generic $(BUILD)/include/asm-generic
	ln -sfn /usr/include/x86_64-linux-gnu/asm $(BUILD)/include/asm
	@touch $@

# One library per flavour: musl (the binary), host (unit tests), host with
# ASan+UBSan (unit tests again), clang with libFuzzer's instrumentation.
lib_objs = $(patsubst %.c,$(BUILD)/obj/$(1)/%.o,$(CORE_SRC))

$(BUILD)/obj/musl/%.o: %.c $(HDR) $(BUILD)/include/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) $(MUSLFLAGS) -c $< -o $@

$(BUILD)/obj/host/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTFLAGS) -c $< -o $@

$(BUILD)/obj/san/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTFLAGS) $(SANFLAGS) -c $< -o $@

$(BUILD)/obj/fuzz/%.o: %.c $(HDR)
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(BUILD)/lib/libhardinit-musl.a: $(call lib_objs,musl)
$(BUILD)/lib/libhardinit-host.a: $(call lib_objs,host)
$(BUILD)/lib/libhardinit-san.a: $(call lib_objs,san)
$(BUILD)/lib/libhardinit-fuzz.a: $(call lib_objs,fuzz)
$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/hardinit: $(PROG_SRC) $(HDR) $(BUILD)/lib/libhardinit-musl.a $(BUILD)/include/.stamp
	$(MUSLCC) $(MUSLFLAGS) -DHARDINIT_PROFILE_DIR='"$(PREFIX)/share/hardinit/profiles"' $(PROG_SRC) $(BUILD)/lib/libhardinit-musl.a -o $@ $(MUSLLDFLAGS) $(STATIC_LIBS)
	@printf 'hardinit: %s is %s bytes (static, stripped)\n' $@ $$(stat -c %s $@)

$(BUILD)/probe/%: tests/probe/%.c $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/probe
	$(MUSLCC) $(MUSLFLAGS) $< -o $@ $(MUSLLDFLAGS)

# ---- host-side tests: unit tests, sanitizer build, fuzz targets ----------
HOSTFLAGS  := $(COMMON) -g -O1
HOSTLIBS   := -lselinux -lcap-ng
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZFLAGS  := $(COMMON) -Wno-unknown-warning-option -g -O1
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
UNIT_SAN   := $(patsubst tests/unit/%.c,$(BUILD)/unit-san/%,$(UNIT_SRC))
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
TEST_HDR   := $(wildcard tests/unit/*.h)

# The exporter of hardinit audit is the program's (prog/), not the core's;
# its unit test and fuzz target link its one self-contained source.
PROG_TESTED := prog/audit_export.c
$(BUILD)/unit/test_audit_export $(BUILD)/unit-san/test_audit_export $(BUILD)/fuzz/fuzz_boot_json: EXTRA_SRC = $(PROG_TESTED)

$(BUILD)/unit/%: tests/unit/%.c $(TEST_HDR) $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-host.a
	@mkdir -p $(BUILD)/unit
	$(HOSTCC) $(HOSTFLAGS) -Itests/unit $< $(EXTRA_SRC) $(BUILD)/lib/libhardinit-host.a -o $@ $(HOSTLIBS)

$(BUILD)/unit-san/%: tests/unit/%.c $(TEST_HDR) $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-san.a
	@mkdir -p $(BUILD)/unit-san
	$(HOSTCC) $(HOSTFLAGS) $(SANFLAGS) -Itests/unit $< $(EXTRA_SRC) $(BUILD)/lib/libhardinit-san.a -o $@ $(HOSTLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(HDR) $(PROG_TESTED) $(BUILD)/lib/libhardinit-fuzz.a
	@mkdir -p $(BUILD)/fuzz
	clang $(FUZZFLAGS) -fsanitize=fuzzer,address,undefined $< $(EXTRA_SRC) $(BUILD)/lib/libhardinit-fuzz.a -o $@ $(HOSTLIBS)

# The fortify shims are musl-only code: tested built with musl, as shipped.
$(BUILD)/unit/test_compat_musl: tests/unit-musl/test_compat.c prog/compat.c $(TEST_HDR) $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/unit
	$(MUSLCC) $(COMMON) -O1 -static -isystem $(BUILD)/include $< prog/compat.c -o $@

unit: $(UNIT_BIN) $(UNIT_SAN) $(BUILD)/unit/test_compat_musl
fuzz-build: $(FUZZ_BIN)

# ---- the suites ---------------------------------------------------------
check: all unit fuzz-build
	tests/run-suites

# Every target to FUZZ_RUNS executions (tests/fuzz/run), niced: run it
# before resolving a change to a parser.
fuzz: fuzz-build
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} nice -n 19 tests/fuzz/run

demo: 
	scripts/demo

demo-shell:
	DEMO_SHELL=1 scripts/demo

$(BUILD)/bench/control-init: bench/control-init.c $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/bench
	$(MUSLCC) $(MUSLFLAGS) $< -o $@ $(MUSLLDFLAGS)

bench: all $(BUILD)/bench/control-init
	bench/run

deps:
	scripts/install-deps

install: $(BUILD)/hardinit $(BUILD)/mkcpio
	install -D -m 0755 $(BUILD)/hardinit $(DESTDIR)$(PREFIX)/sbin/hardinit
	install -D -m 0755 initramfs/hardinit-mkinitramfs $(DESTDIR)$(PREFIX)/sbin/hardinit-mkinitramfs
	install -D -m 0755 $(BUILD)/mkcpio $(DESTDIR)$(PREFIX)/lib/hardinit/mkcpio
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
	chmod 0644 $(DESTDIR)$(UNITDIR)/hardinit-audit.service $(DESTDIR)$(PREFIX)/share/hardinit/cron/hardinit-audit

# The installed man pages carry VERSION in their .TH line whatever the
# tree's copy says (tests/bats/deb.bats checks the tree's too).
MAN_VERSION = sed 's/"hardinit [0-9][^"]*"/"hardinit $(VERSION)"/'

# The package is built from a copy of the tree's files (tracked and new,
# never build/), so what is in build/ cannot leak into it.
DEB_ARCH   := $(shell dpkg-architecture -qDEB_HOST_ARCH 2>/dev/null || echo amd64)
DEB        := $(BUILD)/deb/hardinit_$(VERSION)_$(DEB_ARCH).deb
DEB_INPUTS := $(wildcard $(filter-out build/%,$(shell git ls-files -co --exclude-standard 2>/dev/null)))

deb: $(DEB)

$(DEB): $(DEB_INPUTS) scripts/build-deb
	scripts/build-deb $(BUILD)/deb

clean:
	rm -rf $(BUILD)


.PRECIOUS: $(BUILD)/obj/%.o
.PHONY: all check unit fuzz fuzz-build demo demo-shell bench deps install install-fleet deb clean
