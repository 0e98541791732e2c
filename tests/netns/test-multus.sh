# SPDX-License-Identifier: Apache-2.0
# The drop-in items driven through libcni (cnitool, built from Debian's
# packages) with configs as Multus hands them over: deviceID and pciBusID
# injected, cni-args merged into args.cni, runtimeConfig through
# capabilities, kubelet's CNI_ARGS.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

KUBELET_ARGS='IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=rdma-pod;K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_UID=u-1'

# cnitool VERB: the conflist in $T/net.d, CNI_ARGS as kubelet sets them.
via_libcni() { # VERB [CAP_ARGS]
	local tool=${IBCNI_CNITOOL:-}
	[ -x "$tool" ] || { fail "cnitool is missing (tests/netns/build-cnitool.sh builds it)"; return 1; }
	OUT=$(NETCONFPATH=$T/net.d CNI_PATH=$BIN CNI_IFNAME=net1 CNI_ARGS="$KUBELET_ARGS" \
		CAP_ARGS="${2:-}" "$tool" "$1" rdma-net /run/netns/pod1 2>"$T/err")
	RC=$?
	ERR=$(cat "$T/err")
}

# cnitool's container ID: "cnitool-" and 20 hex digits of sha512(netns).
cnitool_id() {
	printf 'cnitool-%s' "$(printf %s "$1" | sha512sum | cut -c1-20)"
}

multus_conf() { # PLUGIN-KEYS: one ib-sriov plugin as Multus passes it
	mkdir -p "$T/net.d"
	cat >"$T/net.d/10-rdma.conflist" <<CONF
{"cniVersion":"1.0.0","name":"rdma-net","plugins":[{"type":"ib-sriov","deviceID":"$(sim_vf_addr 0 1)",
 "pciBusID":"$(sim_vf_addr 0 1)","logLevel":"info",
 "ipam":{"type":"ib-host-local","dataDir":"$T/leases","ranges":[[{"subnet":"10.59.0.0/24"}]]}$1}]}
CONF
}

test_multus_kubelet_args_and_cni_args() {
	# ib-kubernetes' cni-args (pkey, the "configured" mark) merged into
	# args.cni; kubelet's CNI_ARGS (cnitool itself refuses a value holding
	# "=": test-ibsriov-dropin.sh passes one directly). On RoCE the pkey is
	# ignored as upstream ignores it.
	sim_node 1 2 eth
	pod_ns pod1
	multus_conf ',"args":{"cni":{"pkey":"0x7fff","mellanox.infiniband.app":"configured"}}'
	via_libcni add
	assert_eq 0 "$RC" "add ($ERR)"
	assert_json '[.interfaces[0].name,.ips[0].address]' '["net1","10.59.0.2/24"]'
	via_libcni check
	assert_eq 0 "$RC" "check ($ERR)"
	via_libcni del
	assert_eq 0 "$RC" "del ($ERR)"
	assert_link host vf0_1 '.ifname' '"vf0_1"'
}

test_multus_empty_ipam_type() {
	sim_node 1 2 eth
	pod_ns pod1
	mkdir -p "$T/net.d"
	cat >"$T/net.d/10-rdma.conflist" <<CONF
{"cniVersion":"1.0.0","name":"rdma-net","plugins":[{"type":"ib-sriov","deviceID":"$(sim_vf_addr 0 1)","ipam":{"type":""}}]}
CONF
	via_libcni add
	assert_eq 0 "$RC" "add with ipam.type \"\" ($ERR)"
	assert_json '.ips' 'null'
	via_libcni del
	assert_eq 0 "$RC" "del ($ERR)"
}

test_multus_pf_passthrough() {
	sim_node 1 2 eth
	pod_ns pod1
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/0000:03:00.0/driver
	mkdir -p "$T/net.d"
	cat >"$T/net.d/10-rdma.conflist" <<CONF
{"cniVersion":"1.0.0","name":"rdma-net","plugins":[{"type":"ib-sriov","deviceID":"0000:03:00.0","vfioPciMode":true}]}
CONF
	via_libcni add
	assert_eq 0 "$RC" "add of a vfio-bound PF ($ERR)"
	assert_json '.interfaces[0].name' '"net1"'
	via_libcni del
	assert_eq 0 "$RC" "del ($ERR)"
}

test_multus_vfio_roce_addresses() {
	sim_node 1 2 eth
	pod_ns pod1
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/0000:03:01.1/driver
	multus_conf ',"vfioPciMode":true'
	via_libcni add
	assert_eq 0 "$RC" "add ($ERR)"
	assert_json '.ips[0].address' '"10.59.0.2/24"'
	via_libcni del
	assert_eq 0 "$RC" "del ($ERR)"
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released"
}

test_multus_upgrade_with_go_cache() {
	# A pod the Go plugin attached (its cache, the VF in the pod): after the
	# binary is replaced, libcni's DEL reaches ib-sriov, which finds the
	# cache under the attachment's name and removes it.
	local id
	sim_node 1 2 eth
	pod_ns pod1
	id=$(cnitool_id /run/netns/pod1)
	multus_conf ""
	ip link set vf0_1 down
	ip link set vf0_1 netns pod1
	ip -n pod1 link set vf0_1 name net1
	mkdir -p -m 0700 /var/lib/cni/ib-sriov
	printf '%s' '{"cniVersion":"1.0.0","name":"rdma-net","type":"ib-sriov","ipam":{"type":"ib-host-local"},"Master":"pf0","deviceID":"0000:03:01.1","VFID":1,"HostIFNames":"vf0_1","ContIFNames":"net1"}' \
		>/var/lib/cni/ib-sriov/"$id"-net1
	via_libcni del
	assert_eq 0 "$RC" "del ($ERR)"
	[ ! -e /var/lib/cni/ib-sriov/"$id"-net1 ] || fail "Go cache left after DEL"
}

test_multus_spoofchk_and_guid_lenient() {
	# Values upstream accepts: spoofchk "yes" (off), an all-ones GUID. On the
	# simulated RoCE VF the GUID is an InfiniBand setting: refused by name,
	# with the garbled message of old fixed.
	sim_node 1 2 eth
	pod_ns pod1
	multus_conf ',"args":{"cni":{"guid":"ff:ff:ff:ff:ff:ff:ff:ff"}}'
	via_libcni add
	assert_eq 1 "$RC" "GUID on RoCE"
	assert_match 'the GUID from args.cni.guid applies to InfiniBand VFs only' "$OUT$ERR" "message"
	via_libcni del
	assert_eq 0 "$RC" "del after a refused add ($ERR)"
}
