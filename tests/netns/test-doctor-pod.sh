# SPDX-License-Identifier: Apache-2.0
# `ib-sriov doctor --pod NS/NAME` and `--netns PATH` on the simulated SR-IOV
# node: how a pod's attachments are found (the records' podNamespace and
# podName, or the netns path), the JSON's shape, exit codes, hostile
# arguments and records. This kernel has no RDMA subsystem: the RDMA
# device is never usable here, so every attachment reports that one error;
# the port, GID, MTU-against-RDMA and char-device findings on a real device
# are the vm-rdma tier's (rxe), the InfiniBand ones the unit tier's.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

doctor() { # [ARGS...]: run it; OUT, ERR, RC
	OUT=$(timeout 30 ${IBCNI_WRAP:-} "$BIN/ib-sriov" doctor "$@" 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
}

POD_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=trainer-0;K8S_POD_INFRA_CONTAINER_ID=c1"

add_pod() { # IPAM: one IB VF attached to pod1 for team-a/trainer-0
	sim_node 1 2 ib || return 1
	pod_ns pod1
	cni_exec ib-sriov ADD c1 pod1 net1 "$(sriov_conf "$1" "" 1.1.0 "$(sim_vf_addr 0 0)")" "$POD_ARGS"
	[ "$RC" == 0 ] || { fail "ADD: $OUT $ERR"; return 1; }
}

test_doctor_pod_records_keep_the_pod() {
	add_pod "" || return
	local rec=/var/lib/cni/ibcni/ib-sriov/c1:net1
	assert_eq '["team-a","trainer-0"]' "$(jq -c '[.podNamespace,.podName]' $rec)" "record keys"
	# No MTU in the config: the one the VF had, kept.
	assert_eq "$(ip netns exec pod1 cat /sys/class/net/net1/mtu)" "$(jq -r .podMtu $rec)" "podMtu"
	assert_eq null "$(jq -c .podAddrs $rec)" "no IPAM, no podAddrs"
	# Without K8S_POD_* (not Kubernetes): no keys.
	cni_exec ib-sriov ADD c2 pod1 net2 "$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 1)")"
	assert_eq 0 "$RC" "ADD without pod args"
	assert_eq '[null,null]' "$(jq -c '[.podNamespace,.podName]' /var/lib/cni/ibcni/ib-sriov/c2:net2)" "no keys"
}

# The addresses the IPAM gave, as the pod has them: the doctor names one
# removed since (on a RoCE device: the vm-rdma tier's test-doctor.sh).
test_doctor_pod_records_the_addresses() {
	add_pod ib-host-local || return
	local rec=/var/lib/cni/ibcni/ib-sriov/c1:net1
	assert_eq "$(ip -j -n pod1 addr show dev net1 | jq -c '[.[0].addr_info[] | select(.scope == "global") | .local]')" \
		"$(jq -c .podAddrs $rec)" "podAddrs"
	assert_eq 2 "$(jq '.podAddrs | length' $rec)" "both addresses"
}

test_doctor_pod_finds_and_reports() {
	add_pod "" || return
	doctor --pod team-a/trainer-0 --json
	assert_eq 1 "$RC" "exit 1: the device is not usable ($ERR)"
	assert_json '.pod' '{"namespace":"team-a","name":"trainer-0","netns":"/run/netns/pod1"}'
	assert_json '[.attachments[] | [.plugin,.containerId,.ifname,.network,.mode,.rdmaDevice]]' \
		'[["ib-sriov","c1","net1","rdma-net","shared","mlx5_0_0"]]'
	local mtu; mtu=$(ip netns exec pod1 cat /sys/class/net/net1/mtu)
	assert_json '[.attachments[0] | .netdevMtu, .expectedMtu]' "[$mtu,$mtu]"
	assert_json '[.findings[] | [.severity,.check,.subject]]' \
		"[[\"error\",\"rdma-device\",\"net1 (mlx5_0_0)\"],[\"info\",\"mtu\",\"net1 (mlx5_0_0)\"]]"
	assert_json '.findings[1].what' "\"net1's MTU is $mtu (as ADD set)\""
	assert_json '.summary' '{"errors":1,"warnings":0}'
	# The same by its netns, and the text form.
	doctor --netns /run/netns/pod1 --json
	assert_eq 1 "$RC" "exit by netns"
	assert_json '.pod' '{"namespace":"team-a","name":"trainer-0","netns":"/run/netns/pod1"}'
	assert_json '[.attachments[].containerId]' '["c1"]'
	doctor --pod team-a/trainer-0
	assert_eq 1 "$RC" "text exit"
	assert_match 'Pod team-a/trainer-0  netns /run/netns/pod1' "$OUT" "text header"
	assert_match "INFO    \[mtu\] net1 \(mlx5_0_0\): net1's MTU is $mtu" "$OUT" "text finding"
	assert_eq 'doctor: 1 errors, 0 warnings' "$(tail -1 <<<"$OUT")" "totals line"
	# The netdev's MTU lowered after ADD: an error naming both.
	ip -n pod1 link set net1 mtu 1000
	doctor --pod team-a/trainer-0 --json
	assert_json '[.findings[] | select(.check=="mtu") | [.severity,.what]]' \
		"[[\"error\",\"net1's MTU is 1000, ADD set $mtu\"]]"
}

test_doctor_pod_rdmans_record() {
	local d=/var/lib/cni/rdma-ns
	mkdir -p $d
	pod_ns pod2
	jq -nc '{network:"roce",containerID:"c9",ifname:"net3",netns:"/run/netns/pod2",deviceID:"0000:03:01.0",
		rdma:["rxe7"],podNamespace:"team-b",podName:"job-1"}' >"$d/roce:c9:net3"
	doctor --pod team-b/job-1 --json
	assert_eq 1 "$RC" "exit 1 ($ERR)"
	assert_json '[.attachments[] | [.plugin,.mode,.rdmaDevice,.ifname,.expectedMtu]]' \
		'[["rdma-ns","exclusive","rxe7","net3",null]]'
	assert_json '[.findings[] | [.severity,.check]]' '[["error","rdma-device"],["error","mtu"]]'
	assert_json '.findings[0].what' '"rxe7 is neither usable in the pod (no kernel verbs support (load ib_uverbs)) nor on the host (exclusive mode)"'
	assert_json '.findings[1].what' '"net3 is not in the pod'"'"'s network namespace (No such device)"'
}

test_doctor_pod_no_attachment() {
	sim_node 1 1 eth || { fail "sim_node"; return; }
	doctor --pod team-a/nobody --json
	assert_eq 1 "$RC" "no attachment is an error finding, exit 1"
	assert_json '[.findings[] | [.severity,.check,.subject]]' '[["error","attachment","pod team-a/nobody"]]'
	assert_json '.attachments' '[]'
	assert_json '.pod' '{"namespace":"team-a","name":"nobody","netns":null}'
	doctor --netns /run/netns/nothere --json
	assert_eq 1 "$RC" "no attachment by netns"
	assert_json '.findings[0].subject' '"netns /run/netns/nothere"'
}

test_doctor_pod_usage_and_hostile_arguments() {
	local a
	for a in "--pod" "--pod team-a" "--pod team-a/x/y" "--pod /x" "--pod team-a/" \
		"--pod Team/x" "--pod a/b --netns /run/netns/p" "--netns /etc/passwd" \
		"--netns /run/netns/../../etc/shadow" "--netns /run/netns/a/b" "--netns /proc/self/ns/net" \
		"--netns /proc/1/ns/../ns/net" "--netns" "--pod a/b --bogus" "--pod $(printf 'a%.0s' {1..300})/b"; do
		# shellcheck disable=SC2086
		doctor $a --json
		assert_eq 2 "$RC" "usage error for: ${a:0:40}"
		assert_eq "" "$OUT" "nothing on stdout for: ${a:0:40}"
		assert_match '^ib-sriov doctor: .*usage: ib-sriov doctor \[--json\]' "$(tr '\n' ' ' <<<"$ERR")" "usage for: ${a:0:40}"
	done
}

test_doctor_pod_hostile_records() {
	local d=/var/lib/cni/rdma-ns o=/var/lib/cni/ibcni/ib-sriov
	add_pod "" || return
	mkdir -p $d
	# A huge value, garbage, and a record naming a netns outside the runtimes' directories.
	jq -nc --arg big "$(head -c 70000 /dev/zero | tr '\0' a)" \
		'{network:"n",containerID:"c8",ifname:"net4",netns:"/run/netns/pod1",rdma:["rxe0"],
		  podNamespace:"team-a",podName:$big}' >"$d/n:c8:net4"
	printf '{"network":"n","containerID":"c7' >"$d/n:c7:net5"
	jq -nc '{network:"n",containerID:"c6",ifname:"net6",netns:"/etc/passwd",rdma:["rxe0"],
		podNamespace:"team-c",podName:"evil"}' >"$d/n:c6:net6"
	doctor --pod team-a/trainer-0 --json
	assert_eq 1 "$RC" "exit ($ERR)"
	assert_json '[.attachments[].containerId]' '["c1"]'
	assert_json '[.findings[] | select(.check=="attachment") | [.severity,.what]]' \
		'[["warning","2 records cannot be read; an attachment of this pod may be one"]]'
	doctor --pod team-c/evil --json
	assert_eq 1 "$RC" "exit for the planted netns"
	assert_json '.attachments' '[]'
	assert_json '[.findings[] | select(.severity=="error") | [.check,.subject]]' '[["attachment","/etc/passwd"]]'
	assert_eq 600 "$(stat -c %a $o/c1:net1)" "records untouched"
}
