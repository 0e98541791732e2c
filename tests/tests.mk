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
UNIT_EXTRA := $(patsubst %.c,$(OBJ)/%.o,ipam/range.c ipam/store.c ipam/store_lease.c \
	ipam/store_write.c ipam/store_index.c ipam/alloc.c ipam/conf.c ipam/resolv.c ipam/noderanges.c ipam/ipindex.c ipam/conf_sets.c \
	ib-sriov/conf.c ib-sriov/rail_conf.c ib-sriov/guid.c ib-sriov/record.c ib-sriov/record_io.c ib-sriov/gocache.c)

$(OUT)/build/unit/%: tests/unit/%.c $(UNIT_EXTRA) $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Iipam -Iib-sriov -Wno-missing-prototypes $(LDFLAGS) -o $@ $< $(UNIT_EXTRA) $(LIB) $(LDLIBS) $(CRITERION_LIBS)

# ib-sriov ADD against the fake kernel: its sources rebuilt with every path
# under a temporary directory, linked without the real kernel modules but
# the VF table's reader (link_vf.c and nl_attr.c's parsers), which reads
# the fake PF's reply as a real netlink message (fake_kernel.c).
FAKE_CNI := $(filter-out $(addprefix $(OBJ)/cni/kernel/,link.o link_vf_set.o link_addr.o link_route.o link_restore.o netns.o rdma.o rdma_return.o announce.o nl.o), \
	$(patsubst %.c,$(OBJ)/%.o,$(LIB_SRC))) $(PODRES_GEN)/podres.pb-c.o
# The plugin's top level (but main.c and gc.c), ADD's room and the release's.
FAKE_SRC := tests/unit/fake_kernel.c tests/unit/fake_verbs.c \
	$(filter-out ib-sriov/main.c ib-sriov/gc.c,$(wildcard ib-sriov/*.c)) \
	$(wildcard ib-sriov/add/*.c ib-sriov/release/*.c)
UNIT_BIN := $(filter-out %/test_ibsriov_add,$(UNIT_BIN)) $(OUT)/build/unit/test_ibsriov_add
$(OUT)/build/unit/test_ibsriov_add: tests/unit/test_ibsriov_add.c $(FAKE_SRC) $(FAKE_CNI) tests/unit/fake_kernel.h tests/unit/fake_paths.h tests/unit/fake_verbs.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Iib-sriov -Itests/unit -include tests/unit/fake_paths.h \
		-Wno-missing-prototypes $(LDFLAGS) -o $@ $< $(FAKE_SRC) $(FAKE_CNI) $(LDLIBS) $(CRITERION_LIBS)

# The doctor's per-attachment checks (pod_rdma.c) against the same fakes.
DOCTOR_POD_SRC := tests/unit/fake_kernel.c tests/unit/fake_verbs.c ib-sriov/doctor/pod_rdma.c \
	ib-sriov/doctor/report.c ib-sriov/port.c ib-sriov/guid.c
UNIT_BIN := $(filter-out %/test_doctor_pod,$(UNIT_BIN)) $(OUT)/build/unit/test_doctor_pod
$(OUT)/build/unit/test_doctor_pod: tests/unit/test_doctor_pod.c $(DOCTOR_POD_SRC) $(FAKE_CNI) tests/unit/fake_kernel.h tests/unit/fake_paths.h tests/unit/fake_verbs.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Iib-sriov -Itests/unit -include tests/unit/fake_paths.h \
		-Wno-missing-prototypes $(LDFLAGS) -o $@ $< $(DOCTOR_POD_SRC) $(FAKE_CNI) $(LDLIBS) $(CRITERION_LIBS)

# cni/kernel/rdma_return.c against the test's own fake of the RDMA and netns
# calls it makes: linked with the base layer only, never rdma.o or netns.o.
RDMA_RETURN_OBJ := $(patsubst %.c,$(OBJ)/%.o,cni/kernel/rdma_return.c cni/kernel/rdma_names.c \
	$(wildcard cni/base/*.c))
$(OUT)/build/unit/test_rdma_return: tests/unit/test_rdma_return.c $(RDMA_RETURN_OBJ)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Wno-missing-prototypes $(LDFLAGS) -o $@ $< $(RDMA_RETURN_OBJ) $(LDLIBS) $(CRITERION_LIBS)

# rdma-ns's release against the same fake kernel, its records under the
# temporary directory too.
RDMANS_FAKE_SRC := tests/unit/fake_kernel.c tests/unit/fake_verbs.c rdma-ns/common.c
UNIT_BIN := $(filter-out %/test_rdmans_release,$(UNIT_BIN)) $(OUT)/build/unit/test_rdmans_release
$(OUT)/build/unit/test_rdmans_release: tests/unit/test_rdmans_release.c $(RDMANS_FAKE_SRC) $(FAKE_CNI) tests/unit/fake_kernel.h tests/unit/fake_paths.h rdma-ns/rdmans.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -Irdma-ns -Itests/unit -include tests/unit/fake_paths.h \
		-Wno-missing-prototypes $(LDFLAGS) -o $@ $< $(RDMANS_FAKE_SRC) $(FAKE_CNI) $(LDLIBS) $(CRITERION_LIBS)

check-unit: $(UNIT_BIN) all
	@tests/unit/run.sh $(OUT) $(UNIT_BIN)

# cnitool, the reference client, built from Debian's packages (root: apt-get).
CNITOOL := build/cnitool
$(CNITOOL):
	@tests/netns/build-cnitool.sh $@ >/dev/null || echo "cnitool could not be built; its tests will fail"

check-netns: all $(NETNS_HELPER) $(CNITOOL)
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_HELPER=$(abspath $(NETNS_HELPER)) \
		IBCNI_CNITOOL=$(abspath $(CNITOOL)) NETNS_EXCLUDE="test-compat $(NETNS_EXCLUDE)" \
		tests/netns/run.sh

# Upgrade and downgrade against the previous release (tests/compat/PREVIOUS),
# built from this checkout's history once per commit (root; a tree without
# .git says it cannot run): tests/netns/test-compat.sh.
check-compat: all $(NETNS_HELPER) $(CNITOOL)
	@prev=$$(tests/compat/build-previous.sh) || { echo "compat: 0 passed, 1 failed"; exit 1; }; \
	IBCNI_BIN=$(abspath $(BIN)) IBCNI_PREV_BIN=$$prev IBCNI_HELPER=$(abspath $(NETNS_HELPER)) \
		IBCNI_CNITOOL=$(abspath $(CNITOOL)) NETNS_FILTER=$(or $(NETNS_FILTER),test-compat) \
		NETNS_TIER=compat tests/netns/run.sh

# The system-call and page-fault budget of one ADD and one DEL (root; the
# default static build, whose counts tests/budget/budget.txt records;
# RECORD=1 rewrites it: tests/budget/README.md).
BUDGET_FAULTS := $(OUT)/build/budget/faults
$(BUDGET_FAULTS): tests/budget/faults.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

check-budget: all $(BUDGET_FAULTS)
ifneq ($(SAN)$(DYNAMIC)$(ARCH),)
	@echo "budget: the budget is the default static build's (make check-budget, without SAN=, DYNAMIC=, ARCH=)"
	@echo "budget: 0 passed, 1 failed"
	@false
else
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_FAULTS=$(abspath $(BUDGET_FAULTS)) RECORD=$(RECORD) \
		tests/budget/run.sh
endif

check-vm: all
	@tests/vm/run.sh

# The arm64 plugins under qemu-user (root): this machine's build of the same
# tree is what their output is compared with (tests/arm64/run.sh).
check-arm64: all $(NETNS_HELPER) $(CNITOOL)
	@scripts/cross-deps.sh arm64
	@$(MAKE) --no-print-directory ARCH=arm64 SAN= DYNAMIC= STATIC= all
	@IBCNI_BIN=$(abspath build/arm64/bin) IBCNI_NATIVE_BIN=$(abspath $(BIN)) \
		IBCNI_HELPER=$(abspath $(NETNS_HELPER)) IBCNI_CNITOOL=$(abspath $(CNITOOL)) tests/arm64/run.sh

check: deps
	$(MAKE) all
	@tests/check.sh $(OUT)

.PHONY: check check-unit check-netns check-compat check-budget check-vm check-arm64


# cni/kernel/verbs.c against the fake libibverbs (no libibverbs linked).
$(OUT)/build/unit/test_verbs: tests/unit/fake_verbs.c tests/unit/fake_verbs.h
$(OUT)/build/unit/test_verbs: UNIT_EXTRA += tests/unit/fake_verbs.c

# The vm-igb tier: qemu's igb (SR-IOV) under Debian's backports kernel.
VM_IGB_HELPER := $(OUT)/build/vm-igb/igbhelper
# Static like the plugins: the guest's initramfs has no shared json-c.
$(VM_IGB_HELPER): tests/vm-igb/igbhelper.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) $(LDFLAGS) $(PLUGIN_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

check-vm-igb: all
	@tests/vm-igb/run.sh

# The vm-rdma tier: Linux 7 (trixie-backports) on qemu's igb PF and VFs,
# trixie's RDMA userland, real RDMA traffic between pods (tests/vm-rdma/).
check-vm-rdma: all
	@tests/vm-rdma/run.sh

# The hardware tier: opt-in, on a node with spare ConnectX VFs (tests/hw/README.md).
check-hw: all
	@IBCNI_HW_BIN=$(abspath $(BIN)) tests/hw/run.sh

.PHONY: check-vm-igb check-vm-rdma check-hw
