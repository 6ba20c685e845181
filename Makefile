# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bpfgraph: kernel function-graph tracer on fentry/fexit.
#
#   make            build build/bpfgraph (static)
#   make check      unit tests (also under ASan + UBSan), fuzz smoke, QEMU bench
#                   (installs what it needs)
#   make unit       unit tests only
#   make unit-san   unit tests under ASan + UBSan (dynamic, $(OUTPUT)/san)
#   make fuzz       libFuzzer harnesses into $(OUTPUT)/fuzz (clang)
#   make fuzz-smoke each fuzzer on its corpus plus FUZZ_SECONDS of fuzzing
#   make demo       trace a real call graph (QEMU bench if the host refuses fentry)
#   make install    PREFIX=/usr/local DESTDIR=
#   make uninstall  removes what install put there (same PREFIX, DESTDIR)
#   make deb        Debian binary package $(OUTPUT)/bpfgraph_VERSION_ARCH.deb
#   V=1             show full commands

OUTPUT ?= build
ARCH ?= x86
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
COMPLDIR ?= $(PREFIX)/share/bash-completion/completions

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(CI),true)
WARNINGS += -Werror
endif
CFLAGS ?= -O2 -g
# user/: one folder per stage of the pipeline (docs/layout.md); headers
# are included by name from any of them.
USER_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard user/*/*.c user/*/*.h))))
DEFS := -D_GNU_SOURCE -DBG_VERSION='"$(VERSION)"' -Iinclude $(addprefix -I,$(USER_DIRS)) \
	-I$(OUTPUT) -MMD -MP
ALL_CFLAGS := -std=gnu11 $(WARNINGS) $(CFLAGS) $(EXTRA_CFLAGS) $(DEFS)
# Sanitizer builds: no recovery, so that a finding fails the test.
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_CFLAGS := -std=gnu11 $(WARNINGS) -O1 -g $(SAN) $(EXTRA_CFLAGS) $(DEFS)
# libbpf's print callbacks take a va_list format that cannot be annotated:
# gcc lets them pass -Wformat=2, clang does not.
FUZZ_CFLAGS := -std=gnu11 $(WARNINGS) -Wno-format-nonliteral -O1 -g $(SAN) \
	-fsanitize=fuzzer-no-link $(EXTRA_CFLAGS) $(DEFS)
FUZZ_SECONDS ?= 45
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall \
	-Iinclude -Ivmlinux/$(ARCH) -MMD -MP $(EXTRA_BPF_CFLAGS)
STATIC ?= 1
ifeq ($(STATIC),1)
LDSTATIC := -static
endif
LIBS := -lbpf -lelf -lz -lzstd -lcapstone -lm
LDFLAGS ?=

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all deps clean check unit unit-san fuzz fuzz-smoke demo install uninstall deb vm-deps \
	check-build check-bins

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# graph.bpf.c once more with BG_LDX (stack_word() in bpf/guard.bpf.h): the
# object user/hook/bpfobj.c loads where kprobe programs may call
# bpf_rdonly_cast(). Only its bytes are used, with graph.skel.h's layout.
BPF_OBJS += $(OUTPUT)/graph_ldx.bpf.o
SKELS += $(OUTPUT)/graph_ldx.skel.h
USER_SRCS := $(filter-out user/cmd/main.c,$(wildcard user/*/*.c))
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
MAIN_OBJ := $(OUTPUT)/user/cmd/main.o
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
SAN_OBJS := $(patsubst user/%.c,$(OUTPUT)/san/user/%.o,$(USER_SRCS))
# test_diff_nomem replaces malloc for the whole process, which ASan owns.
SAN_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/san/tests/%,$(filter-out \
	tests/unit/test_diff_nomem.c,$(UNIT_SRCS)))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_OBJS := $(patsubst user/%.c,$(OUTPUT)/fuzz/user/%.o,$(USER_SRCS))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(FUZZ_SRCS))
DEPS_STAMP := $(OUTPUT)/.deps-build
# Reached only through pattern rules, these would count as intermediate and
# be deleted after each make (then rebuilt, with everything including the
# skeletons, next time; and make check's last line would be "rm ...").
.SECONDARY: $(BPF_OBJS) $(SKELS) $(patsubst %,%.o,$(UNIT_BINS) $(SAN_BINS) $(FUZZ_BINS))

all: $(OUTPUT)/bpfgraph

# Installs missing Debian packages; quick when everything is there.
$(DEPS_STAMP): tools/deps.sh
	$(Q)mkdir -p $(OUTPUT)
	$(Q)tools/deps.sh build
	$(Q)touch $@

deps: $(DEPS_STAMP)

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c | $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/graph_ldx.bpf.o: bpf/graph.bpf.c | $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DBG_LDX -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# Every user object may include a skeleton: generate them first.
$(OUTPUT)/user/%.o: user/%.c | $(SKELS) $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/libbpfgraph.a: $(USER_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/bpfgraph: $(MAIN_OBJ) $(OUTPUT)/libbpfgraph.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDSTATIC) $(LDFLAGS) $^ $(LIBS) -o $@

# Unit tests: each tests/unit/test_*.c is one cmocka program linked
# against the library of user objects (no main.o).
$(OUTPUT)/tests/%.o: tests/unit/%.c | $(SKELS) $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -DBG_SRCDIR='"$(CURDIR)"' -c $< -o $@

$(OUTPUT)/tests/%: $(OUTPUT)/tests/%.o $(OUTPUT)/libbpfgraph.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -lcmocka -o $@

unit: $(UNIT_BINS) $(OUTPUT)/bpfgraph
	$(Q)OUTPUT=$(OUTPUT) tools/check.sh --unit-only

# The same tests under ASan + UBSan: a separate, dynamic build (the
# sanitizer runtimes do not link statically).
$(OUTPUT)/san/user/%.o: user/%.c | $(SKELS) $(DEPS_STAMP)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SAN_CFLAGS) -c $< -o $@

$(OUTPUT)/san/libbpfgraph.a: $(SAN_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/san/tests/%.o: tests/unit/%.c | $(SKELS) $(DEPS_STAMP)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SAN_CFLAGS) -DBG_SRCDIR='"$(CURDIR)"' -c $< -o $@

$(OUTPUT)/san/tests/%: $(OUTPUT)/san/tests/%.o $(OUTPUT)/san/libbpfgraph.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(SAN) $(LDFLAGS) $^ $(LIBS) -lcmocka -o $@

unit-san: $(SAN_BINS)
	$(Q)OUTPUT=$(OUTPUT) tools/check.sh --san-only

# libFuzzer harnesses (tests/fuzz/README): clang only.
$(OUTPUT)/fuzz/user/%.o: user/%.c | $(SKELS) $(DEPS_STAMP)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(OUTPUT)/fuzz/libbpfgraph.a: $(FUZZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/fuzz/%.o: tests/fuzz/%.c | $(SKELS) $(DEPS_STAMP)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(OUTPUT)/fuzz/%: $(OUTPUT)/fuzz/%.o $(OUTPUT)/fuzz/libbpfgraph.a
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(SAN) -fsanitize=fuzzer $(LDFLAGS) $^ $(LIBS) -o $@

fuzz: $(FUZZ_BINS)

# Record seeds from the canned scripts: tests/fuzz/README.
$(OUTPUT)/fuzz/mkcorpus: tests/fuzz/mkcorpus.c $(OUTPUT)/libbpfgraph.a | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $^ $(LIBS) -o $@

fuzz-smoke: $(FUZZ_BINS)
	$(Q)OUTPUT=$(OUTPUT) FUZZ_SECONDS=$(FUZZ_SECONDS) tools/check.sh --fuzz-only

# The bench workload runs in the QEMU guest: static, no loader, no libc opens.
WL := $(OUTPUT)/vm/wl
$(WL): tests/vm/wl.c | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -static -std=gnu11 $(WARNINGS) -O2 -D_GNU_SOURCE -pthread $< -o $@

# The guest's comparison of the two symbol readers (tests/vm/ksymcmp.c).
KSYMCMP := $(OUTPUT)/vm/ksymcmp
$(KSYMCMP): tests/vm/ksymcmp.c $(OUTPUT)/libbpfgraph.a | $(DEPS_STAMP)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -static $(LDFLAGS) $^ $(LIBS) -o $@

# What check runs, built with a job per CPU unless make was given -j: on a
# clean clone of two CPUs, built one at a time, the three builds (plain,
# sanitizers, fuzzers) took about two minutes of CI's hour.
check-bins: $(UNIT_BINS) $(SAN_BINS) $(FUZZ_BINS) $(OUTPUT)/bpfgraph $(WL) $(KSYMCMP)

check:
	$(Q)$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc)) \
		OUTPUT=$(OUTPUT) check-bins
	$(Q)OUTPUT=$(OUTPUT) FUZZ_SECONDS=$(FUZZ_SECONDS) tools/check.sh

demo: $(OUTPUT)/bpfgraph $(WL)
	$(Q)OUTPUT=$(OUTPUT) tools/demo.sh

# A header edit must rebuild what includes it (tests/build/header-deps.sh).
check-build: $(OUTPUT)/bpfgraph
	$(Q)OUTPUT=$(OUTPUT) tests/build/header-deps.sh

install: $(OUTPUT)/bpfgraph
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPLDIR)
	install -m 0755 $(OUTPUT)/bpfgraph $(DESTDIR)$(BINDIR)/bpfgraph
	install -m 0644 man/bpfgraph.1 $(DESTDIR)$(MANDIR)/man1/bpfgraph.1
	install -m 0644 tools/bpfgraph.bash-completion $(DESTDIR)$(COMPLDIR)/bpfgraph

# The files install wrote; the directories stay (others' files live there).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bpfgraph $(DESTDIR)$(MANDIR)/man1/bpfgraph.1 \
		$(DESTDIR)$(COMPLDIR)/bpfgraph

# A Debian binary package by dpkg-deb: install's files under /usr (the
# binary stripped, the man page compressed, as Debian policy has them),
# README.md and the copyright file in /usr/share/doc/bpfgraph.
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_MAINTAINER ?= bpfgraph developers <bpfgraph@invalid>
DEB_ROOT := $(OUTPUT)/deb/root
DEB := $(OUTPUT)/bpfgraph_$(VERSION)_$(DEB_ARCH).deb

deb: $(OUTPUT)/bpfgraph
	$(call msg,DEB,$(DEB))
	$(Q)rm -rf $(DEB_ROOT) && mkdir -p -m 0755 $(DEB_ROOT)/DEBIAN
	$(Q)$(MAKE) -s --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr \
		BINDIR=/usr/bin MANDIR=/usr/share/man \
		COMPLDIR=/usr/share/bash-completion/completions >/dev/null
	$(Q)strip --strip-unneeded --remove-section=.comment $(DEB_ROOT)/usr/bin/bpfgraph
	$(Q)gzip -9n $(DEB_ROOT)/usr/share/man/man1/bpfgraph.1
	$(Q)install -d $(DEB_ROOT)/usr/share/doc/bpfgraph
	$(Q)install -m 0644 tools/deb/copyright $(DEB_ROOT)/usr/share/doc/bpfgraph/copyright
	$(Q)install -m 0644 README.md $(DEB_ROOT)/usr/share/doc/bpfgraph/README.md
	$(Q)gzip -9n $(DEB_ROOT)/usr/share/doc/bpfgraph/README.md
	$(Q)cd $(DEB_ROOT) && find usr -type f | LC_ALL=C sort | xargs md5sum >DEBIAN/md5sums
	$(Q)sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' \
		-e 's/@MAINTAINER@/$(DEB_MAINTAINER)/' \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)/" \
		tools/deb/control.in >$(DEB_ROOT)/DEBIAN/control
	$(Q)chmod 0644 $(DEB_ROOT)/DEBIAN/control $(DEB_ROOT)/DEBIAN/md5sums
	$(Q)find $(DEB_ROOT) -type d -exec chmod 0755 {} + # whatever the umask
	$(Q)dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB) >/dev/null

clean:
	rm -rf $(OUTPUT)

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/user/*/*.d $(OUTPUT)/tests/*.d \
	$(OUTPUT)/san/user/*/*.d $(OUTPUT)/san/tests/*.d $(OUTPUT)/fuzz/*.d \
	$(OUTPUT)/fuzz/user/*/*.d)
