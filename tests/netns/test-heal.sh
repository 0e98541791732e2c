# SPDX-License-Identifier: Apache-2.0
# Self-healing without GC (ib-sriov/add/heal.c, release/gone.c, reconcile/): a pod gone without
# DEL, as the kernel leaves it, then the next ADD on its VF and the node agent.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

sysfs_follows() { # VF NAME: the simulated sysfs names the VF netdev NAME again
	local net=/sys/bus/pci/devices/$(sim_vf_addr 0 "${1#vf0_}")/net
	mv "$net"/* "$net/$2"
}

test_add_takes_the_vf_of_a_pod_gone_without_del() {
	local mac before conf
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	before=$(host_state)
	conf=$(sriov_conf ib-host-local '"mtu":1400,"mac":"02:11:22:33:44:55"')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD of the first pod ($OUT)"
	gone_without_del pod1 net1 vf0_1
	assert_link host net1 '[.mtu,.address]' '[1400,"02:11:22:33:44:55"]'
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "ADD on the VF of the pod gone without DEL ($OUT)"
	assert_match "released net1 of container ctr1 \(network rdma-net\): its netns /run/netns/pod1 is gone" \
		"$ERR" "one line names the old attachment"
	assert_eq "ctr2:net1" "$(records)" "the old record is gone"
	assert_eq "ctr2" "$(lease_owners "$T/leases/rdma-net")" "the old leases are gone"
	[ -e "$T/leases/rdma-net/10.56.0.2" ] && fail "the old address is still leased"
	assert_link pod2 net1 '[.mtu,.address]' '[1400,"02:11:22:33:44:55"]'
	assert_no_link host net1
	sysfs_follows vf0_1 vf0_1
	cni_exec ib-sriov DEL ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
	assert_host_unchanged "$before" "host after the second pod's DEL"
}

test_add_still_refuses_the_vf_of_a_live_pod() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2
	conf=$(sriov_conf ib-host-local)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT)"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	# As before: the VF netdev is in the live pod, not on the host.
	assert_json '[.code,.msg]' '[101,"the VF has no netdev"]'
	assert_eq "ctr1:net1" "$(records)" "the live pod's record stays"
	assert_eq "ctr1" "$(lease_owners "$T/leases/rdma-net")" "the live pod's lease stays"
	assert_link pod1 net1 '.ifname' '"net1"'
	# A vfio-bound VF has no netdev: the record of its live pod refuses it.
	ln -sfn ../../drivers/vfio-pci /sys/bus/pci/devices/$(sim_vf_addr 0 0)/driver
	conf=$(sriov_conf ib-host-local '"vfioPciMode":true' 1.1.0 "$(sim_vf_addr 0 0)")
	cni_exec ib-sriov ADD ctr3 pod1 net2 "$conf"
	assert_eq 0 "$RC" "vfio ADD ($OUT)"
	cni_exec ib-sriov ADD ctr4 pod2 net2 "$conf"
	assert_json '[.code,.msg]' '[101,"the device is attached already"]'
	assert_eq "ctr1:net1 ctr3:net2" "$(records)" "records"
	# Its pod gone: the next ADD takes it, with the lease.
	ip netns del pod1
	cni_exec ib-sriov ADD ctr4 pod2 net2 "$conf"
	assert_eq 0 "$RC" "vfio ADD after its pod is gone ($OUT)"
	assert_eq "ctr1:net1 ctr4:net2" "$(records)" "records after"
}

# A netns file that is there but not a namespace mount proves nothing: the
# runtime may have left it unmounted, or this mount view may not receive
# the runtime's mounts. Kept (refused as held) until the file is gone.
test_add_keeps_a_netns_file_left_unmounted_or_replaced() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1; pod_ns pod2; pod_ns pod3
	conf=$(sriov_conf ib-host-local)
	# The runtime's bind mount gone, the empty file left behind.
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	ip -n pod1 link set net1 netns $$
	mv /sys/bus/pci/devices/$(sim_vf_addr 0 1)/net/vf0_1 /sys/bus/pci/devices/$(sim_vf_addr 0 1)/net/net1
	umount /run/netns/pod1
	[ -f /run/netns/pod1 ] || fail "the unmounted netns file should stay"
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_json '[.code,.msg]' '[101,"the device is attached already"]'
	assert_match "cannot tell whether netns /run/netns/pod1 of ctr1:net1 is gone: the file is there but is not a namespace mount" \
		"$ERR" "the refusal's log says why"
	assert_eq "ctr1:net1" "$(records)" "records while the file is there"
	rm /run/netns/pod1
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "ADD once the unmounted file is gone ($OUT)"
	assert_eq "ctr2:net1" "$(records)" "records"
	sysfs_follows vf0_1 vf0_1
	# A FIFO in its place is never opened (no hang) and is not a netns.
	gone_without_del pod2 net1 vf0_1
	mkfifo /run/netns/pod2
	cni_exec ib-sriov ADD ctr3 pod3 net1 "$conf"
	assert_json '.code' '101'
	rm /run/netns/pod2
	cni_exec ib-sriov ADD ctr3 pod3 net1 "$conf"
	assert_eq 0 "$RC" "ADD once the FIFO is gone ($OUT)"
	assert_eq "ctr3:net1" "$(records)" "records"
	assert_eq "ctr3" "$(lease_owners "$T/leases/rdma-net")" "leases"
}

# --- a mount view without the runtime's netns mounts ---

# blind_view: $T/blind CMD... then runs CMD in a mount namespace of its own
# whose /run/netns holds an empty file for each netns there now (the names
# the runtime made, none of its nsfs mounts): the view of an agent container
# whose netns mount receives no propagation from the host. BLIND is what
# cni_exec's IBCNI_WRAP becomes: the view, then the tier's own wrapper if
# any (the arm64 tier's qemu-wrap.sh runs its aarch64 plugins).
blind_view() {
	local f
	mkdir -p "$T/view"
	for f in /run/netns/*; do : >"$T/view/${f##*/}"; done
	printf '#!/bin/sh\nexec unshare --mount --propagation private sh -c %s blind "$@"\n' \
		"'mount --bind $T/view /run/netns && exec \"\$@\"'" >"$T/blind"
	chmod +x "$T/blind"
	BLIND="$T/blind ${IBCNI_WRAP:-}"
}

vfio_vf() { # VF: the simulated VF bound to vfio-pci, no netdev
	local d=/sys/bus/pci/devices/$(sim_vf_addr 0 "$1")
	ln -sfn ../../drivers/vfio-pci "$d/driver"
	rm -rf "$d/net"
}

# pod1, alive, holding a vfio VF (net1, config $vfio) and a netdev VF (net2,
# config $net), and pod3 to ask for them: the blind-view tests' node.
live_pod_two_vfs() {
	sim_node 1 3 eth
	pod_ns pod1; pod_ns pod3
	vfio_vf 2
	vfio=$(sriov_conf "" '"vfioPciMode":true' 1.1.0 "$(sim_vf_addr 0 2)")
	net=$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 1)")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$vfio"
	assert_eq 0 "$RC" "vfio ADD of the live pod ($OUT)"
	cni_exec ib-sriov ADD ctr1 pod1 net2 "$net"
	assert_eq 0 "$RC" "netdev ADD of the live pod ($OUT)"
}

# A live pod holding a vfio VF and a netdev VF, seen from a view where its
# netns file is there but not a namespace mount: the healing ADD of another
# pod keeps it (refused as held by a live pod) and says why and the fix.
test_add_in_a_blind_view_keeps_the_live_pod() {
	local vfio net
	live_pod_two_vfs
	blind_view
	# The second pod's netns where the blind view still shows it.
	: >"$T/pod3" && mount --bind /run/netns/pod3 "$T/pod3"
	IBCNI_WRAP=$BLIND cni_exec ib-sriov ADD ctr3 "$T/pod3" net1 "$vfio"
	assert_json '[.code,.msg]' '[101,"the device is attached already"]'
	assert_match "cannot tell whether netns /run/netns/pod1 of ctr1:net1 is gone: .*mountPropagation: HostToContainer" \
		"$ERR" "the refusal's log names the fix"
	IBCNI_WRAP=$BLIND cni_exec ib-sriov ADD ctr3 "$T/pod3" net2 "$net"
	assert_json '.code' '101'
	assert_eq "ctr1:net1 ctr1:net2" "$(records)" "the live pod's records stay"
	assert_eq "ctr1" "$(lease_owners "$T/leases/rdma-net")" "the live pod's lease stays"
	assert_link pod1 net2 '.ifname' '"net2"'
	umount "$T/pod3"
}

# A record whose netns path now names another namespace than the one ADD
# recorded (netnsId; a recycled /proc/<pid>/ns/net): the pod's is gone, so
# the pass releases it without entering what is there; the path's own
# namespace, recorded, and a record of an older build (no netnsId) stay.
# The same for the path's device and inode with another namespace's cookie
# (an inode reused, on a kernel without namespace IDs: 0 in the record).
test_reconcile_rdmans_replaced_netns() {
	local dir=/var/lib/cni/rdma-ns pid other now cookie='import socket, struct
print(struct.unpack("Q", socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).getsockopt(socket.SOL_SOCKET, 71, 8))[0])'
	sim_node 1 2 eth
	pod_ns other
	pod_ns pod2
	ip netns exec pod2 sleep 100 &
	pid=$!
	other=$(stat -L -c '%d:%i' /run/netns/other)
	now=$(stat -L -c '%d:%i' /proc/$pid/ns/net)
	mkdir -p $dir && chmod 700 $dir
	rec() { # CID [NETNSID]
		printf '{"network":"rdma-net","containerID":"%s","ifname":"net1","netns":"/proc/%s/ns/net","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]%s}' \
			"$1" "$pid" "${2:+,\"netnsId\":\"$2\"}" >"$dir/rdma-net:$1:net1"
	}
	rec r1 "$other"
	rec r2 "$now"
	rec r3
	rec r4 "$now:0:$(ip netns exec other /usr/bin/python3 -c "$cookie")"
	rec r5 "$now:0:$(nsenter --net=/proc/$pid/ns/net /usr/bin/python3 -c "$cookie")"
	age $dir/*
	reconcile --dry-run
	assert_eq "reconcile: 5 records, would release 2, kept 3, skipped 0 (young/locked), leases freed 0 (dry run: nothing changed)" \
		"$(summary)" "dry-run summary"
	assert_match "would release rdma-net:r1:net1: its netns /proc/$pid/ns/net is gone \(another namespace is there now\)" "$ERR" "dry run's line"
	reconcile
	assert_eq "reconcile: 5 records, released 2, kept 3, skipped 0 (young/locked), leases freed 0" \
		"$(summary)" "summary"
	assert_match "/proc/$pid/ns/net is now another network namespace \(recorded $other, found $now(:[0-9]+)?\)" "$ERR" "the log line"
	assert_match "/proc/$pid/ns/net is now another network namespace \(recorded $now:0:[0-9]+, found $now:[0-9]+:[0-9]+\)" "$ERR" "the cookie's log line"
	assert_eq "rdma-net:r2:net1 rdma-net:r3:net1 rdma-net:r5:net1" "$(ls $dir | tr '\n' ' ' | sed 's/ $//')" "rdma-ns records"
	kill "$pid"
	wait "$pid" 2>/dev/null
}

# --- the node agent: ib-sriov reconcile ---

reconcile() { # ARGS...: the agent, as the DaemonSet runs it (no CNI_* variables)
	OUT=$(env -i PATH="$PATH" "$BIN/ib-sriov" reconcile "$@" 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
}

age() { # FILE...: ten minutes old
	touch -d '-10 min' "$@"
}

summary() { # the pass's summary line, without the log prefix
	grep -o 'reconcile: [0-9]* records.*' <<<"$ERR" | tail -n1
}

# Everything a pass may change: links, records, leases.
node_state() {
	host_state
	find /var/lib/cni/rdma-ns "$T/leases" -type f 2>/dev/null | sort
	ip -all netns exec ip -br link 2>/dev/null | sort
}

test_reconcile_releases_the_stale_and_leaves_live_locked_young() {
	local conf i before lock
	sim_node 1 4 eth
	for i in 0 1 2 3; do
		pod_ns p$i
		conf=$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 $i)")
		cni_exec ib-sriov ADD c$i p$i net1 "$conf"
		assert_eq 0 "$RC" "ADD c$i ($OUT)"
	done
	# c0 stale; c1 alive; c2 stale but its VF locked (an ADD at work); c3
	# stale but younger than the grace.
	gone_without_del p0 net1 vf0_0
	gone_without_del p2 net1 vf0_2 dev2
	gone_without_del p3 net1 vf0_3 dev3
	age /var/lib/cni/ibcni/ib-sriov/c0:net1 /var/lib/cni/ibcni/ib-sriov/c2:net1
	lock=/run/ibcni/ib-sriov/vf-$(sim_vf_addr 0 2).lock
	[ -f "$lock" ] || fail "no lock file $lock"
	flock -o "$lock" sleep 60 &
	local holder=$!
	sleep 0.2
	before=$(node_state)
	reconcile --dry-run --grace 60
	assert_eq 0 "$RC" "dry run ($ERR)"
	assert_eq "reconcile: 4 records, would release 1, kept 1, skipped 2 (young/locked), leases freed 0 (dry run: nothing changed)" \
		"$(summary)" "dry-run summary"
	assert_match "would release net1 of container c0 \(network rdma-net, VF $(sim_vf_addr 0 0)\): its netns /run/netns/p0 is gone" "$ERR" "dry-run line"
	assert_eq "$before" "$(node_state)" "a dry run changes nothing"
	reconcile --grace 60
	assert_eq 0 "$RC" "pass ($ERR)"
	assert_eq "reconcile: 4 records, released 1, kept 1, skipped 2 (young/locked), leases freed 0" \
		"$(summary)" "summary"
	assert_match "released net1 of container c0 \(network rdma-net, VF $(sim_vf_addr 0 0)\): its netns /run/netns/p0 is gone" "$ERR" "release line"
	assert_match "skipped c2:net1: VF $(sim_vf_addr 0 2) is locked" "$ERR" "locked line"
	assert_match "skipped c3:net1: its netns /run/netns/p3 is gone, but the record is [0-9]+s old \(grace 60s\)" "$ERR" "young line"
	assert_eq "c1:net1 c2:net1 c3:net1" "$(records)" "records after the pass"
	assert_eq "c1 c2 c3" "$(lease_owners "$T/leases/rdma-net")" "leases after the pass"
	assert_link host vf0_0 '.ifname' '"vf0_0"'
	assert_link p1 net1 '.ifname' '"net1"'
	local child
	child=$(pgrep -P $holder)
	kill $holder; wait $holder 2>/dev/null
	[ -n "$child" ] && kill "$child"
	reconcile --grace 60
	assert_eq "reconcile: 3 records, released 1, kept 1, skipped 1 (young/locked), leases freed 0" \
		"$(summary)" "summary once the lock is free"
	assert_eq "c1:net1 c3:net1" "$(records)" "records after the second pass"
	reconcile --grace 0
	assert_eq "c1:net1" "$(records)" "records with no grace"
	assert_eq "c1" "$(lease_owners "$T/leases/rdma-net")" "leases with no grace"
	for i in 0 2 3; do assert_link host vf0_$i '.ifname' "\"vf0_$i\""; done
}

test_reconcile_every_ends_on_sigterm() {
	local pid start ms
	sim_node 1 1 eth
	env -i PATH="$PATH" "$BIN/ib-sriov" reconcile --every 30 2>"$T/stderr" &
	pid=$!
	for _ in $(seq 50); do grep -q 'reconcile: 0 records' "$T/stderr" && break; sleep 0.1; done
	assert_match 'reconcile: 0 records, released 0' "$(cat "$T/stderr")" "first pass at start"
	start=$(date +%s%N)
	kill -TERM $pid
	wait $pid
	assert_eq 0 $? "exit status on SIGTERM"
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -lt 2000 ] || fail "SIGTERM took $ms ms"
	reconcile --every 0
	assert_eq 2 "$RC" "--every 0 is a usage error"
	reconcile --grace
	assert_eq 2 "$RC" "--grace without a value"
	reconcile --bogus
	assert_eq 2 "$RC" "unknown argument"
}

test_reconcile_rdmans_records() {
	sim_node 1 2 eth
	pod_ns live
	mkdir -p /var/lib/cni/rdma-ns && chmod 700 /var/lib/cni/rdma-ns
	printf '%s' '{"network":"rdma-net","containerID":"r1","ifname":"net1","netns":"/run/netns/live","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/rdma-net:r1:net1
	printf '%s' '{"network":"rdma-net","containerID":"r2","ifname":"net1","netns":"/run/netns/gone","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		>/var/lib/cni/rdma-ns/rdma-net:r2:net1
	printf '%s' '{"network":"rdma-net","containerID":"r3","ifname":"net1","netns":"/run/netns/gone3","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		>/var/lib/cni/rdma-ns/rdma-net:r3:net1
	# Its netns file there, but not a namespace mount in this view.
	: >/run/netns/blind
	printf '%s' '{"network":"rdma-net","containerID":"r4","ifname":"net1","netns":"/run/netns/blind","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/rdma-net:r4:net1
	age /var/lib/cni/rdma-ns/*r1* /var/lib/cni/rdma-ns/*r2* /var/lib/cni/rdma-ns/*r4*
	reconcile --dry-run
	assert_eq "reconcile: 4 records, would release 1, kept 2, skipped 1 (young/locked), leases freed 0 (dry run: nothing changed)" \
		"$(summary)" "dry-run summary"
	assert_eq 4 "$(ls /var/lib/cni/rdma-ns | wc -l)" "a dry run removes nothing"
	reconcile
	assert_eq "reconcile: 4 records, released 1, kept 2, skipped 1 (young/locked), leases freed 0" \
		"$(summary)" "summary"
	assert_match "rdma-ns reconcile: released rdma-net:r2:net1 \(device 0000:03:01.1\): its netns /run/netns/gone is gone" "$ERR" "rdma-ns's line"
	assert_match "rdma-ns reconcile: kept 1 attachment\(s\) whose netns is in /run/netns: their files are there but are not namespace mounts.*mountPropagation: HostToContainer" \
		"$ERR" "rdma-ns's line for a file that is not a namespace mount"
	assert_eq "rdma-net:r1:net1 rdma-net:r3:net1 rdma-net:r4:net1" "$(ls /var/lib/cni/rdma-ns | tr '\n' ' ' | sed 's/ $//')" "rdma-ns records"
}

# host-local leases of owner ID/IFNAME in network rdma-net, as ib-host-local
# leases them for a pod whose network is not ib-sriov's.
lease_for() { # ID IFNAME
	cni_exec ib-host-local ADD "$1" alive "$2" \
		"{\"cniVersion\":\"1.0.0\",\"name\":\"rdma-net\",\"ipam\":{\"type\":\"ib-host-local\",\"dataDir\":\"$T/leases\",\"ranges\":[[{\"subnet\":\"10.56.0.0/24\"}]]}}"
	assert_eq 0 "$RC" "lease for $1 ($OUT)"
}

libcni_cache() { # ID IFNAME [NETNS]: the runtime's libcni cache entry
	mkdir -p /var/lib/cni/results
	printf '{"kind":"cniCacheV1","containerId":"%s","ifName":"%s","networkName":"rdma-net"%s}' \
		"$1" "$2" "${3:+,\"netns\":\"$3\"}" >"/var/lib/cni/results/rdma-net-$1-$2"
}

test_reconcile_leases_only_when_enabled_and_orphaned() {
	sim_node 1 2 eth
	pod_ns alive; pod_ns p0
	lease_for orphan eth1; libcni_cache orphan eth1 /run/netns/gone
	lease_for nocache eth1
	lease_for oldlibcni eth1; libcni_cache oldlibcni eth1
	lease_for live eth1; libcni_cache live eth1 /run/netns/alive
	lease_for young eth1; libcni_cache young eth1 /run/netns/gone
	# An ib-sriov attachment's own lease, its record kept (its pod alive).
	cni_exec ib-sriov ADD withrec p0 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "ib-sriov ADD ($OUT)"
	libcni_cache withrec net1 /run/netns/gone
	for f in "$T/leases/rdma-net"/10.*; do
		grep -q '^young' "$f" || age "$f"
	done
	reconcile
	assert_match "leases freed 0$" "$(summary)" "reclaimLeases off: nothing freed"
	assert_eq "live nocache oldlibcni orphan withrec young" "$(lease_owners "$T/leases/rdma-net")" "leases kept"
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'/leases"],"reclaimLeases":true}'
	reconcile --dry-run
	assert_match "leases freed 1 \(dry run" "$(summary)" "dry run"
	assert_eq "live nocache oldlibcni orphan withrec young" "$(lease_owners "$T/leases/rdma-net")" "a dry run frees nothing"
	reconcile
	assert_match "leases freed 1$" "$(summary)" "one orphan freed"
	assert_match "freed 1 lease\(s\) of orphan/eth1 in $T/leases/rdma-net: no record, its netns is gone" "$ERR" "its line"
	assert_eq "live nocache oldlibcni withrec young" "$(lease_owners "$T/leases/rdma-net")" "only the orphan's lease went"
	node_conf '{"reclaimLeases":"yes"}'
	reconcile
	assert_eq 0 "$RC" "a bad node config still exits 0"
	assert_match '"reclaimLeases" is "yes"; it must be true' "$ERR" "names the key"
}

# What the agent cannot prove gone it keeps: a view of the node without the
# runtime's netns files (a container with another directory there, which
# shows no namespace mount), a parent directory missing (another PID
# namespace's /proc/PID), a VF not back on the host (its namespace kept
# alive elsewhere, or not yet torn down).
test_reconcile_keeps_what_it_cannot_prove_gone() {
	local conf
	sim_node 1 3 eth
	pod_ns p0; pod_ns p1
	for i in 0 1; do
		cni_exec ib-sriov ADD c$i p$i net1 "$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 $i)")"
		assert_eq 0 "$RC" "ADD c$i ($OUT)"
	done
	# A vfio VF has no netdev to come back: the netns alone must prove it.
	vfio_vf 2
	cni_exec ib-sriov ADD c2 p1 net2 "$(sriov_conf "" '"vfioPciMode":true' 1.1.0 "$(sim_vf_addr 0 2)")"
	assert_eq 0 "$RC" "vfio ADD ($OUT)"
	age /var/lib/cni/ibcni/ib-sriov/*
	mount -t tmpfs hidden /run/netns
	reconcile --grace 0
	assert_eq "reconcile: 3 records, released 0, kept 3, skipped 0 (young/locked), leases freed 0" \
		"$(summary)" "netns files hidden"
	assert_match "kept 3 attachment\(s\) whose netns is in /run/netns: it shows no namespace mount in this mount view" "$ERR" "its line"
	umount /run/netns
	assert_link p0 net1 '.ifname' '"net1"'
	assert_eq "c0:net1 c1:net1 c2:net2" "$(records)" "records kept in the hidden view"
	cni_exec ib-sriov DEL c2 p1 net2 "$(sriov_conf "" '"vfioPciMode":true' 1.1.0 "$(sim_vf_addr 0 2)")"
	assert_eq 0 "$RC" "vfio DEL ($OUT)"
	# A recorded path whose directory is missing from this view.
	jq -c '.netns="/proc/999999/ns/net"' /var/lib/cni/ibcni/ib-sriov/c1:net1 >"$T/rec"
	cat "$T/rec" >/var/lib/cni/ibcni/ib-sriov/c1:net1
	age /var/lib/cni/ibcni/ib-sriov/*
	reconcile --grace 0
	assert_match "cannot tell whether netns /proc/999999/ns/net of c1:net1 is gone" "$ERR" "missing directory"
	assert_eq "c0:net1 c1:net1" "$(records)" "records kept"
	assert_eq "c0 c1" "$(lease_owners "$T/leases/rdma-net")" "leases kept"
	# A netns file there, but not nsfs (the runtime left it unmounted, or
	# its mount did not reach this view): kept, with the fix.
	ip -n p0 link set net1 netns $$
	mv /sys/bus/pci/devices/$(sim_vf_addr 0 0)/net/vf0_0 /sys/bus/pci/devices/$(sim_vf_addr 0 0)/net/net1
	umount /run/netns/p0
	reconcile --grace 0
	assert_eq "reconcile: 2 records, released 0, kept 2, skipped 0 (young/locked), leases freed 0" \
		"$(summary)" "an unmounted netns file"
	assert_match "kept 1 attachment\(s\) whose netns is in /run/netns: their files are there but are not namespace mounts" "$ERR" "its line"
	rm /run/netns/p0
	reconcile --grace 0
	assert_eq "c1:net1" "$(records)" "released once the file is gone"
	assert_eq "c1" "$(lease_owners "$T/leases/rdma-net")" "its lease freed"
}

# The agent in a view where the runtime's netns mounts do not reach its
# /run/netns (files there, no mounts): every live attachment stays, one line
# per pass names the directory and the fix, and another pod's ADD of the
# same VF is refused.
test_reconcile_in_a_blind_view_releases_nothing() {
	local vfio net n
	live_pod_two_vfs
	age /var/lib/cni/ibcni/ib-sriov/*
	blind_view
	OUT=$(env -i PATH="$PATH" "$T/blind" "$BIN/ib-sriov" reconcile 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
	assert_eq 0 "$RC" "pass ($ERR)"
	assert_eq "reconcile: 2 records, released 0, kept 2, skipped 0 (young/locked), leases freed 0" \
		"$(summary)" "summary"
	n=$(grep -c 'mountPropagation: HostToContainer' <<<"$ERR")
	assert_eq 1 "$n" "one line with the fix ($ERR)"
	assert_match "/run/netns.*conf-examples/ibcni-daemonset.yaml" "$ERR" "the line names the directory"
	assert_eq "ctr1:net1 ctr1:net2" "$(records)" "the live pod's records stay"
	assert_eq "ctr1" "$(lease_owners "$T/leases/rdma-net")" "the live pod's lease stays"
	assert_link pod1 net2 '.ifname' '"net2"'
	cni_exec ib-sriov ADD ctr3 pod3 net1 "$vfio"
	assert_json '[.code,.msg]' '[101,"the device is attached already"]'
	assert_eq "ctr1:net1 ctr1:net2" "$(records)" "records after the second pod's ADD"
	# The same pod gone for real, in the proper view: both released.
	gone_without_del pod1 net2 vf0_1
	reconcile
	assert_eq "reconcile: 2 records, released 2, kept 0, skipped 0 (young/locked), leases freed 0" \
		"$(summary)" "summary once the pod is gone ($ERR)"
	cni_exec ib-sriov ADD ctr3 pod3 net1 "$vfio"
	assert_eq 0 "$RC" "the second pod's ADD once the first is gone ($OUT)"
}
