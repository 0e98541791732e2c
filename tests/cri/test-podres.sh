# SPDX-License-Identifier: Apache-2.0
# The device check beside containerd: containerd runs ib-sriov with the
# CNI_ARGS it builds from kubelet's RunPodSandbox (K8S_POD_NAMESPACE,
# K8S_POD_NAME), and the PodResources server (tests/netns/podres-lib.sh)
# says which VF kubelet allocated to the pod.

. "$(dirname "${BASH_SOURCE[0]}")/../netns/podres-lib.sh"

podres_conflist() {
	cat >"$T/net.d/10-rdma.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "rdma-net", "plugins": [
  {"type": "ib-sriov", "deviceID": "$(sim_vf_addr 0 1)",
   "ipam": {"type": "ib-host-local", "ranges": [[{"subnet": "10.61.0.0/24"}]]}}]}
EOF
}

kubelet_gives() { # MODE VF: pod default/pod1 holds VF
	kubelet "$1" '[{"namespace":"default","name":"pod1","devices":{"example.com/vf":["'"$2"'"]}}]'
}

test_containerd_device_check() {
	local mac id t0 ms
	sim_node 1 2 eth
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	containerd_start || return
	podres_conflist
	pod_spec "$T/pod.json" pod1 uid-1
	# kubelet gave the pod the other VF: containerd reports our refusal.
	kubelet_gives get "$(sim_vf_addr 0 0)" || return
	cri run-pod "$T/pod.json"
	assert_eq 2 "$RC" "RunPodSandbox with another VF must fail"
	assert_match 'deviceID is not allocated to this pod.*0000:03:01.1 is not among the devices kubelet allocated to pod default/pod1' \
		"$ERR" "the refusal, through containerd"
	assert_vf_home vf0_1 "$mac"
	# A kubelet of 1.27-1.33 with its default gates (Get answers UNKNOWN,
	# "method disabled"): List, and the pod's own VF attaches.
	kubelet_gives gated "$(sim_vf_addr 0 1)" || return
	cri run-pod "$T/pod.json"
	assert_eq 0 "$RC" "RunPodSandbox with the pod's VF ($ERR)"
	id=$OUT
	[ -n "$id" ] || return
	pod_started "$id"
	assert_no_link host vf0_1
	# Stop and remove never ask kubelet: they succeed with a silent one.
	kubelet silent '[]' || return
	cri stop-pod "$id"
	assert_eq 0 "$RC" "StopPodSandbox with a silent kubelet ($ERR)"
	cri remove-pod "$id"
	assert_eq 0 "$RC" "RemovePodSandbox ($ERR)"
	assert_vf_home vf0_1 "$mac"
	# A silent kubelet: try again (code 11), within the bound.
	t0=$(date +%s%N)
	cri run-pod "$T/pod.json"
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_eq 2 "$RC" "RunPodSandbox with a silent kubelet must fail"
	assert_match "cannot ask kubelet which devices the pod holds.*$PODRES_SOCK" "$ERR" "code 11's message"
	[ "$ms" -lt 20000 ] || fail "RunPodSandbox took $ms ms"
	assert_vf_home vf0_1 "$mac"
}
