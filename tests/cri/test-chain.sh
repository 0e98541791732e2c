# SPDX-License-Identifier: Apache-2.0
# The operators' multi-rail chain (conf-examples/ib-sriov-rails.conflist:
# ib-sriov, then Debian's Go tuning and sbr) as a pod sandbox's network,
# from containerd's CNI config dir: containerd runs the chain itself (eth0,
# its pinned netns, its result cache), kubelet's Stop and Remove tear it
# down, and "type": "rdma" appended fails and is undone by containerd.

. "$(dirname "${BASH_SOURCE[0]}")/../netns/chain-lib.sh"

# rails_node [JQ-FILTER]: containerd's bin dir with a spy in front of ib-sriov,
# tuning, sbr and rdma (the plugins themselves in $T/real), and the example
# as containerd's only network.
rails_node() {
	mkdir -p "$T/real"
	mv "$T/cni-bin/ib-sriov" "$T/real/"
	cp "$T/cni-bin/rdma-ns" "$T/real/rdma"
	rm "$T/cni-bin/rdma"
	cp "$GO_CNI/sbr" "$GO_CNI/tuning" "$T/real/"
	chain_spies "$T/cni-bin" "$T/real" ib-sriov tuning sbr rdma
	chain_conf "$T/net.d/10-rails.conflist" "${1:-.}"
}

test_chain_rails_pod() {
	sim_node 1 2 ib
	local mac id netns before ctr
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	containerd_start || return
	rails_node
	before=$(node_snapshot)
	pod_spec "$T/pod.json" rail-pod uid-rail
	cri run-pod "$T/pod.json"
	assert_eq 0 "$RC" "RunPodSandbox ($ERR)"
	id=$OUT
	[ -n "$id" ] || return
	pod_started "$id"
	cri pod-status "$id"
	assert_json '[.state, .ip]' "[\"SANDBOX_READY\",\"$RAIL_IP\"]"
	netns=$(jq -r .netns <<<"$OUT")
	POD=$(basename "$netns") IF=eth0
	assert_eq "ib-sriov tuning sbr" "$(calls ADD)" "ADD order"
	# The result containerd keeps for the pod is ib-sriov's, passed on.
	assert_eq "$(rail_result "$mac" "$netns")" "$(prev_of sbr ADD)" "sbr's prevResult"
	assert_eq "$(rail_result "$mac" "$netns")" \
		"$(jq -S -c .result /var/lib/cni/results/ib-rail-0-"$id"-eth0 2>&1)" "containerd's cached result"
	assert_sbr
	assert_eq "1 2 0 1 2 0" "$(pod_sysctls eth0)" "all and eth0 arp_ignore arp_announce rp_filter"

	# A container of the pod reads them from its own /proc/sys.
	jq -n --arg img "$TEST_IMAGE" '{name: "app", image: $img, command: ["/bin/sleep", "600"]}' >"$T/app.json"
	cri create-container "$id" "$T/pod.json" "$T/app.json"
	assert_eq 0 "$RC" "CreateContainer ($ERR)"
	ctr=$OUT
	cri start "$ctr"
	assert_eq 0 "$RC" "StartContainer ($ERR)"
	cri exec "$ctr" /bin/cat /proc/sys/net/ipv4/conf/eth0/arp_ignore /proc/sys/net/ipv4/conf/eth0/arp_announce
	assert_eq $'1\n2' "$OUT" "the sysctls inside the container"

	# Stop: DEL in reverse order with the cached result; then kubelet's
	# repeated Stop and Remove.
	cri stop-pod "$id"
	assert_eq 0 "$RC" "StopPodSandbox ($ERR)"
	assert_eq "sbr tuning ib-sriov" "$(calls DEL)" "DEL order"
	assert_eq "$(rail_result "$mac" "$netns")" "$(prev_of ib-sriov DEL)" "ib-sriov's DEL prevResult"
	assert_same "$before" "$(node_snapshot)" "the node after StopPodSandbox"
	vf_as_found vf0_1 "$mac" 1500
	cri stop-pod "$id"
	assert_eq 0 "$RC" "StopPodSandbox again ($ERR)"
	cri remove-pod "$id"
	assert_eq 0 "$RC" "RemovePodSandbox ($ERR)"
	assert_same "$before" "$(node_snapshot)" "the node after RemovePodSandbox"
	# Those later DELs come without a netns or a prevResult, and the chain
	# stops at its last plugin: Go sbr locks the netns path, fails on ""
	# (999 "no such file or directory"), which containerd ignores without a
	# netns, so libcni runs nothing after it. Here the first DEL had
	# cleaned up; for a pod whose netns went before any DEL (a reboot),
	# ib-sriov's DEL never runs behind sbr, which is the stale record issue
	# 22's self-healing ADD and node agent release.
	assert_eq "sbr" "$(jq -r 'select(.cmd == "DEL") | "\(.plugin)\(.prev // "")"' "$T/calls" | tail -n +4 | sort -u)" \
		"the later DELs"
	grep -q '\[error\]' "$T/containerd/log" && fail "a plugin logged an error: $(grep '\[error\]' "$T/containerd/log")"
	return 0
}

test_chain_rails_rdma_refused_undone() {
	# rdma after sbr: this kernel has no RDMA subsystem (the vm tier has
	# one), so RunPodSandbox fails with rdma's error and containerd's DEL of
	# the whole chain leaves the node as found.
	sim_node 1 2 ib
	local mac before
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	containerd_start || return
	rails_node '.plugins += [{"type": "rdma"}]'
	before=$(node_snapshot)
	pod_spec "$T/pod.json" rail-pod uid-rail
	cri run-pod "$T/pod.json"
	assert_eq 2 "$RC" "RunPodSandbox must fail"
	assert_match 'cannot read the RDMA netns mode.*the kernel has no RDMA subsystem' "$ERR" "rdma's error"
	assert_eq "ib-sriov tuning sbr rdma" "$(calls ADD)" "ADD order"
	assert_match '^rdma sbr tuning ib-sriov' "$(calls DEL)" "DEL order"
	assert_same "$before" "$(node_snapshot)" "the node after the failed RunPodSandbox"
	vf_as_found vf0_1 "$mac" 1500
}
