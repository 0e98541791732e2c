# SPDX-License-Identifier: Apache-2.0
# ib-sriov as a drop-in for ib-sriov-cni: upgrade and downgrade in place,
# PF passthrough, vfio-bound VFs, pkey as upstream reads it.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

GO_DIR=/var/lib/cni/ib-sriov
OUR_DIR=/var/lib/cni/ibcni/ib-sriov

test_downgrade_twin_is_go_format() {
	# What the Go plugin's DEL reads from its cache (pkg/utils LoadConfFromCache
	# then ReleaseVF/ResetVFConfig) is there, under its own file name.
	sim_node 1 2 eth
	pod_ns pod1
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "ADD ($OUT)"
	[ -f "$OUR_DIR/ctr1:net1" ] || fail "no record of ours"
	assert_eq '{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","ipam":{"type":"ib-host-local"},"Master":"pf0","deviceID":"0000:03:01.1","VFID":1,"HostIFNames":"vf0_1","ContIFNames":"net1"}' \
		"$(jq -c 'del(.ibcni)' "$GO_DIR/ctr1-net1")" "Go-format cache"
	assert_mode "$GO_DIR/ctr1-net1" 600
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ ! -e "$GO_DIR/ctr1-net1" ] || fail "Go-format cache left"
	[ ! -e "$OUR_DIR/ctr1:net1" ] || fail "record left"
}

test_upgrade_from_ibcni_0x_record() {
	# A record written by the previous ibcni release, at the Go path, in
	# its format (no version, integers for flags): DEL undoes it.
	local mac
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"mtu":1400')"
	jq -c 'del(.version,.pod_ifindex,.iflink,.link_kind,.vf_changed,.mac_unset,.complete) | .complete=1' \
		"$OUR_DIR/ctr1:net1" >"$T/old"
	rm "$OUR_DIR/ctr1:net1" "$GO_DIR/ctr1-net1"
	cp "$T/old" "$GO_DIR/ctr1-net1"
	cni_exec ib-sriov CHECK ctr1 pod1 net1 "$(sriov_conf ib-host-local '"mtu":1400')"
	assert_eq 0 "$RC" "CHECK of a 0.x attachment ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local '"mtu":1400')"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released"
}

test_record_of_the_previous_format_is_released() {
	# A record the previous build wrote (no netdev attributes, no RDMA
	# indices) after an upgrade: DEL releases it as that build did.
	local mac rec=$OUR_DIR/ctr1:net1
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"mtu":1400')"
	assert_eq 0 "$RC" "ADD ($OUT)"
	[ "$(jq 'has("attrs")' "$rec")" = true ] || fail "no attributes recorded"
	jq -c 'del(.attrs, .rdma_index)' "$rec" >"$T/r" && cat "$T/r" >"$rec"
	ip -n pod1 link property add dev net1 altname tenantA
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local '"mtu":1400')"
	assert_eq 0 "$RC" "DEL ($OUT $ERR)"
	vf_as_found vf0_1 "$mac" 1500
	# Altnames need no record: none is ever the host's to keep.
	assert_link host vf0_1 '.altnames' 'null'
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released"
}

go_attach() { # a pod attached by the Go ib-sriov-cni: VF in the pod, its cache
	ip link set vf0_1 down
	ip link set vf0_1 netns pod1
	ip -n pod1 link set vf0_1 name net1
	ip -n pod1 link set net1 up
	mkdir -p -m 0700 "$GO_DIR"
	printf '%s' '{"cniVersion":"1.0.0","name":"rdma-net","type":"ib-sriov","ipam":{"type":"ib-host-local"},"Master":"pf0","deviceID":"0000:03:01.1","VFID":1,"HostIFNames":"vf0_1","ContIFNames":"net1","pkey":"0x5","rdmaIsolation":false,"RdmaNetState":{"version":"","deviceID":"","sandboxRdmaDevName":"","containerRdmaDevName":""}}' \
		>"$GO_DIR/ctr1-net1"
	chmod 600 "$GO_DIR/ctr1-net1"
}

test_upgrade_from_go_cache() {
	# The Go cache is recognised: CHECK compares, DEL runs the IPAM and
	# removes the cache. The simulated VF (a veth) cannot be told from a
	# fake without the kernel's PCI parent, which the Go cache never
	# recorded another way: it stays in the pod, and the kernel hands a real
	# VF back when the pod's netns goes. (On a real driver it is moved back:
	# the igb vm tier.)
	sim_node 1 2 eth
	pod_ns pod1
	go_attach
	cni_exec ib-sriov CHECK ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "CHECK of a Go attachment ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "DEL ($OUT $ERR)"
	assert_match "net1 in /run/netns/pod1 is not VF 0000:03:01.1" "$ERR" "unverifiable VF left"
	[ ! -e "$GO_DIR/ctr1-net1" ] || fail "Go cache left"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "second DEL"
}

test_gc_collects_go_caches() {
	sim_node 1 2 eth
	pod_ns pod1
	go_attach
	local conf
	conf=$(sriov_conf "")
	cni_exec ib-sriov GC "" "" "" "${conf%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"ctr1\",\"ifname\":\"net1\"}]}"
	assert_eq 0 "$RC" "GC keeping it ($OUT)"
	[ -e "$GO_DIR/ctr1-net1" ] || fail "a valid Go attachment was collected"
	cni_exec ib-sriov GC "" "" "" "${conf%\}},\"cni.dev/valid-attachments\":[]}"
	assert_eq 0 "$RC" "GC ($OUT)"
	[ ! -e "$GO_DIR/ctr1-net1" ] || fail "stale Go cache left"
}

test_pf_passthrough_vfio() {
	sim_node 1 2 eth
	pod_ns pod1
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/0000:03:00.0/driver
	local before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"vfioPciMode":true' 1.1.0 0000:03:00.0)"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	assert_json '.interfaces' '[{"name":"net1","sandbox":"/run/netns/pod1","pciID":"0000:03:00.0"}]'
	assert_json '.ips' 'null'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local '"vfioPciMode":true' 1.1.0 0000:03:00.0)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_host_unchanged "$before" "host after PF passthrough"
	# A PF not bound to vfio-pci is still refused, with the fix named.
	ln -sfn ../../drivers/mlx5_core /sys/bus/pci/devices/0000:03:00.0/driver
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" "" 1.1.0 0000:03:00.0)"
	assert_json '[.code,.msg]' '[7,"deviceID is not a VF"]'
	assert_match 'or a PF bound to vfio-pci' "$(jq -r .details <<<"$OUT")" "fix named"
}

test_vfio_roce_vf_gets_addresses() {
	# sriov-cni's DPDK mode: the IPAM runs, the result carries the
	# addresses; nothing is configured (there is no netdev).
	sim_node 1 2 eth
	pod_ns pod1
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/0000:03:01.1/driver
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"vfioPciMode":true')"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	assert_json '[.ips[].address]' '["10.56.0.2/24","fd00:56::2/64"]'
	assert_json '.interfaces' '[{"name":"net1","sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}]'
	[ -f "$T/leases/rdma-net/10.56.0.2" ] || fail "no lease"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local '"vfioPciMode":true')"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released"
}

test_vfio_vf_attached_once() {
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/0000:03:01.1/driver
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"vfioPciMode":true')"
	assert_eq 0 "$RC" "first ADD ($OUT)"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$(sriov_conf "" '"vfioPciMode":true')"
	assert_json '[.code,.msg]' '[101,"the device is attached already"]'
	assert_match 'held by net1 of container ctr1' "$(jq -r .details <<<"$OUT")" "holder named"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "" '"vfioPciMode":true')"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$(sriov_conf "" '"vfioPciMode":true')"
	assert_eq 0 "$RC" "ADD after the DEL ($OUT)"
}

test_pkey_as_upstream() {
	# Upstream's example NAD: pkey 0x5 and no ib-kubernetes. The plugin does
	# not wait for the pkey table; on RoCE the key is ignored (logged).
	sim_node 1 2 eth
	pod_ns pod1
	local t0=$(date +%s%N)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"pkey":"0x5"')"
	assert_eq 0 "$RC" "ADD ($OUT)"
	[ $((($(date +%s%N) - t0) / 1000000)) -lt 5000 ] || fail "ADD waited for the pkey"
	assert_match 'pkey 0x0005 ignored' "$ERR" "normalisation logged"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	# Upstream passes any string on; one that can never be a partition key
	# (ib-kubernetes would fail on it later) is refused before anything.
	local before
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"pkey":"not-a-key"')"
	assert_json '[.code,.msg]' '[7,"invalid configuration"]'
	assert_match '"pkey" is "not-a-key"' "$(jq -r .details <<<"$OUT")" "the key named"
	assert_host_unchanged "$before" "refused pkey"
}

test_spoofchk_trust_on_off_only() {
	# sriov-cni takes anything but "on" as off, so a typo turns spoof
	# checking off; the operators render "on" and "off" only. Anything else
	# is code 7 before the PF is probed; "on" and "off" still reach the PF
	# (the veth PF refuses them, naming the setting, which proves they were
	# read as settings).
	sim_node 1 2 eth
	pod_ns pod1
	local before v
	before=$(host_state)
	for v in '"trust":"yes"' '"spoofchk":"maybe"' '"spoofchk":"Off"'; do
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" "$v")"
		assert_json '[.code,.msg]' '[7,"invalid configuration"]'
		assert_match 'it must be "on" or "off"' "$(jq -r .details <<<"$OUT")" "$v named"
	done
	assert_host_unchanged "$before" "refused values"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"trust":"off"')"
	assert_json '.code' 101
	assert_match 'does not report trust' "$(jq -r .details <<<"$OUT")" "trust read"
}

test_cni_args_value_with_equals() {
	# A value holding '=' is refused as Go's types.LoadArgs refuses it
	# (host-local, sriov-cni, rdma-cni; no runtime sends one), before
	# anything changes; DEL never fails on CNI_ARGS at all (a pair without
	# "=" included).
	sim_node 1 2 eth
	pod_ns pod1
	local before
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")" 'IgnoreUnknown=1;BLAH=foo=bar'
	assert_eq 1 "$RC" "ADD ($OUT)"
	assert_json '[.code,.msg]' '[4,"ARGS: invalid pair in CNI_ARGS"]'
	assert_match 'BLAH=foo=bar.*second' "$(jq -r .details <<<"$OUT")" "the pair named"
	assert_host_unchanged "$before" "refused ADD"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")" 'IgnoreUnknown=1;BLAH=foo'
	assert_eq 0 "$RC" "ADD ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")" 'IgnoreUnknown=1;BROKEN'
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_match 'CNI_ARGS ignored for DEL' "$ERR" "logged"
	assert_link host vf0_1 '.ifname' '"vf0_1"'
}
