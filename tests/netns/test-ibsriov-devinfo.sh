# SPDX-License-Identifier: Apache-2.0
# ib-sriov's Device Information file (device-info-spec 1.1.0, section 4.2)
# on the simulated node: its exact content, removed on DEL and GC, never
# written through a planted link, and no file from a hostile network name.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

DEVINFO=/var/run/k8s.cni.cncf.io/devinfo/cni

# A VF with an RDMA device (sim_node ib): pci-address, PF, rdma-device and
# port 1; the netdev is a veth, so the link layer is Ethernet (RoCE).
test_devinfo_roce_vf_with_rdma_device() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf mac
	conf=$(sriov_conf "" '"mac":"02:00:00:00:00:21"')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	assert_file "$DEVINFO/rdma-net-ctr1_net1" '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:03:01.1","pf-pci-address":"0000:03:00.0","rdma-device":"mlx5_0_1"},"ibcni":{"vf-index":1,"pf-netdev":"pf0","link-layer":"Ethernet","port":1,"mac":"02:00:00:00:00:21"}}'
	assert_mode "$DEVINFO/rdma-net-ctr1_net1" 600
	assert_mode "$DEVINFO" 700
	assert_mode /run/k8s.cni.cncf.io 700
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($ERR)"
	[ ! -e "$DEVINFO/rdma-net-ctr1_net1" ] || fail "the file stayed after DEL"
}

# A VF without an RDMA device (sim_node eth), at the path Multus passes as
# runtimeConfig.CNIDeviceInfoFile (replacing the copy of the device
# plugin's file Multus may have put there).
test_devinfo_runtime_config_path_and_no_rdma() {
	sim_node 1 2 eth
	pod_ns pod1
	local conf mac
	mkdir -p "$DEVINFO"
	echo '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:03:01.0"}}' >"$DEVINFO/ns1-rdma-net-ctr1_net1"
	conf=$(sriov_conf "" '"capabilities":{"CNIDeviceInfoFile":true},"runtimeConfig":{"CNIDeviceInfoFile":"'"$DEVINFO"'/ns1-rdma-net-ctr1_net1"}' 1.1.0 "$(sim_vf_addr 0 0)")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	mac=$(ip -n pod1 -j link show net1 | jq -r '.[0].address')
	assert_file "$DEVINFO/ns1-rdma-net-ctr1_net1" '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:03:01.0","pf-pci-address":"0000:03:00.0"},"ibcni":{"vf-index":0,"pf-netdev":"pf0","link-layer":"Ethernet","mac":"'"$mac"'"}}'
	[ ! -e "$DEVINFO/rdma-net-ctr1_net1" ] || fail "the derived name was written too"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($ERR)"
	[ ! -e "$DEVINFO/ns1-rdma-net-ctr1_net1" ] || fail "the file stayed after DEL"
}

test_devinfo_removed_by_gc() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf
	conf=$(sriov_conf "")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	[ -f "$DEVINFO/rdma-net-ctr1_net1" ] || fail "no file after ADD"
	cni_exec ib-sriov GC "" "" "" '{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","cni.dev/valid-attachments":[]}'
	assert_eq 0 "$RC" "GC ($ERR)"
	[ ! -e "$DEVINFO/rdma-net-ctr1_net1" ] || fail "the file stayed after GC"
}

# A link planted at the file's name is replaced, never written through; a
# link planted for the directory fails the ADD, which leaves the host as
# it found it.
test_devinfo_planted_links_not_followed() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf before mac
	conf=$(sriov_conf "")
	mac=$(ip -j link show vf0_1 | jq -r ".[0].address")
	mkdir -p "$DEVINFO"
	echo secret >"$T/target"
	ln -s "$T/target" "$DEVINFO/rdma-net-ctr1_net1"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	assert_file "$T/target" secret
	[ -f "$DEVINFO/rdma-net-ctr1_net1" ] && [ ! -L "$DEVINFO/rdma-net-ctr1_net1" ] ||
		fail "the link was not replaced by a file"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($ERR)"
	rm -rf /run/k8s.cni.cncf.io
	mkdir -p /run/k8s.cni.cncf.io/devinfo "$T/elsewhere"
	ln -s "$T/elsewhere" "$DEVINFO"
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 5 "$(jq -r .code <<<"$OUT")" "ADD through a linked directory ($OUT)"
	assert_match "device information" "$OUT" "the error names the file"
	assert_eq "" "$(ls -A "$T/elsewhere")" "nothing written through the link"
	assert_host_unchanged "$before" "failed ADD"
	vf_as_found vf0_1 "$mac" 1500
}

# Names outside the CNI spec's charset never reach a file name (the
# configuration parser refuses them first); one too long for a file name
# with the container ID and interface name is refused by ours.
test_devinfo_hostile_names_rejected() {
	sim_node 1 2 ib
	pod_ns pod1
	local before conf long
	before=$(host_state)
	for name in '../../../etc/x' 'a/b' '.hidden' 'a b'; do
		conf=$(sriov_conf "" | jq -c --arg n "$name" '.name = $n')
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
		assert_eq 7 "$(jq -r .code <<<"$OUT")" "network name '$name' ($OUT)"
		assert_match 'network name' "$OUT" "the error names the network name"
	done
	long=$(printf 'n%.0s' {1..245})
	conf=$(sriov_conf "" | jq -c --arg n "$long" '.name = $n')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 7 "$(jq -r .code <<<"$OUT")" "a 245-byte network name ($OUT)"
	assert_match '\\"name\\"' "$OUT" "the error names the key"
	# Another attachment's name (container ctr2's, ctr1's net2) is never ours.
	for path in /etc/passwd "$DEVINFO/../x" "$DEVINFO/sub/x" /var/run/k8s.cni.cncf.io/devinfo/dp/x \
		"$DEVINFO/other" "$DEVINFO/rdma-net-ctr2_net1" "$DEVINFO/rdma-net-ctr1_net2"; do
		conf=$(sriov_conf "" '"runtimeConfig":{"CNIDeviceInfoFile":"'"$path"'"}')
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
		assert_eq 7 "$(jq -r .code <<<"$OUT")" "CNIDeviceInfoFile '$path' ($OUT)"
		assert_match CNIDeviceInfoFile "$OUT" "the error names the key"
	done
	assert_host_unchanged "$before" "refused ADDs"
	[ ! -e /run/k8s.cni.cncf.io ] || fail "the directory was created"
}

# A directory planted at the file's name fails the ADD (code 5) and is
# never taken for ours: the rollback completes, and the host is as found.
test_devinfo_directory_at_the_name() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf before mac
	conf=$(sriov_conf "")
	mac=$(ip -j link show vf0_1 | jq -r ".[0].address")
	mkdir -p "$DEVINFO/rdma-net-ctr1_net1"
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 5 "$(jq -r .code <<<"$OUT")" "ADD with a directory at the name ($OUT)"
	assert_host_unchanged "$before" "failed ADD"
	vf_as_found vf0_1 "$mac" 1500
	[ -d "$DEVINFO/rdma-net-ctr1_net1" ] || fail "the planted directory was removed"
}

# vfio-pci: a VF (no rdma-device, no netdev) and a passed-through PF (its
# address only).
test_devinfo_vfio_vf_and_pf() {
	sim_node 1 2 ib
	pod_ns pod1
	local conf
	ln -sfn ../../drivers/vfio-pci "/sys/bus/pci/devices/$(sim_vf_addr 0 1)/driver"
	conf=$(sriov_conf "" '"vfioPciMode":true')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD of a vfio VF ($OUT $ERR)"
	assert_file "$DEVINFO/rdma-net-ctr1_net1" '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:03:01.1","pf-pci-address":"0000:03:00.0"},"ibcni":{"vf-index":1,"pf-netdev":"pf0","link-layer":"Ethernet"}}'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	[ ! -e "$DEVINFO/rdma-net-ctr1_net1" ] || fail "the vfio VF's file stayed after DEL"
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/0000:03:00.0/driver
	conf=$(sriov_conf "" '"vfioPciMode":true' 1.1.0 0000:03:00.0)
	cni_exec ib-sriov ADD ctr2 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD of a vfio PF ($OUT $ERR)"
	assert_file "$DEVINFO/rdma-net-ctr2_net1" '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:03:00.0"}}'
	cni_exec ib-sriov DEL ctr2 pod1 net1 "$conf"
	[ ! -e "$DEVINFO/rdma-net-ctr2_net1" ] || fail "the PF's file stayed after DEL"
}
