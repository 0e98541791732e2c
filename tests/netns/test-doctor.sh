# SPDX-License-Identifier: Apache-2.0
# `ib-sriov doctor` on the simulated SR-IOV node: PFs and VFs as sysfs and
# netlink show them, attachments whose pod is gone, the boot setting of the
# RDMA netns mode, the RDMA shared device plugin's traces, planted files.
# This kernel has no RDMA subsystem: the verbs and netns-mode findings on a
# real RDMA device are the vm tier's (rxe).

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

doctor() { # [ARGS...]: run it; OUT, ERR, RC
	OUT=$(timeout 20 "$BIN/ib-sriov" doctor "$@" 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
}

# jq FILTER over the findings' subjects and texts
finding() { jq -c "[.findings[] | select($1) | {severity, subject}]" <<<"$OUT"; }

test_doctor_pfs_vfs_and_attachments() {
	local D=/sys/bus/pci/devices R=/sys/bus/pci/drivers
	sim_node 1 3 ib || { fail "sim_node"; return; }
	echo 3 >$D/0000:03:00.0/sriov_numvfs; echo 8 >$D/0000:03:00.0/sriov_totalvfs
	rm $D/0000:03:01.1/driver	# VF 1: no driver
	ln -sfn ../../drivers/vfio-pci $D/0000:03:01.2/driver	# VF 2: vfio-pci, no netdev
	rm -r $D/0000:03:01.2/net
	pod_ns pod1
	cni_exec ib-sriov ADD c1 pod1 net1 "$(sriov_conf "" "" 1.1.0 "$(sim_vf_addr 0 0)")"
	assert_eq 0 "$RC" "ADD ($OUT)"
	doctor --json
	assert_eq 0 "$RC" "exit status without errors ($ERR)"
	assert_json '.rdma.netnsMode' 'null'
	assert_json '.rdma.error' '"the kernel has no RDMA subsystem (is ib_core loaded?)"'
	# Linux 7.3's RDMA netlink (names per netns, a name with the move): not here.
	assert_json '[.rdma.kernel,.rdma.namesPerNetns,.rdma.nameWithMove]' "[\"$(uname -r)\",false,false]"
	assert_json '[.pfs[] | {pci, netdev, driver, linkType, numVfs, totalVfs}]' \
		'[{"pci":"0000:03:00.0","netdev":"pf0","driver":"mlx5_core","linkType":"Ethernet","numVfs":3,"totalVfs":8}]'
	assert_json '[.pfs[0].vfs[] | [.vf, .pci, .driver, .rdmaDevice, .attachedBy]]' \
		'[[0,"0000:03:01.0","mlx5_core","mlx5_0_0","/var/lib/cni/ibcni/ib-sriov/c1:net1"],[1,"0000:03:01.1",null,"mlx5_0_1",null],[2,"0000:03:01.2","vfio-pci","mlx5_0_2",null]]'
	assert_json '.pfs[0].vfs[0].netdevUp' 'null'	# in the pod, not on the host
	assert_json '[.attachments[] | [.file, .containerID, .ifname, .deviceID, .netns, .netnsGone]]' \
		'[["/var/lib/cni/ibcni/ib-sriov/c1:net1","c1","net1","0000:03:01.0","/run/netns/pod1",false]]'
	assert_eq '[{"severity":"warning","subject":"0000:03:01.1"}]' \
		"$(finding '.subject | startswith("0000:03:01.")|not|not' | jq -c '[.[]|select(.severity!="info")]')" \
		"the driverless VF is the only VF warning (VF 0 is attached)"
	assert_eq '[{"severity":"info","subject":"0000:03:01.2"}]' "$(finding '.severity=="info"')" "vfio-pci VF"
	assert_match 'fix.*echo 0000:03:01.1 > /sys/bus/pci/drivers/mlx5_core/bind' \
		"$(jq -c '.findings[]|select(.subject=="0000:03:01.1")' <<<"$OUT")" "the fix for a driverless VF"
	assert_json '.summary' '{"errors":0,"warnings":2}'

	# The pod goes away without a DEL: the record is a leftover, with its fix.
	ip netns del pod1
	doctor --json
	assert_json '[.attachments[].netnsGone]' '[true]'
	assert_eq '[{"severity":"warning","subject":"/var/lib/cni/ibcni/ib-sriov/c1:net1"}]' \
		"$(finding '.what | startswith("leftover")')" "leftover attachment"
	assert_match 'CNI_COMMAND=DEL CNI_CONTAINERID=c1 CNI_IFNAME=net1 .*/opt/cni/bin/ib-sriov' \
		"$(jq -r '.findings[]|select(.what|startswith("leftover"))|.fix' <<<"$OUT")" "DEL by hand"
	assert_match 'CNI GC of network rdma-net' \
		"$(jq -r '.findings[]|select(.what|startswith("leftover"))|.fix' <<<"$OUT")" "GC"
}

test_doctor_text_report_and_usage() {
	sim_node 1 1 eth || { fail "sim_node"; return; }
	doctor
	assert_eq 0 "$RC" "exit status"
	assert_match 'SR-IOV PFs \(/sys/bus/pci\)' "$OUT" "PF section"
	assert_match '0000:03:00.0  netdev pf0  driver mlx5_core  Ethernet  VFs \?/\?' "$OUT" "PF line"
	assert_match 'VF 0  0000:03:01.0  driver mlx5_core  netdev vf0_0 \(down\)  rdma -  GUID -  link -' "$OUT" "VF line"
	assert_match 'WARNING RDMA subsystem: no RDMA netlink here' "$OUT" "finding"
	assert_match $'\n          fix: load ib_core' "$OUT" "each finding has its fix"
	assert_eq 'doctor: 0 errors, 1 warnings' "$(tail -1 <<<"$OUT")" "totals line"
	doctor --bogus
	assert_eq 2 "$RC" "usage error"
	assert_eq "$(printf 'usage: ib-sriov doctor [--json]\n       ib-sriov doctor --pod NAMESPACE/NAME [--json]\n       ib-sriov doctor --netns PATH [--json]')" "$ERR" "usage text"
	assert_eq "" "$OUT" "nothing on stdout"
}

test_doctor_boot_setting_and_shared_plugin() {
	sim_node 1 1 eth || { fail "sim_node"; return; }
	mkdir -p /etc/modprobe.d /var/lib/kubelet
	mount -t tmpfs modprobe /etc/modprobe.d
	mount -t tmpfs kubelet /var/lib/kubelet
	doctor --json
	assert_json '.rdma.bootSetting' 'null'
	assert_json '.rdma.sharedDevicePlugin' '[]'
	printf '# ours\n  options ib_core netns_mode=0\n' >/etc/modprobe.d/ib_core.conf
	echo 'options mlx5_core prof_sel=2' >/etc/modprobe.d/mlx5.conf
	mkdir -p /var/lib/kubelet/device-plugins
	printf '%s' '{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{"nvidia.com/mlnx_vf":["0000:03:01.0"],"rdma/rdma_shared_device_a":["a","b"]}},"Checksum":1}' \
		>/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
	doctor --json
	assert_json '.rdma.bootSetting' '"/etc/modprobe.d/ib_core.conf: netns_mode=0 (exclusive)"'
	assert_json '.rdma.sharedDevicePlugin' \
		'["kubelet resource rdma/rdma_shared_device_a (/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint)"]'
	# A process of the shared device plugin (its comm) is evidence too.
	cp /bin/sleep "$T/k8s-rdma-shared-dev-plugin"
	"$T/k8s-rdma-shared-dev-plugin" 30 &
	local pid=$!
	doctor --json
	kill $pid
	assert_json '.rdma.sharedDevicePlugin | length' '2'
	assert_json ".rdma.sharedDevicePlugin[1]" "\"process $pid (k8s-rdma-shared-dev-plugin)\""
	# The systemd unit counts as a boot setting when enabled.
	umount /etc/modprobe.d
	mkdir -p /etc/systemd/system && mount -t tmpfs units /etc/systemd/system
	mkdir -p /etc/systemd/system/multi-user.target.wants
	ln -s /etc/systemd/system/rdma-ns-netns-mode.service /etc/systemd/system/multi-user.target.wants/
	: >/etc/systemd/system/rdma-ns-netns-mode.service
	doctor --json
	assert_json '.rdma.bootSetting' '"/etc/systemd/system/multi-user.target.wants/rdma-ns-netns-mode.service (enabled: exclusive before the container runtime)"'
}

# Planted files where the doctor reads: it neither hangs nor follows them.
test_doctor_planted_files() {
	sim_node 1 1 eth || { fail "sim_node"; return; }
	mkdir -p /etc/modprobe.d /var/lib/kubelet/device-plugins /var/lib/cni/ibcni/ib-sriov \
		/var/lib/cni/rdma-ns
	mount -t tmpfs modprobe /etc/modprobe.d
	mount -t tmpfs kubelet /var/lib/kubelet && mkdir -p /var/lib/kubelet/device-plugins
	mkfifo /etc/modprobe.d/fifo.conf /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
	ln -s /dev/zero /etc/modprobe.d/zero.conf
	mkfifo /var/lib/cni/ibcni/ib-sriov/c9:net1 /var/lib/cni/rdma-ns/n:c9:net1
	chmod 700 /var/lib/cni/ibcni/ib-sriov /var/lib/cni/rdma-ns
	local start=$(date +%s)
	doctor --json
	assert_eq 0 "$RC" "exit status ($ERR)"
	[ $(($(date +%s) - start)) -lt 10 ] || fail "the doctor took $(($(date +%s) - start)) s"
	assert_json '.rdma.bootSetting' 'null'
	assert_json '.rdma.sharedDevicePlugin' '[]'
	assert_json '[.findings[] | select(.what == "unreadable ib-sriov record") | .subject]' \
		'["/var/lib/cni/ibcni/ib-sriov/c9:net1"]'
	assert_json '.attachments' '[]'
}

test_doctor_go_cache_and_rdmans_records() {
	sim_node 1 2 ib || { fail "sim_node"; return; }
	pod_ns live
	mkdir -p /var/lib/cni/ib-sriov /var/lib/cni/rdma-ns
	chmod 700 /var/lib/cni/ib-sriov /var/lib/cni/rdma-ns
	# ib-sriov-cni's cache for VF 1, whose netdev is back on the host.
	printf '%s' '{"cniVersion":"1.0.0","name":"rdma-net","type":"ib-sriov","Master":"pf0","deviceID":"0000:03:01.1","VFID":1,"HostIFNames":"vf0_1","ContIFNames":"net1"}' \
		>/var/lib/cni/ib-sriov/g1-net1
	# rdma-ns records: one whose pod lives, one whose pod is gone.
	printf '%s' '{"network":"rdma-net","containerID":"r1","ifname":"net1","netns":"/run/netns/live","deviceID":"0000:03:01.0","rdma":["mlx5_0_0"]}' \
		>/var/lib/cni/rdma-ns/rdma-net:r1:net1
	printf '%s' '{"network":"rdma-net","containerID":"r2","ifname":"net1","netns":"/run/netns/gone","deviceID":"0000:03:01.1","rdma":["mlx5_0_1"]}' \
		>/var/lib/cni/rdma-ns/rdma-net:r2:net1
	doctor --json
	assert_json '[.attachments[] | [.file, .containerID, .netnsGone]] | sort' \
		'[["/var/lib/cni/ib-sriov/g1-net1","g1",true],["/var/lib/cni/rdma-ns/rdma-net:r1:net1","r1",false],["/var/lib/cni/rdma-ns/rdma-net:r2:net1","r2",true]]'
	assert_json '[.findings[] | select(.what | test("^leftover")) | .subject] | sort' \
		'["/var/lib/cni/ib-sriov/g1-net1","/var/lib/cni/rdma-ns/rdma-net:r2:net1"]'
	assert_match '/opt/cni/bin/rdma-ns' \
		"$(jq -r '.findings[]|select(.subject=="/var/lib/cni/rdma-ns/rdma-net:r2:net1")|.fix' <<<"$OUT")" "rdma-ns's DEL"
	assert_json '.pfs[0].vfs[1].attachedBy' '"/var/lib/cni/ib-sriov/g1-net1"'
}
