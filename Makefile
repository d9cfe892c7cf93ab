# hardinit: a static PID 1 that hardens Linux before the real init runs.
#
#   make            build/hardinit (static, musl) and the test probes
#   make check      every test suite; ends with "N passed, N failed"
#   make demo       install what is missing, build, boot the demo in QEMU
#   make bench      boot timings and sizes (not a test)
#   make fuzz       every fuzz target to 10 million executions (FUZZ_RUNS)
#   make install    PREFIX=/usr/local DESTDIR=

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      := build
MUSLCC     ?= musl-gcc
HOSTCC     ?= gcc
ARCHIVES   := /usr/lib/x86_64-linux-gnu
STATIC_LIBS := $(ARCHIVES)/libselinux.a $(ARCHIVES)/libsepol.a \
               $(ARCHIVES)/libcap-ng.a $(ARCHIVES)/libpcre2-8.a

WARN       := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-format-truncation
COMMON     := -std=gnu11 $(WARN) -Iinit -Istages -DHARDINIT_VERSION='"$(VERSION)"'
# musl must not see glibc's /usr/include: a private directory holds only the
# library and kernel uapi headers hardinit needs.
MUSLFLAGS  := $(COMMON) -Os -static -isystem $(BUILD)/include \
              -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables
MUSLLDFLAGS := -static -Wl,--gc-sections -s

# Pure logic and stages, shared by the binary and the host-side tests.
CORE_SRC   := init/cmdline.c init/config.c init/report.c init/log.c \
              init/fsutil.c init/sink.c init/boot.c
STAGE_SRC  := $(sort $(wildcard stages/*.c))
MAIN_SRC   := init/main.c init/cli.c init/audit.c init/polytmp.c init/compat.c init/pcre2_nojit.c
SRC        := $(CORE_SRC) $(STAGE_SRC) $(MAIN_SRC)
HDR        := $(wildcard init/*.h stages/*.h)

PROBES     := $(patsubst tests/probe/%.c,$(BUILD)/probe/%,$(wildcard tests/probe/*.c))

all: $(BUILD)/hardinit $(BUILD)/mkcpio $(PROBES)

# The builder's reproducible newc cpio writer runs on the build host.
$(BUILD)/mkcpio: initramfs/mkcpio.c
	@mkdir -p $(BUILD)
	$(HOSTCC) $(COMMON) -O2 $< -o $@

$(BUILD)/include/.stamp:
	@mkdir -p $(BUILD)/include
	ln -sfn /usr/include/selinux $(BUILD)/include/selinux
	ln -sfn /usr/include/sepol $(BUILD)/include/sepol
	ln -sfn /usr/include/cap-ng.h $(BUILD)/include/cap-ng.h
	ln -sfn /usr/include/linux $(BUILD)/include/linux
	ln -sfn /usr/include/asm-generic $(BUILD)/include/asm-generic
	ln -sfn /usr/include/x86_64-linux-gnu/asm $(BUILD)/include/asm
	@touch $@

$(BUILD)/hardinit: $(SRC) $(HDR) $(BUILD)/include/.stamp
	$(MUSLCC) $(MUSLFLAGS) $(SRC) -o $@ $(MUSLLDFLAGS) $(STATIC_LIBS)
	@printf 'hardinit: %s is %s bytes (static, stripped)\n' $@ $$(stat -c %s $@)

$(BUILD)/probe/%: tests/probe/%.c $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/probe
	$(MUSLCC) $(MUSLFLAGS) $< -o $@ $(MUSLLDFLAGS)

# ---- host-side tests: unit tests, sanitizer build, fuzz targets ----------
HOSTFLAGS  := $(COMMON) -g -O1 -DHARDINIT_HOST_TEST
HOSTLIBS   := -lselinux -lcap-ng
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
UNIT_SAN   := $(patsubst tests/unit/%.c,$(BUILD)/unit-san/%,$(UNIT_SRC))
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

$(BUILD)/unit/%: tests/unit/%.c tests/unit/tap.h $(CORE_SRC) $(STAGE_SRC) $(HDR)
	@mkdir -p $(BUILD)/unit
	$(HOSTCC) $(HOSTFLAGS) -Itests/unit $< $(CORE_SRC) $(STAGE_SRC) -o $@ $(HOSTLIBS)

$(BUILD)/unit-san/%: tests/unit/%.c tests/unit/tap.h $(CORE_SRC) $(STAGE_SRC) $(HDR)
	@mkdir -p $(BUILD)/unit-san
	$(HOSTCC) $(HOSTFLAGS) $(SANFLAGS) -Itests/unit $< $(CORE_SRC) $(STAGE_SRC) -o $@ $(HOSTLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(STAGE_SRC) $(HDR)
	@mkdir -p $(BUILD)/fuzz
	clang $(COMMON) -Wno-unknown-warning-option -g -O1 -DHARDINIT_HOST_TEST -fsanitize=fuzzer,address,undefined \
		$< $(CORE_SRC) $(STAGE_SRC) -o $@ $(HOSTLIBS)

# The fortify shims are musl-only code: tested built with musl, as shipped.
$(BUILD)/unit/test_compat_musl: tests/unit-musl/test_compat.c init/compat.c tests/unit/tap.h $(BUILD)/include/.stamp
	@mkdir -p $(BUILD)/unit
	$(MUSLCC) $(COMMON) -O1 -static -isystem $(BUILD)/include $< init/compat.c -o $@

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
	install -D -m 0644 man/hardinit.8 $(DESTDIR)$(PREFIX)/share/man/man8/hardinit.8
	install -D -m 0644 man/hardinit-mkinitramfs.8 $(DESTDIR)$(PREFIX)/share/man/man8/hardinit-mkinitramfs.8
	install -d $(DESTDIR)$(PREFIX)/share/doc/hardinit
	install -m 0644 doc/*.md README.md $(DESTDIR)$(PREFIX)/share/doc/hardinit/
	install -D -m 0644 man/hardinit.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/hardinit.conf.5

clean:
	rm -rf $(BUILD)

.PHONY: all check unit fuzz fuzz-build demo demo-shell bench deps install clean
