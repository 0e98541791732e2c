# SPDX-License-Identifier: Apache-2.0
# rdma-ns on this kernel, which has no RDMA subsystem: every command must say
# so clearly, change nothing, and let DEL and GC clean up. The real-kernel
# behaviour is the vm tier's (tests/vm).

rdmans_conf() { # [VERSION] [EXTRA]
	printf '{"cniVersion":"%s","name":"rdma-net","type":"rdma-ns","deviceID":"%s"%s}' \
		"${1:-1.1.0}" "$(sim_vf_addr 0 1)" "${2:+,$2}"
}

PREV='"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}],"ips":[{"address":"10.1.0.5/24","interface":0}]}'

test_rdmans_add_reports_missing_rdma() {
	sim_node 1 2 ib
	pod_ns pod1
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg,.details]' '[104,"cannot read the RDMA netns mode","the kernel has no RDMA subsystem (is ib_core loaded?)"]'
	[ -z "$(ls /var/lib/cni/rdma-ns 2>/dev/null)" ] || fail "a record was left"
	# The device may come from the previous plugin's pciID.
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns",'"$PREV"'}'
	assert_json '.details' '"the kernel has no RDMA subsystem (is ib_core loaded?)"'
}

test_rdmans_input_errors() {
	sim_node 1 2 eth
	pod_ns pod1
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf)"
	assert_json '[.code,.msg]' '[7,"rdma-ns must be chained after the plugin that creates the interface"]'
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","prevResult":{"cniVersion":"1.1.0"}}'
	assert_json '[.code,.msg]' '[7,"deviceID is required"]'
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg]' '[101,"no RDMA device for deviceID"]'
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV" | sed 's/"deviceID":"[^"]*"/"deviceID":"..\/x"/')"
	assert_json '.code' 7
}

test_rdmans_del_gc_succeed() {
	sim_node 1 2 ib
	pod_ns pod1
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL without a record"
	cni_exec rdma-ns CHECK ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg]' '[3,"CHECK failed"]'
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL without a netns"
	# Records as an ADD on an RDMA kernel leaves them.
	mkdir -p /var/lib/cni/rdma-ns
	printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		>/var/lib/cni/rdma-ns/rdma-net-ctr1-net1
	printf '{"network":"rdma-net","containerID":"ctr2","ifname":"net1","netns":"/run/netns/gone","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/rdma-net-ctr2-net1
	printf '{"network":"other","containerID":"ctr3","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/other-ctr3-net1
	cni_exec rdma-ns CHECK ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '.details' '"RDMA device mlx5_0_1 is not in the pod: the kernel has no RDMA subsystem (is ib_core loaded?)"'
	cni_exec rdma-ns GC "" "" "" "$(rdmans_conf 1.1.0 '"cni.dev/valid-attachments":[{"containerID":"ctr1","ifname":"net1"}]')"
	assert_eq 0 "$RC" "GC ($OUT)"
	assert_eq "other-ctr3-net1 rdma-net-ctr1-net1" "$(ls /var/lib/cni/rdma-ns | tr '\n' ' ' | sed 's/ $//')" "GC kept the valid and the other network's"
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL with a record"
	[ -e /var/lib/cni/rdma-ns/rdma-net-ctr1-net1 ] && fail "record kept"
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL twice"
}

test_rdmans_status_and_admin() {
	cni_exec rdma-ns STATUS "" "" "" "$(rdmans_conf)"
	assert_json '[.code,.details]' '[50,"the kernel has no RDMA subsystem (is ib_core loaded?)"]'
	OUT=$("$BIN/rdma-ns" netns-mode show 2>&1)
	assert_eq 1 $? "netns-mode show exit"
	assert_eq "rdma-ns: cannot read the RDMA netns mode: the kernel has no RDMA subsystem (is ib_core loaded?)" "$OUT" "netns-mode show"
	OUT=$("$BIN/rdma-ns" netns-mode bogus 2>&1)
	assert_eq "usage: rdma-ns netns-mode [show|exclusive|shared]" "$OUT" "usage"
}
