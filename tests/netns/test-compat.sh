# SPDX-License-Identifier: Apache-2.0
# Upgrade and downgrade between the previous release (tests/compat/PREVIOUS,
# its plugins in IBCNI_PREV_BIN, built by tests/compat/build-previous.sh;
# `make check-compat`) and this tree: whichever side ADDs, the other side's
# DEL leaves the node as found (host links' name, MTU, MAC and state; no
# record, no lease), and its CHECK and GC do not fail on what the other
# wrote. Every leftover is named and asserted.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

PREV_BIN=${IBCNI_PREV_BIN:-}

# old_exec / new_exec PLUGIN ...: cni_exec of the previous release's plugin or
# this tree's, each finding its own delegates (ib-host-local) first.
old_exec() {
	[ -x "$PREV_BIN/$1" ] || { fail "no previous release's $1 (IBCNI_PREV_BIN=$PREV_BIN; make check-compat)"; return; }
	CNI_PATH_OVERRIDE="$PREV_BIN:$FIXTURES:$GO_CNI" cni_exec "$PREV_BIN/$1" "${@:2}"
}
new_exec() {
	CNI_PATH_OVERRIDE="$BIN:$FIXTURES:$GO_CNI" cni_exec "$@"
}

# Everything of the node a plugin may leave: the host's links, every state
# file under /var/lib/cni and the tests' lease directory, and anything under
# /run but netns mount points; except what both releases keep on purpose
# once created: a lease directory's lock, last_reserved_ip.N and its index's
# token (.ib-host-local/<network>/token), and the lock files under
# /run/ibcni.
node_state() {
	{
		ip -j -d link show | jq -c '.[] | {ifname, mtu, address, operstate, flags}'
		find /var/lib/cni "$T/leases" /run -path /run/netns -prune -o -type f -print 2>/dev/null |
			grep -v -e '/lock$' -e '/last_reserved_ip\.[0-9]*$' -e '/\.ib-host-local/[^/]*/token$' \
				-e '^/run/ibcni/.*\.lock$'
	} | sort
}

# The one leftover of a downgrade: the previous DEL does not know this tree's
# Device Information file (in /run, a tmpfs) and leaves it.
DEVINFO_LEFT=/run/k8s.cni.cncf.io/devinfo/cni/rdma-net-ctr1_net1

assert_node_as_found() { # BEFORE WHAT [LEFTOVER]: BEFORE plus LEFTOVER's lines
	local now want=$1
	now=$(node_state)
	[ -n "${3:-}" ] && want=$(printf '%s\n%s\n' "$1" "$3" | sort)
	[ "$want" == "$now" ] || fail "$2: node not as found: $(diff <(echo "$1") <(echo "$now") | grep '^[<>]' | tr '\n' ' ')"
}

# with_prev CONF: CONF with the last ADD's result as prevResult (CHECK).
with_prev() {
	printf '%s,"prevResult":%s}' "${1%\}}" "$ADD_RESULT"
}

# with_valid CONF [CID]: CONF as GC gets it, CID's net1 valid (none without).
with_valid() {
	local v=""
	[ -n "${2:-}" ] && v="{\"containerID\":\"$2\",\"ifname\":\"net1\"}"
	printf '%s,"cni.dev/valid-attachments":[%s]}' "${1%\}}" "$v"
}

# add_then_del ADDER DELETER CONF [CNI_ARGS]: ADD by one side; the other
# side's CHECK, GC keeping the attachment, DEL, a second DEL, GC of nothing;
# the host links and the state directories as found. Leftovers in the pod's
# netns are the caller's to assert (it outlives DEL here).
add_then_del() {
	local add=$1 del=$2 conf=$3 args=${4:-} before
	before=$(node_state)
	"$add" ib-sriov ADD ctr1 pod1 net1 "$conf" "$args"
	assert_eq 0 "$RC" "$add ADD ($OUT $ERR)"
	ADD_RESULT=$OUT
	local k
	for k in ${REC_KEYS:-}; do # the keys the caller means the other side to meet
		[ "$(jq "has(\"$k\")" /var/lib/cni/ibcni/ib-sriov/ctr1:net1 2>/dev/null)" = true ] ||
			fail "$add ADD: the record has no $k"
	done
	"$del" ib-sriov CHECK ctr1 pod1 net1 "$(with_prev "$conf")" "$args"
	assert_eq 0 "$RC" "$del CHECK of the other's attachment ($OUT)"
	"$del" ib-sriov GC "" "" "" "$(with_valid "$conf" ctr1)"
	assert_eq 0 "$RC" "$del GC keeping it ($OUT)"
	assert_link pod1 net1 '.ifname' '"net1"'
	"$del" ib-sriov DEL ctr1 pod1 net1 "$conf" "$args"
	assert_eq 0 "$RC" "$del DEL ($OUT $ERR)"
	"$del" ib-sriov DEL ctr1 pod1 net1 "$conf" "$args"
	assert_eq 0 "$RC" "$del second DEL ($OUT)"
	"$del" ib-sriov GC "" "" "" "$(with_valid "$conf")"
	assert_eq 0 "$RC" "$del GC of nothing ($OUT)"
	assert_no_link pod1 net1
	local left=
	[ "$add:$del" = new_exec:old_exec ] && left=$DEVINFO_LEFT
	assert_node_as_found "$before" "$add ADD, $del DEL" "$left"
	rm -f "$DEVINFO_LEFT"
}

test_compat_new_add_old_del_plain() {
	sim_node 1 2 eth
	pod_ns pod1
	add_then_del new_exec old_exec "$(sriov_conf "" '"mtu":1400')"
}

test_compat_new_add_old_del_ipam() {
	sim_node 1 2 eth
	pod_ns pod1
	REC_KEYS="devinfo ipam_conf cni_path" add_then_del new_exec old_exec \
		"$(sriov_conf ib-host-local '"mtu":1400,"mac":"02:00:00:00:00:21"')"
}

# The pod's namespace, name and MTU (`ib-sriov doctor --pod`): keys the
# previous release ignores, its CHECK and DEL as before.
test_compat_new_add_old_del_pod_keys() {
	sim_node 1 2 eth
	pod_ns pod1
	REC_KEYS="podNamespace podName podMtu podAddrs" add_then_del new_exec old_exec \
		"$(sriov_conf ib-host-local '"mtu":1400')" \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=trainer-0"
}

test_compat_old_add_new_del() {
	sim_node 1 2 eth
	pod_ns pod1
	add_then_del old_exec new_exec "$(sriov_conf ib-host-local '"mtu":1400,"mac":"02:00:00:00:00:21"')"
	add_then_del old_exec new_exec "$(sriov_conf "")"
}

# railTable and railSysctls: the rail's rule lives in the pod's netns and is
# not the VF's, so the previous DEL (which does not know it) leaves it
# there; it goes with the netns. The host is as found.
test_compat_new_add_old_del_rails() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local '"railTable":"auto","railSysctls":true')
	REC_KEYS="rail_table rail_priority rail_rules" add_then_del new_exec old_exec "$conf"
	assert_eq '[{"priority":32700,"src":"10.56.0.2"},{"priority":32700,"src":"fd00:56::2"}]' \
		"$( (ip -n pod1 -j -4 rule; ip -n pod1 -j -6 rule) | jq -sc '[.[][] | select(.priority == 32700) | {priority, src}]')" \
		"the rail rules left in the pod's netns"
	ip netns del pod1
}

# The Device Information file: the previous DEL does not know it and leaves
# it in /run (a tmpfs). Its name is the attachment's (containerID and
# ifname), never another pod's; with the record gone, neither this tree's
# DEL nor its GC can tell it was ours, and it stays until the next boot.
test_compat_devinfo_after_old_del() {
	local before f=$DEVINFO_LEFT conf
	sim_node 1 2 ib
	pod_ns pod1
	conf=$(sriov_conf "")
	before=$(node_state)
	new_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "new ADD ($OUT $ERR)"
	[ -f "$f" ] || fail "no Device Information file"
	old_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "old DEL ($OUT $ERR)"
	assert_node_as_found "$before" "new ADD, old DEL" "$f"
	new_exec ib-sriov GC "" "" "" "$(with_valid "$conf")"
	assert_eq 0 "$RC" "new GC ($OUT)"
	new_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "new DEL after the old DEL ($OUT)"
	assert_node_as_found "$before" "new GC and DEL after the old DEL" "$f"
}

# rdma-ns: this kernel has no RDMA subsystem, so neither side's ADD gets
# past the netns mode (code 104); the records are written as an ADD on an
# RDMA kernel leaves them (as test-rdmans.sh does), and each side's CHECK,
# GC and DEL runs on the other's.
test_compat_rdmans_records() {
	local dir=/var/lib/cni/rdma-ns side conf
	sim_node 1 2 ib
	pod_ns pod1
	conf='{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"0000:03:01.1"}'
	for side in old_exec new_exec; do
		"$side" rdma-ns ADD ctr1 pod1 net1 "${conf%\}},\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"net1\",\"sandbox\":\"/run/netns/pod1\",\"pciID\":\"0000:03:01.1\"}]}}"
		assert_json '.code' 104
		[ -z "$(ls $dir 2>/dev/null)" ] || fail "$side: a refused ADD left a record"
	done
	for side in old_exec new_exec; do
		mkdir -p $dir
		printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
			>"$dir/rdma-net:ctr1:net1"
		"$side" rdma-ns GC "" "" "" "$(with_valid "$conf" ctr1)"
		assert_eq 0 "$RC" "$side GC keeping it ($OUT)"
		[ -e "$dir/rdma-net:ctr1:net1" ] || fail "$side GC collected a valid record"
		"$side" rdma-ns DEL ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$side DEL ($OUT)"
		assert_eq "" "$(ls $dir)" "$side DEL left the record"
		# With the namespace's identity (netnsId, newer): the previous
		# release ignores the key; this one finds pod1 there.
		printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"],"rdma_index":[3],"netnsId":"%s"}' \
			"$(stat -L -c '%d:%i' /run/netns/pod1)" >"$dir/rdma-net:ctr1:net1"
		"$side" rdma-ns GC "" "" "" "$(with_valid "$conf" ctr1)"
		assert_eq 0 "$RC" "$side GC keeping a record with netnsId ($OUT)"
		[ -e "$dir/rdma-net:ctr1:net1" ] || fail "$side GC collected a valid record with netnsId"
		"$side" rdma-ns DEL ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$side DEL of a record with netnsId ($OUT)"
		[[ $ERR == *"another network namespace"* ]] && fail "$side took pod1 for another namespace"
		assert_eq "" "$(ls $dir)" "$side DEL left the record with netnsId"
	done
}

# ib-host-local alone: ipIndex leases (a lease and a pointer per address)
# released by the previous DEL; the previous ADD's leases by this DEL.
test_compat_host_local_leases() {
	local conf before
	sim_node 1 2 eth
	conf='{"cniVersion":"1.1.0","name":"ix","type":"ib-host-local","ipam":{"type":"ib-host-local","dataDir":"'"$T"'/leases","ranges":[[{"subnet":"10.60.0.0/16","rangeStart":"10.60.1.0","rangeEnd":"10.60.1.255"}],[{"subnet":"fd00:60::/64"}]]}}'
	mkdir -p "$T/leases"
	before=$(node_state)
	new_exec ib-host-local ADD r5 /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=5"
	assert_eq 0 "$RC" "new ADD ($OUT)"
	assert_json '[.ips[].address]' '["10.60.1.5/16","fd00:60::6/64"]'
	old_exec ib-host-local DEL r5 /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=5"
	assert_eq 0 "$RC" "old DEL ($OUT)"
	assert_node_as_found "$before" "ipIndex lease, old DEL"
	old_exec ib-host-local ADD r6 /proc/self/ns/net net1 "$conf"
	assert_eq 0 "$RC" "old ADD ($OUT)"
	new_exec ib-host-local DEL r6 /proc/self/ns/net net1 "$conf"
	assert_eq 0 "$RC" "new DEL ($OUT)"
	assert_node_as_found "$before" "old lease, new DEL"
	# Through ib-sriov (its built-in ib-host-local), rank 5 of a job.
	pod_ns pod1
	add_then_del new_exec old_exec "$(sriov_conf ib-host-local)" "IgnoreUnknown=1;IB_IP_INDEX=5"
	add_then_del old_exec new_exec "$(sriov_conf ib-host-local)"
}

# The node configuration as this tree's installer leaves it: only the first
# release's keys in ibcni.conf, the new ones in drop-ins the previous release
# never reads. The previous plugins run every verb; a NAD with
# "ranges": "node" (leased by this tree) is released by the previous DEL.
test_compat_node_dropins() {
	local conf before nodeconf
	sim_node 1 2 eth
	pod_ns pod1
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}'
	node_dropin ranges.conf '{"ranges":{"rdma-net":[[{"subnet":"10.58.0.0/16","rangeStart":"10.58.3.1","rangeEnd":"10.58.3.254"}]]}}'
	node_dropin agent.conf '{"reclaimLeases":true}'
	nodeconf=$(find /etc/ibcni -type f -exec sha256sum {} + | sort)
	add_then_del old_exec old_exec "$(sriov_conf ib-host-local '"mtu":1400')"
	old_exec ib-sriov STATUS "" "" "" "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "old STATUS ($OUT)"
	old_exec ib-host-local STATUS "" "" "" "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "old ib-host-local STATUS ($OUT)"
	conf='{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","deviceID":"0000:03:01.1","ipam":{"type":"ib-host-local","dataDir":"'"$T"'/leases","ranges":"node"}}'
	before=$(node_state)
	new_exec ib-sriov ADD ctr2 pod1 net1 "$conf"
	assert_eq 0 "$RC" "new ADD with ranges node ($OUT $ERR)"
	assert_json '[.ips[].address]' '["10.58.3.1/16"]'
	old_exec ib-sriov DEL ctr2 pod1 net1 "$conf"
	assert_eq 0 "$RC" "old DEL of ranges node ($OUT $ERR)"
	assert_node_as_found "$before" "ranges node, old DEL" "${DEVINFO_LEFT/ctr1/ctr2}"
	assert_eq "$nodeconf" "$(find /etc/ibcni -type f -exec sha256sum {} + | sort)" "the node configuration untouched"
	# A namespace list in ranges.conf (this release's form): the previous
	# release never reads the drop-in, so its DEL is not blocked by it.
	node_dropin ranges.conf '{"ranges":{"rdma-net":{"namespaces":["team-a"],"ranges":[[{"subnet":"10.58.0.0/16","rangeStart":"10.58.3.1","rangeEnd":"10.58.3.254"}]]}}}'
	new_exec ib-sriov ADD ctr4 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=p4"
	assert_eq 0 "$RC" "new ADD of team-a ($OUT $ERR)"
	old_exec ib-sriov DEL ctr4 pod1 net1 "$conf"
	assert_eq 0 "$RC" "old DEL with a namespace list ($OUT $ERR)"
	assert_node_as_found "$before" "namespace list, old DEL" "${DEVINFO_LEFT/ctr1/ctr2}"$'\n'"${DEVINFO_LEFT/ctr1/ctr4}"
	# Why the drop-ins: a new key in ibcni.conf itself fails the previous
	# release's every verb, DEL included.
	node_conf '{"allowedDataDirs":["'"$T"'"],"reclaimLeases":true}'
	old_exec ib-sriov DEL ctr3 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_json '.code' 7
	assert_match reclaimLeases "$OUT" "the key named"
}
