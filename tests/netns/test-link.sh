# SPDX-License-Identifier: Apache-2.0
# cni/link.c, cni/netns.c and cni/pci.c against the running kernel, through
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
