# SPDX-License-Identifier: Apache-2.0
# ib-sriov chained with what the operators render, run by libcni (cnitool)
# with Debian's Go plugins from /usr/lib/cni: the Network Operator's
# multi-rail metaPlugins (tuning for ARP and rp_filter, then sbr) as SNO
# renders them after ib-sriov in a SriovIBNetwork's NAD
# (conf-examples/ib-sriov-rails.conflist), then "type": "rdma" after them,
# then the order issue 22 names (sbr, then tuning on the interface's keys).

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/chain-lib.sh"

CHAIN_ARGS='IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=rail-pod;K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_UID=u-1'

# chain_node: the node's CNI bin dir as the installer leaves it (rdma-ns
# also as rdma, a file of its own), Debian's sbr and tuning beside them, and
# a spy in front of each (chain-lib.sh).
chain_node() {
	mkdir -p "$T/bin" "$T/net.d"
	cp "$BIN/ib-sriov" "$BIN/ib-host-local" "$T/bin/"
	cp "$BIN/rdma-ns" "$T/bin/rdma"
	cp "$GO_CNI/sbr" "$GO_CNI/tuning" "$T/bin/"
	chain_spies "$T/spy" "$T/bin" ib-sriov tuning sbr rdma
}

rails_conf() { # [JQ-FILTER]: the example in $T/net.d, its leases under $T
	chain_conf "$T/net.d/10-rails.conflist" ".plugins[0].ipam.dataDir = \"$T/leases\" | ${1:-.}"
}

chain_tool() { # VERB: cnitool on the conflist, pod1, net1, kubelet's CNI_ARGS
	OUT=$(NETCONFPATH=$T/net.d CNI_PATH=$T/spy:$T/bin CNI_IFNAME=net1 CNI_ARGS="$CHAIN_ARGS" \
		"$IBCNI_CNITOOL" "$1" "$(jq -r .name "$T/net.d/10-rails.conflist")" /run/netns/pod1 2>"$T/err")
	RC=$?
	ERR=$(cat "$T/err")
}

# rail_pod: the pod's netns, with rp_filter 1 where a new netns has 0, so
# that tuning's writes of 0 show (net1 takes "default" as it arrives).
rail_pod() {
	pod_ns pod1
	ip netns exec pod1 sysctl -q -w net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.default.rp_filter=1
	assert_eq "0 0 1 0 0 1" "$(pod_sysctls default)" "the pod's sysctls before ADD"
}

# assert_as_found BEFORE POD-BEFORE MAC: after DEL, the node as snapshotted
# before ADD, the VF home under its name, MAC and MTU, the pod as it was.
assert_as_found() {
	assert_same "$1" "$(node_snapshot "$T/leases")" "the node after DEL"
	vf_as_found vf0_1 "$3" 1500
	assert_same "$2" "$(pod_routing)" "the pod after DEL"
	assert_no_link pod1 net1
}

test_chain_operator_rails() {
	local mac before pod_before want
	sim_node 1 2 ib
	rail_pod
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	want=$(rail_result "$mac" /run/netns/pod1)
	chain_node
	rails_conf
	before=$(node_snapshot "$T/leases")
	pod_before=$(pod_routing)
	chain_tool add
	assert_eq 0 "$RC" "cnitool add ($ERR)"
	assert_eq "$want" "$(jq -S -c . <<<"$OUT")" "the chain's result"
	assert_eq "ib-sriov tuning sbr" "$(calls ADD)" "ADD order"
	assert_eq "null" "$(prev_of ib-sriov ADD)" "ib-sriov's prevResult"
	assert_eq "$want" "$(prev_of tuning ADD)" "tuning's prevResult: ib-sriov's result"
	assert_eq "$want" "$(prev_of sbr ADD)" "sbr's prevResult: tuning's pass-through"
	assert_sbr
	assert_eq "1 2 0 1 2 0" "$(pod_sysctls net1)" "all and net1 arp_ignore arp_announce rp_filter"
	assert_eq "$mac" "$(ip -n pod1 -j link show dev net1 | jq -r '.[0].address')" "net1 in the pod"

	# CHECK: ib-sriov's passes with the chain's result (its route is found in
	# sbr's table 100: it looks in every table); Debian's tuning 1.1.1
	# does not substitute IFNAME in CHECK (fixed in v1.3.0, 5b7a263e, the
	# version of the Network Operator's plugins image), so it fails there.
	chain_tool check
	assert_eq 1 "$RC" "cnitool check"
	assert_eq "ib-sriov tuning" "$(calls CHECK)" "CHECK order"
	assert_eq "$want" "$(prev_of ib-sriov CHECK)" "ib-sriov's CHECK prevResult"
	assert_match 'ib-sriov CHECK [^ ]+/net1: CHECK succeeded' "$ERR" "ib-sriov's CHECK"
	assert_match 'open /proc/sys/net/ipv4/conf/IFNAME/' "$ERR" "tuning 1.1.1's CHECK"

	# DEL in reverse order, each given the cached result.
	chain_tool del
	assert_eq 0 "$RC" "cnitool del ($ERR)"
	assert_eq "sbr tuning ib-sriov" "$(calls DEL)" "DEL order"
	assert_eq "$want" "$(prev_of ib-sriov DEL)" "ib-sriov's DEL prevResult"
	assert_as_found "$before" "$pod_before" "$mac"
}

test_chain_operator_rails_then_rdma() {
	# metaPlugins with "type": "rdma" after sbr, as SNO users isolate RDMA.
	# This kernel has no RDMA subsystem: rdma runs with sbr's output as its
	# prevResult and Multus's deviceID and refuses at the kernel (the vm
	# tier moves a real RDMA device with a result of this shape). libcni
	# leaves the undo to the runtime's DEL, which runs every plugin.
	local mac before pod_before want
	sim_node 1 2 ib
	rail_pod
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	want=$(rail_result "$mac" /run/netns/pod1)
	chain_node
	rails_conf '.plugins += [{"type": "rdma"}]'
	before=$(node_snapshot "$T/leases")
	pod_before=$(pod_routing)
	chain_tool add
	assert_eq 1 "$RC" "cnitool add"
	assert_match 'cannot read the RDMA netns mode; the kernel has no RDMA subsystem' "$ERR" "rdma's error"
	assert_eq "ib-sriov tuning sbr rdma" "$(calls ADD)" "ADD order"
	assert_eq "$want" "$(prev_of rdma ADD)" "rdma's prevResult: sbr's pass-through"
	assert_eq "\"$(sim_vf_addr 0 1)\"" "$(jq -c 'select(.plugin == "rdma") | .deviceID' "$T/calls" | head -1)" \
		"rdma's deviceID"
	assert_sbr
	assert_eq "" "$(find /var/lib/cni/rdma-ns -type f 2>/dev/null)" "no rdma-ns record"
	chain_tool del
	assert_eq 0 "$RC" "cnitool del ($ERR)"
	assert_eq "rdma sbr tuning ib-sriov" "$(calls DEL)" "DEL order"
	assert_eq "null" "$(prev_of sbr DEL)" "no cached result after a failed ADD"
	assert_as_found "$before" "$pod_before" "$mac"
}

test_chain_sbr_then_tuning() {
	# The order issue 22 names, tuning on net1's own keys with rp_filter 2
	# (loose): CHECK runs through the whole chain, and catches a change.
	local mac before pod_before want
	sim_node 1 2 ib
	rail_pod
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	want=$(rail_result "$mac" /run/netns/pod1)
	chain_node
	rails_conf '.plugins = [.plugins[0], {"type": "sbr"}, {"type": "tuning", "sysctl":
		{"net.ipv4.conf.net1.arp_ignore": "1", "net.ipv4.conf.net1.arp_announce": "2",
		 "net.ipv4.conf.net1.rp_filter": "2"}}]'
	before=$(node_snapshot "$T/leases")
	pod_before=$(pod_routing)
	chain_tool add
	assert_eq 0 "$RC" "cnitool add ($ERR)"
	assert_eq "$want" "$(jq -S -c . <<<"$OUT")" "the chain's result"
	assert_eq "ib-sriov sbr tuning" "$(calls ADD)" "ADD order"
	assert_eq "$want" "$(prev_of tuning ADD)" "tuning's prevResult: sbr's pass-through"
	assert_sbr
	assert_eq "0 0 1 1 2 2" "$(pod_sysctls net1)" "all and net1 arp_ignore arp_announce rp_filter"
	chain_tool check
	assert_eq 0 "$RC" "cnitool check ($ERR)"
	assert_eq "ib-sriov sbr tuning" "$(calls CHECK)" "CHECK order"
	ip netns exec pod1 sysctl -q -w net.ipv4.conf.net1.rp_filter=1
	chain_tool check
	assert_eq 1 "$RC" "cnitool check after rp_filter changed"
	assert_match 'Tuning configured value of /proc/sys/net/ipv4/conf/net1/rp_filter is 2, current value is 1' \
		"$ERR" "tuning's CHECK"
	chain_tool del
	assert_eq 0 "$RC" "cnitool del ($ERR)"
	assert_eq "tuning sbr ib-sriov" "$(calls DEL)" "DEL order"
	assert_as_found "$before" "$pod_before" "$mac"
}
