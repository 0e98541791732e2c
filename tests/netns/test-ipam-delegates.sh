# SPDX-License-Identifier: Apache-2.0
# The cluster-wide IPAMs through ib-sriov's delegation: nv-ipam and
# whereabouts as stand-ins speaking their own config keys
# (tests/fixtures/standins), each run once on the simulated node: what the
# delegate received (stdin byte for byte, CNI_ARGS, the environment), the
# result's address on the pod's interface, DEL reaching it. whereabouts
# without and with its node file (issue 33), two pods, an exhausted range.
# And ipIndex through ib-sriov's built-in ib-host-local.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

STANDINS=$FIXTURES/standins
SL=/run/ibcni-standin
POD_ARGS='IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod1;K8S_POD_INFRA_CONTAINER_ID=ctr1;K8S_POD_UID=5d1c2c8e-0001'

pod_addrs() { # [POD IFNAME]: the global addresses on the pod's interface (pod1 net1)
	ip -n "${1:-pod1}" -j addr show "${2:-net1}" |
		jq -c '[.[0].addr_info[]|select(.scope=="global")|"\(.local)/\(.prefixlen)"]'
}

# delegate_once TYPE IPAM-JSON WANT-ADDRS: ADD, the delegate's view, DEL.
delegate_once() {
	local type=$1 conf mac
	sim_node 1 2 ib || { fail "sim_node"; return; }
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	conf=$(printf '{"cniVersion":"1.1.0","name":"ib-cluster","type":"ib-sriov","deviceID":"%s","pkey":"0x8002","ipam":%s}' \
		"$(sim_vf_addr 0 1)" "$2")
	CNI_PATH_OVERRIDE=$BIN:$STANDINS cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "$type: ADD ($OUT)"
	assert_json '[.ips[].address]' "$3"
	assert_eq "$3" "$(pod_addrs)" "$type: the result's addresses on the pod's interface"
	# The delegate got the network config as it was sent (CNI: the same
	# bytes), the pod's CNI_ARGS and the CNI environment, nothing added.
	assert_eq "$conf" "$(cat "$SL/$type.ADD.json")" "$type: stdin"
	assert_eq "$(jq -S -c . <<<"$2")" "$(jq -S -c .ipam "$SL/$type.ADD.json")" "$type: its keys"
	assert_eq "CNI_ARGS=$POD_ARGS
CNI_COMMAND=ADD
CNI_CONTAINERID=ctr1
CNI_IFNAME=net1
CNI_NETNS=/run/netns/pod1
CNI_PATH=$BIN:$STANDINS" "$(grep '^CNI_' "$SL/$type.ADD.env")" "$type: the CNI environment"
	assert_eq "" "$(cut -d= -f1 "$SL/$type.ADD.env" | grep -v -x -e 'CNI_[A-Z]*' -e PATH -e PWD -e SHLVL -e _ -e IBCNI_DELEGATE_TIMEOUT_MS -e LC_CTYPE)" \
		"$type: nothing else in its environment"
	[ -n "$(ls "$SL/$type.leases")" ] || fail "$type: no lease kept"
	CNI_PATH_OVERRIDE=$BIN:$STANDINS cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "$type: DEL ($OUT)"
	assert_eq "$conf" "$(cat "$SL/$type.DEL.json")" "$type: DEL's stdin"
	assert_match "CNI_COMMAND=DEL" "$(cat "$SL/$type.DEL.env")" "$type: DEL reached it"
	assert_eq "" "$(ls "$SL/$type.leases")" "$type: its lease released"
	vf_as_found vf0_1 "$mac" 1500
}

test_nv_ipam_through_delegation() {
	delegate_once nv-ipam '{"type":"nv-ipam","poolName":"ib-pool-1,ib-pool-v6","poolType":"ippool"}' \
		'["10.70.3.10/16","fd00:70::3:0/64"]'
	# Its config error reaches the caller as its own, and nothing stays.
	CNI_PATH_OVERRIDE=$BIN:$STANDINS cni_exec ib-sriov ADD ctr2 pod1 net1 \
		"$(printf '{"cniVersion":"1.1.0","name":"ib-cluster","type":"ib-sriov","deviceID":"%s","ipam":{"type":"nv-ipam","poolName":"other"}}' "$(sim_vf_addr 0 1)")"
	assert_json '[.code,.details]' '[7,"no allocation for pool other on this node"]'
	assert_no_link pod1 net1
}

test_whereabouts_through_delegation() {
	whereabouts_node with-file || { fail "whereabouts_node"; return; }
	delegate_once whereabouts '{"type":"whereabouts","range":"10.120.0.0/16","exclude":["10.120.0.0/24","10.120.1.0/32"],"gateway":"10.120.0.1","kubernetes":{"kubeconfig":"/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig"},"log_level":"debug"}' \
		'["10.120.1.1/16"]'
}

# wb VERB CONTAINERID POD IFNAME VF IPAM: ib-sriov with whereabouts as its IPAM on VF 0/VF.
wb() {
	CNI_PATH_OVERRIDE=$BIN:$STANDINS cni_exec ib-sriov "$1" "$2" "$3" "$4" \
		"$(printf '{"cniVersion":"1.1.0","name":"ib-cluster","type":"ib-sriov","deviceID":"%s","ipam":%s}' \
			"$(sim_vf_addr 0 "$5")" "$6")" "$POD_ARGS"
}

vf_in_host() { # NAME MAC: back in the host as found (other attachments may stay)
	assert_link host "$1" '[.ifname,.address,.mtu]' "[\"$1\",\"$2\",1500]"
}

# Issue 33: whereabouts reads its node file even when the NAD names a
# kubeconfig. Without it every ADD fails with whereabouts' own error, passed
# on as it is, the VF back in the host; DEL fails the same way (the runtime
# retries it) until the file is there.
test_whereabouts_needs_its_node_file() {
	local ipam mac before
	whereabouts_node || { fail "whereabouts_node"; return; }
	sim_node 1 2 ib || { fail "sim_node"; return; }
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	ipam='{"type":"whereabouts","range":"10.120.0.0/16","kubernetes":{"kubeconfig":"/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig"}}'
	before=$(host_state)
	wb ADD ctr1 pod1 net1 1 "$ipam"
	assert_eq 1 "$RC" "ADD without the node file ($OUT)"
	assert_json '[.code,.msg]' '[999,"config file not found"]'
	assert_no_link pod1 net1
	vf_as_found vf0_1 "$mac" 1500
	assert_host_unchanged "$before" "failed ADD"
	assert_eq "" "$(ls "$SL/whereabouts.leases" 2>/dev/null)" "no lease"
	wb DEL ctr1 pod1 net1 1 "$ipam"
	assert_eq 1 "$RC" "DEL without the node file ($OUT)"
	assert_json '[.code,.msg]' '[999,"config file not found"]'
	# The installer's file written: both go through.
	whereabouts_node with-file || { fail "whereabouts_node with-file"; return; }
	wb DEL ctr1 pod1 net1 1 "$ipam"
	assert_eq 0 "$RC" "DEL with the node file ($OUT)"
	wb ADD ctr1 pod1 net1 1 '{"type":"whereabouts","range":"10.120.0.0/16"}'
	assert_eq 0 "$RC" "ADD with the node file, the NAD as whereabouts publishes it ($OUT)"
	assert_json '[.ips[].address]' '["10.120.0.1/16"]'
	wb DEL ctr1 pod1 net1 1 '{"type":"whereabouts","range":"10.120.0.0/16"}'
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
}

# With its node file: two pods get distinct addresses of the pool (the
# stand-in's lease directory is the cluster's IPPool, shared by every
# node); a third attachment on an exhausted range fails with whereabouts'
# error, its VF back in the host; DEL frees an address for the next pod.
test_whereabouts_two_pods_then_exhausted() {
	local ipam='{"type":"whereabouts","range":"10.120.9.0/30"}' m0 m1 m2
	whereabouts_node with-file || { fail "whereabouts_node"; return; }
	sim_node 1 3 ib || { fail "sim_node"; return; }
	pod_ns pod1
	pod_ns pod2
	m0=$(ip -j link show vf0_0 | jq -r '.[0].address')
	m1=$(ip -j link show vf0_1 | jq -r '.[0].address')
	m2=$(ip -j link show vf0_2 | jq -r '.[0].address')
	wb ADD ctr1 pod1 net1 0 "$ipam"
	assert_eq 0 "$RC" "pod1 ADD ($OUT)"
	wb ADD ctr2 pod2 net1 1 "$ipam"
	assert_eq 0 "$RC" "pod2 ADD ($OUT)"
	assert_eq '["10.120.9.1/30"]' "$(pod_addrs pod1 net1)" "pod1's address"
	assert_eq '["10.120.9.2/30"]' "$(pod_addrs pod2 net1)" "pod2's address"
	wb ADD ctr3 pod1 net2 2 "$ipam"
	assert_eq 1 "$RC" "ADD on the exhausted range ($OUT)"
	assert_json '[.code,.msg]' '[999,"error at storage engine: Could not allocate IP in range: ip: 10.120.9.1 / - 10.120.9.2 / range: 10.120.9.0/30 / excludeRanges: []"]'
	assert_no_link pod1 net2
	vf_in_host vf0_2 "$m2"
	# pod1 leaves: its address is the next pod's.
	wb DEL ctr1 pod1 net1 0 "$ipam"
	assert_eq 0 "$RC" "pod1 DEL ($OUT)"
	vf_in_host vf0_0 "$m0"
	wb ADD ctr3 pod1 net2 2 "$ipam"
	assert_eq 0 "$RC" "ADD after a DEL ($OUT)"
	assert_eq '["10.120.9.1/30"]' "$(pod_addrs pod1 net2)" "the freed address"
	wb DEL ctr3 pod1 net2 2 "$ipam"
	wb DEL ctr2 pod2 net1 1 "$ipam"
	assert_eq "" "$(ls "$SL/whereabouts.leases")" "every lease freed"
	vf_as_found vf0_1 "$m1" 1500
	vf_as_found vf0_2 "$m2" 1500
}

# ipIndex through ib-sriov, exec'ed and built in: rank 3 of a job gets host
# part 3 on each rail; CNI_ARGS reaches the IPAM unchanged.
test_ip_index_through_ib_sriov() {
	local conf how
	sim_node 1 3 ib || { fail "sim_node"; return; }
	pod_ns pod1
	for how in builtin exec; do
		conf=$(printf '{"cniVersion":"1.1.0","name":"rail-%s","type":"ib-sriov","deviceID":"%s","logLevel":"debug","ipam":{"type":"ib-host-local","dataDir":"%s","ranges":[[{"subnet":"10.80.0.0/16","rangeStart":"10.80.4.0","rangeEnd":"10.80.4.255"}]]}}' \
			"$how" "$(sim_vf_addr 0 1)" "$T/leases")
		IBCNI_DELEGATE_EXEC=$([ $how = exec ] && echo 1) \
			cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS;IB_IP_INDEX=3"
		assert_eq 0 "$RC" "$how: ADD ($OUT)"
		assert_json '[.ips[].address]' '["10.80.4.3/16"]'
		assert_eq '["10.80.4.3/16"]' "$(pod_addrs)" "$how: on the pod's interface"
		assert_file "$T/leases/rail-$how/10.80.4.3" $'ctr1\r\nnet1'
		IBCNI_DELEGATE_EXEC=$([ $how = exec ] && echo 1) \
			cni_exec ib-sriov ADD ctr2 pod1 net2 "${conf/0000:03:01.1/0000:03:01.2}" "$POD_ARGS;IB_IP_INDEX=3"
		assert_json '[.code,.msg]' '[111,"ipIndex 3: 10.80.4.3 of range set 0 is taken"]'
		assert_no_link pod1 net2
		IBCNI_DELEGATE_EXEC=$([ $how = exec ] && echo 1) cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$how: DEL ($OUT)"
		[ -e "$T/leases/rail-$how/10.80.4.3" ] && fail "$how: DEL left the lease"
	done
	true
}
