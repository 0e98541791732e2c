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

say "Two pods"
pod_ns pod-a && pod_ns pod-b && ip netns list

conf='{"cniVersion":"1.1.0","name":"ib-data","type":"ib-sriov","ipam":{"type":"ib-host-local","ranges":[[{"subnet":"192.168.100.0/24","rangeStart":"192.168.100.10"}],[{"subnet":"fd00:100::/64"}]],"routes":[{"dst":"192.168.0.0/16"}]}}'
say "ib-host-local ADD for pod-a/net1 and pod-b/net1 (the leases ib-sriov asks for)"
for p in pod-a pod-b; do
	cni_exec ib-host-local ADD "$p" "$p" net1 "$conf"
	echo "$p: exit $RC"; echo "$OUT" | jq -c .
done
say "The lease store, byte-compatible with host-local (/var/lib/cni/networks/ib-data)"
ls -l /var/lib/cni/networks/ib-data
printf 'content of 192.168.100.10: '; od -An -c /var/lib/cni/networks/ib-data/192.168.100.10

say "CHECK pod-a with its prevResult, then a CHECK that names pod-b's address"
cni_exec ib-host-local CHECK pod-a pod-a net1 "${conf%\}},\"prevResult\":{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":\"192.168.100.10/24\"}]}}"
echo "CHECK pod-a: exit $RC"
cni_exec ib-host-local CHECK pod-a pod-a net1 "${conf%\}},\"prevResult\":{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":\"192.168.100.11/24\"}]}}"
echo "CHECK pod-a naming pod-b's address: exit $RC"; echo "$OUT" | jq -c .

say "GC keeping only pod-b, then STATUS"
cni_exec ib-host-local GC "" "" "" "${conf%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"pod-b\",\"ifname\":\"net1\"}]}"
echo "GC: exit $RC"; ls /var/lib/cni/networks/ib-data
cni_exec ib-host-local STATUS "" "" "" "$conf"
echo "STATUS: exit $RC"

say "A VF netdev moved into pod-a by the shared runtime (cni/link.c), read back with ip -j"
show "$HELPER" move vf0_1 /run/netns/pod-a
ip -n pod-a -j link show vf0_1 | jq -c '.[0] | {ifname, mtu, address, operstate}'

say "ib-sriov and rdma-ns"
cni_exec ib-sriov ADD pod-a pod-a net2 "$conf"
echo "$OUT" | jq -c .
echo
echo "demo: done (everything above lived in private namespaces and is gone now)"
