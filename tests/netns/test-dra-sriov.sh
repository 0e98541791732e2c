# SPDX-License-Identifier: Apache-2.0
# dra-driver-sriov's STANDALONE mode (dra.md §1.1-1.2): no Multus; the
# driver's NRI RunPodSandbox hook runs the CNI plugin itself through libcni
# (v1.3.0) AddNetwork on the NAD's single-plugin config, and StopPodSandbox
# runs DelNetwork, twice: containerd's stopPodSandbox (with the cached
# prevResult, the netns still there), then RemovePodSandbox's forced stop
# (the cache entry gone: no prevResult; the netns path gone too). Every call
# here is built byte for byte as the driver and libcni build it.
#
# The PodResources device check: the ADD carries kubelet's pod name in
# CNI_ARGS, so on a node whose kubelet socket is present ib-sriov would ask
# kubelet about the deviceID. lib_init leaves /var/lib/kubelet an empty
# tmpfs: no socket, so the check does not run here (test-podres.sh covers it).

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

# containerd's sandbox ID (64 hex digits), its netns (cni-<uuid>), the pod.
DRA_SANDBOX=8c1f4e0a9b2d47c6a3e5f7081b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d
DRA_NETNS=/var/run/netns/cni-3b6e1f2a-9c4d-4e7b-8a1f-5d2c6b9e0f13
DRA_POD_UID=7e4a2c19-5b3d-4f8e-a6c1-2d9b0e7f3a58

# The NAD's spec.config as an operator writes it (keys in any order).
dra_nad() { # EXTRA-KEYS
	printf '{"cniVersion":"1.0.0","name":"ib-rail0","type":"ib-sriov","logLevel":"info","mtu":4000,"mac":"02:aa:bb:00:00:01"%s,"ipam":{"type":"ib-host-local","routes":[{"dst":"10.57.0.0/16"}],"ranges":[[{"subnet":"10.56.0.0/24"}],[{"subnet":"fd00:56::/64"}]]}}' "${1:+,$1}"
}

# stdin as it reaches the plugin: the driver decodes the config into a map,
# sets "deviceID" and re-encodes it (Go's encoding/json: keys sorted at every
# level, compact); libcni's buildOneConfig injects name and cniVersion again
# (the same re-encoding) and, with no capabilities asked for, no
# runtimeConfig; on DEL, prevResult from its cache. jq -S -c is that encoding
# for these values (no HTML characters, integers far below 2^53).
dra_stdin() { # NAD [PREV-RESULT]
	jq -S -c --arg dev "$(sim_vf_addr 0 1)" --argjson prev "${2:-null}" \
		'.deviceID = $dev | if $prev then .prevResult = $prev else . end' <<<"$1"
}

# libcni's cache holds the result; on DEL it is read back as a types/100
# result and re-encoded in that struct's field order, unknown keys dropped,
# an empty dns omitted (libcni/api.go getCachedResult, types/100).
dra_prev_result() { # ADD-RESULT
	jq -c '{cniVersion,
		interfaces: [.interfaces[] | {name, mac, mtu, sandbox, socketPath, pciID} | with_entries(select(.value != null))],
		ips: [.ips[] | {interface, address, gateway} | with_entries(select(.value != null))],
		routes: [.routes[]? | {dst, gw, mtu, advmss, priority, table, scope} | with_entries(select(.value != null))],
		dns} | with_entries(select(.value != null and .value != {} and .value != []))' <<<"$1"
}

# The exec: the driver process's own environment first (its DaemonSet's
# variables, chart templates/dra-driver.yaml), then libcni's CNI_* in
# pkg/invoke/args.go AsEnv's order; CNI_PATH the only directory the driver
# gives libcni. IBCNI_WRAP, the tier's (the arm64 tier's qemu-user), as
# cni_exec takes it.
dra_exec() { # CMD STDIN
	OUT=$(env -i HOSTNAME=dra-driver-sriov-x7k2p NODE_NAME=node-a NAMESPACE=dra-driver-sriov \
		CDI_ROOT=/var/run/cdi \
		KUBELET_REGISTRAR_DIRECTORY_PATH=/var/lib/kubelet/plugins_registry \
		KUBELET_PLUGINS_DIRECTORY_PATH=/var/lib/kubelet/plugins \
		NRI_PLUGIN_NAME=dra-driver-sriov NRI_PLUGIN_IDX=42 DEFAULT_INTERFACE_PREFIX=vfnet \
		CONFIGURATION_MODE=STANDALONE ENABLE_DEVICE_METADATA=true \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 HOME=/root \
		CNI_COMMAND="$1" CNI_CONTAINERID=$DRA_SANDBOX CNI_NETNS=$DRA_NETNS \
		CNI_ARGS="IgnoreUnknown=true;K8S_POD_NAMESPACE=train;K8S_POD_NAME=rank-0;K8S_POD_INFRA_CONTAINER_ID=$DRA_SANDBOX;K8S_POD_UID=$DRA_POD_UID" \
		CNI_IFNAME=vfnet0 CNI_PATH=/opt/cni/bin \
		${IBCNI_WRAP:-} /opt/cni/bin/ib-sriov <<<"$2" 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
}

# The node: the simulated SR-IOV PF, the plugins in /opt/cni/bin (a private
# tmpfs over /opt), the pod's netns where containerd puts it.
dra_node() {
	sim_node 1 2 eth || return 1
	mount -t tmpfs dra-opt /opt && mkdir -p /opt/cni/bin || return 1
	ln -s "$BIN/ib-sriov" "$BIN/ib-host-local" /opt/cni/bin/
	pod_ns "$(basename $DRA_NETNS)"
}

dra_devinfo=/run/k8s.cni.cncf.io/devinfo/cni/ib-rail0-${DRA_SANDBOX}_vfnet0

test_dra_standalone_add_del_del() {
	local before mac mtu add prev want ns dir=/var/lib/cni/networks/ib-rail0
	dra_node || { fail "the simulated node"; return; }
	ns=$(basename $DRA_NETNS)
	before=$(host_state)
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	mtu=$(ip -j link show vf0_1 | jq -r '.[0].mtu')
	# RunPodSandbox: AddNetwork.
	dra_exec ADD "$(dra_stdin "$(dra_nad)")"
	assert_eq 0 "$RC" "ADD ($OUT $ERR)"
	want='{"cniVersion":"1.0.0","interfaces":[{"name":"vfnet0","mac":"02:aa:bb:00:00:01","mtu":4000,"sandbox":"'$DRA_NETNS'","pciID":"0000:03:01.1"}],"ips":[{"interface":0,"address":"10.56.0.2/24","gateway":"10.56.0.1"},{"interface":0,"address":"fd00:56::2/64","gateway":"fd00:56::1"}],"routes":[{"dst":"10.57.0.0/16"}],"dns":{}}'
	assert_eq "$want" "$(jq -c . <<<"$OUT")" "ADD result"
	add=$OUT
	# What the driver keeps for the claim's status (pkg/cni/status.go): the
	# sandbox interface's name and MAC, every address.
	assert_json '[(.interfaces[] | select(.sandbox) | .name, .mac), [.ips[].address]]' \
		'["vfnet0","02:aa:bb:00:00:01",["10.56.0.2/24","fd00:56::2/64"]]'
	# The kernel: the VF in the pod as vfnet0, with the NAD's MAC and MTU and
	# the leased addresses; gone from the host.
	assert_link "$ns" vfnet0 '[.address,.mtu,(.flags|index("UP")>=0)]' '["02:aa:bb:00:00:01",4000,true]'
	assert_eq '["10.56.0.2/24","fd00:56::2/64"]' \
		"$(ip -n "$ns" -j addr show dev vfnet0 scope global | jq -c '[.[0].addr_info[] | "\(.local)/\(.prefixlen)"]')" \
		"addresses in the pod"
	assert_eq '10.57.0.0/16 via 10.56.0.1' \
		"$(ip -n "$ns" -j route show dev vfnet0 | jq -r '.[] | select(.gateway) | "\(.dst) via \(.gateway)"')" "route"
	assert_no_link host vf0_1
	# On disk: the leases name the sandbox and vfnet0; ib-sriov's record and
	# the device-info file exist.
	assert_file "$dir/10.56.0.2" "$DRA_SANDBOX"$'\r\nvfnet0'
	assert_file "$dir/fd00:56::2" "$DRA_SANDBOX"$'\r\nvfnet0'
	assert_eq "$DRA_SANDBOX:vfnet0" "$(records)" "ib-sriov's record"
	assert_eq '"0000:03:01.1"' "$(jq -c .pci.\"pci-address\" "$dra_devinfo" 2>&1)" "device-info file"
	# StopPodSandbox (containerd's stopPodSandbox, before its own teardown):
	# DelNetwork with prevResult from libcni's cache.
	prev=$(dra_prev_result "$add")
	dra_exec DEL "$(dra_stdin "$(dra_nad)" "$prev")"
	assert_eq 0 "$RC" "DEL with prevResult ($OUT $ERR)"
	assert_eq "" "$OUT" "DEL prints nothing"
	vf_as_found vf0_1 "$mac" "$mtu"
	assert_eq "" "$(ip -n "$ns" -j link show | jq -r '.[].ifname' | grep -v '^lo$')" "pod after DEL"
	assert_eq "" "$(ls "$dir" | grep -e '^10\.' -e '^fd')" "leases after DEL"
	[ -e "$dra_devinfo" ] && fail "device-info file left after DEL"
	assert_host_unchanged "$before" "after DEL"
	# containerd tears the netns down; RemovePodSandbox stops the sandbox
	# again: the second DelNetwork, no cache entry (no prevResult), the same
	# netns path, which no longer exists.
	ip netns del "$ns"
	dra_exec DEL "$(dra_stdin "$(dra_nad)")"
	assert_eq 0 "$RC" "second DEL, netns gone, no prevResult ($OUT $ERR)"
	assert_eq "" "$OUT" "second DEL prints nothing"
	vf_as_found vf0_1 "$mac" "$mtu"
	assert_host_unchanged "$before" "after the second DEL"
}

# The config dra-driver-sriov's docs lead to: ib-sriov alone with
# "rdmaIsolation": true, since nothing can be chained after it (rdma-ns
# cannot run). The move of the VF's RDMA device into the pod cannot happen
# on this tier: its network namespaces have no RDMA subsystem, and no VM here
# has a VF-owned RDMA device. What ib-sriov does here is refuse before it
# changes anything, naming the cause (code 104); the isolation itself, the
# device moved with the VF and back on DEL and on every rollback, is tested
# one tier down on the fake kernel: tests/unit/test_ibsriov_add.c
# (rollback_at_every_step_infiniband and _rdma_name, and dra_standalone_call
# with this call's shape).
test_dra_standalone_rdma_isolation() {
	local before ns dir=/var/lib/cni/networks/ib-rail0 stdin
	dra_node || { fail "the simulated node"; return; }
	ns=$(basename $DRA_NETNS)
	before=$(host_state)
	stdin=$(dra_stdin "$(dra_nad '"rdmaIsolation":true')")
	assert_match '"rdmaIsolation":true' "$stdin" "the key reaches the plugin"
	dra_exec ADD "$stdin"
	assert_eq '{"cniVersion":"1.0.0","code":104,"msg":"cannot read the RDMA netns mode","details":"the kernel has no RDMA subsystem (is ib_core loaded?)"}' \
		"$(jq -c . <<<"$OUT")" "ADD with rdmaIsolation, no RDMA subsystem"
	assert_host_unchanged "$before" "after the refused ADD"
	assert_eq "" "$(ip -n "$ns" -j link show | jq -r '.[].ifname' | grep -v '^lo$')" "pod after the refused ADD"
	assert_eq "" "$(ls "$dir" 2>/dev/null | grep -e '^10\.' -e '^fd')" "no lease"
	assert_eq "" "$(records)" "no record"
	[ -e "$dra_devinfo" ] && fail "device-info file after a refused ADD"
	# containerd fails the sandbox and sends no StopPodSandbox for it (§1.2);
	# a DEL all the same (a driver retrying, an admin) is harmless.
	dra_exec DEL "$(dra_stdin "$(dra_nad '"rdmaIsolation":true')")"
	assert_eq 0 "$RC" "DEL after the refused ADD ($OUT $ERR)"
	assert_host_unchanged "$before" "after that DEL"
}
