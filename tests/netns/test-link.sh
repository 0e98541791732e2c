# SPDX-License-Identifier: Apache-2.0
# cni/kernel/link.c, cni/kernel/netns.c and cni/kernel/pci.c against the running kernel, through
# tests/netns/cnihelper; the state is read back with `ip -j`.

test_sim_topology_resolves() {
	sim_node 2 3 ib || { fail "sim_node"; return; }
	OUT=$($HELPER pci "$(sim_vf_addr 1 2)")
	assert_json '.' '{"pf":"0000:04:00.0","vf":2,"pf_netdev":"pf1","netdev":"vf1_2","driver":"mlx5_core","rdma":"mlx5_1_2"}'
	assert_link host vf1_2 '.link_type' '"ether"'
	OUT=$($HELPER pci 0000:03:00.0)
	assert_eq "error ENOTTY" "$OUT" "a PF is not a VF"
	OUT=$($HELPER pci 0000:09:00.0)
	assert_eq "error ENODEV" "$OUT" "absent device"
}

test_link_settings_read_back() {
	ip link add a0 type veth peer name a0p
	$HELPER mtu a0 9000 && $HELPER mac a0 02:aa:bb:cc:dd:01 && $HELPER up a0 ||
		fail "set ops"
	assert_link host a0 '[.mtu,.address,(.flags|index("UP")!=null)]' '[9000,"02:aa:bb:cc:dd:01",true]'
	OUT=$($HELPER show a0)
	assert_json '[.mtu,.mac,.kind,.up]' '[9000,"02:aa:bb:cc:dd:01","veth",true]'
	$HELPER down a0 && $HELPER rename a0 net7 || fail "rename"
	assert_link host net7 '.mtu' '9000'
	assert_no_link host a0
}

test_kernel_errno_and_ext_ack_kept() {
	ip link add a0 type veth peer name a0p
	OUT=$($HELPER mtu a0 70000)
	assert_match "^error EINVAL" "$OUT" "mtu out of range"
	OUT=$($HELPER rename a0 a0p)
	assert_eq "error EEXIST" "$OUT" "rename onto an existing name"
	OUT=$($HELPER show nosuch)
	assert_eq "error ENODEV" "$OUT" "absent link"
	# veth has no VFs: the kernel's own answer must come through.
	OUT=$($HELPER vf-trust a0)
	assert_match "^error (EOPNOTSUPP|EINVAL)" "$OUT" "VF settings on a veth"
	OUT=$($HELPER mtu a0 10)
	assert_match "^error EINVAL: .*[Mm][Tt][Uu]" "$OUT" "extended ack text"
}

test_move_into_pod_and_configure() {
	pod_ns pod1
	ip link add a0 type veth peer name a0p
	$HELPER move a0 /run/netns/pod1 || fail "move"
	assert_no_link host a0
	assert_link pod1 a0 '.ifname' '"a0"'
	OUT=$($HELPER in-netns /run/netns/pod1 a0)
	assert_json '.name' '"a0"'
	ip netns exec pod1 "$HELPER" up a0
	ip netns exec pod1 "$HELPER" addr a0 10.5.0.2/24 || fail "addr"
	ip netns exec pod1 "$HELPER" addr a0 fd00:5::2/64 || fail "addr6"
	ip netns exec pod1 "$HELPER" route a0 10.6.0.0/16 10.5.0.1 1400 || fail "route"
	ip netns exec pod1 "$HELPER" route a0 0.0.0.0/0 10.5.0.1 - 100 || fail "default route table 100"
	OUT=$(ip -n pod1 -j addr show dev a0 | jq -c '[.[0].addr_info[]|select(.scope=="global")|"\(.local)/\(.prefixlen)"]')
	assert_eq '["10.5.0.2/24","fd00:5::2/64"]' "$OUT" "addresses"
	OUT=$(ip -n pod1 -j route show 10.6.0.0/16 | jq -c '.[0]|[.gateway,.dev,.metrics[0].mtu]')
	assert_eq '["10.5.0.1","a0",1400]' "$OUT" "route with mtu"
	OUT=$(ip -n pod1 -j route show table 100 | jq -c '.[0]|[.dst,.gateway]')
	assert_eq '["default","10.5.0.1"]' "$OUT" "route in table 100"
	assert_eq yes "$(ip netns exec pod1 "$HELPER" hasaddr a0 10.5.0.2/24)" "has addr"
	assert_eq no "$(ip netns exec pod1 "$HELPER" hasaddr a0 10.5.0.3/24)" "has no addr"
	assert_eq yes "$(ip netns exec pod1 "$HELPER" hasroute a0 10.6.0.0/16 10.5.0.1)" "has route"
	assert_eq no "$(ip netns exec pod1 "$HELPER" hasroute a0 10.7.0.0/16)" "has no route"
	ip netns exec pod1 "$HELPER" unaddr a0 10.5.0.2/24 || fail "addr del"
	assert_eq no "$(ip netns exec pod1 "$HELPER" hasaddr a0 10.5.0.2/24)" "addr deleted"
}

test_netns_open_rejects_non_netns() {
	ip link add a0 type veth peer name a0p
	OUT=$($HELPER move a0 /proc/self/ns/uts)
	assert_eq "error EINVAL" "$OUT" "uts namespace"
	OUT=$($HELPER move a0 /nonexistent)
	assert_eq "error ENOENT" "$OUT" "missing path"
	assert_link host a0 '.ifname' '"a0"'
}

# iproute2's request for `ip link set dev pf0 ARGS`, as hex bytes, captured
# with strace (the veth refuses it; the bytes are what matter).
ip_request_hex() {
	ip_hex 'IFLA_VFINFO_LIST' link set dev pf0 "$@"
}

ip_hex() { # PATTERN IP-ARGS...: the last request whose decode matches PATTERN
	local pat=$1
	shift
	strace -f -qq -e trace=sendmsg -e write=all -o "$T/ip.trace" ip "$@" 2>/dev/null
	awk -v pat="$pat" '$0 ~ "sendmsg\\(.*" pat { grab = 1; hex = ""; next }
	     /^ \| [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { if (grab) hex = hex substr($0, 11, 49); next }
	     { if (grab && hex != "") { last = hex; grab = 0 } }
	     END { if (grab) last = hex; gsub(/ /, "", last); print last }' "$T/ip.trace"
}

test_vf_messages_match_iproute2() {
	command -v strace >/dev/null || { fail "strace is missing"; return; }
	ip link add pf0 type veth peer name pf0p
	local hex
	hex=$(ip_request_hex vf 1 mac 02:11:22:33:44:55 vlan 100 qos 3 spoofchk off trust on \
		min_tx_rate 10 max_tx_rate 100 state enable)
	[ -n "$hex" ] || { fail "no request captured"; return; }
	OUT=$($HELPER vf-compare "$hex" vf=1 mac=02:11:22:33:44:55 vlan=100 qos=3 spoofchk=0 trust=1 \
		min=10 max=100 state=1)
	assert_eq same "$OUT" "Ethernet VF settings"
	hex=$(ip_request_hex vf 3 vlan 4094 qos 7 proto 802.1ad)
	OUT=$($HELPER vf-compare "$hex" vf=3 vlan=4094 qos=7 proto=0x88a8)
	assert_eq same "$OUT" "802.1ad VLAN"
	hex=$(ip_request_hex vf 0 node_guid 00:11:22:33:44:55:66:77)
	OUT=$($HELPER vf-compare "$hex" vf=0 node=0x0011223344556677)
	assert_eq same "$OUT" "IB node GUID"
	hex=$(ip_request_hex vf 0 port_guid 88:99:aa:bb:cc:dd:ee:ff)
	OUT=$($HELPER vf-compare "$hex" vf=0 port=0x8899aabbccddeeff)
	assert_eq same "$OUT" "IB port GUID"
	hex=$(ip_request_hex vf 2 state disable)
	OUT=$($HELPER vf-compare "$hex" vf=2 state=2)
	assert_eq same "$OUT" "link state"
	# The IPoIB child for a pkey (this kernel has no ipoib; the bytes count).
	hex=$(ip_hex IFLA_INFO_KIND link add link pf0 name ibcni12 type ipoib pkey 0x8001 mode connected)
	[ -n "$hex" ] || { fail "no ipoib request captured"; return; }
	OUT=$($HELPER ipoib-compare "$hex" "$(ip -j link show pf0 | jq .[0].ifindex)" ibcni12 0x8001 1)
	assert_eq same "$OUT" "IPoIB child"
}

# The neighbour on the VF's wire (the switch side of its veth, in its own
# namespace) believes the pod's addresses live at an old MAC; ib-sriov ADD
# must correct that through the kernel's own announcements (arp_notify,
# ndisc_notify), without a packet socket, whose close waits for an RCU
# grace period.
test_announce_updates_neighbours() {
	command -v strace >/dev/null || { fail "strace is missing"; return; }
	sim_node 1 2 eth
	pod_ns pod1
	ip netns add sw
	ip link set vf0_1p netns sw
	ip -n sw link set vf0_1p up
	ip -n sw addr add 10.56.0.1/24 dev vf0_1p
	ip -n sw addr add fd00:56::1/64 dev vf0_1p nodad
	ip -n sw neigh add 10.56.0.2 lladdr 02:00:00:00:00:99 dev vf0_1p nud stale
	ip -n sw neigh add fd00:56::2 lladdr 02:00:00:00:00:99 dev vf0_1p nud stale
	local conf='{"cniVersion":"1.0.0","name":"n","type":"ib-sriov","deviceID":"0000:03:01.1","mac":"02:11:22:33:44:55","ipam":{"type":"ib-host-local","dataDir":"'$T'/leases","ranges":[[{"subnet":"10.56.0.0/24"}],[{"subnet":"fd00:56::/64"}]]}}'
	# (LeakSanitizer cannot run under ptrace: off for an ASan build.)
	OUT=$(env -i CNI_COMMAND=ADD CNI_CONTAINERID=c1 CNI_NETNS=/run/netns/pod1 CNI_IFNAME=net1 \
		CNI_PATH="$BIN" ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=socket -o "$T/socket.trace" \
		"$BIN/ib-sriov" <<<"$conf" 2>"$T/stderr")
	assert_eq 0 "$?" "ADD ($OUT $(cat "$T/stderr"))"
	assert_eq '["10.56.0.2/24","fd00:56::2/64"]' "$(jq -c '[.ips[].address]' <<<"$OUT")" "addresses"
	local n
	n=$(ip -n sw -j neigh show 10.56.0.2 dev vf0_1p | jq -r '.[0].lladdr')
	assert_eq 02:11:22:33:44:55 "$n" "IPv4 neighbour after the gratuitous ARP"
	n=$(ip -n sw -j neigh show fd00:56::2 dev vf0_1p | jq -r '.[0].lladdr')
	assert_eq 02:11:22:33:44:55 "$n" "IPv6 neighbour after the unsolicited NA"
	assert_eq "1 1" "$(ip netns exec pod1 cat /proc/sys/net/ipv4/conf/net1/arp_notify \
		/proc/sys/net/ipv6/conf/net1/ndisc_notify | xargs)" "arp_notify ndisc_notify"
	assert_eq "" "$(grep AF_PACKET "$T/socket.trace")" "no packet socket"
}
