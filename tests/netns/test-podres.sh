# SPDX-License-Identifier: Apache-2.0
# deviceID checked against kubelet's allocation (issue 21, T4): a real gRPC
# server (grpcio, tests/netns/podres-server.py, messages from
# cni/protocol/podres.proto) serves kubelet's PodResources API on kubelet's socket,
# in this test's own tmpfs over /var/lib/kubelet. rdma-ns has no RDMA
# netlink here: its refusals are tested (they come before the RDMA probe,
# code 104 on this kernel); the move itself is the vm tier's.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/podres-lib.sh"

leases_left() {
	ls "$T/leases/rdma-net" 2>/dev/null | grep -v -e lock -e last_reserved
}

# The refusal, and nothing on the node changed by the ADD that got it.
assert_refused_untouched() { # BEFORE WHAT
	assert_no_link pod1 net1
	assert_host_unchanged "$1" "$2"
	assert_eq "" "$(leases_left)" "$2: no lease"
	assert_eq "" "$(ls /run/ibcni/ib-sriov 2>/dev/null)" "$2: no lock file"
}

test_podres_allocated_device_attaches() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1
	kubelet get "$(pods '{"example.com/vf":["0000:03:01.0","0000:03:01.1"]}')" || return
	conf=$(sriov_conf ib-host-local)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "ADD of an allocated VF ($OUT $ERR)"
	assert_link pod1 net1 '.link_type' '"ether"'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$(ip -j link show vf0_1 | jq -r '.[0].address')" 1500
	# A device plugin's short address is the same VF (addresses compared normalised).
	kubelet get "$(pods '{"example.com/vf":["03:01.1"]}')" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "ADD, kubelet's ID in the short form ($OUT)"
}

test_podres_unallocated_device_refused() {
	local before conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local)
	before=$(host_state)
	# Another pod's VF.
	kubelet get "$(pods '{"example.com/vf":["0000:03:01.0"]}' '{"example.com/vf":["0000:03:01.1"]}')" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_json '.details' '"deviceID 0000:03:01.1 is not among the devices kubelet allocated to pod tenant/pod1 (it holds 0000:03:01.0); the network must name the device the pod was given: request the device plugin'"'"'s resource in the pod and set the network'"'"'s k8s.v1.cni.cncf.io/resourceName annotation, so Multus passes that deviceID (under DRA: a claim a container of the pod names must hold the device, from a driver listed in \"draDrivers\" of /etc/ibcni/ibcni.conf)"'
	assert_refused_untouched "$before" "another pod's VF"
	# Nobody's VF: the pod holds nothing.
	kubelet get "$(pods '{}')" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match '\(it holds no device\)' "$(jq -r .details <<<"$OUT")" "details"
	assert_refused_untouched "$before" "nobody's VF"
	# pciBusID names the device just as well.
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"pciBusID":"03:01.1"' |
		sed 's/"deviceID":"[^"]*",//')" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	# A pod Get does not know (UNKNOWN "pod ghost not found"): List decides.
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=ghost"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match '\(kubelet does not list it\)' "$(jq -r .details <<<"$OUT")" "details"
	assert_refused_untouched "$before" "unknown pod"
}

test_podres_vfio_pf_claim_refused() {
	# Review recipe R4: a tenant names a PF bound to vfio-pci it was not given.
	local D=/sys/bus/pci/devices before
	sim_node 1 2 ib
	pod_ns pod1
	mkdir -p $D/0000:81:00.0 && ln -s ../../drivers/vfio-pci $D/0000:81:00.0/driver
	before=$(host_state)
	kubelet get "$(pods '{"example.com/vf":["0000:03:01.0"]}' '{"vm.example.com/pf":["0000:81:00.0"]}')" || return
	cni_exec ib-sriov ADD evilctr pod1 net1 \
		'{"cniVersion":"1.0.0","name":"tenant-net","type":"ib-sriov","deviceID":"0000:81:00.0","vfioPciMode":true}' "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_host_unchanged "$before" "PF claim"
	# Its owner gets it.
	cni_exec ib-sriov ADD vmctr pod1 net1 \
		'{"cniVersion":"1.0.0","name":"vm-net","type":"ib-sriov","deviceID":"0000:81:00.0","vfioPciMode":true}' \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod2"
	assert_eq 0 "$RC" "owner ADD ($OUT)"
	assert_json '.interfaces[0].pciID' '"0000:81:00.0"'
}

# kubelet_version MODE FALLBACK: the fake kubelet answers as a kubelet
# version with default gates does (podres-server.py: get 1.34+, gated
# 1.27-1.33, list before 1.27); FALLBACK is the debug line that says Get's
# answer sent ibcni to List ("" when Get answers). Every version: the pod's
# own VF attaches, another pod's is refused, a pod kubelet does not know holds
# nothing.
kubelet_version() {
	local before conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local '"logLevel":"debug"')
	before=$(host_state)
	kubelet "$1" "$(pods '{"example.com/vf":["0000:03:01.0"]}' '{"example.com/vf":["0000:03:01.1"]}')" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match '\(it holds 0000:03:01.0\)' "$(jq -r .details <<<"$OUT")" "$1: what kubelet gave the pod"
	if [ -n "$2" ]; then
		assert_match "$2" "$ERR" "$1: the fallback logged"
	else
		! grep -q 'asking /v1.PodResourcesLister/List' <<<"$ERR" ||
			fail "$1: Get answered, yet List was asked: $ERR"
	fi
	assert_refused_untouched "$before" "$1: another pod's VF"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=ghost"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match '\(kubelet does not list it\)' "$(jq -r .details <<<"$OUT")" "$1: unknown pod"
	assert_refused_untouched "$before" "$1: unknown pod"
	cni_exec ib-sriov ADD ctr2 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod2"
	assert_eq 0 "$RC" "$1: the pod's own VF ($OUT)"
	assert_link pod1 net1 '.link_type' '"ether"'
	cni_exec ib-sriov DEL ctr2 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod2"
	assert_eq 0 "$RC" "$1: DEL ($OUT)"
	assert_host_unchanged "$before" "$1: after DEL"
}

test_podres_kubelet_1_34_get() {
	kubelet_version get ""
}

test_podres_kubelet_1_27_to_1_33_get_disabled() {
	# The default before 1.34: Get answers UNKNOWN, "method disabled".
	kubelet_version gated 'answered /v1.PodResourcesLister/Get with UNKNOWN \(PodResources API Get method disabled\): asking /v1.PodResourcesLister/List'
}

test_podres_kubelet_before_1_27_no_get() {
	kubelet_version list 'answered /v1.PodResourcesLister/Get with UNIMPLEMENTED .*: asking /v1.PodResourcesLister/List'
}

# fail_closed MODE: kubelet's socket answers late or never: code 11 naming
# the socket, within the bound (2 s; 10 s is the test's own limit).
fail_closed() {
	local before t0 ms
	sim_node 1 2 eth
	pod_ns pod1
	before=$(host_state)
	kubelet "$1" "$(pods '{"example.com/vf":["0000:03:01.1"]}')" 5 || return
	t0=$(date +%s%N)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)" "$POD_ARGS"
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_json '[.code,.msg]' '[11,"cannot ask kubelet which devices the pod holds"]'
	assert_match "^$PODRES_SOCK: " "$(jq -r .details <<<"$OUT")" "the socket named"
	[ "$ms" -lt 10000 ] || fail "$1 server: ADD took $ms ms"
	[ "$ms" -ge 1900 ] || fail "$1 server: ADD gave up after $ms ms, before the deadline"
	assert_refused_untouched "$before" "$1 server"
}

test_podres_slow_server_fails_closed() {
	fail_closed slow
}

test_podres_silent_server_fails_closed() {
	fail_closed silent
}

test_podres_max_wait_shortens_the_deadline() {
	local t0 ms
	sim_node 1 2 eth
	pod_ns pod1
	node_conf '{"allowedDataDirs":["'"$T"'"],"maxWaitMs":500}' || return
	kubelet silent "[]" || return
	t0=$(date +%s%N)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)" "$POD_ARGS"
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_json '.code' 11
	assert_match 'bounded by 500 ms' "$(jq -r .details <<<"$OUT")" "details"
	[ "$ms" -lt 10000 ] || fail "ADD took $ms ms with maxWaitMs 500"
}

test_podres_device_check_off_skips() {
	sim_node 1 2 eth
	pod_ns pod1
	node_conf '{"allowedDataDirs":["'"$T"'"],"deviceCheck":"off"}' || return
	kubelet silent "[]" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)" "$POD_ARGS"
	assert_eq 0 "$RC" "ADD with deviceCheck off ($OUT)"
	assert_eq 0 "$(grep -c 'accepted a connection' "$T/kubelet.log")" "connections to kubelet"
	pod_ns pod2
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$(sriov_conf ib-host-local '' 1.1.0 0000:03:01.0)"
	assert_eq 0 "$RC" "ADD without the pod's name, deviceCheck off ($OUT)"
}

test_podres_no_socket_is_todays_behaviour() {
	sim_node 1 2 eth
	pod_ns pod1
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"logLevel":"debug"')"
	assert_eq 0 "$RC" "ADD without kubelet ($OUT)"
	assert_match "no kubelet PodResources socket at $PODRES_SOCK: deviceID 0000:03:01.1 not checked" "$ERR" "debug line"
	assert_eq 1 "$(grep -c 'PodResources' <<<"$ERR")" "one line"
}

test_podres_socket_without_pod_name_refused() {
	local before
	sim_node 1 2 eth
	pod_ns pod1
	before=$(host_state)
	kubelet get "$(pods '{"example.com/vf":["0000:03:01.1"]}')" || return
	for args in "" "K8S_POD_NAMESPACE=tenant" "K8S_POD_NAME=pod1" \
		"K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod1/../x" "K8S_POD_NAMESPACE=;K8S_POD_NAME=pod1"; do
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)" "$args"
		assert_json '[.code,.msg]' '[4,"CNI_ARGS does not name the pod"]'
	done
	assert_refused_untouched "$before" "no pod name"
}

test_podres_del_check_gc_never_ask() {
	local conf prev
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local)
	kubelet get "$(pods '{"example.com/vf":["0000:03:01.1"]}')" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "ADD ($OUT)"
	prev=$OUT
	# A kubelet that takes connections and never answers: any call that
	# asked it would wait for its deadline; the server counts connections.
	kubelet silent "[]" || return
	cni_exec ib-sriov CHECK ctr1 pod1 net1 "${conf%\}},\"prevResult\":$prev}" "$POD_ARGS"
	assert_eq 0 "$RC" "CHECK ($OUT)"
	cni_exec ib-sriov GC "" "" "" "${conf%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"ctr1\",\"ifname\":\"net1\"}]}"
	assert_eq 0 "$RC" "GC ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_eq 0 "$(grep -c 'accepted a connection' "$T/kubelet.log")" "connections to kubelet"
	assert_no_link pod1 net1
}

test_podres_rdmans_checks_before_rdma() {
	local prev conf
	sim_node 1 2 ib
	pod_ns pod1
	prev='"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}]}'
	conf='{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"0000:03:01.1",'"$prev"'}'
	kubelet get "$(pods '{"example.com/vf":["0000:03:01.0"]}' '{"example.com/vf":["0000:03:01.1"]}')" || return
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match '^deviceID 0000:03:01.1 is not among the devices kubelet allocated to pod tenant/pod1 \(it holds 0000:03:01.0\)' \
		"$(jq -r .details <<<"$OUT")" "details"
	# From the previous plugin's pciID alone: checked the same.
	cni_exec rdma ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma",'"$prev"'}' "$POD_ARGS"
	assert_match '^prevResult pciID 0000:03:01.1 is not among' "$(jq -r .details <<<"$OUT")" "prevResult's device"
	assert_eq "" "$(ls /var/lib/cni/rdma-ns 2>/dev/null)" "no record written"
	# The allocated VF passes, and reaches the RDMA probe (no RDMA here).
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod2"
	assert_json '[.code,.msg]' '[104,"cannot read the RDMA netns mode"]'
	kubelet list "$(pods '{}' '{"example.com/vf":["0000:03:01.1"]}')" || return
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod2"
	assert_json '.code' 104
	kubelet silent "[]" || return
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '.code' 11
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "DEL never asks ($OUT)"
}

test_podres_client_big_list() {
	# 3000 pods (half a megabyte): HTTP/2 flow control across many frames.
	local big
	big=$(jq -nc '[range(3000) | {namespace: "ns\(.)", name: "p", devices: {"example.com/vf": ["0000:aa:00.\(. % 8)", "dev-\(.)-a", "dev-\(.)-b", "dev-\(.)-c"]}}]')
	kubelet list "$big" || return
	OUT=$("$HELPER" podres "$PODRES_SOCK" ns2999 p 2000)
	assert_json '.' '{"known":true,"ids":["0000:aa:00.7","dev-2999-a","dev-2999-b","dev-2999-c"]}'
	kubelet get "$big" || return
	OUT=$("$HELPER" podres "$PODRES_SOCK" ns1234 p 2000)
	assert_json '.ids[1]' '"dev-1234-a"'
}

# --- DRA (issue 38): a VF allocated through a ResourceClaim ---

SRIOV_DRA=sriovnetwork.k8snetworkplumbingwg.io

# The refusal after an ADD and DEL of the same VF (its lock file stays).
refused_after_use() { # BEFORE WHAT
	assert_no_link pod1 net1
	assert_host_unchanged "$1" "$2"
	assert_eq "" "$(leases_left)" "$2: no lease"
}

# dra_pods POD1-CLAIM-DEVICE POD2-CLAIM-DEVICE [DRIVER]: pods tenant/pod1 and
# tenant/pod2, each holding one device of a claim of its own (no device-plugin
# device), named as dra-driver-sriov names a VF (its PCI address, '-' for ':'
# and '.'), in the pool named after the node.
dra_pods() {
	local drv=${3:-$SRIOV_DRA}
	printf '[{"namespace":"tenant","name":"pod1","claims":[{"namespace":"tenant","name":"pod1-vf-x7k2p","devices":[{"driver":"%s","pool":"node1","device":"%s"}]}]},{"namespace":"tenant","name":"pod2","claims":[{"namespace":"tenant","name":"pod2-vf-q9zt4","devices":[{"driver":"%s","pool":"node1","device":"%s"}]}]}]' \
		"$drv" "$1" "$drv" "$2"
}

test_podres_dra_claim_device_attaches() {
	local before conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local '"logLevel":"debug"')
	before=$(host_state)
	kubelet get "$(dra_pods 0000-03-01-1 0000-03-01-0)" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "ADD of the VF of the pod's claim ($OUT)"
	assert_link pod1 net1 '.link_type' '"ether"'
	assert_match "0000:03:01.1 is device $SRIOV_DRA/node1/0000-03-01-1 of the pod's DRA claim tenant/pod1-vf-x7k2p" "$ERR" "which claim, logged"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_host_unchanged "$before" "after DEL"
	# Another pod's claim holds the VF: refused, the pod's own claim named.
	kubelet get "$(dra_pods 0000-03-01-0 0000-03-01-1)" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match "\\(it holds no device-plugin device; DRA claim tenant/pod1-vf-x7k2p: $SRIOV_DRA/node1/0000-03-01-0\\)" \
		"$(jq -r .details <<<"$OUT")" "another pod's claim"
	refused_after_use "$before" "another pod's claim"
}

test_podres_dra_driver_must_be_trusted() {
	local before conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local)
	before=$(host_state)
	# A claim of a driver the admin did not list: its device names prove nothing.
	kubelet get "$(dra_pods 0000-03-01-1 0000-03-01-0 net.example.com)" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match 'net.example.com/node1/0000-03-01-1 \(a driver not in draDrivers\)' \
		"$(jq -r .details <<<"$OUT")" "the untrusted driver named"
	assert_refused_untouched "$before" "untrusted driver"
	# The admin lists it (replacing the default): the same claim attaches.
	node_conf '{"allowedDataDirs":["'"$T"'"],"draDrivers":["net.example.com"]}' || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "ADD with the driver in draDrivers ($OUT)"
	assert_link pod1 net1 '.link_type' '"ether"'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_eq 0 "$RC" "DEL ($OUT)"
	# An empty list takes no claim device, even dra-driver-sriov's.
	node_conf '{"allowedDataDirs":["'"$T"'"],"draDrivers":[]}' || return
	kubelet get "$(dra_pods 0000-03-01-1 0000-03-01-0)" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	refused_after_use "$before" "draDrivers []"
}

test_podres_dra_kubelets_without_names() {
	local before conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local)
	before=$(host_state)
	# 1.27-1.30 with KubeletPodResourcesDynamicResources on: CDI names only,
	# which do not say which device (dra.md 3.2): never taken.
	KUBELET_DRA=cdi kubelet get "$(dra_pods 0000-03-01-1 0000-03-01-0)" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match 'DRA claim devices kubelet does not name \(before 1.31 it gives only CDI names\)' \
		"$(jq -r .details <<<"$OUT")" "CDI names only"
	assert_refused_untouched "$before" "CDI names only"
	# 1.27-1.33 with default gates: no dynamic_resources at all.
	kubelet gated "$(dra_pods 0000-03-01-1 0000-03-01-0)" || return
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "$POD_ARGS"
	assert_json '[.code,.msg]' '[7,"deviceID is not allocated to this pod"]'
	assert_match '\(it holds no device\)' "$(jq -r .details <<<"$OUT")" "gate off"
	assert_refused_untouched "$before" "gate off"
}
