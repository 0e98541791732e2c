# SPDX-License-Identifier: Apache-2.0
# ib-sriov's railTable / railKeepMain / railSysctls: four rails (VFs) in one
# pod on the simulated node, each VF's veth peer in a namespace of its own
# (the rail's switch and its far end), all in one subnet and in four.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

PROBE=$(dirname "${BASH_SOURCE[0]}")/rail-probe.py
RAILS=4

# rail_addr MODE V / rail_peer MODE V: rail V's pod and peer addresses
# ("one": all in 10.60.0.0/24; "four": 10.61.V.0/24 each).
rail_addr() { if [ "$1" = one ]; then echo "10.60.0.$((11 + $2))"; else echo "10.61.$2.11"; fi; }
rail_peer() { if [ "$1" = one ]; then echo "10.60.0.$((101 + $2))"; else echo "10.61.$2.101"; fi; }

# rails_node MODE: 4 VFs, the pod, and peer V (vf0_Vp) in netns peerV with
# its address. IPv6 stays off in the pod and the peers, so the counters
# see only what the probes send.
rails_node() {
	local v
	sim_node 1 $RAILS eth || return 1
	pod_ns pod1 || return 1
	ip netns exec pod1 sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	for ((v = 0; v < RAILS; v++)); do
		ip netns add peer$v && ip -n peer$v link set lo up || return 1
		ip netns exec peer$v sysctl -qw net.ipv6.conf.default.disable_ipv6=1
		ip link set vf0_${v}p netns peer$v || return 1
		ip -n peer$v addr add "$(rail_peer "$1" $v)/24" dev vf0_${v}p || return 1
		ip -n peer$v link set vf0_${v}p up || return 1
	done
}

# rail_conf MODE V [EXTRA]: rail V's NAD (static IPAM: the pod's address
# and one route through the peer, so the table holds an IPAM route too).
rail_conf() {
	local dst
	if [ "$1" = one ]; then dst="10.70.$2.0/24"; else dst="10.71.$2.0/24"; fi
	printf '{"cniVersion":"1.0.0","name":"rail%d","type":"ib-sriov","deviceID":"%s"%s,"ipam":{"type":"static","addresses":[{"address":"%s/24"}],"routes":[{"dst":"%s","gw":"%s"}]}}' \
		"$2" "$(sim_vf_addr 0 "$2")" "${3:+,$3}" "$(rail_addr "$1" "$2")" "$dst" "$(rail_peer "$1" "$2")"
}

# rails_add MODE EXTRA: ADD the 4 rails as Multus does (net1..net4), one
# after the other; prev[V] keeps each result.
declare -a prev
rails_add() {
	local v
	for ((v = 0; v < RAILS; v++)); do
		cni_exec ib-sriov ADD ctr1 pod1 net$((v + 1)) "$(rail_conf "$1" $v "$2")"
		assert_eq 0 "$RC" "ADD rail $v ($OUT $ERR)"
		prev[v]=$OUT
	done
}

rails_del() { # MODE EXTRA
	local v c
	for ((v = RAILS - 1; v >= 0; v--)); do
		c=$(rail_conf "$1" $v "$2")
		cni_exec ib-sriov DEL ctr1 pod1 net$((v + 1)) "${c%\}},\"prevResult\":${prev[v]}}"
		assert_eq 0 "$RC" "DEL rail $v ($OUT $ERR)"
	done
}

rails_check() { # MODE EXTRA: CHECK of every rail; the first failure in $OUT
	local v c
	for ((v = 0; v < RAILS; v++)); do
		c=$(rail_conf "$1" $v "$2")
		cni_exec ib-sriov CHECK ctr1 pod1 net$((v + 1)) "${c%\}},\"prevResult\":${prev[v]}}"
		[ "$RC" -eq 0 ] || return 1
	done
}

# The pod's rules and routes, normalised: a rail table is named by the
# interface its routes go through ("rail:net2"), protocols, metrics and
# the kernel's local table left out.
pod_routing() {
	local tables
	tables=$(ip -n pod1 -j route show table all | jq -c '
		[.[] | select(.table != null and .table != "local" and .table != "main") |
		 {key: (.table | tostring), value: ("rail:" + .dev)}] | from_entries')
	ip -n pod1 -j rule | jq -c --argjson t "$tables" '
		.[] | select(.src != null and .src != "all") |
		{src: "\(.src)/\(.srclen // 32)", table: ($t[.table | tostring] // .table)}' | sort
	ip -n pod1 -j route show table all | jq -c --argjson t "$tables" '
		.[] | select(.table != "local" and (.dst | startswith("fe80") | not) and
			     (.dst | startswith("ff00") | not) and .type != "multicast") |
		{dst, dev, gateway, prefsrc, scope,
		 table: (if .table == null then "main" else ($t[.table | tostring] // .table) end)}' | sort
}

pod_sysctls() {
	local v k
	for ((v = 1; v <= RAILS; v++)); do
		for k in arp_ignore arp_announce rp_filter; do
			printf 'net%d.%s=%s\n' $v $k "$(ip netns exec pod1 cat /proc/sys/net/ipv4/conf/net$v/$k)"
		done
	done
}

# tx and rx packets of every pod interface, "tx rx" per line.
pod_counters() {
	local v
	for ((v = 1; v <= RAILS; v++)); do
		ip -n pod1 -j -s link show net$v | jq -r '.[0].stats64 | "\(.tx.packets) \(.rx.packets)"'
	done
}

RAIL_KEYS='"railTable":"auto","railSysctls":true'

# The auto tables: 10000 + the pod interface's index.
auto_table() { # IFNAME
	echo $((10000 + $(ip -n pod1 -j link show "$1" | jq '.[0].ifindex')))
}

# Per rail: the rule, the table's routes, main without them, the sysctls;
# a ping from each peer answered on its rail only (counters); ARP for
# rail 0's address from rail 1's peer unanswered, its own answered.
rails_answer_per_rail() { # MODE
	local mode=$1 v w t before after
	for ((v = 0; v < RAILS; v++)); do
		t=$(auto_table net$((v + 1)))
		assert_eq "[{\"priority\":32700,\"src\":\"$(rail_addr "$mode" $v)\",\"table\":\"$t\"}]" \
			"$(ip -n pod1 -j rule | jq -c "[.[] | select(.src == \"$(rail_addr "$mode" $v)\") | {priority, src, table}]")" \
			"rail $v rule"
		assert_eq 2 "$(ip -n pod1 -j route show table "$t" | jq 'length')" "rail $v: table $t holds the connected and the IPAM route"
	done
	assert_eq "[]" "$(ip -n pod1 -j route show table main | jq -c '[.[] | select(.dev | startswith("net"))]')" \
		"main keeps no route of the rails"
	assert_eq "$(for ((v = 1; v <= RAILS; v++)); do printf 'net%d.arp_ignore=1\nnet%d.arp_announce=2\nnet%d.rp_filter=2\n' $v $v $v; done)" \
		"$(pod_sysctls)" "sysctls"
	for ((v = 0; v < RAILS; v++)); do
		mapfile -t before < <(pod_counters)
		assert_eq 3 "$(ip netns exec peer$v "$PROBE" ping "$(rail_addr "$mode" $v)" 3)" \
			"rail $v: echoes answered"
		mapfile -t after < <(pod_counters)
		for ((w = 0; w < RAILS; w++)); do
			local tx=$((${after[w]% *} - ${before[w]% *})) rx=$((${after[w]#* } - ${before[w]#* }))
			if [ $w -eq $v ]; then
				[ $tx -ge 3 ] && [ $rx -ge 3 ] || fail "rail $v: net$((w + 1)) sent $tx, received $rx (want >= 3 each)"
			else
				assert_eq "0 0" "$tx $rx" "rail $v's ping: net$((w + 1)) sent, received"
			fi
		done
	done
	if [ "$mode" = one ]; then
		# On one segment each: rail 1's peer asks for rail 0's address.
		assert_eq none "$(ip netns exec peer1 "$PROBE" arp vf0_1p "$(rail_peer one 1)" "$(rail_addr one 0)")" \
			"ARP for rail 0's address answered on rail 1"
	fi
	assert_eq "$(ip -n pod1 -j link show net2 | jq -r '.[0].address')" \
		"$(ip netns exec peer1 "$PROBE" arp vf0_1p "$(rail_peer "$mode" 1)" "$(rail_addr "$mode" 1)")" \
		"ARP for rail 1's own address, on rail 1"
}

# Only the kernel's three rules and tables are left.
rails_gone() {
	assert_eq '[0,32766,32767]' "$(ip -n pod1 -j rule | jq -c '[.[].priority]')" "rules left in the pod"
	assert_eq '[]' "$(ip -n pod1 -j route show table all | jq -c '[.[] | select(.table != null and .table != "local" and .table != "main") | .table] | unique')" \
		"tables left in the pod"
}

rails_in() { # MODE
	rails_node "$1" || { fail "rails_node"; return; }
	local before
	before=$(host_state)
	rails_add "$1" "$RAIL_KEYS"
	rails_answer_per_rail "$1"
	rails_check "$1" "$RAIL_KEYS" || fail "CHECK: $OUT"
	rails_del "$1" "$RAIL_KEYS"
	rails_gone
	for ((v = 0; v < RAILS; v++)); do
		ip link show vf0_$v >/dev/null 2>&1 || fail "vf0_$v is not back on the host"
	done
}

test_rails_one_subnet() {
	rails_in one
}

test_rails_four_subnets() {
	rails_in four
}

# The control: without railSysctls, rail 1 answers ARP for rail 0's
# address (the flux railSysctls prevents), so the probe above can tell.
test_rails_arp_flux_without_sysctls() {
	rails_node one || { fail "rails_node"; return; }
	rails_add one '"railTable":"auto"'
	assert_eq "$(ip -n pod1 -j link show net2 | jq -r '.[0].address')" \
		"$(ip netns exec peer1 "$PROBE" arp vf0_1p "$(rail_peer one 1)" "$(rail_addr one 0)")" \
		"without railSysctls, rail 1 answers for rail 0's address"
	rails_del one '"railTable":"auto"'
	rails_gone
}

# The same pod built with Debian's Go sbr + tuning chained after ib-sriov
# (no rail keys), as the Network Operator renders it (tuning's values as
# railSysctls', rp_filter 2 where the operator writes 0), gives the same
# rules, routes and sysctls once normalised (pod_routing). What differs by
# design, asserted below:
# - table numbers: sbr takes the first table no rule refers to, from 100
#   (100, 101, ...: which rail gets which depends on the ADD order); ibcni's
#   "auto" is 10000 + the pod interface's index, the same whatever the order.
# - priority: sbr leaves it to the kernel (32765, then 32764, ... one lower
#   per rail); ibcni puts every rail's rules at 32700, so CHECK and DEL
#   match a rule exactly.
# - protocol of the connected route in the table: sbr copies the kernel's
#   ("proto kernel"); ibcni adds it as every route it adds ("proto boot").
sbr_tuning_add() { # MODE
	local v r n
	for ((v = 0; v < RAILS; v++)); do
		n=net$((v + 1))
		cni_exec ib-sriov ADD ctr1 pod1 $n "$(rail_conf "$1" $v)"
		assert_eq 0 "$RC" "ib-sriov ADD rail $v ($ERR)"
		r=$OUT
		cni_exec "$GO_CNI/sbr" ADD ctr1 pod1 $n "{\"cniVersion\":\"1.0.0\",\"name\":\"rail$v\",\"type\":\"sbr\",\"prevResult\":$r}"
		assert_eq 0 "$RC" "sbr ADD rail $v"
		r=$OUT
		cni_exec "$GO_CNI/tuning" ADD ctr1 pod1 $n "{\"cniVersion\":\"1.0.0\",\"name\":\"rail$v\",\"type\":\"tuning\",\"sysctl\":{\"net.ipv4.conf.$n.arp_ignore\":\"1\",\"net.ipv4.conf.$n.arp_announce\":\"2\",\"net.ipv4.conf.$n.rp_filter\":\"2\"},\"prevResult\":$r}"
		assert_eq 0 "$RC" "tuning ADD rail $v ($ERR)"
		prev[v]=$r
	done
}

rails_like_sbr_tuning() { # MODE
	local ours theirs v
	rails_node "$1" || { fail "rails_node"; return; }
	rails_add "$1" "$RAIL_KEYS"
	ours=$(pod_routing; pod_sysctls)
	assert_eq '[32700,32700,32700,32700]' \
		"$(ip -n pod1 -j rule | jq -c '[.[] | select(.src != "all") | .priority]')" "ibcni's priorities"
	rails_del "$1" "$RAIL_KEYS"
	rails_gone
	sbr_tuning_add "$1"
	theirs=$(pod_routing; pod_sysctls)
	assert_eq '[32762,32763,32764,32765]' \
		"$(ip -n pod1 -j rule | jq -c '[.[] | select(.src != "all") | .priority]')" "sbr's priorities"
	assert_eq '["100","101","102","103"]' \
		"$(ip -n pod1 -j rule | jq -c '[.[] | select(.src != "all") | .table] | sort')" "sbr's tables"
	assert_eq "$theirs" "$ours" "ibcni's rules, routes and sysctls against sbr + tuning's"
	for ((v = 0; v < RAILS; v++)); do
		assert_eq kernel "$(ip -n pod1 -j route show table $((100 + v)) | jq -r '.[] | select(.gateway == null) | .protocol')" \
			"sbr's connected route in table $((100 + v))"
	done
}

test_rails_like_sbr_tuning_one_subnet() {
	rails_like_sbr_tuning one
}

test_rails_like_sbr_tuning_four_subnets() {
	rails_like_sbr_tuning four
}

# CHECK names the key and what differs: a sysctl the pod changed, a rule
# it removed, a route it removed from the table. DEL still succeeds, and
# removes no rule ADD did not add (the pod's own rule on the same table).
test_rails_check_and_del_after_pod_changes() {
	rails_node four || { fail "rails_node"; return; }
	rails_add four "$RAIL_KEYS"
	local t1 t2 c
	t1=$(auto_table net1) t2=$(auto_table net2)
	ip netns exec pod1 sh -c 'echo 0 >/proc/sys/net/ipv4/conf/net2/arp_ignore'
	rails_check four "$RAIL_KEYS"
	assert_json '.details' '"railSysctls: net.ipv4.conf.net2.arp_ignore is 0, want 1"'
	ip netns exec pod1 sh -c 'echo 1 >/proc/sys/net/ipv4/conf/net2/arp_ignore'
	ip -n pod1 rule del from "$(rail_addr four 2)" lookup "$(auto_table net3)" priority 32700
	rails_check four "$RAIL_KEYS"
	assert_json '.details' "\"railTable: 10.61.2.11/32 of net3 lookup $(auto_table net3) priority 32700 is absent\""
	ip -n pod1 rule add from "$(rail_addr four 2)" lookup "$(auto_table net3)" priority 32700
	ip -n pod1 route del 10.71.0.0/24 table "$t1"
	rails_check four "$RAIL_KEYS"
	assert_json '.details' "\"railTable: 10.71.0.0/24 of net1 is not in table $t1\""
	ip -n pod1 route add 10.71.0.0/24 via "$(rail_peer four 0)" dev net1 table "$t1"
	rails_check four "$RAIL_KEYS" || fail "CHECK once the pod's changes are undone: $OUT"
	rails_check four '"railTable":12345'
	assert_json '.details' "\"railTable: the table of net1 is $t1, want 12345\""
	# The pod's own rules: one on rail 1's table, one like rail 0's at
	# another priority; rail 2's rule already gone.
	ip -n pod1 rule add from 10.99.0.1 lookup "$t2" priority 100
	ip -n pod1 rule add from "$(rail_addr four 0)" lookup "$t1" priority 200
	ip -n pod1 rule del from "$(rail_addr four 2)" lookup "$(auto_table net3)" priority 32700
	rails_del four "$RAIL_KEYS"
	assert_eq "[[100,\"10.99.0.1\",\"$t2\"],[200,\"10.61.0.11\",\"$t1\"]]" \
		"$(ip -n pod1 -j rule | jq -c '[.[] | select(.src != "all") | [.priority, .src, .table]]')" \
		"the pod's own rules are left"
	assert_eq '[0,32766,32767]' \
		"$(ip -n pod1 -j rule | jq -c '[.[] | select(.src == "all") | .priority]')" "the kernel's rules"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(rail_conf four 0 "$RAIL_KEYS")"
	assert_eq 0 "$RC" "a second DEL"
}

# A bad key is code 7 naming it, and nothing changes on the host.
test_rails_bad_keys() {
	sim_node 1 1 eth || { fail "sim_node"; return; }
	pod_ns pod1
	local before k
	before=$(host_state)
	for k in '"railTable":254' '"railTable":0' '"railTable":4294967296' '"railTable":"main"' \
		'"railTable":1.5' '"railTable":true'; do
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$(rail_conf one 0 "$k")"
		assert_eq 7 "$(jq .code <<<"$OUT")" "$k: code"
		assert_match '^"railTable" is .*; it must be a routing table number from 1 to 4294967295 other than 253-255 \(default, main, local\), or "auto"' \
			"$(jq -r .details <<<"$OUT")" "$k: details"
	done
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(rail_conf one 0 '"railKeepMain":true')"
	assert_json '[.code, .details]' '[7,"\"railKeepMain\" is set without \"railTable\"; set \"railTable\" (a number or \"auto\") or drop \"railKeepMain\""]'
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(rail_conf one 0 '"railSysctls":"yes"')"
	assert_json '.code' '7'
	assert_match railSysctls "$(jq -r .details <<<"$OUT")" "railSysctls named"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(rail_conf one 0 '"railTable":7,"vfioPciMode":true')"
	assert_json '.code' '7'
	assert_match 'railTable.*vfioPciMode' "$(jq -r .details <<<"$OUT")" "vfioPciMode"
	assert_host_unchanged "$before" "after the refused ADDs"
}

# A table a rule of the pod already looks up (the pod's own, or another
# rail's given the same number) is refused, and the ADD undone.
test_rails_table_taken() {
	rails_node four || { fail "rails_node"; return; }
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(rail_conf four 0 '"railTable":42')"
	assert_eq 0 "$RC" "ADD rail 0 ($OUT)"
	cni_exec ib-sriov ADD ctr1 pod1 net2 "$(rail_conf four 1 '"railTable":42')"
	assert_json '[.code, .details]' '[7,"\"railTable\" is table 42 for net2, which a rule of the pod already looks up (from 10.61.0.11/32 priority 32700); give each rail its own number, or \"auto\""]'
	ip link show vf0_1 >/dev/null 2>&1 || fail "vf0_1 is not back on the host"
	assert_eq 1 "$(ip -n pod1 -j rule | jq '[.[] | select(.src != "all")] | length')" "rules after the refusal"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(rail_conf four 0 '"railTable":42')"
	rails_gone
}

# railKeepMain: main keeps the connected and IPAM routes, the table has
# them as well.
test_rails_keep_main() {
	rails_node four || { fail "rails_node"; return; }
	local keys='"railTable":"auto","railKeepMain":true'
	rails_add four "$keys"
	assert_eq '["10.61.0.0/24","10.71.0.0/24"]' \
		"$(ip -n pod1 -j route show table main dev net1 | jq -c '[.[].dst] | sort')" "main"
	assert_eq '["10.61.0.0/24","10.71.0.0/24"]' \
		"$(ip -n pod1 -j route show table "$(auto_table net1)" | jq -c '[.[].dst] | sort')" "table"
	rails_check four "$keys" || fail "CHECK: $OUT"
	rails_del four "$keys"
	rails_gone
}

# IPv4 and IPv6: one rule per address, both connected routes in the table.
test_rails_dual_stack() {
	sim_node 1 1 eth || { fail "sim_node"; return; }
	pod_ns pod1
	local conf t
	conf=$(sriov_conf ib-host-local '"railTable":"auto","railSysctls":true' 1.0.0 "$(sim_vf_addr 0 0)")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT)"
	t=$(auto_table net1)
	assert_eq "[[\"10.56.0.2\",\"$t\"],[\"fd00:56::2\",\"$t\"]]" \
		"$( (ip -n pod1 -j rule; ip -n pod1 -6 -j rule) | jq -s -c '[.[][] | select(.src != "all") | [.src, .table]]')" "rules"
	assert_eq '["10.56.0.0/24","10.57.0.0/16","fd00:56::/64"]' \
		"$( (ip -n pod1 -j route show table "$t"; ip -n pod1 -6 -j route show table "$t") | jq -s -c '[.[][].dst] | sort')" "table"
	assert_eq '[]' "$( (ip -n pod1 -j route show dev net1; ip -n pod1 -6 -j route show dev net1) | jq -s -c '[.[][] | select(.dst | startswith("fe80") | not) | .dst]')" "main"
	cni_exec ib-sriov CHECK ctr1 pod1 net1 "${conf%\}},\"prevResult\":$OUT}"
	assert_eq 0 "$RC" "CHECK ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_eq '[]' "$( (ip -n pod1 -j rule; ip -n pod1 -6 -j rule) | jq -s -c '[.[][] | select(.src != "all")]')" "rules left"
}

# IBCNI_LINK_FAILPOINT=N fails the Nth kernel change of rail 1's ADD (the
# rail keys' routes and rules among them): each failure leaves the pod as
# rail 0 left it and the VF back on the host.
test_rails_rollback_at_every_step() {
	rails_node four || { fail "rails_node"; return; }
	local n conf steps=0 rules
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(rail_conf four 0 "$RAIL_KEYS")"
	assert_eq 0 "$RC" "ADD rail 0 ($OUT)"
	rules=$(ip -n pod1 -j rule | jq -c .)
	conf=$(rail_conf four 1 "$RAIL_KEYS")
	for n in $(seq 1 30); do
		OUT=$(env -i CNI_COMMAND=ADD CNI_CONTAINERID=ctr1 CNI_NETNS=/run/netns/pod1 CNI_IFNAME=net2 \
			CNI_PATH="$BIN:$GO_CNI" IBCNI_LINK_FAILPOINT=$n "$BIN/ib-sriov" <<<"$conf" 2>/dev/null)
		[ "$(jq -r '.code // 0' <<<"$OUT")" = 0 ] && break
		steps=$((steps + 1))
		assert_eq "$rules" "$(ip -n pod1 -j rule | jq -c .)" "rules after failure $n ($(jq -r .msg <<<"$OUT"))"
		ip link show vf0_1 >/dev/null 2>&1 || fail "failure $n: vf0_1 is not back on the host"
		[ -e "/var/lib/cni/ibcni/ib-sriov/ctr1:net2" ] && fail "failure $n: the record is left"
	done
	# Down, move, up, the address, the table's two routes, the rule.
	[ "$steps" -ge 6 ] || fail "only $steps failing steps were exercised"
	assert_eq 2 "$(ip -n pod1 -j rule | jq '[.[] | select(.src != "all")] | length')" "rules once the ADD succeeds"
	cni_exec ib-sriov DEL ctr1 pod1 net2 "$conf"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(rail_conf four 0 "$RAIL_KEYS")"
	rails_gone
}
