# SPDX-License-Identifier: Apache-2.0
# A late DEL or GC of a pod gone without DEL (ib-sriov/release/release.c
# ibsriov_release_held): it read the pod's record, then the next pod's ADD
# healed that record and took the VF before the late command got the VF
# lock. The late command's flock(2) calls are held up with strace's fault
# injection so that the ADD runs in between, every time.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

LATE_REC=/var/lib/cni/ibcni/ib-sriov

# late_start CMD ID IFNAME CONF RECORD: the plugin in the background under
# strace (each flock(2) held up 4 s before it enters, netlink requests
# decoded into $T/late/trace); returns once it has opened RECORD.
late_start() {
	local dir=$T/late i ns="" id=$2 ifname=$3
	mkdir -p "$dir"
	[ "$1" = GC ] && id="" ifname=""
	(
		T=$dir
		# (LeakSanitizer cannot run under ptrace: a SAN=1 build's leak
		# check is off for this run only.)
		IBCNI_WRAP="ASAN_OPTIONS=detect_leaks=0 strace -qq -o $dir/trace -e trace=openat,flock,sendmsg,sendto -e inject=flock:delay_enter=4000000"
		cni_exec ib-sriov "$1" "$id" "$ns" "$ifname" "$4"
		printf '%s\n' "$RC" >"$dir/rc"
		printf '%s' "$OUT" >"$dir/out"
		printf '%s' "$ERR" >"$dir/err"
	) &
	LATE=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "\"$5\"" "$dir/trace" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "the late $1 never opened $5"
}

# late_race CMD CONF: pod1 gone without DEL, a late CMD of it (or of the
# network, for GC) that read pod1's record, pod2's ADD healing it and
# taking the VF meanwhile; then what the late command did is judged on
# pod2's interface and record and on the requests the late command sent.
late_race() {
	local cmd=$1 late_conf=$2 conf plain link rec
	sim_node 1 3 eth
	pod_ns pod1; pod_ns pod2
	conf=$(sriov_conf "" '"mtu":1400,"mac":"02:11:22:33:44:55"')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD of pod1 ($OUT)"
	plain=$(cat "$LATE_REC/ctr1:net1")
	# What an ADD with "vlan": 5 records on a real PF (a veth PF takes no
	# VF setting): the late command's copy says to put VLAN 0 back.
	jq -c '. + {vf_orig: {mask: 2, vlan: 0}, vf_changed: 2}' <<<"$plain" >"$LATE_REC/ctr1:net1"
	gone_without_del pod1 net1 vf0_1
	late_start "$cmd" ctr1 net1 "$late_conf" ctr1:net1
	# Back as ADD wrote it (renamed over: the late command's open file
	# keeps the copy it read), so that the heal has nothing to refuse.
	printf '%s' "$plain" >"$LATE_REC/.plain" && mv "$LATE_REC/.plain" "$LATE_REC/ctr1:net1"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "ADD of pod2, healing pod1's record ($OUT)"
	assert_eq "ctr2:net1" "$(records)" "records after the heal"
	[ -e "$T/late/rc" ] && fail "the late $cmd finished before pod2's ADD: no race was forced"
	link=$(ip -n pod2 -j link show net1 | jq -c '.[0] | [.ifname,.ifindex,.address,.mtu,.operstate]')
	rec=$(cat "$LATE_REC/ctr2:net1")
	wait "$LATE"
	grep -q 'flock(.*DELAYED' "$T/late/trace" || fail "the late $cmd's lock was not held up"
	grep -E 'RTM_NEWLINK|IFLA_VFINFO_LIST|IFLA_VF_' "$T/late/trace" &&
		fail "the late $cmd sent link requests for pod1's stale record"
	assert_eq "$link" "$(ip -n pod2 -j link show net1 | jq -c '.[0] | [.ifname,.ifindex,.address,.mtu,.operstate]')" \
		"pod2's net1 after the late $cmd"
	assert_eq "$rec" "$(cat "$LATE_REC/ctr2:net1")" "pod2's record after the late $cmd"
	assert_eq "ctr2:net1" "$(records)" "records after the late $cmd"
	assert_no_link host vf0_1
	assert_no_link host net1
	assert_eq "0" "$(cat "$T/late/rc")" "the late $cmd ($(cat "$T/late/out"))"
	assert_match "net1 of container ctr1 was released by another since it was read \(VF $(sim_vf_addr 0 1)\): nothing to undo" \
		"$(cat "$T/late/err")" "the late $cmd's log"
}

test_late_del_leaves_the_vf_another_pod_took() {
	late_race DEL "$(sriov_conf "")"
}

test_late_gc_leaves_the_vf_another_pod_took() {
	local gc
	gc=$(sriov_conf "")
	gc="${gc%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"ctr2\",\"ifname\":\"net1\"}]}"
	late_race GC "$gc"
	grep -q "released stale attachment" "$T/late/err" && fail "GC says it released ctr1:net1"
	return 0
}

# The same name by a later ADD (its record's "gen" another) while a DEL
# waited for the lock: that DEL was for the attachment it read, not this one.
test_late_del_leaves_a_later_add_of_the_same_name() {
	local conf later link
	sim_node 1 3 eth
	pod_ns pod1
	conf=$(sriov_conf "")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT)"
	later=$(jq -c '.gen = "1.000000001"' "$LATE_REC/ctr1:net1")
	late_start DEL ctr1 net1 "$conf" ctr1:net1
	printf '%s' "$later" >"$LATE_REC/.later" && mv "$LATE_REC/.later" "$LATE_REC/ctr1:net1"
	link=$(ip -n pod1 -j link show net1 | jq -c '.[0] | [.ifname,.ifindex,.address,.mtu,.operstate]')
	wait "$LATE"
	grep -E 'RTM_NEWLINK|IFLA_VFINFO_LIST|IFLA_VF_' "$T/late/trace" &&
		fail "the late DEL sent link requests for the later attachment"
	assert_eq "$link" "$(ip -n pod1 -j link show net1 | jq -c '.[0] | [.ifname,.ifindex,.address,.mtu,.operstate]')" \
		"pod1's net1 after the late DEL"
	assert_eq "$later" "$(cat "$LATE_REC/ctr1:net1")" "the later record"
	assert_eq "0" "$(cat "$T/late/rc")" "the late DEL ($(cat "$T/late/out"))"
	assert_match "nothing to undo" "$(cat "$T/late/err")" "the late DEL's log"
}
