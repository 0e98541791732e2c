# SPDX-License-Identifier: Apache-2.0
# ib-host-local ADD, DEL and GC killed at each point and failed at each
# fault, with another container's lease in the directory throughout: the
# retry must leave exactly that lease, complete lease files only, no temp
# file, the lock free, and an index that the next ADD can trust.

IPAM_CONF=
IPAM_WANT='10.56.0.* fd00:56::* ' # the result's addresses, a pattern
IPAM_RANGES='[[{"subnet":"10.56.0.0/24"}],[{"subnet":"fd00:56::/64"}]]'
IPAM_ARGS=                         # ctr1's args (ipIndex), a JSON member

ipam_node() {
	pod_ns pod1
	wrap_init
	IPAM_CONF=$(printf '{"cniVersion":"1.1.0","name":"%s","type":"ib-sriov","ipam":{"type":"ib-host-local","dataDir":"%s","ranges":%s}}' \
		"$NET" "$T/leases" "$IPAM_RANGES")
	run_plugin ib-host-local ADD other pod1 net1 "$IPAM_CONF"
	[ "$RC" = 0 ] || { fail "ADD of the other container: $OUT"; return 1; }
	IPAM_CONF=${IPAM_CONF%\}}${IPAM_ARGS:+,$IPAM_ARGS}\}
	run_plugin ib-host-local ADD warm pod1 net1 "$IPAM_CONF"
	run_plugin ib-host-local DEL warm pod1 net1 "$IPAM_CONF"
	[ "$RC" = 0 ] || { fail "warm-up DEL: $OUT"; return 1; }
}

# Every file named as an address holds a complete "id\r\nifname".
leases_whole() { # WHAT
	local f re=$'^(other|ctr1)\r\nnet1$'
	for f in "$T/leases/$NET"/[0-9a-f]*; do
		[ -e "$f" ] || continue
		[[ $(cat "$f") =~ $re ]] || cfail "$1: lease ${f##*/} holds '$(cat -v "$f")'"
	done
}

# The result's addresses are ctr1's leases, one per set.
leased_as_result() { # WHAT
	local want got
	want=$(jq -r '.ips[].address' <<<"$OUT" 2>/dev/null | sed 's|/.*||' | sort | tr '\n' ' ')
	got=$(grep -l "^ctr1"$'\r' "$T/leases/$NET"/* 2>/dev/null | sed 's|.*/||' | sort | tr '\n' ' ')
	# shellcheck disable=SC2053 # IPAM_WANT is a pattern
	[[ $want == $IPAM_WANT && $want == "$got" ]] ||
		cfail "$1: result has '$want', ctr1 leases '$got'"
}

ipam_check() {
	leases_whole "converged"
	converged
}

# --- ADD ---

IPAM_RETRY_OK=0
iadd_prep() { :; }
iadd_run() { run_plugin ib-host-local ADD ctr1 pod1 net1 "$IPAM_CONF"; }
iadd_del() {
	run_plugin ib-host-local DEL ctr1 pod1 net1 "$IPAM_CONF"
	[ "$RC" = 0 ] || cfail "DEL: rc $RC $OUT"
}
iadd_after() {
	[ "$RC" = 0 ] || cfail "ADD: rc $RC $OUT"
	leased_as_result "ADD"
	iadd_del
}
iadd_retry() {
	leases_whole "after the kill"
	iadd_run
	# Whatever the killed ADD had leased is the attachment's: the retry
	# answers it (host-local fails with 111 there) and leases the rest.
	if [ "$RC" = 0 ]; then
		IPAM_RETRY_OK=$((IPAM_RETRY_OK + 1))
		leased_as_result "retried ADD"
	else
		cfail "retried ADD: rc $RC $OUT"
	fi
	iadd_del
}
iadd_check() { ipam_check; }

test_kill_ipam_add() {
	ipam_node || return
	baseline
	sweep iadd kill plugin "ib-host-local ADD"
	STATS+="    retried ADD: $IPAM_RETRY_OK succeeded"$'\n'
	print_stats
}

test_fault_ipam_add() {
	ipam_node || return
	baseline
	sweep iadd fault plugin "ib-host-local ADD"
	STATS+="    retried ADD: $IPAM_RETRY_OK succeeded"$'\n'
	print_stats
}

# --- DEL ---

idel_prep() {
	iadd_run
	[ "$RC" = 0 ] || cfail "ADD before DEL: rc $RC $OUT"
}
idel_run() { run_plugin ib-host-local DEL ctr1 pod1 net1 "$IPAM_CONF"; }
idel_after() { [ "$RC" = 0 ] || cfail "DEL: rc $RC $OUT"; }
idel_retry() {
	leases_whole "after the kill"
	idel_run
	[ "$RC" = 0 ] || cfail "retried DEL: rc $RC $OUT"
}
idel_check() { ipam_check; }

test_kill_ipam_del() {
	ipam_node || return
	baseline
	sweep idel kill plugin "ib-host-local DEL"
	print_stats
}

test_fault_ipam_del() {
	ipam_node || return
	baseline
	sweep idel fault plugin "ib-host-local DEL"
	print_stats
}

# --- GC: other is valid ---

igc_prep() { idel_prep; }
igc_run() {
	run_plugin ib-host-local GC "" "" "" \
		"${IPAM_CONF%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"other\",\"ifname\":\"net1\"}]}"
}
igc_after() { [ "$RC" = 0 ] || cfail "GC: rc $RC $OUT"; }
igc_retry() {
	igc_run
	[ "$RC" = 0 ] || cfail "retried GC: rc $RC $OUT"
}
igc_check() { ipam_check; }

test_kill_ipam_gc() {
	ipam_node || return
	baseline
	sweep igc kill plugin "ib-host-local GC"
	print_stats
}

# --- args.cni.ipIndex (ipam/ipindex.c): index 7 of each set, whatever the
# point; a retried ADD finds the lease the killed one made its own, so it
# must succeed, with the same addresses (as without ipIndex). ---

ipindex_node() {
	IPAM_ARGS='"args":{"cni":{"ipIndex":7}}'
	IPAM_WANT='10.56.0.8 fd00:56::8 '
	ipam_node
}

test_kill_ipam_add_ipindex() {
	ipindex_node || return
	baseline
	sweep iadd kill plugin "ib-host-local ADD, ipIndex"
	STATS+="    retried ADD: $IPAM_RETRY_OK succeeded"$'\n'
	print_stats
}

test_fault_ipam_add_ipindex() {
	ipindex_node || return
	baseline
	sweep iadd fault plugin "ib-host-local ADD, ipIndex"
	STATS+="    retried ADD: $IPAM_RETRY_OK succeeded"$'\n'
	print_stats
}

# --- "ranges": "node": the node's block from the installer's drop-in
# (/etc/ibcni/ibcni.conf.d/ranges.conf), read at every point; its faults
# (openat, the read) fail cleanly. ---

ranges_node() {
	node_dropin ranges.conf '{"ranges":{"'"$NET"'":[[{"subnet":"10.56.0.0/16","rangeStart":"10.56.3.1","rangeEnd":"10.56.3.254"}],[{"subnet":"fd00:56::/64","rangeStart":"fd00:56::3:0","rangeEnd":"fd00:56::3:ffff"}]]}}'
	IPAM_RANGES='"node"'
	IPAM_WANT='10.56.3.* fd00:56::3:* '
	ipam_node
}

test_kill_ipam_add_ranges_node() {
	ranges_node || return
	baseline
	sweep iadd kill plugin "ib-host-local ADD, ranges node"
	STATS+="    retried ADD: $IPAM_RETRY_OK succeeded"$'\n'
	print_stats
}

test_fault_ipam_add_ranges_node() {
	ranges_node || return
	baseline
	sweep iadd fault plugin "ib-host-local ADD, ranges node"
	STATS+="    retried ADD: $IPAM_RETRY_OK succeeded"$'\n'
	print_stats
}

test_kill_ipam_del_ranges_node() {
	ranges_node || return
	baseline
	sweep idel kill plugin "ib-host-local DEL, ranges node"
	print_stats
}
