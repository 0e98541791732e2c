# SPDX-License-Identifier: Apache-2.0
# Self-healing without GC (ib-sriov/heal.c, reconcile.c): a pod gone without
# DEL, as the kernel leaves it, then the next ADD on its VF and the node agent.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

# gone_without_del POD IFNAME VF: the pod's netns destroyed without a DEL,
# as the kernel does it: the VF netdev back in the host under its pod name
# (a veth would die with the namespace, so it is moved out first), sysfs
# naming it so, the netns file gone.
gone_without_del() {
	local net=/sys/bus/pci/devices/$(sim_vf_addr 0 "${3#vf0_}")/net
	ip -n "$1" link set "$2" down
	ip -n "$1" link set "$2" netns $$ || fail "moving $2 out of $1"
	mv "$net/$3" "$net/$2"
	ip netns del "$1"
}

sysfs_follows() { # VF NAME: the simulated sysfs names the VF netdev NAME again
	local net=/sys/bus/pci/devices/$(sim_vf_addr 0 "${1#vf0_}")/net
	mv "$net"/* "$net/$2"
}

lease_owners() { # the container IDs ib-host-local holds addresses for
	local f
	for f in "$T/leases/rdma-net"/10.*; do
		[ -e "$f" ] && head -n1 "$f" | tr -d '\r'

	done | sort | tr '\n' ' ' | sed 's/ $//'
}

records() {
	ls /var/lib/cni/ibcni/ib-sriov 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}

test_add_takes_the_vf_of_a_pod_gone_without_del() {
	local mac before conf
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	before=$(host_state)
	conf=$(sriov_conf ib-host-local '"mtu":1400,"mac":"02:11:22:33:44:55"')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD of the first pod ($OUT)"
	gone_without_del pod1 net1 vf0_1
	assert_link host net1 '[.mtu,.address]' '[1400,"02:11:22:33:44:55"]'
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "ADD on the VF of the pod gone without DEL ($OUT)"
	assert_match "released net1 of container ctr1 \(network rdma-net\): its netns /run/netns/pod1 is gone" \
		"$ERR" "one line names the old attachment"
	assert_eq "ctr2:net1" "$(records)" "the old record is gone"
	assert_eq "ctr2" "$(lease_owners)" "the old leases are gone"
	[ -e "$T/leases/rdma-net/10.56.0.2" ] && fail "the old address is still leased"
	assert_link pod2 net1 '[.mtu,.address]' '[1400,"02:11:22:33:44:55"]'
	assert_no_link host net1
	sysfs_follows vf0_1 vf0_1
	cni_exec ib-sriov DEL ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
	assert_host_unchanged "$before" "host after the second pod's DEL"
}

test_add_still_refuses_the_vf_of_a_live_pod() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2
	conf=$(sriov_conf ib-host-local)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT)"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	# As before: the VF netdev is in the live pod, not on the host.
	assert_json '[.code,.msg]' '[101,"the VF has no netdev"]'
	assert_eq "ctr1:net1" "$(records)" "the live pod's record stays"
	assert_eq "ctr1" "$(lease_owners)" "the live pod's lease stays"
	assert_link pod1 net1 '.ifname' '"net1"'
	# A vfio-bound VF has no netdev: the record of its live pod refuses it.
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/$(sim_vf_addr 0 0)/driver
	conf=$(sriov_conf ib-host-local '"vfioPciMode":true' 1.1.0 "$(sim_vf_addr 0 0)")
	cni_exec ib-sriov ADD ctr3 pod1 net2 "$conf"
	assert_eq 0 "$RC" "vfio ADD ($OUT)"
	cni_exec ib-sriov ADD ctr4 pod2 net2 "$conf"
	assert_json '[.code,.msg]' '[101,"the device is attached already"]'
	assert_eq "ctr1:net1 ctr3:net2" "$(records)" "records"
	# Its pod gone: the next ADD takes it, with the lease.
	ip netns del pod1
	cni_exec ib-sriov ADD ctr4 pod2 net2 "$conf"
	assert_eq 0 "$RC" "vfio ADD after its pod is gone ($OUT)"
	assert_eq "ctr1:net1 ctr4:net2" "$(records)" "records after"
}

test_add_heals_a_netns_file_left_unmounted_or_replaced() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2; pod_ns pod3
	conf=$(sriov_conf ib-host-local)
	# The runtime's bind mount gone, the empty file left behind.
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	ip -n pod1 link set net1 netns $$
	mv /sys/bus/pci/devices/$(sim_vf_addr 0 1)/net/vf0_1 /sys/bus/pci/devices/$(sim_vf_addr 0 1)/net/net1
	umount /run/netns/pod1
	[ -f /run/netns/pod1 ] || fail "the unmounted netns file should stay"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "ADD over an unmounted netns file ($OUT)"
	assert_eq "ctr2:net1" "$(records)" "records"
	sysfs_follows vf0_1 vf0_1
	# A FIFO in its place is never opened (no hang) and is not a netns.
	gone_without_del pod2 net1 vf0_1
	mkfifo /run/netns/pod2
	cni_exec ib-sriov ADD ctr3 pod3 net1 "$conf"
	assert_eq 0 "$RC" "ADD over a FIFO where the netns was ($OUT)"
	assert_eq "ctr3:net1" "$(records)" "records"
	assert_eq "ctr3" "$(lease_owners)" "leases"
}
