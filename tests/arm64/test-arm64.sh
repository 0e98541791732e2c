# SPDX-License-Identifier: Apache-2.0
# The arm64 binaries (make ARCH=arm64) under qemu-user, each test in private
# mount and network namespaces as the netns tier's (tests/arm64/run.sh sets
# IBCNI_WRAP, so cni_exec runs them through qemu-aarch64-static). $BIN is
# the arm64 tree, $NATIVE_BIN this machine's build of the same commit.

. "$(dirname "${BASH_SOURCE[0]}")/../netns/sriov-lib.sh"

QEMU=qemu-aarch64-static
NATIVE_BIN=${IBCNI_NATIVE_BIN:?}
PLUGINS="ib-sriov rdma-ns rdma ib-host-local"

test_static_aarch64_executables() {
	local b
	for b in $PLUGINS; do
		assert_match '^ELF 64-bit LSB executable, ARM aarch64, .*statically linked' \
			"$(file -b "$BIN/$b")" "$b"
	done
	assert_eq "$(stat -c %i "$BIN/rdma-ns")" "$(stat -c %i "$BIN/rdma")" "rdma is rdma-ns"
	# Without binfmt_misc the kernel cannot run them: every run below goes
	# through qemu, none through a registration this test did not make.
	if ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
		"$BIN/ib-host-local" --version >/dev/null 2>&1 && fail "an aarch64 file ran without qemu"
	fi
	# libibverbs' neigh.o left out (verbs-noneigh.c from the arm64
	# libibverbs.a): no libnl-route in the plugins that link verbs; the
	# static providers inside.
	for b in ib-sriov rdma-ns; do
		assert_eq 0 "$(aarch64-linux-gnu-nm "$BIN/$b" | grep -c ' [TtDd] rtnl_')" "$b: libnl-route symbols"
		assert_eq "mlx4 mlx5 rxe siw" "$(aarch64-linux-gnu-nm "$BIN/$b" |
			sed -n 's/.* D verbs_provider_\(.*\)$/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')" \
			"$b: static verbs providers"
	done
}

test_version_help_and_about() {
	local b
	for b in $PLUGINS; do
		cni_exec "$b" VERSION "" "" "" '{"cniVersion":"1.1.0"}'
		assert_eq 0 "$RC" "$b VERSION ($ERR)"
		assert_json . '{"cniVersion":"1.1.0","supportedVersions":["0.1.0","0.2.0","0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]}'
		# The same text as this machine's build of the same tree, byte
		# for byte (--version: the same commit, gcc, glibc, libraries).
		assert_eq "$("$NATIVE_BIN/$b" --help)" "$($QEMU "$BIN/$b" --help)" "$b --help"
		assert_eq "$("$NATIVE_BIN/$b" --version)" "$($QEMU "$BIN/$b" --version)" "$b --version"
		assert_match 'build: static, gcc [0-9.]+, glibc [0-9.]+' "$($QEMU "$BIN/$b" --version)" "$b: static"
		assert_eq "$("$NATIVE_BIN/$b" 2>&1)" "$($QEMU "$BIN/$b" 2>&1)" "$b without CNI_COMMAND"
	done
}

test_reproducible_build() {
	# The same tree built again elsewhere: the same bytes.
	local top b
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	make -C "$top" --no-print-directory ARCH=arm64 OUT="$T/again" -j2 all >"$T/make.log" 2>&1 ||
		{ fail "make ARCH=arm64 OUT=...: $(tail -5 "$T/make.log")"; return; }
	for b in $PLUGINS; do
		cmp -s "$BIN/$b" "$T/again/bin/$b" || fail "$b differs from a second build"
	done
}

ipam_json() { # DATADIR [VERSION]
	printf '{"cniVersion":"%s","name":"fabric","type":"ib-sriov","ipam":{"type":"ib-host-local","dataDir":"%s","ranges":[[{"subnet":"10.70.0.0/29"}],[{"subnet":"fd00:70::/120"}]],"routes":[{"dst":"10.71.0.0/16"}]}}' \
		"${2:-1.1.0}" "$1"
}

test_ib_host_local_add_check_del() {
	local conf d=$T/leases/fabric
	conf=$(ipam_json "$T/leases")
	cni_exec ib-host-local ADD ctr-a /proc/self/ns/net eth0 "$conf"
	assert_eq 0 "$RC" "ADD ($ERR)"
	assert_json . '{"cniVersion":"1.1.0","ips":[{"address":"10.70.0.2/29","gateway":"10.70.0.1"},{"address":"fd00:70::2/120","gateway":"fd00:70::1"}],"routes":[{"dst":"10.71.0.0/16"}],"dns":{}}'
	cni_exec ib-host-local ADD ctr-b /proc/self/ns/net eth0 "$conf"
	assert_json '[.ips[].address]' '["10.70.0.3/29","fd00:70::3/120"]'
	# The leases on disk as host-local writes them: the owner, then the
	# interface, no newline at the end.
	assert_eq "$(printf 'ctr-a\r\neth0')" "$(cat "$d/10.70.0.2")" "lease of 10.70.0.2"
	assert_eq "$(printf 'ctr-b\r\neth0')" "$(cat "$d/fd00:70::3")" "lease of fd00:70::3"
	assert_mode "$d/10.70.0.2" 600
	local prev
	cni_exec ib-host-local ADD ctr-c /proc/self/ns/net eth0 "$conf"
	prev=$OUT
	cni_exec ib-host-local CHECK ctr-c /proc/self/ns/net eth0 "${conf%\}},\"prevResult\":$prev}"
	assert_eq 0 "$RC" "CHECK ($OUT)"
	rm "$d/10.70.0.4"
	cni_exec ib-host-local CHECK ctr-c /proc/self/ns/net eth0 "${conf%\}},\"prevResult\":$prev}"
	assert_eq 1 "$RC" "CHECK of a lease gone"
	assert_match '10\.70\.0\.4' "$(jq -r '.msg + " " + .details' <<<"$OUT")" "CHECK names the address"
	cni_exec ib-host-local DEL ctr-a /proc/self/ns/net eth0 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_eq "" "$(ls "$d" | grep -e '^10\.70\.0\.2$' -e '^fd00:70::2$')" "ctr-a's leases released"
	[ -f "$d/10.70.0.3" ] || fail "ctr-b's lease went with ctr-a's"
	# What the amd64 build reads, the arm64 one wrote (and back).
	BIN=$NATIVE_BIN IBCNI_WRAP= cni_exec ib-host-local DEL ctr-b /proc/self/ns/net eth0 "$conf"
	assert_eq 0 "$RC" "amd64 DEL of arm64's lease ($OUT)"
	assert_eq "" "$(ls "$d" | grep -e '^10\.70\.0\.3$' -e '^fd00:70::3$')" "ctr-b's leases released"
	cni_exec ib-host-local ADD ctr-d /proc/self/ns/net eth0 "$conf"
	assert_json '[.ips[].address]' '["10.70.0.5/29","fd00:70::5/120"]'	# round-robin goes on
}

# ib-sriov ADD/CHECK/DEL on the simulated node, Ethernet (RoCE) VF: every
# rtnetlink step (the move into the pod, rename, MTU, MAC, up, addresses,
# routes, and back) through qemu-user's netlink translation.
test_ibsriov_add_check_del() {
	local mac before conf prev
	sim_node 1 2 eth || { fail "sim_node"; return; }
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	before=$(host_state)
	conf=$(sriov_conf ib-host-local '"mtu":1400,"mac":"02:11:22:33:44:55","logLevel":"debug"')
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	assert_json '.interfaces' '[{"name":"net1","mac":"02:11:22:33:44:55","mtu":1400,"sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}]'
	assert_json '[.ips[].address]' '["10.56.0.2/24","fd00:56::2/64"]'
	assert_match 'delegating ADD to .*/ib-host-local \(built in\)' "$ERR" "the built-in IPAM (its build ID)"
	assert_no_link host vf0_1
	assert_link pod1 net1 '[.mtu,.address,.operstate!="DOWN"]' '[1400,"02:11:22:33:44:55",true]'
	assert_eq '["10.56.0.2/24","fd00:56::2/64"]' \
		"$(ip -n pod1 -j addr show net1 | jq -c '[.[0].addr_info[]|select(.scope=="global")|"\(.local)/\(.prefixlen)"]')" "pod addresses"
	assert_eq '"10.56.0.1"' "$(ip -n pod1 -j route show 10.57.0.0/16 | jq -c '.[0].gateway')" "route"
	assert_eq 1 "$(ls /var/lib/cni/ibcni/ib-sriov | wc -l)" "one record"
	prev=$OUT
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
}

test_ibsriov_records_shared_with_amd64() {
	# An attachment made by one build is undone by the other: the record
	# and the lease are the same bytes on both.
	local mac conf
	sim_node 1 2 eth || { fail "sim_node"; return; }
	pod_ns pod1
	pod_ns pod2
	mac=$(ip -j link show vf0_0 | jq -r '.[0].address')
	conf=$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 0)")
	BIN=$NATIVE_BIN IBCNI_WRAP= cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "amd64 ADD ($OUT)"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "arm64 DEL ($OUT)"
	vf_as_found vf0_0 "$mac" 1500
	cni_exec ib-sriov ADD ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "arm64 ADD ($OUT)"
	BIN=$NATIVE_BIN IBCNI_WRAP= cni_exec ib-sriov DEL ctr2 pod2 net1 "$conf"
	assert_eq 0 "$RC" "amd64 DEL ($OUT)"
	vf_as_found vf0_0 "$mac" 1500
	assert_eq "" "$(ls "$T/leases/rdma-net" 2>/dev/null | grep -v -e lock -e last_reserved)" "leases released"
}

test_netns_kind_without_the_ioctl() {
	# qemu-user forwards no nsfs ioctl (NS_GET_NSTYPE: ENOSYS); the plugin
	# then asks setns(CLONE_NEWNET) and still refuses another kind of
	# namespace and its own, with nothing changed.
	local before f
	sim_node 1 2 eth || { fail "sim_node"; return; }
	pod_ns pod1
	before=$(host_state)
	IBCNI_WRAP="$QEMU -strace" cni_exec ib-sriov ADD c pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "ADD ($OUT)"
	# ENOSYS from qemu 7.2, ENOTTY from qemu 10 (bookworm-backports).
	assert_match 'ioctl\([0-9]+,0xb703,[^)]*\) = -1 errno=(38|25)' "$ERR" "NS_GET_NSTYPE is not forwarded"
	cni_exec ib-sriov DEL c pod1 net1 "$(sriov_conf "")"
	assert_eq 0 "$RC" "DEL ($OUT)"
	for f in /proc/self/ns/uts /proc/self/ns/mnt /proc/self/ns/ipc; do
		cni_exec ib-sriov ADD c "$f" net1 "$(sriov_conf "")"
		assert_json '[.code,.msg,.details]' "[4,\"CNI_NETNS is not a network namespace\",\"$f refers to another kind of namespace\"]"
	done
	for f in /proc/self/ns/net /proc/thread-self/ns/net "/proc/$$/ns/net"; do
		cni_exec ib-sriov ADD c "$f" net1 "$(sriov_conf "")"
		assert_json '[.code,.msg]' '[4,"CNI_NETNS is the host network namespace"]'
	done
	assert_host_unchanged "$before" "refused ADDs"
}

test_doctor_same_as_amd64() {
	# `ib-sriov doctor` (sysfs, rtnetlink dumps, the records) finds what
	# the amd64 build finds on the same node.
	local D=/sys/bus/pci/devices
	sim_node 1 3 eth || { fail "sim_node"; return; }
	echo 3 >$D/0000:03:00.0/sriov_numvfs
	echo 8 >$D/0000:03:00.0/sriov_totalvfs
	rm $D/0000:03:01.1/driver
	pod_ns pod1
	cni_exec ib-sriov ADD c1 pod1 net1 "$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 0)")"
	assert_eq 0 "$RC" "ADD ($OUT)"
	local ours theirs
	ours=$(timeout 60 $QEMU "$BIN/ib-sriov" doctor --json 2>&1)
	theirs=$("$NATIVE_BIN/ib-sriov" doctor --json 2>&1)
	OUT=$ours
	assert_json '[.pfs[0].vfs[] | [.vf, .pci, .driver, .attachedBy]]' \
		'[[0,"0000:03:01.0","mlx5_core","/var/lib/cni/ibcni/ib-sriov/c1:net1"],[1,"0000:03:01.1",null,null],[2,"0000:03:01.2","mlx5_core",null]]'
	assert_eq "$(jq -S -c . <<<"$theirs")" "$(jq -S -c . <<<"$ours")" "doctor --json, arm64 and amd64"
	assert_eq "$("$NATIVE_BIN/ib-sriov" doctor 2>&1)" "$($QEMU "$BIN/ib-sriov" doctor 2>&1)" "doctor's text"
}
