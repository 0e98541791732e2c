# SPDX-License-Identifier: Apache-2.0
# ib-sriov ADD, DEL and GC (ib-host-local as the IPAM, mtu and mac set so
# every step runs) killed at each point and failed at each fault, on the
# simulated SR-IOV node; then the runtime's retry must leave the VF as it was
# found, no lease, no record, no temp file, no lock held.

MAC=02:11:22:33:44:55
CONF= CONF0=
DEVINFO=/run/k8s.cni.cncf.io/devinfo/cni

# One PF, two Ethernet VFs; VF 1 is the one attached, VF 0 the one GC must
# keep (test_gc only). A warm-up ADD and DEL creates the directories and
# pointers that stay, so the baseline is what any converged node looks like.
sriov_node() { # [KIND] [EXTRA-KEYS]
	sim_node 1 2 "${1:-eth}" || return 1
	[ "${1:-eth}" = ib ] && port_active # its port's state in sysfs
	pod_ns pod1
	wrap_init
	CONF=$(sriov_conf ib-host-local "\"mtu\":1400,\"mac\":\"$MAC\"${2:+,$2}")
	CONF0=$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 0)")
	run_plugin ib-sriov ADD warm pod1 net1 "$CONF"
	[ "$RC" = 0 ] || { fail "warm-up ADD: $OUT $ERR"; return 1; }
	run_plugin ib-sriov DEL warm pod1 net1 "$CONF"
	[ "$RC" = 0 ] || { fail "warm-up DEL: $OUT"; return 1; }
}

# ctr1's attachment is complete: the interface in the pod as configured, its
# addresses leased to it, its record written.
attached() { # WHAT
	local got
	got=$(ip -n pod1 -o addr show dev net1 scope global 2>/dev/null | awk '{print $4}' | tr '\n' ' ')
	[[ $got == "10.56.0."*"/24 fd00:56::"*"/64 " ]] || cfail "$1: pod addresses '$got'"
	got=$(ip -n pod1 -o link show dev net1 2>/dev/null)
	[[ $got == *[\<,]UP[,\>]*" mtu 1400 "*" link/ether $MAC "* ]] ||
		cfail "$1: pod interface ${got:-absent}"
	got=$(grep -l "^ctr1"$'\r' "$T/leases/$NET"/* 2>/dev/null | wc -l)
	[ "$got" = 2 ] || cfail "$1: $got leases of ctr1, want 2"
	[ -n "$(ls /var/lib/cni/ibcni/ib-sriov 2>/dev/null)" ] || cfail "$1: no record"
	[ -f "$DEVINFO/$NET-ctr1_net1" ] || cfail "$1: no device-info file"
}

# The pod as found: no interface but lo, no rule but the kernel's (a rail's
# source rule outlives its interface), and no device-info file of ctr1's
# nor a temp file (files_state and converged see the directory; this names
# them; ctr0's, a valid attachment in the GC cases, stays).
pod_empty() {
	local left
	left=$(ip -n pod1 -o link show | awk '$2 != "lo:" {print $2}')
	[ -z "$left" ] || cfail "pod1 still has $left"
	left=$(ip -n pod1 -j rule | jq -c '[.[].priority]')$(ip -n pod1 -6 -j rule | jq -c '[.[].priority]')
	[ "$left" = '[0,32766,32767][0,32766]' ] || cfail "pod1 rules left: $(ip -n pod1 rule; ip -n pod1 -6 rule)"
	left=$(find "$DEVINFO" -mindepth 1 \( -name '*-ctr1_*' -o -name '.*' \) 2>/dev/null)
	[ -z "$left" ] || cfail "device-info files left: $left"
}

# --- ADD ---

sadd_prep() { :; }
sadd_run() { run_plugin ib-sriov ADD ctr1 pod1 net1 "$CONF"; }
sadd_del() {
	run_plugin ib-sriov DEL ctr1 pod1 net1 "$CONF"
	[ "$RC" = 0 ] || cfail "DEL: rc $RC $OUT"
}
sadd_after() { # the ADD succeeded
	[ "$RC" = 0 ] || cfail "ADD: rc $RC $OUT"
	attached "ADD"
	sadd_del
}
RETRY_ADD_OK=0 RETRY_ADD_ATTACHED=0
sadd_retry() { # ADD again, then DEL
	sadd_run
	if [ "$RC" = 0 ]; then
		RETRY_ADD_OK=$((RETRY_ADD_OK + 1))
		attached "retried ADD"
	elif [ "$(jq -r .msg <<<"$OUT" 2>/dev/null)" = "already attached" ]; then
		# The killed ADD had finished (its record says complete).
		RETRY_ADD_ATTACHED=$((RETRY_ADD_ATTACHED + 1))
		attached "retried ADD (already attached)"
	else
		cfail "retried ADD: rc $RC $OUT"
	fi
	sadd_del
}
sadd_check() {
	converged
	pod_empty
}

test_kill_ibsriov_add() {
	sriov_node || return
	baseline
	sweep sadd kill plugin "ib-sriov ADD"
	sweep_delegate sadd kill "ib-sriov ADD, its IPAM ADD"
	STATS+="    retried ADD: $RETRY_ADD_OK succeeded, $RETRY_ADD_ATTACHED found it complete"$'\n'
	print_stats
}

test_fault_ibsriov_add() {
	sriov_node || return
	baseline
	sweep sadd fault plugin "ib-sriov ADD"
	sweep_delegate sadd fault "ib-sriov ADD, its IPAM ADD"
	STATS+="    retried ADD: $RETRY_ADD_OK succeeded, $RETRY_ADD_ATTACHED found it complete"$'\n'
	print_stats
}

# ib-host-local served inside ib-sriov (CNI_PATH holds the very build): the
# IPAM's calls are the plugin's own, so each is a kill or fault point of it.
test_kill_ibsriov_add_builtin() {
	CRASH_CNI_PATH=$BIN
	sriov_node || return
	baseline
	sweep sadd kill plugin "ib-sriov ADD, IPAM built in"
	STATS+="    retried ADD: $RETRY_ADD_OK succeeded, $RETRY_ADD_ATTACHED found it complete"$'\n'
	print_stats
}

test_fault_ibsriov_add_builtin() {
	CRASH_CNI_PATH=$BIN
	sriov_node || return
	baseline
	sweep sadd fault plugin "ib-sriov ADD, IPAM built in"
	print_stats
}

# --- DEL ---

sdel_prep() {
	run_plugin ib-sriov ADD ctr1 pod1 net1 "$CONF"
	[ "$RC" = 0 ] || cfail "ADD before DEL: rc $RC $OUT"
}
sdel_run() { run_plugin ib-sriov DEL ctr1 pod1 net1 "$CONF"; }
# A DEL that says it succeeded must have finished: no retry before the check.
sdel_after() { [ "$RC" = 0 ] || cfail "DEL: rc $RC $OUT"; }
sdel_retry() {
	sdel_run
	[ "$RC" = 0 ] || cfail "retried DEL: rc $RC $OUT"
}
sdel_check() { sadd_check; }

test_kill_ibsriov_del() {
	sriov_node || return
	baseline
	sweep sdel kill plugin "ib-sriov DEL"
	sweep_delegate sdel kill "ib-sriov DEL, its IPAM DEL"
	print_stats
}

test_fault_ibsriov_del() {
	sriov_node || return
	baseline
	sweep sdel fault plugin "ib-sriov DEL"
	sweep_delegate sdel fault "ib-sriov DEL, its IPAM DEL"
	print_stats
}

test_kill_ibsriov_del_builtin() {
	CRASH_CNI_PATH=$BIN
	sriov_node || return
	baseline
	sweep sdel kill plugin "ib-sriov DEL, IPAM built in"
	print_stats
}

# --- GC: ctr1 is stale, ctr0 (VF 0, pod0) is valid and must stay ---

GC_CONF=
sgc_prep() { sdel_prep; }
sgc_run() { run_plugin ib-sriov GC "" "" "" "$GC_CONF"; }
sgc_after() { [ "$RC" = 0 ] || cfail "GC: rc $RC $OUT"; }
sgc_retry() {
	sgc_run
	[ "$RC" = 0 ] || cfail "retried GC: rc $RC $OUT"
}
sgc_check() {
	converged
	pod_empty
	ip -n pod0 link show net1 >/dev/null 2>&1 ||
		cfail "GC released the valid attachment ctr0"
}

gc_node() {
	sriov_node || return 1
	pod_ns pod0
	run_plugin ib-sriov ADD ctr0 pod0 net1 "$CONF0"
	[ "$RC" = 0 ] || { fail "ADD ctr0: $OUT"; return 1; }
	GC_CONF="${CONF%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"ctr0\",\"ifname\":\"net1\"}]}"
}

gc_end() {
	run_plugin ib-sriov DEL ctr0 pod0 net1 "$CONF0"
	assert_eq 0 "$RC" "DEL ctr0 ($OUT)"
	assert_link host vf0_0 '.ifname' '"vf0_0"'
	assert_eq "" "$(find /var/lib/cni/ibcni/ib-sriov /var/lib/cni/ib-sriov -type f 2>/dev/null)" "records at the end"
	assert_eq "" "$(ls "$T/leases/$NET" | grep -e '^10\.' -e '^fd')" "leases at the end"
}

test_kill_ibsriov_gc() {
	gc_node || return
	baseline
	sweep sgc kill plugin "ib-sriov GC"
	sweep_delegate sgc kill "ib-sriov GC, its IPAM GC"
	print_stats
	gc_end
}

test_fault_ibsriov_gc() {
	gc_node || return
	baseline
	sweep sgc fault plugin "ib-sriov GC"
	sweep_delegate sgc fault "ib-sriov GC, its IPAM GC"
	print_stats
	gc_end
}

# A delegate slow to start when ib-sriov ADD is killed, and the runtime's
# DEL at once: the orphaned delegate must not lease after that DEL (it dies
# with its plugin), or the address leaks until a GC.
test_killed_add_takes_its_delegate_along() {
	local pid i
	sriov_node || return
	baseline
	mkdir -p "$T/slow"
	cat >"$T/slow/ib-host-local" <<EOS
#!/bin/bash
: >"$T/slow/started"
sleep 1
exec "$BIN/ib-host-local"
EOS
	chmod 0755 "$T/slow/ib-host-local"
	env -i PATH="$PATH" CNI_COMMAND=ADD CNI_CONTAINERID=ctr1 CNI_NETNS=/run/netns/pod1 \
		CNI_IFNAME=net1 CNI_PATH="$T/slow:$BIN" "$BIN/ib-sriov" <<<"$CONF" >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 100); do [ -e "$T/slow/started" ] && break; sleep 0.05; done
	[ -e "$T/slow/started" ] || fail "the delegate never started"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	run_plugin ib-sriov DEL ctr1 pod1 net1 "$CONF"
	assert_eq 0 "$RC" "DEL right after the kill ($OUT)"
	sleep 2	# past the delegate's start, had it survived
	POINT="orphaned delegate"
	converged
	assert_eq "" "$(ls "$T/leases/$NET" | grep -e '^10\.' -e '^fd')" "leases after the orphan's time"
}

# --- railTable "auto" and railSysctls: each rule is recorded before it is
# added (ib-sriov/rail.c), so a kill between the two leaves a rule the
# record names; a retried ADD or a DEL must remove it from the pod. ---

RAIL_KEYS='"railTable":"auto","railSysctls":true'
RETRY_N=0 RETRY_DEL_ONLY=0

# ctr1's rail: its source rule, one per address, in the auto table (when
# the NAD asks for one).
railed() { # WHAT
	local n
	[[ $CONF == *railTable* ]] || return 0
	n=$(ip -n pod1 -j rule | jq '[.[] | select(.priority != 0 and .priority < 32766)] | length')
	n=$((n + $(ip -n pod1 -6 -j rule | jq '[.[] | select(.priority != 0 and .priority < 32766)] | length')))
	[ "$n" = 2 ] || cfail "$1: $n rail rules in pod1, want 2: $(ip -n pod1 rule | tr '\n' ' ')"
}

# After a kill, the runtime retries the ADD (then DELs) or DELs at once:
# every other point each way.
kill_retry() {
	RETRY_N=$((RETRY_N + 1))
	if [ $((RETRY_N % 2)) = 0 ]; then
		RETRY_DEL_ONLY=$((RETRY_DEL_ONLY + 1))
		sadd_del
		return
	fi
	sadd_run
	if [ "$RC" = 0 ]; then
		RETRY_ADD_OK=$((RETRY_ADD_OK + 1))
		attached "retried ADD"
		railed "retried ADD"
	elif [ "$(jq -r .msg <<<"$OUT" 2>/dev/null)" = "already attached" ]; then
		RETRY_ADD_ATTACHED=$((RETRY_ADD_ATTACHED + 1))
		attached "retried ADD (already attached)"
		railed "retried ADD (already attached)"
	else
		cfail "retried ADD: rc $RC $OUT"
	fi
	sadd_del
}

radd_prep() { sadd_prep; }
radd_run() { sadd_run; }
radd_after() {
	[ "$RC" = 0 ] && railed "ADD"
	sadd_after
}
radd_retry() { kill_retry; }
radd_check() { sadd_check; }

retry_stats() {
	STATS+="    after a kill: $((RETRY_N - RETRY_DEL_ONLY)) retried ADDs ($RETRY_ADD_OK succeeded, $RETRY_ADD_ATTACHED found it complete), $RETRY_DEL_ONLY DELs at once"$'\n'
	print_stats
}

test_kill_ibsriov_add_rails() {
	sriov_node eth "$RAIL_KEYS" || return
	baseline
	sweep radd kill plugin "ib-sriov ADD, rails"
	retry_stats
}

test_fault_ibsriov_add_rails() {
	sriov_node eth "$RAIL_KEYS" || return
	baseline
	sweep sadd fault plugin "ib-sriov ADD, rails"
	print_stats
}

test_kill_ibsriov_del_rails() {
	sriov_node eth "$RAIL_KEYS" || return
	baseline
	sweep sdel kill plugin "ib-sriov DEL, rails"
	print_stats
}

# --- waitPortActiveMs: the VF's port INIT when the ADD starts, ACTIVE
# 150 ms later (as a subnet manager configures it); the sleeps between the
# polls are kill points too. ---

PORT_FLIP=
port_set() { # STATE PHYS: VF 0/1's port 1 in the simulated sysfs
	local d
	d=/sys/bus/pci/devices/$(sim_vf_addr 0 1)/infiniband/mlx5_0_1/ports/1
	echo "$1" >"$d/state.new" && mv "$d/state.new" "$d/state"
	echo "$2" >"$d/phys_state"
}
port_active() { # the flip done (or made now): ACTIVE
	[ -n "$PORT_FLIP" ] && wait "$PORT_FLIP" 2>/dev/null
	PORT_FLIP=
	port_set "4: ACTIVE" "5: LinkUp"
}

WAIT_KILLS=0
wadd_prep() {
	port_active
	port_set "2: INIT" "5: LinkUp"
	(sleep 0.15 && port_set "4: ACTIVE" "5: LinkUp") &
	PORT_FLIP=$!
}
wadd_run() { sadd_run; }
wadd_after() {
	port_active
	sadd_after
}
wadd_retry() { # ADD once the port is ACTIVE, or DEL at once
	[[ $POINT == *nanosleep* ]] && WAIT_KILLS=$((WAIT_KILLS + 1))
	port_active
	kill_retry
}
wadd_check() { sadd_check; }

test_kill_ibsriov_add_portwait() {
	local KILL_SET=$KILL_SET,nanosleep,clock_nanosleep
	sriov_node ib '"waitPortActiveMs":3000' || return
	baseline
	sweep wadd kill plugin "ib-sriov ADD, waitPortActiveMs"
	port_active
	STATS+="    kills in a sleep of the wait: $WAIT_KILLS"$'\n'
	retry_stats
}
