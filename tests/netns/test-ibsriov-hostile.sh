# SPDX-License-Identifier: Apache-2.0
# ib-sriov against a hostile pod (CAP_NET_ADMIN in its own netns) and
# against records it did not write, on the simulated node. A real VF is
# recognised by the kernel's PCI parent (the igb vm tier); the simulated
# node's veth VFs have none, so here the recorded ifindex and the VF's
# peer on the host are what tells the VF from a fake.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

hostile_add() { # -> the VF's ifindex; ADD of vf0_1 as net1 into pod1
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "ADD ($OUT)"
}

host_links() {
	ip -j link show | jq -r '.[].ifname' | sort | tr '\n' ' '
}

test_pod_swaps_vf_for_veth() {
	local mac before_links
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	hostile_add
	before_links=$(host_links)
	# The pod hides the VF under another name and offers a veth as net1.
	ip -n pod1 link set net1 down
	ip -n pod1 link set net1 name stolen
	ip -n pod1 link add net1 type veth peer name trap
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "DEL ($OUT $ERR)"
	# The real VF (found by its recorded ifindex) came back; the veth did not.
	vf_as_found vf0_1 "$mac" 1500
	assert_link pod1 net1 '.link_type' '"ether"'
	assert_link pod1 trap '.ifname' '"trap"'
	assert_no_link pod1 stolen
	assert_eq "$before_links" "$(host_links | sed 's/vf0_1 //')" "no pod link on the host"
}

test_pod_forges_the_vf_ifindex() {
	local idx before_links
	sim_node 1 2 eth
	pod_ns pod1
	hostile_add
	idx=$(ip -n pod1 -j link show net1 | jq '.[0].ifindex')
	before_links=$(host_links)
	# The VF leaves for a namespace of the pod's own; a veth takes its
	# name and its ifindex, with its peer inside the pod.
	ip netns add jail
	ip -n pod1 link set net1 netns jail
	ip -n pod1 link add net1 index "$idx" type veth peer name trap
	assert_link pod1 net1 '.ifindex' "$idx"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "DEL ($OUT $ERR)"
	assert_match "is not VF 0000:03:01.1: left where it is" "$ERR" "refusal logged"
	assert_eq "$before_links" "$(host_links)" "nothing moved to the host"
	assert_link pod1 net1 '.ifindex' "$idx"
	assert_no_link host ibcni"$idx"
	ip netns del jail
}

test_rollback_never_takes_a_fake() {
	# ADD's own rollback goes through the same check: an IPAM failure after
	# the pod swapped the VF brings back only the VF.
	local mac
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	cat >"$T/ipam-swap" <<EOF
#!/bin/sh
ip -n pod1 link set net1 down
ip -n pod1 link set net1 name stolen
ip -n pod1 link add net1 type veth peer name trap
echo '{"code":11,"msg":"after the swap"}'
exit 1
EOF
	chmod +x "$T/ipam-swap"
	CNI_PATH_OVERRIDE="$BIN:$T" cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ipam-swap)"
	assert_json '[.code,.msg]' '[11,"after the swap"]'
	vf_as_found vf0_1 "$mac" 1500
	assert_link pod1 net1 '.ifname' '"net1"'
	assert_no_link host trap
}

test_record_of_another_attachment_is_ignored() {
	# A record whose stored tuple is not the request's (a name collision or
	# a planted file) is never undone by this request.
	sim_node 1 2 eth
	pod_ns pod1
	hostile_add
	local rec=/var/lib/cni/ibcni/ib-sriov/ctr1:net1
	jq -c '.containerID="ctr9"' "$rec" >"$T/r" && cat "$T/r" >"$rec"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_link pod1 net1 '.ifname' '"net1"'
	[ -f "$rec" ] || fail "the other attachment's record was removed"
}

test_long_names_refused() {
	sim_node 1 2 eth
	pod_ns pod1
	local id
	id=$(head -c 250 /dev/zero | tr '\0' a)
	cni_exec ib-sriov ADD "$id" pod1 net1 "$(sriov_conf "")"
	assert_json '[.code,.msg]' '[4,"invalid attachment name"]'
	assert_link host vf0_1 '.ifname' '"vf0_1"'
	cni_exec ib-sriov DEL "$id" pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "DEL of a name no ADD could record"
}

test_unfinished_add_is_undone_before_retry() {
	# A first attempt killed after the VF went down under its temporary
	# name: the retry undoes it from the record, then starts afresh, so the
	# final DEL restores the VF as the first attempt found it.
	local mac idx
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	ip link set vf0_1 up
	idx=$(ip -j link show vf0_1 | jq '.[0].ifindex')
	hostile_add
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	# Replay the state of a killed ADD: record written, VF down and renamed.
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")"
	local rec=/var/lib/cni/ibcni/ib-sriov/ctr1:net1
	jq -c 'del(.complete)' "$rec" >"$T/r" && cat "$T/r" >"$rec"
	ip -n pod1 link set net1 down
	ip -n pod1 link set net1 name ibcni"$idx"
	ip -n pod1 link set ibcni"$idx" netns $$
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "retried ADD ($OUT $ERR)"
	assert_match "undoing an unfinished ADD" "$ERR" "retry undid the first attempt"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	assert_link host vf0_1 '[.address,.operstate!="DOWN"]' "[\"$mac\",true]"
}

test_complete_attachment_not_added_twice() {
	sim_node 1 2 eth
	pod_ns pod1
	hostile_add
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_json '[.code,.msg]' '[7,"already attached"]'
	assert_link pod1 net1 '.ifname' '"net1"'
}

# A data directory that never answers (a FUSE mount whose daemon does not
# read: it stands for a FUSE or NFS volume that hangs): the IPAM, exec'ed or
# built in, is killed at the delegate's deadline and ADD rolls back whole.
test_stuck_data_dir_times_out() {
	local mac mode t0 took conf
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	mkdir -p /var/lib/cni/networks/stuck
	exec 3<>/dev/fuse
	mount -t fuse -o fd=3,rootmode=40000,user_id=0,group_id=0 stuck /var/lib/cni/networks/stuck ||
		{ fail "cannot mount a FUSE file system"; return; }
	conf=$(sriov_conf ib-host-local | jq -c '.ipam.dataDir = "/var/lib/cni/networks/stuck"')
	for mode in exec builtin; do
		t0=$(date +%s%N)
		IBCNI_DELEGATE_TIMEOUT_MS=1500 IBCNI_DELEGATE_EXEC=$([ $mode = exec ] && echo 1) \
			cni_exec ib-sriov ADD ctr-$mode pod1 net1 "$conf"
		took=$((($(date +%s%N) - t0) / 1000000))
		assert_eq 1 "$RC" "$mode: ADD fails"
		assert_json '[.code,.msg]' '[103,"delegated plugin timed out"]'
		# The IPAM's ADD, then the rollback's IPAM DEL: two deadlines at most.
		[ "$took" -lt 10000 ] || fail "$mode: ADD took $took ms"
		vf_as_found vf0_1 "$mac" 1500
		assert_no_link pod1 net1
	done
	umount -l /var/lib/cni/networks/stuck
	exec 3>&-
}

# --- what the pod did to its VF never outlives DEL (T2, T3) ---

# What the pod may change on its VF and DEL puts back, as `ip -d -j` shows it.
vf_attrs() { # NETNS NAME
	local ns=()
	[ "$1" = host ] || ns=(-n "$1")
	ip "${ns[@]}" -d -j link show dev "$2" | jq -c '.[0] | {ifalias, group, txqlen,
		gso_max_size, gso_max_segs, gro_max_size, altnames,
		flags: [.flags[] | select(. == "NOARP" or . == "MULTICAST" or . == "PROMISC" or . == "ALLMULTI")]}'
}

# Everything of the list above set to something else, in the pod.
spoil_vf() { # NETNS NAME
	ip -n "$1" link set "$2" alias $'A\e[31mred' group 7 promisc on arp off multicast off \
		allmulticast off txqueuelen 5 gso_max_size 1000 gso_max_segs 10 gro_max_size 2000
	ip -n "$1" link property add dev "$2" altname tenantA
}

# 300 altnames on NAME in NETNS: eth0, and every ibcni<N> the old temporary
# names took (each a host name the VF would squat once back).
squat_altnames() { # NETNS NAME
	{
		echo "link property add dev $2 altname eth0"
		for i in $(seq 1 300); do echo "link property add dev $2 altname ibcni$i"; done
	} | ip -n "$1" -batch -
}

# The host's VF with values of its own (not the kernel's defaults), so that
# "restored" means "as recorded", not "reset".
host_vf_values() { # NAME
	ip link set "$1" alias host-alias group 3 txqueuelen 900 gso_max_size 60000 \
		gso_max_segs 1000 gro_max_size 50000 allmulticast on
}

test_altnames_never_reach_the_host() {
	# R2: tenant A gives its VF 301 alternative names, eth0 and the old
	# temporary-name pattern among them; none reaches the host, and the other
	# tenants' ADD and DEL go on.
	local ca cb cc
	sim_node 1 3 eth
	pod_ns podA; pod_ns podB; pod_ns podC
	ca=$(sriov_conf "" "" "" "$(sim_vf_addr 0 1)")
	cb=$(sriov_conf "" "" "" "$(sim_vf_addr 0 2)")
	cc=$(sriov_conf "" "" "" "$(sim_vf_addr 0 0)")
	cni_exec ib-sriov ADD ctrB podB net1 "$cb"
	assert_eq 0 "$RC" "tenant B ADD ($OUT)"
	cni_exec ib-sriov ADD ctrA podA net1 "$ca"
	assert_eq 0 "$RC" "tenant A ADD ($OUT)"
	squat_altnames podA net1
	assert_eq 301 "$(ip -n podA -d -j link show net1 | jq '.[0].altnames | length')" "altnames set"
	cni_exec ib-sriov DEL ctrA podA net1 "$ca"
	assert_eq 0 "$RC" "tenant A DEL ($OUT $ERR)"
	assert_link host vf0_1 '[.ifname,.altnames]' '["vf0_1",null]'
	assert_no_link host eth0
	assert_no_link host ibcni1
	cni_exec ib-sriov DEL ctrB podB net1 "$cb"
	assert_eq 0 "$RC" "tenant B DEL ($OUT $ERR)"
	assert_link host vf0_2 '.ifname' '"vf0_2"'
	cni_exec ib-sriov ADD ctrC podC net1 "$cc"
	assert_eq 0 "$RC" "tenant C ADD ($OUT)"
	cni_exec ib-sriov DEL ctrC podC net1 "$cc"
	assert_eq 0 "$RC" "tenant C DEL ($OUT $ERR)"
	vf_as_found vf0_0 "$(ip -j link show vf0_0 | jq -r '.[0].address')" 1500
}

test_pod_changes_to_the_vf_are_undone() {
	# R2b: alias (escape codes), group, promisc, NOARP, multicast off,
	# allmulti off, txqueuelen, gso/gro limits and an altname set in the pod:
	# after DEL the host's VF has what ADD recorded, and the next tenant
	# gets it so.
	local want got
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2
	host_vf_values vf0_1
	want=$(vf_attrs host vf0_1)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "tenant A ADD ($OUT)"
	spoil_vf pod1 net1
	[ "$(vf_attrs pod1 net1)" != "$want" ] || fail "the pod's changes did not take"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "tenant A DEL ($OUT $ERR)"
	assert_eq "$want" "$(vf_attrs host vf0_1)" "the host's VF as recorded"
	assert_link host vf0_1 '.operstate' '"DOWN"'
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "tenant B ADD ($OUT)"
	assert_eq "$want" "$(vf_attrs pod2 net1)" "the next tenant's VF"
	got=$(ip -n pod2 -d link show net1 | cat -v)
	[[ $got != *'^['* ]] || fail "escape codes reached the next tenant: $got"
}

test_decoy_named_like_a_temporary_name() {
	# R3: links in the pod named like every name DEL could use on the way
	# out (the old ibcni<ifindex>, the kernel's devN, the VF's host name):
	# DEL succeeds, and GC of a second attachment too.
	local idx mac
	sim_node 1 2 eth
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "ADD ($OUT)"
	idx=$(ip -n pod1 -j link show net1 | jq '.[0].ifindex')
	ip -n pod1 link add ibcni"$idx" type veth peer name decoy
	ip -n pod1 link add dev0 type veth peer name vf0_1
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "DEL ($OUT $ERR)"
	vf_as_found vf0_1 "$mac" 1500
	assert_link pod1 ibcni"$idx" '.ifname' "\"ibcni$idx\""
	# Again, released by GC this time.
	cni_exec ib-sriov ADD ctr2 pod1 net2 "$(sriov_conf "")"
	assert_eq 0 "$RC" "second ADD ($OUT)"
	idx=$(ip -n pod1 -j link show net2 | jq '.[0].ifindex')
	ip -n pod1 link add ibcni"$idx" type veth peer name decoy2
	cni_exec ib-sriov GC "" "" "" '{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","cni.dev/valid-attachments":[]}'
	assert_eq 0 "$RC" "GC ($OUT $ERR)"
	vf_as_found vf0_1 "$mac" 1500
}

# An IPAM that, on ADD, lets the pod do all of the above to its VF, then fails.
hostile_ipam() {
	{
		echo '#!/bin/bash'
		echo '[ "$CNI_COMMAND" = ADD ] || { echo "{}"; exit 0; }'
		declare -f spoil_vf squat_altnames
		cat <<'EOS'
spoil_vf pod1 net1 >&2
squat_altnames pod1 net1 >&2
idx=$(ip -n pod1 -j link show net1 | jq '.[0].ifindex')
ip -n pod1 link add ibcni$idx type veth peer name decoy >&2
ip -n pod1 link add dev0 type veth peer name vf0_1 >&2
echo '{"code":11,"msg":"after the pod spoilt its VF"}'
exit 1
EOS
	} >"$T/ipam-hostile"
	chmod +x "$T/ipam-hostile"
}

test_rollback_undoes_the_pods_changes() {
	# The same through ADD's own rollback: an IPAM failure after the pod
	# changed everything, squatted names and planted decoys.
	local want mac
	sim_node 1 2 eth
	pod_ns pod1
	host_vf_values vf0_1
	want=$(vf_attrs host vf0_1)
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	hostile_ipam
	CNI_PATH_OVERRIDE="$BIN:$T" cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ipam-hostile)"
	assert_json '[.code,.msg]' '[11,"after the pod spoilt its VF"]'
	vf_as_found vf0_1 "$mac" 1500
	assert_eq "$want" "$(vf_attrs host vf0_1)" "the host's VF as recorded"
	assert_no_link host eth0
	assert_link pod1 dev0 '.ifname' '"dev0"'
}

test_killed_add_temp_removed_by_del() {
	# An ADD killed while writing its first record leaves only that
	# record's temp file (nothing changed yet). The runtime's DEL of the
	# attachment removes that one name, and nothing else: not another
	# attachment's temp file (its ADD may be writing it), not its record.
	sim_node 1 2 eth
	pod_ns pod1
	local d=/var/lib/cni/ibcni/ib-sriov r=/var/lib/cni/rdma-ns others
	cni_exec ib-sriov ADD ctr2 pod1 net2 "$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 0)")"
	assert_eq 0 "$RC" "another attachment's ADD ($OUT)"
	printf '{"version":2,"network":"rdma-net","containerID":"ctr1","ifn' >"$d/.ctr1:net1.tmp"
	printf '{"version":2' >"$d/.ctr2:net2.tmp"
	others=$(ls -A "$d" | grep -v '^\.ctr1:net1\.tmp$')
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ ! -e "$d/.ctr1:net1.tmp" ] || fail "the killed ADD's temp file outlived its DEL"
	assert_eq "$others" "$(ls -A "$d")" "everything else kept"
	assert_match 'left by a killed ADD' "$ERR" "logged"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "second DEL ($OUT)"
	# rdma-ns names its records <network>:<containerID>:<ifname>.
	mkdir -m 0700 -p "$r"
	printf '{"network":"rdma-net"' >"$r/.rdma-net:ctr1:net1.tmp"
	printf '{"network":"rdma-net"' >"$r/.rdma-net:ctr9:net1.tmp"
	cni_exec rdma-ns DEL ctr1 pod1 net1 \
		'{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"'"$(sim_vf_addr 0 1)"'"}'
	assert_eq 0 "$RC" "rdma-ns DEL ($OUT)"
	assert_eq ".rdma-net:ctr9:net1.tmp" "$(ls -A "$r")" "only rdma-ns's own temp removed"
	cni_exec ib-sriov DEL ctr2 pod1 net2 "$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 0)")"
	assert_eq 0 "$RC" "DEL of the other attachment ($OUT)"
}

test_one_attachment_per_mac() {
	# R8: tenant B asks for the MAC tenant A's VF has (A set none). B is
	# refused before anything changes, naming the key, the value and A;
	# each source of a MAC (mac, CNI_ARGS MAC, runtimeConfig.mac) alike,
	# and a MAC A asked for itself. After A's DEL, B gets it.
	sim_node 1 2 eth
	pod_ns podA; pod_ns podB
	local mac before a b
	mac=$(ip -j link show vf0_0 | jq -r '.[0].address')
	a=$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 0)")
	b=$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 1)")
	cni_exec ib-sriov ADD ctrA podA net1 "$a"
	assert_eq 0 "$RC" "A ($OUT)"
	before=$(host_state)
	cni_exec ib-sriov ADD ctrB podB net1 "${b%\}},\"mac\":\"$mac\"}"
	assert_json '[.code,.msg]' '[7,"the MAC is held by another attachment"]'
	assert_json .details "\"mac is $mac, which net1 of container ctrA (network rdma-net, device $(sim_vf_addr 0 0)) holds: one attachment per MAC on the node; give this network another, or DEL that attachment\""
	assert_host_unchanged "$before" "B refused"
	assert_no_link podB net1
	cni_exec ib-sriov ADD ctrB podB net1 "$b" "IgnoreUnknown=1;MAC=$mac"
	assert_match '^CNI_ARGS MAC is ' "$(jq -r .details <<<"$OUT")" "CNI_ARGS named"
	cni_exec ib-sriov ADD ctrB podB net1 "${b%\}},\"runtimeConfig\":{\"mac\":\"${mac^^}\"}}"
	assert_match '^runtimeConfig.mac is ' "$(jq -r .details <<<"$OUT")" "runtimeConfig named"
	assert_host_unchanged "$before" "B refused three times"
	# A MAC the holder asked for itself is held as well; another is free.
	cni_exec ib-sriov DEL ctrA podA net1 "$a"
	cni_exec ib-sriov ADD ctrA podA net1 "${a%\}},\"mac\":\"02:00:00:00:aa:01\"}"
	assert_eq 0 "$RC" "A with its own MAC ($OUT)"
	cni_exec ib-sriov ADD ctrB podB net1 "${b%\}},\"mac\":\"02:00:00:00:aa:01\"}"
	assert_json '.code' 7
	cni_exec ib-sriov ADD ctrB podB net1 "${b%\}},\"mac\":\"02:00:00:00:aa:02\"}"
	assert_eq 0 "$RC" "B with another MAC ($OUT)"
	cni_exec ib-sriov DEL ctrB podB net1 "$b"
	cni_exec ib-sriov DEL ctrA podA net1 "$a"
	cni_exec ib-sriov ADD ctrB podB net1 "${b%\}},\"mac\":\"$mac\"}"
	assert_eq 0 "$RC" "B after A's DEL ($OUT)"
	assert_link podB net1 '.address' "\"$mac\""
	cni_exec ib-sriov DEL ctrB podB net1 "$b"
}

test_one_attachment_per_mac_old_record() {
	# A record of the previous build carries no "mac": the holder's MAC is
	# the VF's as its ADD found it (that ADD set none).
	sim_node 1 2 eth
	pod_ns podA; pod_ns podB
	local mac rec=/var/lib/cni/ibcni/ib-sriov/ctrA:net1 a b
	mac=$(ip -j link show vf0_0 | jq -r '.[0].address')
	a=$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 0)")
	b=$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 1)")
	cni_exec ib-sriov ADD ctrA podA net1 "$a"
	jq -e .mac "$rec" >/dev/null || fail "the record notes the MAC"
	jq -c 'del(.mac)' "$rec" >"$T/r" && cat "$T/r" >"$rec"
	cni_exec ib-sriov ADD ctrB podB net1 "${b%\}},\"mac\":\"$mac\"}"
	assert_json '[.code,.msg]' '[7,"the MAC is held by another attachment"]'
	cni_exec ib-sriov DEL ctrA podA net1 "$a"
	assert_eq 0 "$RC" "A's DEL ($OUT)"
}
