# SPDX-License-Identifier: Apache-2.0
# libFuzzer harnesses (tests/fuzz/) and the valgrind tier; included from
# the top-level Makefile. Both install their Debian packages on first use.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OUT := build/fuzz
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(addprefix $(FUZZ_OUT)/bin/,$(FUZZ_TARGETS))
# Everything a harness may reach: the runtime and the plugins minus main().
FUZZ_SRC := $(wildcard cni/*/*.c) $(filter-out ipam/main.c,$(wildcard ipam/*.c)) \
	$(filter-out ib-sriov/main.c,$(wildcard ib-sriov/*.c ib-sriov/*/*.c))
FUZZ_LIB := $(FUZZ_OUT)/libibcni.a
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# The project's warnings; -Werror (WERROR=1) applies to the harnesses only,
# as gcc is the compiler that gates the project's own sources.
FUZZ_CFLAGS := -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Iinclude -Icni -Iipam -Iib-sriov -Itests/fuzz \
	$(filter-out -Werror,$(filter -W%,$(CFLAGS))) -Wno-missing-prototypes -MMD -MP \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) $(FUZZ_SAN)
FUZZ_LDLIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

$(FUZZ_OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		$(if $(filter tests/fuzz/%,$<),$(if $(filter 1,$(WERROR)),-Werror)) -c -o $@ $<

# The PodResources messages protoc-c generates (the Makefile's PODRES_GEN).
$(FUZZ_OUT)/obj/cni/protocol/podres_wire.o: $(PODRES_GEN)/podres.pb-c.h
$(FUZZ_OUT)/obj/cni/protocol/podres_wire.o: FUZZ_CFLAGS += -I$(PODRES_GEN)
$(FUZZ_OUT)/obj/gen/podres.pb-c.o: $(PODRES_GEN)/podres.pb-c.c
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-cast-qual -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_SRC:%.c=$(FUZZ_OUT)/obj/%.o) $(FUZZ_OUT)/obj/tests/fuzz/fuzz.o \
	     $(FUZZ_OUT)/obj/gen/podres.pb-c.o
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(FUZZ_OUT)/bin/%: $(FUZZ_OUT)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,FUZZLD,$@)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LDLIBS)

-include $(shell find $(FUZZ_OUT)/obj -name '*.d' -type f 2>/dev/null)

fuzz-build: $(FUZZ_BIN)

# FUZZ_SECONDS per target; prints executions and crashes per target and a
# total line. `make fuzz FUZZ_TARGETS="json conf"` runs a subset.
fuzz:
	@scripts/deps.sh clang libclang-rt-dev
	@$(MAKE) --no-print-directory fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_OUT) $(FUZZ_TARGETS)

# The unit tier and a subset of the netns tier under valgrind, on dynamically
# linked plugins: memcheck sees malloc and free only through the shared libc.
check-valgrind:
	@scripts/deps.sh valgrind
	@$(MAKE) --no-print-directory DYNAMIC=1 valgrind-run

valgrind-run: all $(UNIT_BIN) $(NETNS_HELPER) $(CNITOOL)
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_HELPER=$(abspath $(NETNS_HELPER)) \
		IBCNI_CNITOOL=$(abspath $(CNITOOL)) tests/valgrind.sh $(OUT) $(UNIT_BIN)

.PHONY: fuzz fuzz-build check-valgrind valgrind-run

# Keep the harness objects make would otherwise delete as intermediates.
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_OUT)/obj/tests/fuzz/fuzz_%.o)
