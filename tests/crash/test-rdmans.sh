# SPDX-License-Identifier: Apache-2.0
# rdma-ns where this kernel allows (it has no RDMA subsystem, so the moves
# themselves are the vm tier's): ADD up to its refusal, and DEL of the
# records an ADD on an RDMA kernel leaves (ours, and rdma-cni's cache entry
# from before an upgrade), killed at each point and failed at each fault.

RPREV='"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}],"ips":[{"address":"10.1.0.5/24","interface":0}]}'
RCONF=

rdmans_node() {
	sim_node 1 2 ib || return 1
	pod_ns pod1
	wrap_init
	RCONF=$(printf '{"cniVersion":"1.1.0","name":"%s","type":"rdma-ns","deviceID":"%s"}' "$NET" "$(sim_vf_addr 0 1)")
	# The directories an earlier DEL leaves.
	rdel_prep
	rcni_prep
	rdel_run
	[ "$RC" = 0 ] || { fail "warm-up DEL: $OUT"; return 1; }
	run_plugin rdma-ns DEL ctr2 pod1 net1 "$RCONF"
	[ "$RC" = 0 ] || { fail "warm-up DEL of the rdma-cni entry: $OUT"; return 1; }
}

# --- ADD: refused (no RDMA subsystem) with nothing left behind ---

radd_prep() { :; }
radd_run() { run_plugin rdma-ns ADD ctr1 pod1 net1 "${RCONF%\}},$RPREV}"; }
radd_refused() { # WHAT
	[ "$(jq -c '[.code,.details]' <<<"$OUT" 2>/dev/null)" = \
		'[104,"the kernel has no RDMA subsystem (is ib_core loaded?)"]' ] ||
		cfail "$1: rc $RC $OUT"
}
radd_after() {
	radd_refused "ADD"
	rdel_run
	[ "$RC" = 0 ] || cfail "DEL: rc $RC $OUT"
}
radd_retry() {
	radd_run
	radd_after
}
radd_check() { converged; }

test_kill_rdmans_add() {
	rdmans_node || return
	baseline
	sweep radd kill plugin "rdma-ns ADD"
	print_stats
}

# --- DEL of our record ---

rdel_prep() {
	mkdir -p -m 0700 /var/lib/cni/rdma-ns
	printf '{"network":"%s","containerID":"ctr1","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		"$NET" >"/var/lib/cni/rdma-ns/$NET:ctr1:net1"
	chmod 0600 "/var/lib/cni/rdma-ns/$NET:ctr1:net1"
}
rdel_run() { run_plugin rdma-ns DEL ctr1 pod1 net1 "$RCONF"; }
rdel_after() { [ "$RC" = 0 ] || cfail "DEL: rc $RC $OUT"; }
rdel_retry() {
	rdel_run
	[ "$RC" = 0 ] || cfail "retried DEL: rc $RC $OUT"
}
rdel_check() { converged; }

test_kill_rdmans_del() {
	rdmans_node || return
	baseline
	sweep rdel kill plugin "rdma-ns DEL"
	print_stats
}

test_fault_rdmans_del() {
	rdmans_node || return
	baseline
	sweep rdel fault plugin "rdma-ns DEL"
	print_stats
}

# --- DEL of rdma-cni's cache entry ---

rcni_prep() {
	mkdir -p -m 0700 /var/lib/cni/rdma
	printf '{"version":"1.0","deviceID":"0000:03:01.1","sandboxRdmaDevName":"mlx5_0_1","containerRdmaDevName":"mlx5_0_1"}' \
		>"/var/lib/cni/rdma/$NET-ctr2-net1"
	chmod 0600 "/var/lib/cni/rdma/$NET-ctr2-net1"
}
rcni_run() { run_plugin rdma-ns DEL ctr2 pod1 net1 "$RCONF"; }
rcni_after() { rdel_after; }
rcni_retry() {
	rcni_run
	[ "$RC" = 0 ] || cfail "retried DEL: rc $RC $OUT"
}
rcni_check() { converged; }

test_kill_rdmans_del_rdmacni_entry() {
	rdmans_node || return
	baseline
	sweep rcni kill plugin "rdma-ns DEL, rdma-cni's entry"
	print_stats
}
