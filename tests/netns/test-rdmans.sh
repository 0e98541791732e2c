# SPDX-License-Identifier: Apache-2.0
# rdma-ns on this kernel, which has no RDMA subsystem: every command must say
# so clearly, change nothing, and let DEL and GC clean up. The real-kernel
# behaviour is the vm tier's (tests/vm).

rdmans_conf() { # [VERSION] [EXTRA]
	printf '{"cniVersion":"%s","name":"rdma-net","type":"rdma-ns","deviceID":"%s"%s}' \
		"${1:-1.1.0}" "$(sim_vf_addr 0 1)" "${2:+,$2}"
}

PREV='"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/pod1","pciID":"0000:03:01.1"}],"ips":[{"address":"10.1.0.5/24","interface":0}]}'

test_rdmans_add_reports_missing_rdma() {
	sim_node 1 2 ib
	pod_ns pod1
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg,.details]' '[104,"cannot read the RDMA netns mode","the kernel has no RDMA subsystem (is ib_core loaded?)"]'
	[ -z "$(ls /var/lib/cni/rdma-ns 2>/dev/null)" ] || fail "a record was left"
	# The device may come from the previous plugin's pciID.
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns",'"$PREV"'}'
	assert_json '.details' '"the kernel has no RDMA subsystem (is ib_core loaded?)"'
}

test_rdmans_input_errors() {
	sim_node 1 2 eth
	pod_ns pod1
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf)"
	assert_json '[.code,.msg]' '[7,"rdma-ns must be chained after the plugin that creates the interface"]'
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","prevResult":{"cniVersion":"1.1.0"}}'
	assert_json '[.code,.msg]' '[7,"deviceID is required"]'
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg]' '[101,"no RDMA device for deviceID"]'
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV" | sed 's/"deviceID":"[^"]*"/"deviceID":"..\/x"/')"
	assert_json '.code' 7
}

test_rdmans_del_gc_succeed() {
	sim_node 1 2 ib
	pod_ns pod1
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL without a record"
	cni_exec rdma-ns CHECK ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg]' '[3,"CHECK failed"]'
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL without a netns"
	# Records as an ADD on an RDMA kernel leaves them.
	mkdir -p /var/lib/cni/rdma-ns
	printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		>/var/lib/cni/rdma-ns/rdma-net-ctr1-net1
	printf '{"network":"rdma-net","containerID":"ctr2","ifname":"net1","netns":"/run/netns/gone","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/rdma-net-ctr2-net1
	printf '{"network":"other","containerID":"ctr3","ifname":"net1","netns":"/run/netns/pod1","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/other-ctr3-net1
	cni_exec rdma-ns CHECK ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '.details' '"RDMA device mlx5_0_1 is not in the pod: the kernel has no RDMA subsystem (is ib_core loaded?)"'
	cni_exec rdma-ns GC "" "" "" "$(rdmans_conf 1.1.0 '"cni.dev/valid-attachments":[{"containerID":"ctr1","ifname":"net1"}]')"
	assert_eq 0 "$RC" "GC ($OUT)"
	assert_eq "other-ctr3-net1 rdma-net-ctr1-net1" "$(ls /var/lib/cni/rdma-ns | tr '\n' ' ' | sed 's/ $//')" "GC kept the valid and the other network's"
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL with a record"
	[ -e /var/lib/cni/rdma-ns/rdma-net-ctr1-net1 ] && fail "record kept"
	cni_exec rdma-ns DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL twice"
}

test_rdmans_status_and_admin() {
	cni_exec rdma-ns STATUS "" "" "" "$(rdmans_conf)"
	assert_json '[.code,.details]' '[50,"the kernel has no RDMA subsystem (is ib_core loaded?)"]'
	OUT=$("$BIN/rdma-ns" netns-mode show 2>&1)
	assert_eq 1 $? "netns-mode show exit"
	assert_eq "rdma-ns: cannot read the RDMA netns mode: the kernel has no RDMA subsystem (is ib_core loaded?)" "$OUT" "netns-mode show"
	OUT=$("$BIN/rdma-ns" netns-mode bogus 2>&1)
	assert_eq "usage: rdma-ns netns-mode [show|exclusive|shared]" "$OUT" "usage"
}

# --- rdma-cni's name, its conflists and its state ---

test_rdmans_installed_as_rdma() {
	local a b
	[ "$(stat -c %i "$BIN/rdma")" = "$(stat -c %i "$BIN/rdma-ns")" ] || fail "bin/rdma is not rdma-ns"
	cni_exec rdma VERSION "" "" "" ""
	assert_json '.supportedVersions[-1]' '"1.1.0"'
	# The same request, both names: the same answer; only log lines differ.
	pod_ns pod1
	cni_exec rdma ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	a=$OUT
	assert_match "rdma ADD ctr1/net1: " "$ERR" "log lines name the binary run"
	cni_exec rdma-ns ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	b=$OUT
	assert_eq "$b" "$a" "rdma and rdma-ns answer alike"
	OUT=$("$BIN/rdma" netns-mode bogus 2>&1)
	assert_eq "usage: rdma-ns netns-mode [show|exclusive|shared]" "$OUT" "admin command under either name"
}

test_rdmans_cnitool_type_rdma() {
	# An rdma-cni conflist ("type": "rdma") driven by the reference client.
	local tool=${IBCNI_CNITOOL:-} mac old=$T/old-bin
	[ -x "$tool" ] || { fail "cnitool is missing (tests/netns/build-cnitool.sh builds it)"; return; }
	sim_node 1 2 ib
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	mkdir -p "$T/net.d" "$old"
	cat >"$T/net.d/10-rdma.conflist" <<CONF
{"cniVersion":"1.0.0","name":"rdma-net","plugins":[
 {"type":"ib-sriov","deviceID":"$(sim_vf_addr 0 1)",
  "ipam":{"type":"ib-host-local","dataDir":"$T/leases","ranges":[[{"subnet":"10.59.0.0/24"}]]}},
 {"type":"rdma","deviceID":"$(sim_vf_addr 0 1)"}]}
CONF
	NETCONFPATH=$T/net.d CNI_PATH=$BIN "$tool" add rdma-net /run/netns/pod1 >/dev/null 2>"$T/err"
	assert_eq 1 $? "cnitool add exit"
	# rdma ran (this kernel has no RDMA subsystem): it is our error, not libcni's.
	assert_match 'cannot read the RDMA netns mode; the kernel has no RDMA subsystem' "$(cat "$T/err")" "add error"
	assert_link pod1 eth0 '.ifname' '"eth0"'
	# What a node that installed only rdma-ns sees: libcni runs DEL in
	# reverse and stops at the missing plugin, so the VF never comes back.
	ln -s "$BIN/ib-sriov" "$BIN/ib-host-local" "$BIN/rdma-ns" "$old/"
	NETCONFPATH=$T/net.d CNI_PATH=$old "$tool" del rdma-net /run/netns/pod1 2>"$T/err"
	assert_eq 1 $? "cnitool del without rdma exit"
	assert_match 'failed to find plugin "rdma"' "$(cat "$T/err")" "del without rdma"
	assert_link pod1 eth0 '.ifname' '"eth0"'
	NETCONFPATH=$T/net.d CNI_PATH=$BIN "$tool" del rdma-net /run/netns/pod1 2>"$T/err"
	assert_eq 0 $? "cnitool del ($(cat "$T/err"))"
	assert_link host vf0_1 '[.address,.mtu]' "[\"$mac\",1500]"
	assert_eq "" "$(ls "$T/leases/rdma-net" | grep '^10\.')" "lease released"
	assert_eq "" "$(find /var/lib/cni/rdma-ns /var/lib/cni/ib-sriov -type f 2>/dev/null)" "no records left"
}

# rdma-cni's cache entry, exactly as it writes one.
rdmacni_cache() { # NAME DEVICEID RDMADEV
	mkdir -p /var/lib/cni/rdma
	printf '{"version":"1.0","deviceID":"%s","sandboxRdmaDevName":"%s","containerRdmaDevName":"%s"}' \
		"$2" "$3" "$3" >"/var/lib/cni/rdma/$1"
}

test_rdmans_upgrade_from_rdma_cni() {
	sim_node 1 2 ib
	pod_ns pod1
	rdmacni_cache rdma-net-ctr1-net1 0000:03:01.1 mlx5_4
	# CHECK recognises the attachment (and looks for its device in the pod).
	cni_exec rdma CHECK ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.details]' '[101,"RDMA device mlx5_4 (attached by rdma-cni) is not in the pod: the kernel has no RDMA subsystem (is ib_core loaded?)"]'
	# A DEL whose deviceID is another device's: the entry is someone else's.
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf 1.1.0 | sed 's/03:01.1/03:01.0/')"
	assert_eq 0 "$RC" "DEL for another device ($OUT)"
	[ -e /var/lib/cni/rdma/rdma-net-ctr1-net1 ] || fail "another device's cache entry was removed"
	# A transient failure (the netns path loops) keeps the entry and fails.
	ln -s loop /run/netns/loop; ln -sf /run/netns/loop /run/netns/loop2
	rm /run/netns/loop; ln -s loop2 /run/netns/loop
	cni_exec rdma DEL ctr1 /run/netns/loop net1 "$(rdmans_conf)"
	assert_json '[.code,.msg]' '[11,"cannot open the pod'"'"'s network namespace"]'
	[ -e /var/lib/cni/rdma/rdma-net-ctr1-net1 ] || fail "cache entry removed after a transient failure"
	# The DEL the runtime sends: the device is not in the pod (no RDMA here,
	# so nothing can be), the entry goes; a second DEL succeeds too.
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e /var/lib/cni/rdma/rdma-net-ctr1-net1 ] && fail "rdma-cni's cache entry kept"
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL twice"
	# Without CNI_NETNS the pod's netns is gone, and the kernel returned the device.
	rdmacni_cache rdma-net-ctr2-net1 0000:03:01.1 mlx5_5
	cni_exec rdma DEL ctr2 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL without netns"
	assert_eq "" "$(ls /var/lib/cni/rdma)" "entry removed without netns"
	# GC leaves an entry whose device is not back on the host: no pod netns
	# is known for it, and its DEL will come.
	rdmacni_cache rdma-net-ctr3-net1 0000:03:01.0 mlx5_5
	cni_exec rdma GC "" "" "" "$(rdmans_conf 1.1.0 '"cni.dev/valid-attachments":[]')"
	assert_eq 0 "$RC" "GC"
	assert_eq "rdma-net-ctr3-net1" "$(ls /var/lib/cni/rdma)" "GC kept it"
	# Nothing of ours ever lands where rdma-cni (after a downgrade) reads.
	assert_eq "rdma-net-ctr3-net1" "$(ls /var/lib/cni/rdma)" "rdma-cni's directory"
}

test_rdmans_requires_vf() {
	local D=/sys/bus/pci/devices pf=0000:03:00.0 vf0 vf1
	# /sys/bus as a tmpfs too, for a simulated auxiliary bus.
	mount -t tmpfs sim-bus /sys/bus && mkdir -p /sys/bus/pci/devices /sys/bus/pci/drivers \
		/sys/bus/auxiliary/devices || { fail "cannot simulate /sys/bus"; return; }
	sim_node 1 2 ib
	pod_ns pod1
	vf0=$(sim_vf_addr 0 0) vf1=$(sim_vf_addr 0 1)
	# The PF has the host's RDMA device.
	mkdir -p $D/$pf/infiniband/mlx5_0 $D/$pf/mlx5_core.rdma.0 $D/$vf1/mlx5_core.rdma.2/infiniband/mlx5_2
	mkdir -p $D/$pf/mlx5_core.sf.4/infiniband/mlx5_9 && echo 4 >$D/$pf/mlx5_core.sf.4/sfnum
	ln -s ../../pci/devices/$pf/mlx5_core.rdma.0 /sys/bus/auxiliary/devices/mlx5_core.rdma.0
	ln -s ../../pci/devices/$vf1/mlx5_core.rdma.2 /sys/bus/auxiliary/devices/mlx5_core.rdma.2
	ln -s ../../pci/devices/$pf/mlx5_core.sf.4 /sys/bus/auxiliary/devices/mlx5_core.sf.4
	local prev='"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/pod1"}]}'
	local conf='{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma","%s":"%s",'"$prev"'}'
	# shellcheck disable=SC2059
	cni_exec rdma ADD ctr1 pod1 net1 "$(printf "$conf" deviceID $pf)"
	assert_json '[.code,.msg,.details]' '[7,"deviceID is not a VF","\"deviceID\" is 0000:03:00.0, not a virtual function: its RDMA device serves the host and every VF; rdma-ns moves only a VF'"'"'s RDMA devices"]'
	cni_exec rdma ADD ctr1 pod1 net1 "$(printf "$conf" pciBusID 03:00.0)"
	assert_json '[.code,.details[0:26]]' '[7,"\"pciBusID\" is 0000:03:00.0"]'
	cni_exec rdma ADD ctr1 pod1 net1 "$(printf "$conf" deviceID mlx5_core.rdma.0)"
	assert_json '[.code,.details]' '[7,"\"deviceID\" is mlx5_core.rdma.0, an auxiliary device of 0000:03:00.0: its RDMA device serves the host and every VF; rdma-ns moves only a VF'"'"'s RDMA devices"]'
	cni_exec rdma ADD ctr1 pod1 net1 "$(printf "$conf" deviceID 0000:09:00.0)"
	assert_json '[.code,.msg]' '[101,"no such device"]'
	# A VF, an auxiliary device of a VF and a scalable function pass every
	# check; the kernel's RDMA subsystem is next (absent on this kernel).
	for dev in $vf1 mlx5_core.rdma.2 mlx5_core.sf.4; do
		cni_exec rdma ADD ctr1 pod1 net1 "$(printf "$conf" deviceID $dev)"
		assert_json '[.code,.msg]' '[104,"cannot read the RDMA netns mode"]'
	done
	# deviceID must be the VF the previous plugin moved into this pod.
	cni_exec rdma ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV" | sed "s/\"deviceID\":\"[^\"]*\"/\"deviceID\":\"$vf0\"/")"
	assert_json '[.code,.msg,.details]' '[7,"deviceID does not match the previous plugin'"'"'s interface","\"deviceID\" is 0000:03:01.0 (VF 0000:03:01.0), but the interface the previous plugin moved into the pod is on 0000:03:01.1"]'
	cni_exec rdma ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV" | sed 's/"deviceID":"[^"]*"/"deviceID":"mlx5_core.rdma.2"/')"
	assert_json '.code' 104
	assert_eq "" "$(ls /var/lib/cni/rdma-ns 2>/dev/null)" "no record written"
}

test_rdmans_validates_before_the_kernel() {
	# Each of these would otherwise reach the RDMA mode probe (code 104 here).
	sim_node 1 2 ib
	pod_ns pod1
	cni_exec rdma ADD ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV,\"args\":{\"cni\":{\"debug\":\"yes\"}}")"
	assert_json '[.code,.msg]' '[7,"invalid configuration"]'
	cni_exec rdma ADD ctr1 /run/netns/nope net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg]' '[4,"cannot open CNI_NETNS"]'
	cni_exec rdma ADD "$(printf 'c%.0s' $(seq 1 220))" pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '[.code,.msg]' '[4,"container ID, network name and interface name are too long"]'
	cni_exec rdma CHECK "$(printf 'c%.0s' $(seq 1 220))" pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '.code' 4
	# DEL and GC still clean up with a bad debug value.
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf 1.1.0 '"args":{"cni":{"debug":"yes"}}')"
	assert_eq 0 "$RC" "DEL with a bad args.cni.debug"
	cni_exec rdma DEL "$(printf 'c%.0s' $(seq 1 220))" pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL of an attachment ADD refused"
}

test_rdmans_device_from_mac() {
	# containerd 1.6's prevResult: no pciID. The MAC of the interface in
	# this sandbox finds the netdev in the pod; a veth has no PCI device
	# (the vm tier has a real one).
	local mac prev
	sim_node 1 2 ib
	pod_ns pod1
	pod_ns pod2
	ip link set vf0_1 netns pod1 name net1
	mac=$(ip -n pod1 -j link show net1 | jq -r '.[0].address')
	prev='"prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"net1","mac":"02:00:00:00:00:99","sandbox":"/run/netns/pod2"},{"name":"net1","mac":"'$mac'","sandbox":"/var/run/netns/pod1"}]}'
	cni_exec rdma ADD ctr1 pod1 net1 '{"cniVersion":"1.0.0","name":"rdma-net","type":"rdma",'"$prev"'}'
	assert_json '[.code,.msg,.details]' '[101,"the pod interface has no PCI device","net1 ('"$mac"') in /run/netns/pod1: its driver veth reports no PCI address; set \"deviceID\""]'
	# Only an interface in this sandbox counts.
	cni_exec rdma ADD ctr1 pod2 net1 '{"cniVersion":"1.0.0","name":"rdma-net","type":"rdma",'"$prev"'}'
	assert_json '[.code,.msg]' '[101,"no pod interface has the MAC"]'
	cni_exec rdma ADD ctr1 pod1 net1 '{"cniVersion":"1.0.0","name":"rdma-net","type":"rdma","prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"net1","mac":"'$mac'","sandbox":"/run/netns/other"}]}}'
	assert_json '[.code,.msg]' '[7,"deviceID is required"]'
	cni_exec rdma ADD ctr1 pod1 net1 '{"cniVersion":"1.0.0","name":"rdma-net","type":"rdma","prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"net1","mac":"zz:00","sandbox":"/run/netns/pod1"}]}}'
	assert_json '[.code,.msg]' '[7,"invalid prevResult"]'
}

test_rdmans_record_names_and_crash_rule() {
	local dir=/var/lib/cni/rdma-ns
	sim_node 1 2 ib
	pod_ns pod1
	mkdir -p $dir
	rec() { # NAME NETWORK CID NETNS
		printf '{"network":"%s","containerID":"%s","ifname":"net1","netns":"%s","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
			"$2" "$3" "$4" >"$dir/$1"
	}
	# The previous version's name is ambiguous: a-b-c-net1 is (a, b-c) or
	# (a-b, c). Only the tuple inside decides.
	rec a-b-c-net1 a b-c /run/netns/pod1
	cni_exec rdma DEL c pod1 net1 '{"cniVersion":"1.1.0","name":"a-b","type":"rdma"}'
	assert_eq 0 "$RC" "DEL (a-b, c)"
	[ -e $dir/a-b-c-net1 ] || fail "(a-b, c) removed the record of (a, b-c)"
	cni_exec rdma DEL b-c pod1 net1 '{"cniVersion":"1.1.0","name":"a","type":"rdma"}'
	assert_eq 0 "$RC" "DEL (a, b-c)"
	[ -e $dir/a-b-c-net1 ] && fail "(a, b-c) kept its old-format record"
	# Current names: <network>:<containerID>:<ifname>.
	rec rdma-net:ctr1:net1 rdma-net ctr1 /run/netns/pod1
	cni_exec rdma CHECK ctr1 pod1 net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '.details' '"RDMA device mlx5_0_1 is not in the pod: the kernel has no RDMA subsystem (is ib_core loaded?)"'
	# Transient: the recorded netns cannot be opened (a symlink loop): the
	# record stays and DEL fails, for the runtime to retry.
	ln -s l1 /run/netns/l2; ln -s l2 /run/netns/l1
	rec rdma-net:ctr1:net1 rdma-net ctr1 /run/netns/l1
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_json '[.code,.msg]' '[11,"cannot open the pod'"'"'s network namespace"]'
	[ -e $dir/rdma-net:ctr1:net1 ] || fail "record removed after a transient failure"
	# Definite: the netns is gone, or what is left is a plain file.
	rec rdma-net:ctr1:net1 rdma-net ctr1 /run/netns/gone
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL with the netns gone"
	: >/run/netns/unmounted
	rec rdma-net:ctr1:net1 rdma-net ctr1 /run/netns/unmounted
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL with an unmounted netns file"
	# A record of another tuple under our name, and a planted FIFO: never
	# trusted, never waited on.
	rec rdma-net:ctr1:net1 rdma-net ctr9 /run/netns/pod1
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL with a foreign record"
	mkfifo $dir/rdma-net:ctr1:net1
	cni_exec rdma DEL ctr1 pod1 net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL with a FIFO record"
	assert_eq "" "$(ls $dir)" "unusable records removed"
}

test_rdmans_lookup_names_each_way() {
	# An Ethernet VF without an RDMA device under it, its netdev in the pod:
	# the lookup tries the PCI child, the auxiliary children, then a device
	# bound to the pod interface (RDMA netlink: absent on this kernel).
	local vf prev
	sim_node 1 2 eth
	pod_ns pod1
	vf=$(sim_vf_addr 0 1)
	ip link set vf0_1 netns pod1 name net1
	prev='"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1","sandbox":"/run/netns/pod1"}]}'
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"'"$vf"'",'"$prev"'}'
	assert_json '[.code,.msg,.details]' '[101,"no RDMA device for deviceID","'"$vf"': tried PCI child (/sys/bus/pci/devices/'"$vf"'/infiniband/: none), auxiliary child (the function'"'"'s auxiliary devices: none), netdev net1 in /run/netns/pod1 (the kernel has no RDMA subsystem (is ib_core loaded?)); is its RDMA driver loaded (or, for rxe and siw, the device created over the pod interface)?"]'
	# The interface named by the prevResult in this sandbox, not CNI_IFNAME.
	cni_exec rdma-ns ADD ctr1 pod1 eth9 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"'"$vf"'",'"$prev"'}'
	assert_json '.details' '"'"$vf"': tried PCI child (/sys/bus/pci/devices/'"$vf"'/infiniband/: none), auxiliary child (the function'"'"'s auxiliary devices: none), netdev net1 in /run/netns/pod1 (the kernel has no RDMA subsystem (is ib_core loaded?)); is its RDMA driver loaded (or, for rxe and siw, the device created over the pod interface)?"'
	# Without the interface in the pod, the netdev step says so.
	ip -n pod1 link set net1 name other
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"'"$vf"'",'"$prev"'}'
	assert_match 'netdev net1 in /run/netns/pod1 \(no such netdev\)' "$(jq -r .details <<<"$OUT")" "no such netdev"
	assert_eq "" "$(ls /var/lib/cni/rdma-ns 2>/dev/null)" "no record written"
	# rdmaName is checked before the device is looked for.
	cni_exec rdma-ns ADD ctr1 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"'"$vf"'","rdmaName":"a/b",'"$prev"'}'
	assert_json '[.code,.msg]' '[7,"invalid configuration"]'
}

# softRdmaByMac's proof (security review 5, U1): the MAC counted on every
# netdev of the node, in the host namespace, every /run/netns entry and every
# process's namespace, each once; a FIFO or a plain file there is skipped
# without blocking, and a namespace only a process holds is still seen.
test_rdmans_mac_count_sees_every_namespace() {
	local mac=02:5c:a1:$(printf '%02x:%02x:%02x' $((RANDOM % 256)) $((RANDOM % 256)) $((RANDOM % 256)))
	pod_ns pod1
	OUT=$($HELPER count-mac "$mac")
	assert_eq "carriers 0" "$OUT" "nobody has it yet"
	ip -n pod1 link add m1 address "$mac" type veth peer name m1p || fail "veth in pod1"
	mkfifo /run/netns/fifo && : >/run/netns/plain
	OUT=$(timeout 20 $HELPER count-mac "$mac")
	assert_eq "carriers 1" "$OUT" "pod1's, the FIFO and the file skipped"
	ip link add h1 address "$mac" type veth peer name h1p || fail "veth on the host"
	unshare --net sleep 60 &
	local pid=$!
	sleep 0.3
	nsenter -t "$pid" -n ip link add p1 address "$mac" type veth peer name p1p || fail "veth in the process's netns"
	ip netns attach byproc "$pid" 2>/dev/null || true # the same namespace twice: counted once
	OUT=$(timeout 20 $HELPER count-mac "$mac")
	assert_eq "carriers 3" "$OUT" "the host's, pod1's and the process's"
	kill "$pid"
	wait "$pid" 2>/dev/null
}

# A late DEL whose recorded netns path now names another namespace (security
# review 5, U6): cri-dockerd's /proc/<pid>/ns/net, the pid recycled by a
# process of another pod. The record keeps the identity of the namespace ADD
# used (netnsId, "dev:ino[:nsid[:cookie]]"); DEL and CHECK compare it with what is
# there now. (This kernel has no RDMA subsystem, so no DEL here would move a
# device: that DEL moves nothing in the other namespace is the unit tier's,
# test_rdmans_release.c.)
test_rdmans_late_del_recycled_netns() {
	local dir=/var/lib/cni/rdma-ns pid pod1 pod2
	sim_node 1 2 ib
	pod_ns pod1
	pod_ns pod2
	ip netns exec pod2 sleep 100 &
	pid=$!
	pod1=$(stat -L -c '%d:%i' /run/netns/pod1)
	pod2=$(stat -L -c '%d:%i' /proc/$pid/ns/net)
	[ "$pod1" != "$pod2" ] || fail "two namespaces with one identity"
	mkdir -p $dir
	rec() { # NETNS NETNSID: the record ADD wrote for ctr1
		printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"%s","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"],"rdma_index":[3],"netnsId":"%s"}' \
			"$1" "$2" >"$dir/rdma-net:ctr1:net1"
	}
	# pod1's namespace recorded; the path now is pod2's (the pid recycled).
	rec /proc/$pid/ns/net "$pod1"
	cni_exec rdma-ns CHECK ctr1 /proc/$pid/ns/net net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '.code' 101
	assert_match "^\"CNI_NETNS /proc/$pid/ns/net is network namespace $pod2(:[0-9]+)?, not $pod1 that ADD moved the RDMA devices into \(recorded in /var/lib/cni/rdma-ns/rdma-net:ctr1:net1\)\"$" \
		"$(jq '.details' <<<"$OUT")" "CHECK's details"
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "late DEL ($OUT)"
	[ -e $dir/rdma-net:ctr1:net1 ] && fail "record kept"
	assert_match "/proc/$pid/ns/net is now another network namespace \(recorded $pod1, found $pod2(:[0-9]+)?\): the pod's is gone and the kernel returned its RDMA devices; nothing is undone there" \
		"$ERR" "the log line"
	# The recorded namespace itself, and a record of an older build (no
	# netnsId): taken as before.
	rec /proc/$pid/ns/net "$pod2"
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[[ $ERR == *"another network namespace"* ]] && fail "the recorded namespace taken for another: $ERR"
	printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"/proc/%s/ns/net","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		"$pid" >"$dir/rdma-net:ctr1:net1"
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL of an older record ($OUT)"
	[[ $ERR == *"another network namespace"* ]] && fail "an older record taken for another namespace: $ERR"
	assert_eq "" "$(ls $dir)" "records removed"
	kill "$pid"
	wait "$pid" 2>/dev/null
}

# The network namespace cookie of PATH (SO_NETNS_COOKIE, Linux 5.14), read
# from a socket made in it, as rdma-ns reads it.
netns_cookie() { # PATH
	nsenter --net="$1" /usr/bin/python3 -c 'import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])'
}

# The recycled path's namespace has the recorded device and inode (inode
# numbers are reused: pod1's freed one went to the next namespace), and a
# kernel before 6.18 has no namespace ID to tell them apart (nsid 0 in the
# record): the cookie ADD recorded does. A cookie that differs is another
# namespace, as another inode is; the recorded one releases as before.
test_rdmans_late_del_reused_inode_other_cookie() {
	local dir=/var/lib/cni/rdma-ns pid pod1 pod2 c1 c2
	sim_node 1 2 ib
	pod_ns pod1
	pod_ns pod2
	ip netns exec pod2 sleep 100 &
	pid=$!
	c1=$(netns_cookie /run/netns/pod1)
	c2=$(netns_cookie /proc/$pid/ns/net)
	[[ $c1 =~ ^[1-9][0-9]*$ && $c2 =~ ^[1-9][0-9]*$ && $c1 != "$c2" ]] ||
		fail "namespace cookies: '$c1' '$c2'"
	pod2=$(stat -L -c '%d:%i' /proc/$pid/ns/net)
	# What ADD recorded in pod1's namespace, had its inode been pod2's.
	pod1="$pod2:0:$c1"
	mkdir -p $dir
	rec() { # NETNSID: the record ADD wrote for ctr1
		printf '{"network":"rdma-net","containerID":"ctr1","ifname":"net1","netns":"/proc/%s/ns/net","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"],"rdma_index":[3],"netnsId":"%s"}' \
			"$pid" "$1" >"$dir/rdma-net:ctr1:net1"
	}
	rec "$pod1"
	cni_exec rdma-ns CHECK ctr1 /proc/$pid/ns/net net1 "$(rdmans_conf 1.1.0 "$PREV")"
	assert_json '.code' 101
	assert_match "^\"CNI_NETNS /proc/$pid/ns/net is network namespace $pod2:[0-9]+:$c2, not $pod1 that ADD moved" \
		"$(jq '.details' <<<"$OUT")" "CHECK's details"
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "late DEL ($OUT)"
	[ -e $dir/rdma-net:ctr1:net1 ] && fail "record kept"
	assert_match "/proc/$pid/ns/net is now another network namespace \(recorded $pod1, found $pod2:[0-9]+:$c2\): the pod's is gone and the kernel returned its RDMA devices; nothing is undone there" \
		"$ERR" "the log line"
	# The recorded cookie is the namespace's: released as before.
	rec "$pod2:0:$c2"
	cni_exec rdma-ns DEL ctr1 "" net1 "$(rdmans_conf)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[[ $ERR == *"another network namespace"* ]] && fail "the recorded namespace taken for another: $ERR"
	assert_eq "" "$(ls $dir)" "records removed"
	kill "$pid"
	wait "$pid" 2>/dev/null
}
