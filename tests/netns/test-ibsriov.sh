# SPDX-License-Identifier: Apache-2.0
# ib-sriov, the production binary, on the simulated SR-IOV node (veth VFs,
# so the Ethernet/RoCE path runs for real; PF-side settings are refused by
# the kernel, which exercises the rollback).

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

add_del_with() { # IPAM VERSION
	local mac before conf
	sim_node 1 2 eth || { fail "sim_node"; return; }
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	before=$(host_state)
	conf=$(sriov_conf "$1" '"mtu":1400,"mac":"02:11:22:33:44:55"' "$2")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	assert_json '.interfaces' '[{"name":"net1","mac":"02:11:22:33:44:55","mtu":1400,"sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}]'
	assert_json '[.ips[].address]' '["10.56.0.2/24","fd00:56::2/64"]'
	assert_json '[.ips[].interface]' '[0,0]'
	assert_no_link host vf0_1
	assert_link pod1 net1 '[.mtu,.address,.operstate!="DOWN"]' '[1400,"02:11:22:33:44:55",true]'
	assert_eq '["10.56.0.2/24","fd00:56::2/64"]' \
		"$(ip -n pod1 -j addr show net1 | jq -c '[.[0].addr_info[]|select(.scope=="global")|"\(.local)/\(.prefixlen)"]')" "pod addresses"
	assert_eq '"10.56.0.1"' "$(ip -n pod1 -j route show 10.57.0.0/16 | jq -c '.[0].gateway')" "route via the IPAM gateway"
	local prev=$OUT
	cni_exec ib-sriov CHECK ctr1 pod1 net1 "${conf%\}},\"prevResult\":$prev}"
	assert_eq 0 "$RC" "CHECK ($OUT)"
	ip -n pod1 link set net1 mtu 1300
	cni_exec ib-sriov CHECK ctr1 pod1 net1 "${conf%\}},\"prevResult\":$prev}"
	assert_json '.details' '"MTU of net1: want 1400, got 1300"'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "${conf%\}},\"prevResult\":$prev}"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
	assert_host_unchanged "$before" "host state after ADD+DEL"
	assert_eq "" "$(ls "$T/leases/rdma-net" 2>/dev/null | grep -v -e lock -e last_reserved)" "leases released"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "second DEL"
}

test_add_check_del_ib_host_local() {
	add_del_with ib-host-local 1.1.0
}

test_add_check_del_go_host_local() {
	# Debian's host-local speaks up to 1.0.0.
	add_del_with host-local 1.0.0
}

# ib-host-local served inside ib-sriov (its build ID matches the file on
# CNI_PATH, also when copied elsewhere) answers exactly as the exec'ed one;
# any other file of that name is exec'ed.
test_ib_host_local_builtin_same_as_exec() {
	local conf ns_result ex_result
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local '"logLevel":"debug"')
	mkdir -p "$T/copy" "$T/wrap"
	cp "$BIN/ib-host-local" "$T/copy/"
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$BIN/ib-host-local" >"$T/wrap/ib-host-local"
	chmod 0755 "$T/wrap/ib-host-local"
	for how in builtin copy exec wrap; do
		local path=$BIN:$FIXTURES
		case $how in
		copy) path=$T/copy ;;
		wrap) path=$T/wrap ;;
		esac
		IBCNI_DELEGATE_EXEC=$([ $how = exec ] && echo 1) CNI_PATH_OVERRIDE=$path \
			cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$how: ADD ($OUT)"
		case $how in
		builtin | copy)
			assert_match "delegating ADD to ${path%%:*}/ib-host-local \\(built in\\)" "$ERR" "$how: served in-process" ;;
		*)
			assert_match "delegating ADD to ${path%%:*}/ib-host-local$" "$(grep 'delegating ADD' <<<"$ERR")" "$how: exec'ed" ;;
		esac
		assert_match "ib-host-local ADD ctr1/net1: ADD succeeded" "$ERR" "$how: the IPAM's own log line"
		assert_match "ib-sriov ADD ctr1/net1: ADD succeeded" "$ERR" "$how: ib-sriov's prefix is back"
		# The same answer but for the address (round-robin moves on).
		assert_eq '{"cniVersion":"1.1.0","interfaces":[{"name":"net1","mtu":1500,"sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}],"ips":[{"interface":0,"gateway":"10.56.0.1"},{"interface":0,"gateway":"fd00:56::1"}],"routes":[{"dst":"10.57.0.0/16"}],"dns":{}}' \
			"$(jq -c 'del(.interfaces[0].mac, .ips[].address)' <<<"$OUT")" "$how: result"
		assert_eq "ctr1 net1" "$(tr -s '\r\n' ' ' <"$T/leases/rdma-net/$(jq -r '.ips[0].address|split("/")[0]' <<<"$OUT")" | sed 's/ *$//')" "$how: the lease"
		assert_eq "$(jq -c '[.ips[].address]' <<<"$OUT")" \
			"$(ip -n pod1 -j addr show net1 | jq -c '[.[0].addr_info[]|select(.scope=="global")|"\(.local)/\(.prefixlen)"]')" "$how: the addresses on net1"
		IBCNI_DELEGATE_EXEC=$([ $how = exec ] && echo 1) CNI_PATH_OVERRIDE=$path \
			cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$how: DEL ($OUT)"
		assert_eq "" "$(ls "$T/leases/rdma-net" | grep -v -e lock -e last_reserved -e '^\.')" "$how: leases released"
	done
}

test_add_without_ipam_v040() {
	sim_node 1 2 eth
	pod_ns pod1
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"dns":{"nameservers":["10.0.0.53"],"search":["svc"]}' 0.4.0)"
	assert_json '.' '{"cniVersion":"0.4.0","interfaces":[{"name":"net1","mac":"'"$(ip -n pod1 -j link show net1 | jq -r '.[0].address')"'","sandbox":"/run/netns/pod1"}],"dns":{"nameservers":["10.0.0.53"],"search":["svc"]}}'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "" "" 0.4.0)"
	assert_link host vf0_1 '.ifname' '"vf0_1"'
}

test_rollback_ipam_failure() {
	local mac before
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ipam-error '"mtu":1400,"mac":"02:11:22:33:44:55"')"
	assert_json '[.code,.msg]' '[11,"fake failure"]'
	vf_as_found vf0_1 "$mac" 1500
	assert_host_unchanged "$before" "host state"
	assert_eq "" "$(ip -n pod1 -j link show | jq -r '.[].ifname' | grep -v lo)" "pod empty"
}

test_rollback_garbage_ipam() {
	sim_node 1 2 eth
	pod_ns pod1
	local before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ipam-garbage)"
	assert_json '.code' 103
	assert_host_unchanged "$before" "host state"
}

test_rollback_kernel_refuses_vf_setting() {
	local before
	sim_node 1 2 eth
	pod_ns pod1
	before=$(host_state)
	# A veth PF reports no VF table: nothing that could not be restored is
	# changed, and the error names the setting. (The igb vm tier has a PF
	# that reports its VFs and refuses some settings for real.)
	local extra setting
	for extra in '"vlan":100=vlan/vlanQoS/vlanProto' '"spoofchk":"off"=spoofchk' '"trust":"off"=trust' \
		'"trust":"on"=trust' '"max_tx_rate":1000=min_tx_rate/max_tx_rate' '"link_state":"enable"=link_state'; do
		setting=${extra#*=} extra=${extra%=*}
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local "$extra")"
		assert_eq 1 "$RC" "$extra refused"
		assert_json '[.code,.msg]' '[101,"the PF does not report a VF setting the network asks for"]'
		assert_match "PF pf0 does not report $setting of VF 1" "$(jq -r .details <<<"$OUT")" "$extra details"
		assert_host_unchanged "$before" "host state after $extra"
	done
	assert_eq "" "$(ls "$T/leases/rdma-net" 2>/dev/null | grep '^10\.')" "no lease taken"
}

test_ifname_taken_in_pod() {
	sim_node 1 2 eth
	pod_ns pod1
	ip -n pod1 link add net1 type dummy 2>/dev/null || ip -n pod1 link add net1 type veth peer name x1
	local before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_json '[.code,.msg]' '[7,"the interface name is taken in the pod"]'
	assert_host_unchanged "$before" "host state"
}

test_del_edge_cases() {
	sim_node 1 2 eth
	pod_ns pod1
	local conf
	conf=$(sriov_conf ib-host-local)
	cni_exec ib-sriov DEL nothing pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL with no record"
	cni_exec ib-sriov DEL nothing "" net1 "$conf"
	assert_eq 0 "$RC" "DEL with no record and no netns"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD"
	ip netns del pod1
	cni_exec ib-sriov DEL ctr1 /run/netns/pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL after the pod netns is gone ($OUT)"
	[ -z "$(ls /var/lib/cni/ib-sriov)" ] || fail "record left"
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released without a netns"
	cni_exec ib-sriov DEL ctr1 /run/netns/pod1 net1 '{"cniVersion":"1.0.0","name":"rdma-net","type":"ib-sriov"}'
	assert_eq 0 "$RC" "DEL without deviceID"
}

test_eight_vfs_concurrently() {
	local i conf before
	sim_node 1 8 eth
	before=$(host_state)
	for i in 0 1 2 3 4 5 6 7; do pod_ns p$i; done
	for i in 0 1 2 3 4 5 6 7; do
		conf=$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 $i)")
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=c$i CNI_NETNS=/run/netns/p$i CNI_IFNAME=net1 \
			CNI_PATH="$BIN" "$BIN/ib-sriov" <<<"$conf" >"$T/add.$i" 2>/dev/null &
	done
	wait
	assert_eq 8 "$(cat "$T"/add.* | jq -r '.ips[0].address' | sort -u | grep -c '^10\.56')" "8 distinct addresses"
	for i in 0 1 2 3 4 5 6 7; do
		assert_link p$i net1 '.ifname' '"net1"'
	done
	for i in 0 1 2 3 4 5 6 7; do
		conf=$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 $i)")
		env -i CNI_COMMAND=DEL CNI_CONTAINERID=c$i CNI_NETNS=/run/netns/p$i CNI_IFNAME=net1 \
			CNI_PATH="$BIN" "$BIN/ib-sriov" <<<"$conf" >/dev/null 2>&1 &
	done
	wait
	assert_host_unchanged "$before" "host state after 8 ADD+DEL"
}

test_gc_releases_stale_attachments() {
	sim_node 1 3 eth
	pod_ns p0; pod_ns p1; pod_ns p2
	local conf
	for i in 0 1; do
		cni_exec ib-sriov ADD c$i p$i net1 "$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 $i)")"
	done
	# Another network's record must survive.
	cni_exec ib-sriov ADD c2 p2 net1 "$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 2)" | sed 's/"rdma-net"/"other-net"/')"
	conf=$(sriov_conf ib-host-local "" 1.1.0)
	cni_exec ib-sriov GC "" "" "" "${conf%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"c1\",\"ifname\":\"net1\"}]}"
	assert_eq 0 "$RC" "GC ($OUT)"
	assert_link host vf0_0 '.ifname' '"vf0_0"'
	assert_link p1 net1 '.ifname' '"net1"'
	assert_link p2 net1 '.ifname' '"net1"'
	assert_eq "c1:net1 c2:net1" "$(ls /var/lib/cni/ibcni/ib-sriov | tr '\n' ' ' | sed 's/ $//')" "records"
	assert_eq "c1-net1 c2-net1" "$(ls /var/lib/cni/ib-sriov | tr '\n' ' ' | sed 's/ $//')" "Go-format twins"
	assert_eq "1" "$(ls "$T/leases/rdma-net" | grep -c '^10\.')" "GC forwarded to the IPAM"
}

test_bad_inputs_change_nothing() {
	sim_node 1 2 eth
	pod_ns pod1
	local before=$(host_state) big
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" "" 1.1.0 0000:03:01.zz)"
	assert_json '[.code,.msg]' '[7,"invalid configuration"]'
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" "" 1.1.0 0000:09:01.0)"
	assert_json '[.code,.msg]' '[101,"device not found"]'
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" "" 1.1.0 0000:03:00.0)"
	assert_json '[.code,.msg]' '[7,"deviceID is not a VF"]'
	cni_exec ib-sriov ADD ctr1 pod1 net1 '{"cniVersion":"1.0.0","name":"n","type":"ib-sriov"}'
	assert_json '[.code,.msg]' '[7,"deviceID is required"]'
	cni_exec ib-sriov ADD ctr1 pod1 0123456789abcdef "$(sriov_conf "")"
	assert_json .code 4
	cni_exec ib-sriov ADD 'bad id' pod1 net1 "$(sriov_conf "")"
	assert_json .code 4
	cni_exec ib-sriov ADD ctr1 /run/netns/nope net1 "$(sriov_conf "")"
	assert_json '[.code,.msg]' '[4,"cannot open CNI_NETNS"]'
	cni_exec ib-sriov ADD ctr1 pod1 net1 '{"cniVersion":'
	assert_json .code 6
	big=$(head -c 1100000 /dev/zero | tr '\0' ' ')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")$big"
	assert_json .code 7
	for kv in '"vlan":5000' '"vlanQoS":9,"vlan":1' '"trust":true' '"mtu":"big"' \
		'"link_state":"up"' '"min_tx_rate":100,"max_tx_rate":10' '"guid":"zz"' \
		'"pkey":"0x0000","pkeyEnforce":true' '"dns":{"nameservers":"x"}' \
		'"vlanProto":"802.1x","vlan":3' '"mac":"01:00:00:00:00:01"'; do
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" "$kv")"
		assert_json .code 7
	done
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"guid":"02:00:00:00:00:00:00:01"')"
	assert_json '[.code,.msg]' '[7,"InfiniBand settings on an Ethernet VF"]'
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"rdmaIsolation":true')"
	assert_json '[.code,.msg,.details]' '[104,"cannot read the RDMA netns mode","the kernel has no RDMA subsystem (is ib_core loaded?)"]'
	assert_host_unchanged "$before" "host state after bad inputs"
}

# guidFallback on the simulated node: its VFs are veths (Ethernet, no VF
# table), which cannot hold an IB GUID, so the derivation and its rebind
# are the unit tier's (test_ibsriov_add.c); here the production binary
# refuses a bad value naming the key and ignores the key on RoCE.
test_guid_fallback_key() {
	sim_node 1 2 eth
	pod_ns pod1
	local before=$(host_state) mac conf
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "" '"guidFallback":"yes"')"
	assert_json .code 7
	assert_match '"guidFallback".*true or false' "$(jq -r .details <<<"$OUT")" "the error names the key"
	assert_host_unchanged "$before" "host state after a bad guidFallback"
	conf=$(sriov_conf "" '"guidFallback":true')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD on a RoCE VF ($OUT $ERR)"
	assert_link pod1 net1 '[.address]' "[\"$mac\"]"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
	assert_host_unchanged "$before" "host state after ADD+DEL"
}

test_cnitool_conflist() {
	# The same flow driven by the reference client with a conflist.
	local tool=${IBCNI_CNITOOL:-} mac out
	[ -x "$tool" ] || { fail "cnitool is missing (tests/netns/build-cnitool.sh builds it)"; return; }
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	mkdir -p "$T/net.d"
	cat >"$T/net.d/10-rdma.conflist" <<CONF
{"cniVersion":"1.0.0","name":"rdma-net","plugins":[{"type":"ib-sriov","deviceID":"$(sim_vf_addr 0 1)",
 "capabilities":{"mac":true},"mtu":2000,
 "ipam":{"type":"ib-host-local","dataDir":"$T/leases","ranges":[[{"subnet":"10.58.0.0/24"}]]}}]}
CONF
	out=$(NETCONFPATH=$T/net.d CNI_PATH=$BIN CAP_ARGS='{"mac":"02:aa:00:00:00:01"}' \
		"$tool" add rdma-net /run/netns/pod1 2>"$T/err")
	assert_eq 0 $? "cnitool add ($(cat "$T/err"))"
	OUT=$out
	# libcni 1.1.2 re-encodes the result with its own types (no interface mtu).
	assert_json '[.interfaces[0].name,.interfaces[0].mac,.ips[0].address,.ips[0].interface]' \
		'["eth0","02:aa:00:00:00:01","10.58.0.2/24",0]'
	assert_link pod1 eth0 '[.address,.mtu]' '["02:aa:00:00:00:01",2000]'
	NETCONFPATH=$T/net.d CNI_PATH=$BIN "$tool" check rdma-net /run/netns/pod1 2>"$T/err"
	assert_eq 0 $? "cnitool check ($(cat "$T/err"))"
	NETCONFPATH=$T/net.d CNI_PATH=$BIN "$tool" del rdma-net /run/netns/pod1 2>"$T/err"
	assert_eq 0 $? "cnitool del ($(cat "$T/err"))"
	assert_link host vf0_1 '[.address,.mtu]' "[\"$mac\",1500]"
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released"
}

test_rollback_at_every_link_step() {
	# IBCNI_LINK_FAILPOINT=N fails the Nth kernel change of the ADD. Every
	# step in turn: the ADD fails and the VF, the pod and the leases end as
	# they were found.
	local before n conf steps=0
	sim_node 1 2 eth
	pod_ns pod1
	before=$(host_state)
	conf=$(sriov_conf ib-host-local '"mtu":1400,"mac":"02:11:22:33:44:55"')
	for n in $(seq 1 20); do
		OUT=$(env -i CNI_COMMAND=ADD CNI_CONTAINERID=ctr1 CNI_NETNS=/run/netns/pod1 CNI_IFNAME=net1 \
			CNI_PATH="$BIN" IBCNI_LINK_FAILPOINT=$n "$BIN/ib-sriov" <<<"$conf" 2>/dev/null)
		if [ "$(jq -r '.code // 0' <<<"$OUT")" = 0 ]; then
			break	# past the last change: the ADD succeeded
		fi
		steps=$((steps + 1))
		assert_host_unchanged "$before" "failure at change $n ($(jq -r .msg <<<"$OUT"))"
		assert_eq "" "$(ip -n pod1 -j link show | jq -r '.[].ifname' | grep -v '^lo$')" "pod after failure $n"
		assert_eq "" "$(ls "$T/leases/rdma-net" 2>/dev/null | grep -e '^10\.' -e '^fd')" "leases after failure $n"
	done
	# Down, move named net1, MTU, MAC, up, two addresses, a route: the move
	# and the name are one request.
	[ "$steps" -ge 7 ] || fail "only $steps failing steps were exercised"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_host_unchanged "$before" "after the final DEL"
}

test_addresses_announced() {
	# The VF's peer plays the switch: it must see a gratuitous ARP and an
	# unsolicited neighbour advertisement for the pod's new addresses.
	sim_node 1 2 eth
	pod_ns pod1
	ip link set vf0_1p up
	"$HELPER" listen vf0_1p 6000 >"$T/seen" &
	local pid=$!
	for _ in $(seq 50); do grep -q listening "$T/seen" && break; sleep 0.1; done
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"mac":"02:11:22:33:44:55"')"
	assert_eq 0 "$RC" "ADD ($OUT)"
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	assert_match "garp 10.56.0.2 02:11:22:33:44:55" "$(cat "$T/seen")" "gratuitous ARP"
	assert_match "na fd00:56::2 override=1 hops=255" "$(cat "$T/seen")" "unsolicited NA"
}
