# SPDX-License-Identifier: Apache-2.0
# Sourced by init.sh: deviceIDs that are not a usable VF, the GUID flow's
# unbind/bind on igbvf, vfio-pci behind the emulated IOMMU, and the hardware
# tier's script on this PF (its Ethernet part).

bind_igbvf() { # PCI: back to igbvf (driver_override cleared), netdev waited for
	echo >"$D/$1/driver_override"
	[ -e "$D/$1/driver" ] && echo "$1" >"$D/$1/driver/unbind"
	echo "$1" >/sys/bus/pci/drivers/igbvf/bind
	wait_netdev "$1"
}

section "deviceIDs that are not a usable VF"
ip netns add pod4
before=$(host_state)
cni ib-sriov ADD d1 /run/netns/pod4 net1 "$(conf "$PCI_PF" '"mac":"02:11:22:33:44:99"' ib-host-local)"
jqe "deviceID of the PF" '.code .msg' '[7,"deviceID is not a VF"]'
missing=${VF0%.*}.1
cni ib-sriov ADD d1 /run/netns/pod4 net1 "$(conf "$missing" '"mac":"02:11:22:33:44:99"' ib-host-local)"
jqe "deviceID of a missing function ($missing)" '.code .msg' '[101,"device not found"]'
expect "bad deviceIDs changed nothing" "$before" "$(host_state)"
table=$(vf_table)
echo "$VF3" >"$D/$VF3/driver/unbind"
cni ib-sriov ADD d1 /run/netns/pod4 net1 "$(conf "$VF3" '"mac":"02:11:22:33:44:99"' ib-host-local)"
jqe "deviceID of a VF with no driver bound" '.code .msg' '[101,"the VF has no netdev"]'
contains "the error says what to bind" "bound to \"\"" "$(Jr .details)"
expect "no driver: VF table as before" "$table" "$(vf_table)"
expect "no driver: no record, no lease" "" "$(ls /var/lib/cni/ib-sriov)$(leases)"
bind_igbvf "$VF3"

section "the GUID flow's rebind on igbvf"
old=$(vf_net "$VF3")
ip link set "$old" name vfold
got=$(igbhelper rebind "$VF3")
expect "rebind: the new netdev is found by PCI address" "$(vf_net "$VF3")" "$got"
case $got in
vfold | "") ko "rebind: a new netdev, not the old name" "got '$got'" ;;
*) ok "rebind: a new netdev ($got), not the old name" ;;
esac
expect "rebind: still bound to igbvf" igbvf "$(basename "$(readlink "$D/$VF3/driver")")"
ip link set "$got" name "$old" 2>/dev/null

section "vfio-pci behind the emulated VT-d IOMMU"
ip netns add pod4
echo vfio-pci >"$D/$VF3/driver_override"
echo "$VF3" >"$D/$VF3/driver/unbind"
echo "$VF3" >/sys/bus/pci/drivers_probe
expect "vfio: the VF is bound to vfio-pci" vfio-pci "$(basename "$(readlink "$D/$VF3/driver")")"
grp=$(basename "$(readlink "$D/$VF3/iommu_group")")
expect "vfio: the IOMMU group has its own VFIO node" "/dev/vfio/$grp" "$(ls /dev/vfio/$grp 2>&1)"
expect "vfio: a type 1 container opens the device" "pci=1 regions=9 irqs=5" "$(igbhelper vfio "$grp" "$VF3")"
bound=$(host_state)
cni ib-sriov ADD v1 /run/netns/pod4 net1 "$(conf "$VF3" '"vfioPciMode":true' ib-host-local)"
expect "vfio: ADD exits 0 $(msg)" 0 "$RC"
# A RoCE VF on vfio-pci gets its addresses in the result, as sriov-cni's
# DPDK mode gives them (applications read them from the network status).
jqe "vfio: the result names the device and its address" '.interfaces[0].pciID .ips[0].address' "[\"$VF3\",\"10.56.0.2/24\"]"
expect "vfio: the record is written" "v1:net1" "$(ls /var/lib/cni/ibcni/ib-sriov)"
expect "vfio: the address is leased" "10.56.0.2 " "$(leases)"
prev=$OUT
cc=$(conf "$VF3" '"vfioPciMode":true' ib-host-local)
cni ib-sriov CHECK v1 /run/netns/pod4 net1 "${cc%\}},\"prevResult\":$prev}"
expect "vfio: CHECK exits 0 $(msg)" 0 "$RC"
cni ib-sriov DEL v1 /run/netns/pod4 net1 "$cc"
expect "vfio: DEL exits 0 $(msg)" 0 "$RC"
expect "vfio: still bound to vfio-pci" vfio-pci "$(drv "$VF3")"
expect "vfio: DEL left the VF table as before, no record" "$bound" "$(host_state)"
expect "vfio: DEL released the address" "" "$(leases)"
cni ib-sriov ADD v2 /run/netns/pod4 net1 "$(conf "$VF3" '"vfioPciMode":true,"link_state":"enable"')"
jqe "vfio: link_state refused by igb" '.code .msg' '[101,"cannot configure the VF on its PF"]'
contains "vfio: the error names link_state" link_state "$(Jr .details)"
cni ib-sriov DEL v2 /run/netns/pod4 net1 "$(conf "$VF3" '"vfioPciMode":true,"link_state":"enable"')"
expect "vfio: the runtime's DEL after the failed ADD exits 0 $(msg)" 0 "$RC"
cni ib-sriov ADD v3 /run/netns/pod4 net1 "$(conf "$VF2" '"vfioPciMode":true')"
jqe "vfio: vfioPciMode on an igbvf VF" '.code .msg' '[7,"vfioPciMode is set but the VF is not bound to vfio-pci"]'
expect "vfio: VF table as before, no record" "$bound" "$(host_state)"
bind_igbvf "$VF3"
expect "vfio: back on igbvf" igbvf "$(basename "$(readlink "$D/$VF3/driver")")"

section "the hardware tier's script on this PF"
hw() { env IBCNI_HW_BIN=$BIN IBCNI_HW_STATE=/tmp/hw "$@" /bin/hw-run.sh >/tmp/hw.out 2>&1; }
hw IBCNI_HW_PF="$PF" IBCNI_HW_VFS="$VF2 $VF3"
expect "hw: refuses without IBCNI_HW=1" 2 $?
echo "vm-igb: $(grep refused /tmp/hw.out)"
contains "hw: says how to opt in" "IBCNI_HW=1" "$(cat /tmp/hw.out)"
ip link set "$(vf_net "$VF3")" up
hw IBCNI_HW=1 IBCNI_HW_PF="$PF" IBCNI_HW_VFS="$VF2 $VF3"
expect "hw: refuses a VF in use" 2 $?
echo "vm-igb: $(grep refused /tmp/hw.out)"
contains "hw: names the busy VF" "$VF3" "$(cat /tmp/hw.out)"
ip link set "$(vf_net "$VF3")" down
before=$(host_state)
hw IBCNI_HW=1 IBCNI_HW_PF="$PF" IBCNI_HW_VFS="$VF2 $VF3"
hwrc=$?
# Its lines join ours.
while read -r line; do
	case $line in
	PASS*) ok "hw: ${line#PASS  }" ;;
	FAIL*)
		line=${line#FAIL  }
		ko "hw: $line" "(its FAIL line)"
		;;
	SKIP*) echo "  SKIP  hw: ${line#SKIP  }" ;;
	esac
done </tmp/hw.out
contains "hw: the script ran to its totals" "hw: " "$(grep -E '^hw: [0-9]+ passed, [0-9]+ failed' /tmp/hw.out)"
expect "hw: exit status 0" 0 "$hwrc"
expect "hw: host as before" "$before" "$(host_state)"
