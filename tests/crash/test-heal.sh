# SPDX-License-Identifier: Apache-2.0
# The node agent (ib-sriov reconcile) killed at each point of a release of a
# pod gone without DEL, and failed at each fault: the next pass must leave
# the VF as it was found, no lease, no record, no temp file, no lock held.

MAC=02:11:22:33:44:55
CONF=

heal_node() {
	sim_node 1 2 eth || return 1
	wrap_init
	CONF=$(sriov_conf ib-host-local "\"mtu\":1400,\"mac\":\"$MAC\"")
	pod_ns pod1
	run_plugin ib-sriov ADD warm pod1 net1 "$CONF"
	[ "$RC" = 0 ] || { fail "warm-up ADD: $OUT $ERR"; return 1; }
	run_plugin ib-sriov DEL warm pod1 net1 "$CONF"
	[ "$RC" = 0 ] || { fail "warm-up DEL: $OUT"; return 1; }
	ip netns del pod1
	# A pod that lives on: an absence from /run/netns is trusted only while
	# the directory shows a namespace mount (a view that sees the runtime's).
	pod_ns live
}

# The simulated sysfs names VF 1's netdev as the host has it.
sysfs_sync() {
	local net=/sys/bus/pci/devices/$(sim_vf_addr 0 1)/net name
	for name in vf0_1 $IFN; do
		if ip link show dev "$name" >/dev/null 2>&1; then
			[ -e "$net/$name" ] || mv "$net"/* "$net/$name"
			return
		fi
	done
}

# ctr1 attached as IFN, then its pod gone without DEL: the VF back in the
# host under its pod name (sysfs naming it so), the netns file gone, the
# record past the grace.
IFN=net1
sheal_prep() {
	sysfs_sync
	pod_ns pod1
	run_plugin ib-sriov ADD ctr1 pod1 $IFN "$CONF"
	[ "$RC" = 0 ] || cfail "ADD before the pod goes: rc $RC $OUT"
	ip -n pod1 link set $IFN down
	ip -n pod1 link set $IFN netns $$
	sysfs_sync
	ip netns del pod1
	touch -d '-10 min' /var/lib/cni/ibcni/ib-sriov/ctr1:$IFN
}
sheal_run() {
	local pre=()
	[ -n "${STRACE:-}" ] && pre=(strace -qq $STRACE)
	{ env -i PATH="$PATH" CNI_PATH="$T/wrap:$BIN" "${pre[@]}" "$BIN/ib-sriov" reconcile --grace 60 \
		2>&1 >"$T/out" | cat >"$T/err"; }
	RC=${PIPESTATUS[0]}
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}
# The agent exits 0 whatever it met; what it could not finish is the next
# pass's.
sheal_after() {
	[ "$RC" = 0 ] || cfail "pass: rc $RC ${ERR:0:300}"
	[ -e /var/lib/cni/ibcni/ib-sriov/ctr1:$IFN ] && sheal_retry
	return 0
}
sheal_retry() {
	sheal_run
	[ "$RC" = 0 ] || cfail "next pass: rc $RC ${ERR:0:300}"
}
sheal_check() {
	sysfs_sync
	converged
	[ -e /var/lib/cni/ibcni/ib-sriov/ctr1:$IFN ] && cfail "record left after the next pass"
	return 0
}

test_kill_reconcile_release() {
	heal_node || return
	baseline
	sweep sheal kill plugin "ib-sriov reconcile"
	sweep_delegate sheal kill "ib-sriov reconcile, its IPAM DEL"
	print_stats
}

test_fault_reconcile_release() {
	heal_node || return
	baseline
	sweep sheal fault plugin "ib-sriov reconcile"
	print_stats
}

# --- the next pod's ADD on that VF, which releases ctr1 first ---
# The pods name the VF as the host does (IFN=vf0_1): the simulated sysfs
# cannot follow a rename made by a run killed half-way, as a kernel's does,
# and the retry's first look at the VF is by its sysfs name.

sadd2_prep() {
	sheal_prep
	ip netns del pod2 2>/dev/null
	pod_ns pod2
}
sadd2_run() { run_plugin ib-sriov ADD ctr2 pod2 $IFN "$CONF"; }
sadd2_del() {
	run_plugin ib-sriov DEL ctr2 pod2 $IFN "$CONF"
	[ "$RC" = 0 ] || cfail "DEL ctr2: rc $RC $OUT"
}
sadd2_after() {
	[ "$RC" = 0 ] || cfail "healing ADD: rc $RC $OUT"
	[ -e /var/lib/cni/ibcni/ib-sriov/ctr1:$IFN ] && cfail "ctr1's record left by a healing ADD"
	sadd2_del
}
sadd2_retry() { # the runtime's retry (sysfs as a kernel shows it), then the pod's DEL
	sysfs_sync
	sadd2_run
	if [ "$RC" != 0 ] && [ "$(jq -r .msg <<<"$OUT" 2>/dev/null)" != "already attached" ]; then
		cfail "retried ADD: rc $RC $OUT"
	fi
	sadd2_del
}
sadd2_check() {
	sysfs_sync
	converged
	[ -e /var/lib/cni/ibcni/ib-sriov/ctr1:$IFN ] && cfail "ctr1's record left"
	return 0
}

test_kill_healing_add() {
	IFN=vf0_1
	heal_node || return
	baseline
	sweep sadd2 kill plugin "ib-sriov ADD, healing"
	print_stats
}
