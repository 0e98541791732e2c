#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ib-sriov against Debian's Go host-device (the same kernel work: a netdev
# into the pod and back) and against a floor (iproute2 doing only the
# moves), on the simulated SR-IOV node in private namespaces. Wall time per
# ADD+DEL pair and peak RSS, as ratios; syscalls and netlink sockets of one
# ADD (strace -f, IPAM included); asserts nothing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${IBCNI_BENCH_INSIDE:-}" ]; then
	exec env IBCNI_BENCH_INSIDE=1 unshare --mount --net --propagation private "$0" "$@"
fi
export IBCNI_BIN=$root/bin IBCNI_HELPER=$root/build/netns/cnihelper IBCNI_FIXTURES=$root/tests/fixtures
. "$root/tests/netns/lib.sh"
lib_init >/dev/null
sim_node 1 2 eth
pod_ns pod
go=${GO_CNI:-/usr/lib/cni}/host-device
ops=${OPS:-100}

ours='{"cniVersion":"1.0.0","name":"b","type":"ib-sriov","deviceID":"0000:03:01.1"}'
theirs='{"cniVersion":"1.0.0","name":"b","type":"host-device","device":"vf0_1"}'
echo "$ours" >"$T/ours.json"
echo "$theirs" >"$T/go.json"
export CNI_NETNS=/run/netns/pod CNI_IFNAME=net1 CNI_PATH=$root/bin CNI_CONTAINERID=bench

pair_us() { # PLUGIN CONF
	local start end
	start=$(date +%s%N)
	for ((i = 0; i < ops; i++)); do
		CNI_COMMAND=ADD "$1" <"$2" >/dev/null 2>&1
		CNI_COMMAND=DEL "$1" <"$2" >/dev/null 2>&1
	done
	end=$(date +%s%N)
	echo $(((end - start) / 1000 / ops))
}

# The same kernel changes as an ADD and a DEL, by iproute2 (one process
# each, as a plugin is); back to this shell's own namespace by its PID.
floor_us() {
	local start end
	start=$(date +%s%N)
	for ((i = 0; i < ops; i++)); do
		ip link set vf0_1 netns pod
		ip -n pod link set vf0_1 name net1 up
		ip -n pod link set net1 down
		ip -n pod link set net1 netns "$$" name vf0_1
	done
	end=$(date +%s%N)
	echo $(((end - start) / 1000 / ops))
}

rss_kb() { # PLUGIN CONF
	local kb
	kb=$(CNI_COMMAND=ADD /usr/bin/time -f %M "$1" <"$2" 2>&1 >/dev/null | tail -1)
	CNI_COMMAND=DEL "$1" <"$2" >/dev/null 2>&1
	echo "$kb"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

o=$(pair_us "$root/bin/ib-sriov" "$T/ours.json")
g=$(pair_us "$go" "$T/go.json")
f=$(floor_us)
printf '\n%-36s %10s %10s %10s %9s %11s\n' "VF into a pod and back" "host-device" "ib-sriov" "floor(ip)" "Go/ours" "ours/floor"
printf '%-36s %8s us %7s us %7s us %9s %11s\n' "ADD+DEL pair, no IPAM" "$g" "$o" "$f" "$(ratio "$g" "$o")" "$(ratio "$o" "$f")"
o=$(rss_kb "$root/bin/ib-sriov" "$T/ours.json")
g=$(rss_kb "$go" "$T/go.json")
printf '%-36s %8s kB %7s kB %10s %9s\n' "peak RSS of ADD" "$g" "$o" "" "$(ratio "$g" "$o")"

# One ADD with an IPv4 lease, announced, under strace: what it costs the
# kernel (the IPAM child included).
syscalls() { # CONF-FILE -> "TOTAL SOCKETS PACKET-SOCKETS"
	CNI_COMMAND=ADD strace -f -qq -o "$T/trace" "$root/bin/ib-sriov" <"$1" >/dev/null 2>&1 || true
	CNI_COMMAND=DEL "$root/bin/ib-sriov" <"$1" >/dev/null 2>&1
	echo "$(grep -vc -e '^[0-9]* *+++' -e '^[0-9]* *---' "$T/trace")" \
		"$(grep -c 'socket(AF_NETLINK' "$T/trace")" "$(grep -c 'socket(AF_PACKET' "$T/trace")"
}
if command -v strace >/dev/null; then
	ip link set vf0_1p up
	echo '{"cniVersion":"1.0.0","name":"b","type":"ib-sriov","deviceID":"0000:03:01.1","ipam":{"type":"ib-host-local","dataDir":"'"$T"'/leases","ranges":[[{"subnet":"10.56.0.0/24"}]]}}' >"$T/ip.json"
	read -r total nl pk < <(syscalls "$T/ip.json")
	printf '%-36s %10s %10s %10s\n' "one ADD with IPAM (strace -f)" "syscalls" "netlink" "packet"
	printf '%-36s %10s %10s %10s\n' "" "$total" "$nl" "$pk"
fi
