# SPDX-License-Identifier: Apache-2.0
# ib-sriov "waitPortActiveMs" on the simulated node: the port's sysfs state
# changes during the wait; a port that never becomes ACTIVE fails the ADD
# naming its state, with the host as found.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

port_dir() { # PF VF
	echo "/sys/bus/pci/devices/$(sim_vf_addr "$1" "$2")/infiniband/mlx5_$1_$2/ports/1"
}

port_set() { # PF VF STATE PHYS
	local d
	d=$(port_dir "$1" "$2")
	echo "$3" >"$d/state.new" && mv "$d/state.new" "$d/state"
	echo "$4" >"$d/phys_state"
}

test_port_becomes_active_during_the_wait() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf start ms
	port_set 0 1 "2: INIT" "5: LinkUp"
	conf=$(sriov_conf "" '"waitPortActiveMs":3000')
	(sleep 0.3 && port_set 0 1 "4: ACTIVE" "5: LinkUp") &
	start=$(date +%s%N)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	ms=$((($(date +%s%N) - start) / 1000000))
	wait
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	[ "$ms" -ge 300 ] || fail "ADD returned after $ms ms, before the port was ACTIVE"
	assert_match "mlx5_0_1 port 1 is ACTIVE after [0-9]+ ms" "$ERR" "the wait is logged"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($ERR)"
}

# One state at a time that never becomes ACTIVE: code 11 naming the state,
# its physical state and the fix; the VF back on the host, no record, no
# device-info file.
test_port_never_active_rolls_back() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf before mac state want
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	conf=$(sriov_conf ib-host-local '"waitPortActiveMs":300')
	for state in "2: INIT|5: LinkUp|INIT .physical state LinkUp..*subnet manager has not configured the port" \
		"1: DOWN|2: Polling|DOWN .physical state Polling..*cable" \
		"1: DOWN|3: Disabled|DOWN .physical state Disabled..*carrier" \
		"1: DOWN|5: LinkUp|DOWN .physical state LinkUp..*carrier.*link_state" \
		"3: ARMED|5: LinkUp|ARMED .physical state LinkUp..*bringing the port up"; do
		IFS='|' read -r s phys want <<<"$state"
		port_set 0 1 "$s" "$phys"
		before=$(host_state)
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
		assert_eq 11 "$(jq -r .code <<<"$OUT")" "ADD with the port $s ($OUT)"
		assert_match "port is not ACTIVE" "$(jq -r .msg <<<"$OUT")" "$s: message"
		assert_match "mlx5_0_1 port 1 \\(VF 0000:03:01.1\\) is $want" "$(jq -r .details <<<"$OUT")" "$s: details"
		assert_host_unchanged "$before" "$s"
		vf_as_found vf0_1 "$mac" 1500
		assert_no_link pod1 net1
		[ -z "$(ls -A /run/k8s.cni.cncf.io/devinfo/cni 2>/dev/null)" ] || fail "$s: a device-info file"
		[ -z "$(ls "$T/leases/rdma-net" 2>/dev/null | grep -v -e lock -e last_reserved)" ] || fail "$s: a lease left"
	done
}

# 0 (the default) never looks at the port; the key is capped by the node's
# maxWaitMs and refused for a VF without an RDMA device, nothing changed.
test_port_wait_off_capped_and_refused() {
	sim_node 1 2 ib
	pod_ns pod1
	local before
	port_set 0 1 "2: INIT" "5: LinkUp"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "ADD without the key, port INIT ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	node_conf '{"maxWaitMs":1000}'
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"waitPortActiveMs":1001')"
	assert_eq 7 "$(jq -r .code <<<"$OUT")" "over maxWaitMs ($OUT)"
	assert_match 'waitPortActiveMs.*at most 1000 ms' "$OUT" "names the key and the cap"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"waitPortActiveMs":"5"')"
	assert_eq 7 "$(jq -r .code <<<"$OUT")" "not an integer ($OUT)"
	assert_host_unchanged "$before" "refused"
}

test_port_wait_refused_without_rdma_device() {
	sim_node 1 2 eth
	pod_ns pod1
	local before
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"waitPortActiveMs":100')"
	assert_eq 7 "$(jq -r .code <<<"$OUT")" "no RDMA device ($OUT)"
	assert_match 'waitPortActiveMs.*no RDMA device' "$OUT" "names the key"
	assert_host_unchanged "$before" "refused"
}

# The doctor reports each free VF's port state and recommends a value,
# capped by maxWaitMs; without readable port states it recommends nothing.
test_doctor_recommends_wait_port_active() {
	sim_node 1 2 ib
	OUT=$(timeout 20 "$BIN/ib-sriov" doctor --json 2>/dev/null)
	assert_json '.waitPortActiveMs | [.recommendedMs, .portsSeen]' '[null,0]'
	assert_json '[.findings[] | select(.subject == "waitPortActiveMs")] | length' '0'
	port_set 0 0 "4: ACTIVE" "5: LinkUp"
	port_set 0 1 "2: INIT" "5: LinkUp"
	OUT=$(timeout 20 "$BIN/ib-sriov" doctor --json 2>/dev/null)
	assert_json '[.pfs[0].vfs[] | [.portState, .portPhysState]]' '[["ACTIVE","LinkUp"],["INIT","LinkUp"]]'
	assert_json '.waitPortActiveMs | [.recommendedMs, .maxWaitMs, .portsSeen, .portsActive, .portsPending, .portsDown]' '[5000,30000,2,1,1,0]'
	assert_match 'INIT.*waitPortActiveMs' "$(jq -r '.findings[] | select(.subject == "0000:03:01.1 (mlx5_0_1 port 1)") | .what' <<<"$OUT")" "the INIT port's finding"
	assert_match 'subnet manager has not configured' "$(jq -r '.findings[] | select(.subject == "0000:03:01.1 (mlx5_0_1 port 1)") | .fix' <<<"$OUT")" "its fix"
	assert_match 'recommended "waitPortActiveMs": 5000' "$(jq -r '.findings[] | select(.subject == "waitPortActiveMs") | .what' <<<"$OUT")" "the knob"
	node_conf '{"maxWaitMs":3000}'
	OUT=$(timeout 20 "$BIN/ib-sriov" doctor --json 2>/dev/null)
	assert_json '.waitPortActiveMs.recommendedMs' '3000'
	OUT=$(timeout 20 "$BIN/ib-sriov" doctor 2>/dev/null)
	assert_match 'recommended "waitPortActiveMs": 3000' "$OUT" "the text report names the knob"
}
