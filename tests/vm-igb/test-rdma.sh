# SPDX-License-Identifier: Apache-2.0
# Sourced by init.sh: rdma-ns and ib-sriov's rdmaIsolation on this kernel's
# RDMA netlink (tests/vm covers bookworm's), with rxe over a real VF netdev.
# Runs first: the netns mode can switch only while no other netns exists.
kernel_mode() { rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p'; }
rdmans() { # COMMAND ID NETNS IFNAME CONF: sets OUT and RC
	OUT=$(printf '%s' "$5" | env -i CNI_COMMAND=$1 CNI_CONTAINERID=$2 ${3:+CNI_NETNS=$3} \
		CNI_IFNAME=$4 CNI_PATH=$BIN $BIN/rdma-ns 2>/tmp/stderr)
	RC=$?
}
expect "rdma: netns-mode show agrees with iproute2" "$(kernel_mode)" "$(rdma-ns netns-mode show)"
rdma-ns netns-mode exclusive >/tmp/out 2>&1
expect "rdma: switch to exclusive exits 0 ($(cat /tmp/out))" 0 $?
expect "rdma: the kernel reports exclusive" exclusive "$(kernel_mode)"
rnet=$(vf_net "$VF0")
rdma link add rxe0 type rxe netdev "$rnet" 2>/tmp/err
before=$(host_state)
expect "rdma: rxe0 over the VF netdev $rnet ($(cat /tmp/err))" "link rxe0/1 state DOWN physical_state DISABLED netdev $rnet" \
	"$(rdma link show rxe0/1 | sed 's/ *$//')"
contains "rdma: our netlink dump finds rxe0" " rxe0 " "$(rdma-ns devices)"
ip netns add rpod
rconf="{\"cniVersion\":\"1.1.0\",\"name\":\"igb-net\",\"type\":\"rdma-ns\",\"deviceID\":\"$VF0\",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"net1\"}]}}"
# rxe is not a PCI child of the VF: on the real sysfs only its port's
# netdev ties it to the VF. rdma-ns looks for the pod interface, absent here.
rdmans ADD r1 /run/netns/rpod net1 "$rconf"
jqe "rdma: rdma-ns on the real VF finds no RDMA device" '.code .msg' '[101,"no RDMA device for deviceID"]'
contains "rdma: the error names each way tried" "auxiliary child (the function's auxiliary devices: none), netdev net1 in /run/netns/rpod (no such netdev)" "$(Jr .details)"
# rdmaIsolation finds rxe0 bound to the VF netdev (RDMA netlink, host
# socket) and refuses it before any move (security review 5, U3: a device
# bound to the netdev is deleted when the netdev moves): rxe0 stays on the
# host over the VF netdev.
cni ib-sriov ADD r1 /run/netns/rpod net1 "$(conf "$VF0" '"rdmaIsolation":true')"
jqe "rdma: rdmaIsolation refuses rxe0, found by its netdev" '.code .msg' '[101,"a software RDMA device cannot follow the VF into the pod"]'
contains "rdma: the refusal names rxe0 and how it was found" "rxe0, the RDMA device of $VF0 (found by netdev, $rnet)" "$(Jr .details)"
contains "rdma: rxe0 is on the host, its port bound to $rnet" "netdev $rnet" "$(rdma link show rxe0/1)"
expect "rdma: nothing changed" "$before" "$(host_state)"
# The real PF and VF under a tmpfs devices/ listing whose VF also names
# rxe0 under infiniband/ (a ConnectX VF's layout): the move reaches the kernel.
real_pf=$(readlink -f "$D/$PCI_PF")
real_vf=$(readlink -f "$D/$VF0")
mount -t tmpfs pci "$D"
ln -s "$real_pf" "$D/$PCI_PF"
mkdir -p "$D/$VF0/infiniband/rxe0"
ln -s "$real_vf/net" "$D/$VF0/net"
ln -s "$real_pf" "$D/$VF0/physfn"
ln -s "$(readlink -f "$real_vf/driver")" "$D/$VF0/driver"
rdmans ADD r1 /run/netns/rpod net1 "$rconf"
jqe "rdma: rdma-ns reaches the kernel's refusal to move rxe0" '.msg' '"the RDMA device cannot change network namespace"'
contains "rdma: the refusal names rxe0" "rxe0" "$(Jr .details)"
rdmans DEL r1 /run/netns/rpod net1 "$rconf"
expect "rdma: rdma-ns DEL after the failed ADD exits 0" 0 "$RC"
# The same rxe0 as the VF's PCI child: the kernel's uverbs driver ID says
# rxe, so ib-sriov refuses it before the move (review 5, U3, any step).
cni ib-sriov ADD r2 /run/netns/rpod net1 "$(conf "$VF0" '"rdmaIsolation":true,"mtu":1400' ib-host-local)"
jqe "rdma: ib-sriov rdmaIsolation refuses the PCI child the kernel reports as rxe" '.code .msg' '[101,"a software RDMA device cannot follow the VF into the pod"]'
contains "rdma: the refusal names rxe0 and its driver" "rxe0, the RDMA device of $VF0 (found by PCI child, $rnet), is a software RDMA device (the kernel reports its driver as rxe)" "$(Jr .details)"
umount "$D"
contains "rdma: rxe0 is still on the host" " rxe0 " "$(rdma-ns devices)"
expect "rdma: VF netdev, VF table, records as before" "$before" "$(host_state)"
expect "rdma: no lease left" "" "$(leases)"
rdmans STATUS "" "" "" '{"cniVersion":"1.1.0","name":"igb-net","type":"rdma-ns"}'
expect "rdma: rdma-ns STATUS in exclusive mode" 0 "$RC"
rdma link del rxe0
ip netns del rpod
