# SPDX-License-Identifier: Apache-2.0
# containerd's CRI driven as kubelet drives it (RunPodSandbox, StopPodSandbox,
# RemovePodSandbox over its gRPC socket, by tests/cri/cri.py), with ib-sriov
# on the simulated SR-IOV node (tests/netns/lib.sh: veth VFs, PCI sysfs on
# tmpfs). containerd runs the plugins itself: its CNI_ARGS, its
# runtimeConfig, its pinned netns.

KUBELET_KEYS=(K8S_POD_NAMESPACE=default K8S_POD_NAME=pod1 K8S_POD_UID=uid-1 IgnoreUnknown=1)

# rdma_conflist [EXTRA-PLUGIN-JSON]: ib-sriov on VF 0/1 (as Multus would
# have injected deviceID), leases from rec-ipam, plus an optional chained plugin.
rdma_conflist() {
	cat >"$T/net.d/10-rdma.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "rdma-net", "plugins": [
  {"type": "ib-sriov", "deviceID": "$(sim_vf_addr 0 1)",
   "capabilities": {"portMappings": true, "bandwidth": true},
   "ipam": {"type": "rec-ipam", "ranges": [[{"subnet": "10.60.0.0/24"}]]}}${1:+,$1}]}
EOF
}

# A pod as kubelet sends it: bandwidth annotations and a hostPort.
kubelet_pod() { # FILE
	pod_spec "$1" pod1 uid-1
	jq '.annotations = {"kubernetes.io/ingress-bandwidth": "10M",
			    "kubernetes.io/egress-bandwidth": "20M"}
	    | .ports = [{container_port: 80, host_port: 8080}]' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

test_containerd_pod_lifecycle() {
	sim_node 1 2 eth
	local mac id netns line
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	containerd_start || return
	rec_ipam
	rdma_conflist
	kubelet_pod "$T/pod.json"

	cri run-pod "$T/pod.json"
	assert_eq 0 "$RC" "RunPodSandbox ($ERR)"
	id=$OUT
	[ -n "$id" ] || return
	pod_started "$id"
	cri pod-status "$id"
	assert_json '[.state, .ip]' '["SANDBOX_READY","10.60.0.2"]'
	netns=$(jq -r .netns <<<"$OUT")
	assert_match '^/var/run/netns/cni-' "$netns" "the pinned netns"
	# The pod has the VF itself (its MAC), named eth0, with its address.
	assert_eq "[\"$mac\",[\"10.60.0.2/24\"]]" \
		"$(nsenter --net="$netns" ip -j addr show dev eth0 |
			jq -c '[.[0].address, [.[0].addr_info[] | select(.family == "inet") | "\(.local)/\(.prefixlen)"]]')" \
		"eth0 in the pod"
	assert_no_link host vf0_1
	assert_eq "$id" "$(head -1 /var/lib/cni/networks/rdma-net/10.60.0.2 2>/dev/null | tr -d '\r')" \
		"the lease's owner"

	# What containerd handed the chain, as the delegated IPAM saw it.
	line=$(grep '"cmd":"ADD"' "$T/ipam.log" | head -1)
	for kv in "${KUBELET_KEYS[@]}" "K8S_POD_INFRA_CONTAINER_ID=$id"; do
		assert_match "(^|;)$kv(;|\$)" "$(jq -r .args <<<"$line")" "CNI_ARGS has $kv"
	done
	assert_eq "$netns" "$(jq -r .netns <<<"$line")" "CNI_NETNS"
	# containerd 1.6 spells runtimeConfig's keys as its Go fields.
	assert_eq '[{"HostPort":8080,"ContainerPort":80,"Protocol":"tcp","HostIP":""}]' \
		"$(jq -c '.conf.runtimeConfig.portMappings' <<<"$line")" "runtimeConfig.portMappings"
	assert_eq '{"IngressRate":10000000,"IngressBurst":4294967295,"EgressRate":20000000,"EgressBurst":4294967295}' \
		"$(jq -c '.conf.runtimeConfig.bandwidth' <<<"$line")" "runtimeConfig.bandwidth"

	# A container of the pod sees the VF too.
	jq -n --arg img "$TEST_IMAGE" '{name: "app", image: $img, command: ["/bin/sleep", "600"]}' >"$T/app.json"
	cri create-container "$id" "$T/pod.json" "$T/app.json"
	assert_eq 0 "$RC" "CreateContainer ($ERR)"
	local ctr=$OUT
	cri start "$ctr"
	assert_eq 0 "$RC" "StartContainer ($ERR)"
	cri exec "$ctr" /bin/ip -o -4 addr show dev eth0
	assert_match 'eth0 +inet 10\.60\.0\.2/24' "$OUT" "ip addr inside the container"

	# Stop: the VF comes home, the lease goes. kubelet repeats Stop and
	# Remove; each later DEL has no netns and no prevResult and succeeds.
	cri stop-pod "$id"
	assert_eq 0 "$RC" "StopPodSandbox ($ERR)"
	assert_vf_home vf0_1 "$mac"
	cri stop-pod "$id"
	assert_eq 0 "$RC" "StopPodSandbox again ($ERR)"
	cri remove-pod "$id"
	assert_eq 0 "$RC" "RemovePodSandbox ($ERR)"
	cri remove-pod "$id"
	assert_eq 0 "$RC" "RemovePodSandbox again ($ERR)"
	assert_vf_home vf0_1 "$mac"
	assert_eq '{"cmd":"DEL","netns":"","prev":false}' \
		"$(grep '"cmd":"DEL"' "$T/ipam.log" | tail -1 |
			jq -c '{cmd, netns, prev: (.conf | has("prevResult"))}')" \
		"the last DEL"
	assert_eq "" "$(grep -v -e '"cmd":"ADD"' -e '"cmd":"DEL"' "$T/ipam.log")" "only ADD and DEL"
	grep -q '\[error\]' "$T/containerd/log" && fail "a plugin logged an error: $(grep '\[error\]' "$T/containerd/log")"
	return 0
}

test_containerd_failed_chain_leaves_nothing() {
	# rdma-ns chained after ib-sriov. This kernel has no RDMA subsystem (the
	# vm tier has one), so rdma-ns refuses: containerd must report our error
	# and the DEL it runs must leave the node as it was.
	sim_node 1 2 ib
	local mac
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	containerd_start || return
	rec_ipam
	rdma_conflist "{\"type\": \"rdma-ns\", \"deviceID\": \"$(sim_vf_addr 0 1)\"}"
	kubelet_pod "$T/pod.json"
	cri run-pod "$T/pod.json"
	assert_eq 2 "$RC" "RunPodSandbox must fail"
	assert_match 'rdma-ns.*(RDMA|ib_core)' "$ERR" "the error names rdma-ns and the cause"
	assert_vf_home vf0_1 "$mac"
	assert_eq 1 "$(grep -c '"cmd":"ADD"' "$T/ipam.log")" "one ADD"
	assert_match '"cmd":"DEL"' "$(cat "$T/ipam.log")" "containerd's DEL reached the IPAM"
}

test_containerd_runs_the_daemonset_installer() {
	# The DaemonSet's initContainer (conf-examples/ibcni-daemonset.yaml:
	# image, command, args, env, hostPaths) in a hostNetwork pod, from the
	# image `make image` built, against a temporary host root: it installs
	# while an old plugin runs, and exits 0.
	local host=$T/host id ctr i old_pid
	containerd_start || return
	ctr --address "$SOCK" -n k8s.io images import --snapshotter native "$IBCNI_IMAGE" >/dev/null ||
		{ fail "ctr images import $IBCNI_IMAGE"; return; }
	mkdir -p "$host/opt/cni/bin" "$host/etc/modprobe.d" "$host/etc/ibcni" "$host/configmap/ibcni-node-ranges"
	# An old plugin, running while it is replaced.
	cp /bin/sleep "$host/opt/cni/bin/ib-sriov"
	"$host/opt/cni/bin/ib-sriov" 600 &
	old_pid=$!
	daemonset_container "$T/ds.json" "$host"
	assert_eq "$IBCNI_IMAGE_NAME" "$(jq -r .image "$T/ds.json")" "the manifest's image is make image's"
	pod_spec "$T/pod.json" ibcni-installer uid-ds true
	cri run-pod "$T/pod.json"
	assert_eq 0 "$RC" "RunPodSandbox (hostNetwork) ($ERR)"
	id=$OUT
	pod_started "$id"
	cri create-container "$id" "$T/pod.json" "$T/ds.json"
	assert_eq 0 "$RC" "CreateContainer ($ERR)"
	ctr=$OUT
	cri start "$ctr"
	assert_eq 0 "$RC" "StartContainer ($ERR)"
	for ((i = 0; i < 100; i++)); do
		cri container-status "$ctr"
		[ "$(jq -r .state <<<"$OUT")" = CONTAINER_EXITED ] && break
		sleep 0.1
	done
	assert_json '[.state, .exit_code]' '["CONTAINER_EXITED",0]'
	assert_installed "$host"
	assert_match 'no entry for node node-1' "$(cat "$T/logs/install.log")" "no ConfigMap entry: said"
	# No entry, none of the older keys given: neither the drop-in nor ibcni.conf.
	assert_eq "" "$(find "$host/etc/ibcni" -type f)" "node config files"
	assert_eq "1" "$(kill -0 "$old_pid" 2>/dev/null && echo 1)" "the old plugin still runs"
	cmp -s /bin/sleep "/proc/$old_pid/exe" || fail "the running old binary was changed"
	kill "$old_pid"
}
