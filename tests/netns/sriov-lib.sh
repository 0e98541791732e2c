# SPDX-License-Identifier: Apache-2.0
# Helpers shared by the ib-sriov netns tests (sourced, never run by itself).

sriov_conf() { # IPAM-TYPE [EXTRA-KEYS] [VERSION] [DEVICE]
	local ipam=""
	[ -n "$1" ] && ipam=",\"ipam\":{\"type\":\"$1\",\"dataDir\":\"$T/leases\",\"ranges\":[[{\"subnet\":\"10.56.0.0/24\"}],[{\"subnet\":\"fd00:56::/64\"}]],\"routes\":[{\"dst\":\"10.57.0.0/16\"}]}"
	printf '{"cniVersion":"%s","name":"rdma-net","type":"ib-sriov","deviceID":"%s"%s%s}' \
		"${3:-1.1.0}" "${4:-$(sim_vf_addr 0 1)}" "${2:+,$2}" "$ipam"
}

# A fingerprint of everything on the host an ib-sriov call may touch.
host_state() {
	ip -j -d link show | jq -c '.[] | {ifname, mtu, address, operstate, flags}' | sort
	find /var/lib/cni/ib-sriov /var/lib/cni/ibcni -type f 2>/dev/null | sort
}

assert_host_unchanged() { # BEFORE WHAT
	local now
	now=$(host_state)
	[ "$1" == "$now" ] || fail "$2: host changed: $(diff <(echo "$1") <(echo "$now") | grep '^[<>]' | tr '\n' ' ')"
}

vf_as_found() { # NAME MAC MTU: the VF netdev is back in the host, unchanged
	assert_link host "$1" '[.ifname,.address,.mtu]' "[\"$1\",\"$2\",$3]"
	local left
	left=$(ls /var/lib/cni/ib-sriov /var/lib/cni/ibcni/ib-sriov 2>/dev/null | grep -v -e '^/' -e '^$')
	[ -z "$left" ] || fail "records left: $left"
}

# gone_without_del POD IFNAME VF [HOSTNAME]: the pod's netns destroyed
# without a DEL, as the kernel does it: the VF netdev back in the host under
# its pod name (HOSTNAME, devN, when the host has that name already; a veth
# would die with the namespace, so it is moved out first), sysfs naming it
# so, the netns file gone.
gone_without_del() {
	local net=/sys/bus/pci/devices/$(sim_vf_addr 0 "${3#vf0_}")/net name=${4:-$2}
	ip -n "$1" link set "$2" down
	ip -n "$1" link set "$2" netns $$ name "$name" || fail "moving $2 out of $1"
	mv "$net/$3" "$net/$name"
	ip netns del "$1"
}

lease_owners() { # DIR: the container IDs ib-host-local holds IPv4 addresses for there
	local f
	for f in "$1"/10.*; do
		[ -e "$f" ] && head -n1 "$f" | tr -d '\r'
	done | sort | tr '\n' ' ' | sed 's/ $//'
}

records() { # ib-sriov's records, by name
	ls /var/lib/cni/ibcni/ib-sriov 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}

# whereabouts_node [with-file]: the places whereabouts reads its node file
# (/etc/cni/net.d/whereabouts.d/whereabouts.conf, and /etc/kubernetes/...,
# /host/... when the host has them) as private tmpfs, never the host's; with
# "with-file", the file and its kubeconfig as whereabouts' installer
# DaemonSet writes them (its script/lib.sh).
whereabouts_node() {
	local d=/etc/cni/net.d/whereabouts.d x
	mkdir -p /etc/cni/net.d && mount -t tmpfs wb-netd /etc/cni/net.d || return 1
	for x in /etc/kubernetes /host; do
		[ -d $x ] && { mount -t tmpfs wb-other $x || return 1; }
	done
	[ "${1:-}" = with-file ] || return 0
	mkdir -p $d
	printf 'apiVersion: v1\nkind: Config\ncurrent-context: whereabouts-context\n' >$d/whereabouts.kubeconfig
	cat >$d/whereabouts.conf <<WB
{
  "datastore": "kubernetes",
  "configuration_path": "$d",
  "kubernetes": {
    "kubeconfig": "$d/whereabouts.kubeconfig"
  },
  "reconciler_cron_expression": "30 4 * * *"
}
WB
	chmod 600 $d/whereabouts.kubeconfig $d/whereabouts.conf
}
