# SPDX-License-Identifier: Apache-2.0
# ibcni: CNI plugins for InfiniBand/RDMA SR-IOV. `make help` lists the targets.

PREFIX ?= /opt/cni
BINDIR ?= $(PREFIX)/bin
DESTDIR ?=
PKG_CONFIG ?= pkg-config
PKGS := libnl-3.0 json-c libcap libnghttp2 libprotobuf-c
# What --version prints (and the image's tag). SOURCE is "git <commit>[-dirty]"
# in a checkout of this tree (its own, not one it was unpacked inside, and
# whoever owns it), else what a release tarball is.
VERSION := 0.1.0
GIT := git -c safe.directory='$(CURDIR)' -C '$(CURDIR)'
SOURCE := $(shell test "$$($(GIT) rev-parse --show-toplevel 2>/dev/null)" = '$(CURDIR)' && \
	echo "git $$($(GIT) rev-parse --short HEAD)$$($(GIT) diff --quiet HEAD -- || echo -dirty)" || \
	echo 'not built from a git checkout')

# The plugins link statically (libnl, json-c and libcap inside, as the Go
# plugins are: one binary runs on any node). DYNAMIC=1 links them against
# the shared libraries; SAN=1 implies it (ASan needs a dynamic binary).
# Test binaries (Criterion) always link dynamically.
ifeq ($(SAN),1)
override DYNAMIC := 1
else ifeq ($(STATIC),1)
override DYNAMIC :=
endif

# ARCH=arm64 cross-builds the same static plugins for aarch64 into
# build/arm64 with Debian's cross toolchain and the arm64 multiarch -dev
# packages (scripts/cross-deps.sh arm64 installs them): every tool and every
# library of PKGS and VERBS comes through the triplet's compiler, binutils
# and pkg-config, so a library added to PKGS needs nothing more here than
# its :arm64 -dev package. Code generators (protoc-c) run on the build
# machine. The host's own Debian architecture (amd64 here) is a native build.
ARCH ?=
HOST_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
TRIPLET_arm64 := aarch64-linux-gnu
ifneq ($(filter-out $(HOST_ARCH),$(ARCH)),)
CROSS := $(TRIPLET_$(ARCH))
ifeq ($(CROSS),)
$(error ARCH=$(ARCH): not a cross target of this Makefile; use ARCH=arm64, or none for $(HOST_ARCH))
endif
ifneq ($(SAN)$(DYNAMIC),)
$(error ARCH=$(ARCH) builds static plugins only (no SAN=, no DYNAMIC=))
endif
override STATIC :=
CC := $(CROSS)-gcc
AR := $(CROSS)-ar
NM := $(CROSS)-nm
READELF := $(CROSS)-readelf
PKG_CONFIG := $(CROSS)-pkg-config
OUT ?= build/$(ARCH)
# Every library through the triplet's pkg-config, or stop naming the missing.
ifneq ($(filter-out clean help,$(or $(MAKECMDGOALS),all)),)
CROSS_MISSING := $(strip $(foreach m,$(PKGS) libibverbs,$(if $(shell $(PKG_CONFIG) --exists $(m) 2>/dev/null && echo y),,$(m))))
ifneq ($(CROSS_MISSING),)
$(error ARCH=$(ARCH): $(PKG_CONFIG) finds no $(CROSS_MISSING); run scripts/cross-deps.sh $(ARCH) (root))
endif
endif
endif
NM ?= nm
READELF ?= readelf

# SAN=1, STATIC=1 and DYNAMIC=1 builds live in their own trees so they never
# mix objects.
ifeq ($(SAN),1)
OUT ?= build/san
else ifeq ($(STATIC),1)
OUT ?= build/static
else ifeq ($(DYNAMIC),1)
OUT ?= build/dynamic
else
OUT ?= .
endif
OBJ := $(OUT)/build/obj
BIN := $(OUT)/bin

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -D_GNU_SOURCE -Icni
CFLAGS += -Wall -Wextra -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
	  -Wshadow -Wwrite-strings -Wpointer-arith -Wcast-qual -Wvla \
	  -Wimplicit-fallthrough -Wundef -Wno-unused-parameter
CFLAGS += -fstack-protector-strong -D_FORTIFY_SOURCE=2 -MMD -MP
# Generated sources live in the build tree: their paths in the debug info
# relative to it, so that a tree's binaries do not depend on where it is.
CFLAGS += -ffile-prefix-map=$(OBJ)/=
CFLAGS += $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
ifeq ($(WERROR),1)
CFLAGS += -Werror
endif
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifneq ($(DYNAMIC),1)
PLUGIN_LDFLAGS := -static
LDLIBS := $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null) -lpthread -lm
endif

# libibverbs (rdma-core) for the verbs view, cni/kernel/verbs.c; only ib-sriov and
# rdma-ns link it. A static libibverbs cannot dlopen its providers, so the
# static plugins carry the ones named in VERBS_PROVIDERS: cni/kernel/verbs.c is
# compiled a second time with RDMA_STATIC_PROVIDERS (verbs.h then makes
# ibv_get_device_list register verbs_provider_<name>), that object is linked
# ahead of libcniplugin.a, and `pkg-config --static` supplies libibverbs.a,
# every provider archive (only the referenced ones are pulled in), libibverbs.a
# again (the providers call back into it) and libnl-route-3 (RoCE address
# resolution). The result runs on a node without rdma-core installed.
# Dynamic builds use the system's libibverbs and its dlopen'ed providers.
VERBS_PROVIDERS ?= mlx5,mlx4,rxe,siw
ifeq ($(DYNAMIC),1)
VERBS_LIBS := $(shell $(PKG_CONFIG) --libs libibverbs 2>/dev/null || echo -libverbs)
VERBS_OBJ :=
else
VERBS_LIBS := $(shell $(PKG_CONFIG) --static --libs libibverbs 2>/dev/null)
VERBS_OBJ := $(OBJ)/cni/verbs-static.o $(OBJ)/verbs-noneigh.o
endif

ifneq ($(V),1)
Q = @
quiet = @printf '  %-7s %s\n' $(1) $(2);
endif

LIB_SRC := $(wildcard cni/*/*.c)
LIB := $(OBJ)/libcniplugin.a
PLUGINS := ib-sriov rdma-ns ib-host-local
PLUGIN_DIR_ib-sriov := ib-sriov
PLUGIN_DIR_rdma-ns := rdma-ns
PLUGIN_DIR_ib-host-local := ipam

all: $(addprefix $(BIN)/,$(PLUGINS)) $(BIN)/rdma $(BIN)/ibcni-install

# rdma-ns is also rdma-cni's "type": "rdma" (one binary, two names).
$(BIN)/rdma: $(BIN)/rdma-ns
	$(call quiet,LN,$@)ln -f $< $@

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -c -o $@ $<

# skel.o alone carries the version; the stamp changes only with it, so a new
# commit relinks the plugins without rebuilding everything.
$(OBJ)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(SOURCE)' | cmp -s - $@ || echo '$(VERSION) $(SOURCE)' >$@
$(OBJ)/cni/protocol/skel.o: $(OBJ)/version.stamp
$(OBJ)/cni/protocol/skel.o: CFLAGS += -DIBCNI_VERSION='"$(VERSION)"' -DIBCNI_SOURCE='"$(SOURCE)"'
FORCE:

# kubelet's PodResources messages (cni/protocol/podres.proto), generated by protoc-c
# into the build tree, never committed. The generated code is protoc-c's
# style (it casts its own empty string), so it keeps its own warnings.
PODRES_GEN := $(OBJ)/gen
PROTOC_C ?= protoc-c
$(PODRES_GEN)/podres.pb-c.c: cni/protocol/podres.proto
	@mkdir -p $(dir $@)
	$(call quiet,PROTOC,$@)$(PROTOC_C) -Icni/protocol --c_out=$(PODRES_GEN) $<
$(PODRES_GEN)/podres.pb-c.h: $(PODRES_GEN)/podres.pb-c.c
$(PODRES_GEN)/podres.pb-c.o: $(PODRES_GEN)/podres.pb-c.c
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Wno-cast-qual -c -o $@ $<
$(OBJ)/cni/protocol/podres_wire.o: $(PODRES_GEN)/podres.pb-c.h
$(OBJ)/cni/protocol/podres_wire.o: CFLAGS += -I$(PODRES_GEN)

# Made afresh: `ar r` on an old archive keeps its members' first order (and
# members of files since removed), so an incremental build would link in
# another order than a clean one, and its bytes would differ.
$(LIB): $(LIB_SRC:%.c=$(OBJ)/%.o) $(PODRES_GEN)/podres.pb-c.o
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(OBJ)/cni/verbs-static.o: cni/kernel/verbs.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -DRDMA_STATIC_PROVIDERS=$(VERBS_PROVIDERS) -c -o $@ $<

# libibverbs' neigh.c resolves RoCE address handles through libnl-route; the
# plugins only query devices and ports. Its entry points, defined as failures
# (ibv_resolve_eth_l2_from_gid then fails at once, as it does when libnl
# cannot start), keep neigh.o out of the static plugins, and with it
# libnl-route: its constructors, half a megabyte, and the page faults of
# every run. The list comes from the archive itself, so any rdma-core fits:
# names it does not have are simply not generated, and neigh.o is linked.
VERBS_ARCHIVE := $(shell $(PKG_CONFIG) --variable=libdir libibverbs 2>/dev/null)/libibverbs.a
$(OBJ)/verbs-noneigh.c: $(wildcard $(VERBS_ARCHIVE))
	@mkdir -p $(dir $@)
	$(call quiet,GEN,$@){ \
	  echo '/* Generated by the Makefile from libibverbs.a: neigh.o left out (see there). */'; \
	  $(NM) -g --defined-only $(VERBS_ARCHIVE) 2>/dev/null | \
	  awk '/^neigh[.].*o:$$/ { m = 1; next } /:$$/ { m = 0 } \
	       m && $$2 == "T" { printf "int %s(void);\nint %s(void)\n{\n\treturn -95;\n}\n", $$3, $$3 }'; \
	} >$@
$(OBJ)/verbs-noneigh.o: $(OBJ)/verbs-noneigh.c
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -c -o $@ $<

# ib-sriov carries ib-host-local's code and the build ID of the ib-host-local
# linked from it (cni/protocol/builtin.c): when CNI_PATH's ib-host-local is that very
# executable, IPAM requests are served in-process. Every plugin gets a GNU
# build ID whatever the toolchain's default.
PLUGIN_LDFLAGS += -Wl,--build-id=sha1
IPAM_LINKED := $(patsubst %.c,$(OBJ)/%.o,$(filter-out ipam/main.c,$(wildcard ipam/*.c)))
$(OBJ)/ipam-id.c: $(BIN)/ib-host-local
	$(call quiet,GEN,$@)id=$$($(READELF) -n $< | sed -n 's/^ *Build ID: *//p'); \
	test -n "$$id" || { echo "$<: no build ID" >&2; exit 1; }; \
	{ echo '/* Generated from $< by the Makefile. */'; \
	  echo '#include "protocol/builtin.h"'; \
	  echo "const struct cni_build_id ipam_build_id = {$$(( $${#id} / 2 )), {$$(echo $$id | sed 's/../0x&,/g')}};"; } >$@
$(OBJ)/ipam-id.o: $(OBJ)/ipam-id.c
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -c -o $@ $<
PLUGIN_EXTRA_ib-sriov := $(IPAM_LINKED) $(OBJ)/ipam-id.o

# ib-sriov's rooms (ib-sriov/README.md) name the plugin's top-level headers
# bare, and another room's as "<room>/<file>.h".
$(OBJ)/ib-sriov/%.o: CFLAGS += -Iib-sriov

PLUGIN_VERBS_ib-sriov := $(VERBS_OBJ)
PLUGIN_VERBS_rdma-ns := $(VERBS_OBJ)
PLUGIN_LIBS_ib-sriov := $(VERBS_LIBS)
PLUGIN_LIBS_rdma-ns := $(VERBS_LIBS)

define plugin_rule
$(BIN)/$(1): $(patsubst %.c,$(OBJ)/%.o,$(wildcard $(PLUGIN_DIR_$(1))/*.c $(PLUGIN_DIR_$(1))/*/*.c)) $(PLUGIN_EXTRA_$(1)) \
	     $(PLUGIN_VERBS_$(1)) $(LIB)
	@mkdir -p $(BIN)
	$$(call quiet,LD,$$@)$$(CC) $$(LDFLAGS) $$(PLUGIN_LDFLAGS) -o $$@ $$^ $$(PLUGIN_LIBS_$(1)) $$(LDLIBS)
endef
$(foreach p,$(PLUGINS),$(eval $(call plugin_rule,$(p))))

# ibcni-install, the image's entrypoint (installer/README.md), a peer of the
# plugins: linked as they are (static unless DYNAMIC= or SAN=; the image
# takes build/static's), with ib-host-local's node ranges check from an
# archive of the objects ib-sriov links, so that only what the check calls
# comes in and the installer refuses the ranges the plugins would.
IPAM_LIB := $(OBJ)/libipam.a
$(IPAM_LIB): $(IPAM_LINKED)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^
$(BIN)/ibcni-install: $(patsubst %.c,$(OBJ)/%.o,$(wildcard installer/*.c)) $(IPAM_LIB) $(LIB)
	@mkdir -p $(BIN)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) $(PLUGIN_LDFLAGS) -o $@ $^ $(LDLIBS)
$(OBJ)/installer/ibcni-install.o: $(OBJ)/version.stamp
$(OBJ)/installer/ibcni-install.o: CFLAGS += -DIBCNI_VERSION='"$(VERSION)"' -DIBCNI_SOURCE='"$(SOURCE)"'

# The qemu tiers' unpacked kernels and Debian trees (with directories like
# etc/ld.so.conf.d) are not the compiler's: pruned.
# The two unit tests built from many sources keep none (tests/tests.mk): an
# older tree's would name a source since moved.
-include $(shell find $(OUT)/build \( -path '*/vm*/root' -o -path '*/vm*/kernel-*' \
	-o -path '*/vm*/userland-*' \) -prune -o -name '*.d' -type f \
	! -name test_ibsriov_add.d ! -name test_rdmans_release.d -print 2>/dev/null)

include tests/tests.mk
include tests/fuzz.mk
include tests/crash/crash.mk
include tests/cri.mk

# Always static, whatever SAN= or DYNAMIC= say (the vm tier boots these).
static:
	$(MAKE) SAN= DYNAMIC= STATIC=1 all
	@for b in $(PLUGINS) ibcni-install; do file build/static/bin/$$b; ldd build/static/bin/$$b 2>&1 | sed 's/^/    /'; done

# ibcni-install stays out: it is the image's way to put these same files on
# a node, and the CNI directory holds plugins only.
install: all
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(addprefix $(BIN)/,$(PLUGINS)) $(DESTDIR)$(BINDIR)/
	ln -f $(DESTDIR)$(BINDIR)/rdma-ns $(DESTDIR)$(BINDIR)/rdma

deps:
	@scripts/deps.sh

demo: deps
	$(MAKE) all
	@scripts/demo.sh

# Two pods exchanging RDMA on Linux 7: the vm-rdma tier's guest (about 2 min).
demo-rdma: deps
	@scripts/demo-rdma.sh

clean:
	rm -rf bin build

# Every target a user or developer runs (tests/docs.sh checks that each .PHONY
# target is named here).
help:
	@echo 'Build and install:'
	@echo '  make [all]          build bin/ib-sriov bin/rdma-ns bin/ib-host-local bin/ibcni-install (static)'
	@echo '  make static         the same static binaries in build/static/bin, file/ldd shown'
	@echo '  make install        to $$(DESTDIR)$$(BINDIR) (default /opt/cni/bin; root)'
	@echo '  make image          build/image/ibcni.tar, the OCI image (amd64 and arm64) the DaemonSet runs'
	@echo '  make deps           install missing Debian packages (root)'
	@echo '  make demo           simulated SR-IOV node walk-through (root)'
	@echo '  make demo-rdma      two pods exchanging RDMA through ibcni on Linux 7, in qemu (root)'
	@echo '  make clean          remove bin/ and build/'
	@echo '  make help           this list'
	@echo 'Tests (docs/testing.md):'
	@echo '  make check          every test tier this machine supports (root for most)'
	@echo '  make check-unit     Criterion unit tests (no root)'
	@echo '  make check-static   static binaries, a tree without .git, docs links, this list (no root)'
	@echo '  make check-netns    whole-binary tests in private namespaces (root; NETNS_FILTER=)'
	@echo '  make check-compat   upgrade and downgrade against the previous release (root; tests/compat/PREVIOUS)'
	@echo '  make check-crash    kill/fault injection at every syscall and a soak (root; FULL=1 all points)'
	@echo '  make check-budget   one ADD and one DEL under strace against a recorded budget (root)'
	@echo '  make check-cri      containerd CRI and podman, the DaemonSet container (root; CRI_FILTER=)'
	@echo '  make check-arm64    the arm64 plugins under qemu-user (root)'
	@echo '  make check-vm       RDMA tests in a qemu VM running Debian'"'"'s kernel (root)'
	@echo '  make check-vm-igb   ib-sriov on qemu'"'"'s igb SR-IOV PF, backports kernel (root)'
	@echo '  make check-vm-rdma  RDMA between pods on Linux 7, igb VFs, trixie userland (root)'
	@echo '  make check-hw       opt-in, real ConnectX VFs (tests/hw/README.md)'
	@echo '  make check-valgrind the unit tier and netns tests under memcheck (make valgrind-run DYNAMIC=1: the run alone)'
	@echo '  make fuzz           libFuzzer harnesses, FUZZ_SECONDS each (make fuzz-build: build them only)'
	@echo 'Development:'
	@echo '  make bench          the performance table of docs/performance.md (root, not in check)'
	@echo '  make format         clang-format every C source in place'
	@echo '  make format-check   fail when a C source is not formatted (CI)'
	@echo 'Options: DYNAMIC=1 (plugins on shared libraries, build/dynamic), SAN=1 (ASan+UBSan,'
	@echo '         dynamic), ARCH=arm64 (cross build, build/arm64), WERROR=1, V=1, PREFIX=, DESTDIR='

# The static tier alone (tests/static.sh; make check runs it too).
check-static:
	@tests/static.sh

.PHONY: all static install deps demo demo-rdma clean help check-static

# Every row of docs/performance.md's table (bench/bench.sh; root, about
# 5 minutes; not part of check). The floor program is static, as the plugins;
# so is the runner, whose own small RSS is the floor of what wait4() reports.
BENCH_TOOLS := build/bench/run build/bench/floor
build/bench/run: bench/run.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -static -o $@ $<
build/bench/floor: bench/floor.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -static -o $@ $<

bench: all $(BENCH_TOOLS)
	@$(MAKE) --no-print-directory SAN= DYNAMIC=1 all
	@bench/bench.sh

.PHONY: bench

# The tree's C sources in the shipped .clang-format (kernel style); CI runs
# format-check. FORMAT_SRC excludes nothing: every .c and .h is ours.
CLANG_FORMAT ?= clang-format
FORMAT_SRC = $(shell $(GIT) ls-files '*.c' '*.h' 2>/dev/null || find cni ib-sriov ipam rdma-ns scripts tests bench -name '*.[ch]')

format:
	@$(CLANG_FORMAT) -i $(FORMAT_SRC)

format-check:
	@$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRC) && echo "format-check: $(words $(FORMAT_SRC)) files clean"

.PHONY: format format-check
