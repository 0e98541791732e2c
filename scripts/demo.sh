#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `sudo make demo`: the plugins at work on a simulated SR-IOV node, inside
# private mount and network namespaces, so nothing on this host changes.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root for namespaces and mounts; run: sudo make demo" >&2
	exit 1
fi
if [ -z "${IBCNI_DEMO_INSIDE:-}" ]; then
	exec env IBCNI_DEMO_INSIDE=1 unshare --mount --net --propagation private "$0" "$@"
fi

export IBCNI_BIN=$root/bin IBCNI_HELPER=$root/build/netns/cnihelper
export IBCNI_FIXTURES=$root/tests/fixtures
make -C "$root" --no-print-directory -s build/netns/cnihelper >/dev/null
. "$root/tests/netns/lib.sh"
lib_init

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

say "A simulated SR-IOV node: 1 PF with 4 VFs (tmpfs over /sys/bus/pci, veth netdevs)"
sim_node 1 4 ib
for v in 0 1 2 3; do
	printf '  VF %s -> %s\n' "$(sim_vf_addr 0 $v)" "$("$HELPER" pci "$(sim_vf_addr 0 $v)")"
done

say "Pod pod-a"
pod_ns pod-a && ip netns list

conf='{"cniVersion":"1.1.0","name":"ib-data","type":"ib-sriov","deviceID":"0000:03:01.1","mtu":4000,"ipam":{"type":"ib-host-local","ranges":[[{"subnet":"192.168.100.0/24","rangeStart":"192.168.100.10"}],[{"subnet":"fd00:100::/64"}]],"routes":[{"dst":"192.168.0.0/16"}]}}'
say "ib-sriov ADD: VF 0000:03:01.1 into pod-a as net1, addresses from ib-host-local"
echo "$conf" | jq -c .
cni_exec ib-sriov ADD pod-a pod-a net1 "$conf"
echo "exit $RC"; echo "$OUT" | jq .
prev=$OUT
say "In the pod"
show ip -n pod-a -br addr show net1
show ip -n pod-a route show dev net1
say "On the host: vf0_1 is gone, the record and the leases are on disk"
ip -br link show | grep -E '^vf0_' | awk '{print $1}' | tr '\n' ' '; echo
show ls /var/lib/cni/ibcni/ib-sriov /var/lib/cni/ib-sriov /var/lib/cni/networks/ib-data
echo "the attachment record (what DEL needs to undo it):"
jq -c . /var/lib/cni/ibcni/ib-sriov/pod-a:net1
echo "its twin in ib-sriov-cni's cache format (so a downgraded node's DEL finds the VF):"
jq -c . /var/lib/cni/ib-sriov/pod-a-net1

say "CHECK with the ADD result, then after someone changed the MTU in the pod"
cni_exec ib-sriov CHECK pod-a pod-a net1 "${conf%\}},\"prevResult\":$prev}"
echo "CHECK: exit $RC"
ip -n pod-a link set net1 mtu 1500
cni_exec ib-sriov CHECK pod-a pod-a net1 "${conf%\}},\"prevResult\":$prev}"
echo "CHECK: exit $RC"; echo "$OUT" | jq -c .
ip -n pod-a link set net1 mtu 4000

say "A bad request changes nothing: vlan on a PF that refuses VF settings"
cni_exec ib-sriov ADD pod-b pod-a net2 "$(echo "$conf" | jq -c '.deviceID="0000:03:01.2" | .vlan=100')"
echo "exit $RC"; echo "$OUT" | jq -c .
ip -br link show vf0_2

say "ib-sriov DEL: the VF back on the host, name, MTU and MAC as found; leases released"
cni_exec ib-sriov DEL pod-a pod-a net1 "${conf%\}},\"prevResult\":$prev}"
echo "DEL: exit $RC"
show ip -br link show vf0_1
show ls /var/lib/cni/ibcni/ib-sriov /var/lib/cni/ib-sriov /var/lib/cni/networks/ib-data

say "rdma-ns, chained after ib-sriov: this kernel has no RDMA subsystem, and says so"
show "$BIN/rdma-ns" netns-mode show
cni_exec rdma-ns ADD pod-a pod-a net1 "$(echo "$conf" | jq -c --argjson p "$prev" '.type="rdma-ns" | .prevResult=$p')"
echo "exit $RC"; echo "$OUT" | jq -c .
echo "(sudo make check-vm runs rdma-ns against Debian's kernel with rdma_rxe under qemu)"
echo
echo "demo: done (everything above lived in private namespaces and is gone now)"
