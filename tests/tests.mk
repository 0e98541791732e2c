# SPDX-License-Identifier: Apache-2.0
# Test tiers; included from the top-level Makefile.

CRITERION_LIBS := $(shell $(PKG_CONFIG) --libs criterion 2>/dev/null || echo -lcriterion)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(OUT)/build/unit/%,$(UNIT_SRC))
FIXTURES := $(OUT)/build/fixtures

NETNS_HELPER := $(OUT)/build/netns/cnihelper
$(NETNS_HELPER): tests/netns/cnihelper.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Plugin modules that unit tests exercise directly (never a plugin's main.c).
UNIT_EXTRA := $(patsubst %.c,$(OBJ)/%.o,ipam/range.c ipam/store.c ipam/alloc.c ipam/conf.c \
	ib-sriov/conf.c ib-sriov/guid.c)

$(OUT)/build/unit/%: tests/unit/%.c $(UNIT_EXTRA) $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Iipam -Iib-sriov -Wno-missing-prototypes $(LDFLAGS) -o $@ $< $(UNIT_EXTRA) $(LIB) $(LDLIBS) $(CRITERION_LIBS)

check-unit: $(UNIT_BIN) all
	@tests/unit/run.sh $(OUT) $(UNIT_BIN)

# cnitool, the reference client, built from Debian's packages (root: apt-get).
CNITOOL := build/cnitool
$(CNITOOL):
	@tests/netns/build-cnitool.sh $@ >/dev/null || echo "cnitool could not be built; its tests will fail"

check-netns: all $(NETNS_HELPER) $(CNITOOL)
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_HELPER=$(abspath $(NETNS_HELPER)) \
		IBCNI_CNITOOL=$(abspath $(CNITOOL)) tests/netns/run.sh

check-vm: all
	@tests/vm/run.sh

check: deps
	$(MAKE) all
	@tests/check.sh $(OUT)

.PHONY: check check-unit check-netns check-vm

