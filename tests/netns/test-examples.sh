# SPDX-License-Identifier: Apache-2.0
# Every file of conf-examples/ is checked: each parses, each network config
# is run by the plugins on the simulated SR-IOV node as Multus would hand it
# over (deviceID injected into every plugin, the chain's prevResult), the
# deployment files agree with each other (resource names, DaemonSet mounts
# and installer arguments, the image tag), and --help/--version answer.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

EX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../conf-examples" && pwd)
PY=/usr/bin/python3

# Every file, with how it is checked; a new file without a line here fails
# test_examples_all_listed.
declare -A KIND=(
	[README.md]=doc
	[host-local-migration.conf]=netconf
	[ib-host-local.conflist]=conflist
	[rdma-ns.conflist]=conflist
	[rdma.conflist]=conflist
	[ib-sriov-rails.conflist]=conflist
	[ib-sriov-nad.yaml]=nad
	[whereabouts-nad.yaml]=nad
	[nv-ipam-nad.yaml]=nad
	[ibcni-node-ranges.yaml]=configmap
	[rails-nad.yaml]=nad
	[sriov-device-plugin-config.yaml]=configmap
	[ibcni-daemonset.yaml]=daemonset
	[ib_core.conf]=modprobe
	[rdma-ns-netns-mode.service]=unit
)

yaml_docs() { # FILE: each YAML document as one line of JSON
	$PY -c 'import json, sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])): print(json.dumps(d))' "$1"
}

test_examples_all_listed() {
	local f
	for f in "$EX"/*; do
		[ -n "${KIND[$(basename "$f")]:-}" ] || fail "conf-examples/$(basename "$f") has no check here"
	done
	for f in "${!KIND[@]}"; do
		[ -f "$EX/$f" ] || fail "conf-examples/$f is listed but missing"
	done
}

test_examples_parse() {
	local f k n
	for f in "${!KIND[@]}"; do
		k=${KIND[$f]}
		case $k in
		netconf | conflist)
			jq -e . "$EX/$f" >/dev/null 2>&1 || fail "$f is not JSON"
			;;
		nad | configmap | daemonset)
			n=$(yaml_docs "$EX/$f" 2>&1 | jq -s length 2>/dev/null)
			[[ $n =~ ^[1-9][0-9]*$ ]] || fail "$f is not YAML: $(yaml_docs "$EX/$f" 2>&1 | tail -1)"
			;;
		esac
	done
	# The JSON inside the YAML: each NAD's config and the ConfigMap's file.
	for f in ib-sriov-nad.yaml whereabouts-nad.yaml nv-ipam-nad.yaml rails-nad.yaml; do
		yaml_docs "$EX/$f" | jq -c 'select(.kind == "NetworkAttachmentDefinition")' | while read -r doc; do
			jq -r .spec.config <<<"$doc" | jq -e . >/dev/null 2>&1 ||
				fail "$f: spec.config of $(jq -r .metadata.name <<<"$doc") is not JSON"
		done
	done
	yaml_docs "$EX/sriov-device-plugin-config.yaml" | jq -r '.data["config.json"]' | jq -e . >/dev/null ||
		fail "sriov-device-plugin-config.yaml: config.json is not JSON"
	for n in $(yaml_docs "$EX/ibcni-node-ranges.yaml" | jq -r '.data | keys[]'); do
		yaml_docs "$EX/ibcni-node-ranges.yaml" | jq -r --arg n "$n" '.data[$n]' | jq -e 'type == "object"' >/dev/null ||
			fail "ibcni-node-ranges.yaml: the entry of $n is not a JSON object"
	done
}

# ibcni.conf as the installer writes it on node NODE from the example
# ConfigMap's entry: "ranges" is that entry.
node_ranges_conf() { # NODE: the node's entry where the installer puts it
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks"]}'
	node_dropin ranges.conf "$(yaml_docs "$EX/ibcni-node-ranges.yaml" | jq -r --arg n "$1" '.data[$n]' |
		jq -c '{ranges: .}')"
}

test_examples_node_ranges_apart() {
	# No address of one node's range sets is another node's: each node's
	# ib-host-local, loaded with its entry, hands out its own block.
	local n all=
	for n in $(yaml_docs "$EX/ibcni-node-ranges.yaml" | jq -r '.data | keys[]'); do
		all+=$(yaml_docs "$EX/ibcni-node-ranges.yaml" | jq -c --arg n "$n" '.data[$n] | fromjson | .[] | if type == "object" then .ranges else . end')$'\n'
	done
	$PY -c 'import ipaddress, json, sys
sets = [json.loads(l) for l in sys.stdin.read().splitlines() if l]
spans = []
for nets in sets:
    for rs in nets:
        for r in rs:
            n = ipaddress.ip_network(r["subnet"])
            a = ipaddress.ip_address(r.get("rangeStart", n[1]))
            b = ipaddress.ip_address(r.get("rangeEnd", n[-2]))
            spans.append((n.version, int(a), int(b)))
spans.sort()
for x, y in zip(spans, spans[1:]):
    assert x[0] != y[0] or x[2] < y[1], "overlap %s %s" % (x, y)
print(len(spans))' <<<"$all" >"$T/spans" 2>&1 || fail "node ranges overlap: $(cat "$T/spans")"
	assert_eq 20 "$(cat "$T/spans")" "two nodes, two range sets of ib-sriov-network and eight rails each"
}

# example_plugin CONF: the binary of CONF's type, ours or Debian's Go
# plugin (sbr, tuning).
example_plugin() {
	local t
	t=$(jq -r .type <<<"$1")
	if [ -x "$BIN/$t" ]; then echo "$t"; else echo "$GO_CNI/$t"; fi
}

# run_netconf NAME CONF KIND: ADD then DEL of one network config (a conflist
# runs its plugins in order, each given the previous result), on VF 0/1 as
# Multus passes it. ADD_RC/ADD_OUT hold the first failing (or last) ADD.
# BEFORE_DEL, when set, is run between them.
run_netconf() {
	local name=$1 conf=$2 kind=$3 plugins n i p prev=
	if [ "$kind" = conflist ]; then
		plugins=$(jq -c --arg d "$(sim_vf_addr 0 1)" '. as $l | .plugins[] |
			. + {cniVersion: $l.cniVersion, name: $l.name, deviceID: $d}' <<<"$conf")
	else
		plugins=$(jq -c --arg d "$(sim_vf_addr 0 1)" '. + {deviceID: $d}' <<<"$conf")
	fi
	mapfile -t p <<<"$plugins"
	n=${#p[@]}
	for ((i = 0; i < n; i++)); do
		[ -n "$prev" ] && p[i]=$(jq -c --argjson r "$prev" '. + {prevResult: $r}' <<<"${p[i]}")
		CNI_PATH_OVERRIDE=$BIN:$FIXTURES/standins cni_exec "$(example_plugin "${p[i]}")" ADD ctr1 pod1 net1 "${p[i]}" \
			'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod1'
		ADD_RC=$RC ADD_OUT=$OUT
		[ "$RC" -eq 0 ] || break
		prev=$OUT
	done
	eval "${BEFORE_DEL:-}"
	for ((i = n - 1; i >= 0; i--)); do
		CNI_PATH_OVERRIDE=$BIN:$FIXTURES/standins cni_exec "$(example_plugin "${p[i]}")" DEL ctr1 pod1 net1 "${p[i]}"
		assert_eq 0 "$RC" "$name: DEL of $(jq -r .type <<<"${p[i]}") ($OUT)"
	done
}

# What each network config does on this node: ok, or the one refusal this
# kernel must give (veth VFs take no PF-side setting; no RDMA subsystem
# here, the vm tier has one). A config error (code 7) is never acceptable.
check_netconf() { # NAME CONF KIND NODE-KIND WANT: ok | vf-setting | rdma | whereabouts-no-node-file
	local mac
	sim_node 1 2 "$4" || { fail "sim_node"; return; }
	pod_ns pod1
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	run_netconf "$1" "$2" "$3"
	case $5 in
	ok)
		assert_eq 0 "$ADD_RC" "$1: ADD ($ADD_OUT)"
		;;
	vf-setting)
		assert_eq 101 "$(jq -r .code <<<"$ADD_OUT")" "$1: the veth PF refuses the VF setting ($ADD_OUT)"
		;;
	rdma)
		assert_match 'RDMA|ib_core' "$(jq -r .msg,.details <<<"$ADD_OUT")" "$1: rdma-ns needs the RDMA subsystem"
		;;
	whereabouts-no-node-file)
		assert_eq '[999,"config file not found"]' "$(jq -c '[.code,.msg]' <<<"$ADD_OUT")" "$1: ADD ($ADD_OUT)"
		;;
	esac
	[ "$(jq -r '.code // 0' <<<"$ADD_OUT" 2>/dev/null)" = 7 ] && fail "$1: config refused: $ADD_OUT"
	vf_as_found vf0_1 "$mac" 1500
	assert_eq "" "$(ls /var/lib/cni/networks/* 2>/dev/null | grep -v -e lock -e last_reserved -e '^/' -e '^$')" \
		"$1: leases left"
	ip netns del pod1
	umount /sys/bus/pci/devices /sys/bus/pci/drivers
	ip link del pf0 2>/dev/null
	ip link del vf0_0 2>/dev/null
	ip link del vf0_1 2>/dev/null
	OUT=$ADD_OUT
}

test_examples_netconfs_run() {
	mount -t tmpfs examples-log /var/log # the NADs log to /var/log/ibcni/
	# whereabouts (tests/fixtures/standins) reads its node file as the real
	# one does: installed as its DaemonSet does, which whereabouts-nad.yaml
	# says it needs.
	whereabouts_node with-file || { fail "whereabouts_node"; return; }
	check_netconf host-local-migration.conf "$(cat "$EX/host-local-migration.conf")" netconf eth ok
	assert_json '.ips[0].address' '"10.56.217.171/24"'
	check_netconf ib-host-local.conflist "$(cat "$EX/ib-host-local.conflist")" conflist ib ok
	assert_json '[.ips[].address]' '["192.168.100.10/24","fd00:100::2/64"]'
	check_netconf rdma-ns.conflist "$(cat "$EX/rdma-ns.conflist")" conflist ib rdma
	check_netconf rdma.conflist "$(cat "$EX/rdma.conflist")" conflist ib rdma
	check_netconf ib-sriov-rails.conflist "$(cat "$EX/ib-sriov-rails.conflist")" conflist ib ok
	assert_json '[.ips[0].address, .ips[0].gateway, .routes]' '["192.168.120.2/24","192.168.120.1",[{"dst":"192.168.0.0/16"}]]'
	local doc name
	node_ranges_conf gpu-node-2 # "ranges": "node" on the second node
	while read -r doc; do
		name=$(jq -r .metadata.name <<<"$doc")
		case $name in
		ib-sriov-network)
			# link_state is a PF-side setting: a veth PF reports none.
			check_netconf "$name" "$(jq -r .spec.config <<<"$doc")" netconf ib vf-setting
			assert_match 'link_state' "$(jq -r .details <<<"$OUT")" "$name: the setting named"
			assert_match 'ib-sriov ADD ctr1/net1: .*link_state' "$(cat /var/log/ibcni/ib-sriov-network.log 2>/dev/null)" \
				"$name: its logFile"
			# Without it, the node's own block of the network.
			check_netconf "$name" "$(jq -r .spec.config <<<"$doc" | jq -c 'del(.link_state)')" netconf ib ok
			assert_json '[.ips[].address]' '["192.168.2.1/16","fd00:111::2:0/64"]'
			node_ranges_conf gpu-node-1
			check_netconf "$name" "$(jq -r .spec.config <<<"$doc" | jq -c 'del(.link_state)')" netconf ib ok
			assert_json '[.ips[].address]' '["192.168.1.1/16","fd00:111::1:0/64"]'
			# Its block is for the entry's namespaces only: another's ADD gets nothing.
			cni_exec ib-host-local ADD ctr9 /proc/self/ns/net net1 "$(jq -r .spec.config <<<"$doc")" \
				'IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant-b;K8S_POD_NAME=pod9'
			assert_json '[.code,.msg]' '[7,"namespace not allowed the node'"'"'s ranges"]'
			node_ranges_conf gpu-node-2
			;;
		ib-nv-ipam-network)
			check_netconf "$name" "$(jq -r .spec.config <<<"$doc")" netconf ib ok
			assert_json '[.ips[].address]' '["10.70.3.10/16"]'
			assert_eq '{"type":"nv-ipam","poolName":"ib-pool-1","poolType":"ippool"}' \
				"$(jq -c .ipam /run/ibcni-standin/nv-ipam.ADD.json)" "nv-ipam got its keys"
			[ -f /run/ibcni-standin/nv-ipam.DEL.json ] || fail "nv-ipam's DEL was not run"
			assert_eq ib-pool-1 "$(yaml_docs "$EX/nv-ipam-nad.yaml" | jq -r 'select(.kind == "IPPool") | .metadata.name')" \
				"the IPPool is the NAD's pool"
			;;
		roce-network)
			check_netconf "$name" "$(jq -r .spec.config <<<"$doc")" netconf eth vf-setting
			;;
		ib-cluster-network)
			check_netconf "$name" "$(jq -r .spec.config <<<"$doc")" netconf ib ok
			assert_json '.ips[0].address' '"10.120.1.0/16"'
			assert_eq "$(jq -r .spec.config <<<"$doc" | jq -c .ipam)" \
				"$(jq -c .ipam /run/ibcni-standin/whereabouts.ADD.json)" "whereabouts got the NAD's ipam"
			assert_eq "" "$(ls /run/ibcni-standin/whereabouts.leases)" "whereabouts' DEL freed the address"
			# Without its node file: whereabouts' own error, passed on, the
			# VF back (DEL, which fails the same way, once it is written).
			mv /etc/cni/net.d/whereabouts.d/whereabouts.conf "$T/wb.conf"
			BEFORE_DEL='mv "$T/wb.conf" /etc/cni/net.d/whereabouts.d/whereabouts.conf' \
				check_netconf "$name" "$(jq -r .spec.config <<<"$doc")" netconf ib whereabouts-no-node-file
			;;
		*)
			fail "a NAD this test does not know: $name"
			;;
		esac
	done < <(yaml_docs "$EX/ib-sriov-nad.yaml"; yaml_docs "$EX/whereabouts-nad.yaml"
		yaml_docs "$EX/nv-ipam-nad.yaml" | jq -c 'select(.kind == "NetworkAttachmentDefinition")')
}

# rails-nad.yaml: the eight NADs into one pod as Multus attaches them
# (net1..net8, each rail's VF as its deviceID), then DEL of each, last
# first: a rule and a table per rail, none left.
test_examples_rails_nads() {
	local doc k=0 conf n
	sim_node 1 8 ib || { fail "sim_node"; return; }
	pod_ns pod1
	node_ranges_conf gpu-node-2 # "ranges": "node": this node's block of each rail
	mapfile -t docs < <(yaml_docs "$EX/rails-nad.yaml" | jq -c '.spec.config | fromjson')
	assert_eq 8 "${#docs[@]}" "rails in rails-nad.yaml"
	for ((k = 0; k < ${#docs[@]}; k++)); do
		conf=$(jq -c --arg d "$(sim_vf_addr 0 $k)" '. + {deviceID: $d}' <<<"${docs[k]}")
		cni_exec ib-sriov ADD ctr1 pod1 net$((k + 1)) "$conf"
		assert_eq 0 "$RC" "rail-$k: ADD ($OUT)"
		assert_json '.ips[0].address' "\"10.$((10 + k)).2.1/16\""
	done
	assert_eq '[32700,32700,32700,32700,32700,32700,32700,32700]' \
		"$(ip -n pod1 -j rule | jq -c '[.[] | select(.src != "all") | .priority]')" "a rule per rail"
	n=$(ip -n pod1 -j rule | jq '[.[] | select(.src != "all") | .table] | unique | length')
	assert_eq 8 "$n" "a table per rail"
	assert_eq 1 "$(ip netns exec pod1 cat /proc/sys/net/ipv4/conf/net8/arp_ignore)" "rail-7's arp_ignore"
	for ((k = ${#docs[@]} - 1; k >= 0; k--)); do
		conf=$(jq -c --arg d "$(sim_vf_addr 0 $k)" '. + {deviceID: $d}' <<<"${docs[k]}")
		cni_exec ib-sriov DEL ctr1 pod1 net$((k + 1)) "$conf"
		assert_eq 0 "$RC" "rail-$k: DEL ($OUT)"
	done
	assert_eq '[0,32766,32767]' "$(ip -n pod1 -j rule | jq -c '[.[].priority]')" "rules left"
}

test_examples_device_plugin_resources() {
	# Every NAD's resourceName is a resource the device plugin's config
	# defines, and those resources select RDMA VFs on mlx5_core.
	local res want
	res=$(yaml_docs "$EX/sriov-device-plugin-config.yaml" | jq -r '.data["config.json"]' |
		jq -c '[.resourceList[] | select(.selectors.isRdma == true and
			(.selectors.drivers | index("mlx5_core"))) | "\(.resourcePrefix)/\(.resourceName)"]')
	for want in $(cat "$EX"/*-nad.yaml | grep -o 'resourceName: .*' | cut -d' ' -f2); do
		assert_eq true "$(jq --arg w "$want" 'index($w) != null' <<<"$res")" "resource $want in $res"
	done
}

test_examples_daemonset() {
	# Least privilege (issue 22): the installer in an initContainer that
	# exits (--no-sleep), the node agent as the long-running container,
	# neither privileged; each directory the installer is told about is a
	# volume mounted there; the agent's host mounts; SR-IOV nodes only.
	local ds args version s='.spec.template.spec'
	ds=$(yaml_docs "$EX/ibcni-daemonset.yaml")
	version=$(sed -n 's/^VERSION := //p' "$EX/../Makefile")
	assert_eq "[\"docker.io/library/ibcni:$version\",\"docker.io/library/ibcni:$version\"]" \
		"$(jq -c "[$s.initContainers[0].image, $s.containers[0].image]" <<<"$ds")" "the image make image builds"
	assert_eq '["/ibcni-install"]' "$(jq -c "$s.initContainers[0].command" <<<"$ds")" \
		"the image's installer"
	args=$(jq -c "$s.initContainers[0].args" <<<"$ds")
	assert_eq '"--no-sleep"' "$(jq -c '.[0]' <<<"$args")" "the initContainer exits"
	assert_eq '{"/host/opt/cni/bin":"/opt/cni/bin","/host/etc/ibcni":"/etc/ibcni","/etc/ibcni-ranges":"configMap:ibcni-node-ranges","/host/etc/modprobe.d":"/etc/modprobe.d"}' \
		"$(jq -c "$s as \$s | [\$s.initContainers[0].volumeMounts[] | . as \$m |
			{key: .mountPath, value: (\$s.volumes[] | select(.name == \$m.name) |
			 .hostPath.path // \"configMap:\\(.configMap.name)\")}] | from_entries" <<<"$ds")" "installer mounts"
	assert_eq '["/host/opt/cni/bin","/host/etc/ibcni","/etc/ibcni-ranges","$(NODE_NAME)"]' \
		"$(jq -c '[.[(index("--cni-bin-dir") + 1)], .[(index("--node-conf-dir") + 1)],
			.[(index("--node-ranges-dir") + 1)], .[(index("--node-name") + 1)]]' <<<"$args")" \
		"the installer's directories are the mounts"
	assert_eq '"spec.nodeName"' "$(jq -c "$s.initContainers[0].env[] | select(.name == \"NODE_NAME\") |
		.valueFrom.fieldRef.fieldPath" <<<"$ds")" "the node name from the downward API"
	assert_eq false "$(jq -c 'index("--netns-mode") != null' <<<"$args")" "exclusive netns mode is opt-in"
	assert_match '"--netns-mode", "exclusive"' "$(cat "$EX/ibcni-daemonset.yaml")" "the opt-in, commented"
	# Without the opt-in nothing writes the host's modprobe.d: read-only.
	assert_eq true "$(jq -c "$s.initContainers[0].volumeMounts[] | select(.mountPath == \"/host/etc/modprobe.d\") |
		.readOnly" <<<"$ds")" "modprobe.d read-only until --netns-mode"
	# The agent: the fixed command, NET_ADMIN only.
	assert_eq '["/ibcni/bin/ib-sriov","reconcile","--every","60"]' \
		"$(jq -c "$s.containers[0] | .command + .args" <<<"$ds")" "the node agent"
	assert_eq '[false,false]' "$(jq -c "[$s.initContainers[0], $s.containers[0]] |
		map(.securityContext.privileged)" <<<"$ds")" "neither is privileged"
	assert_eq '[["ALL"],["ALL"]]' "$(jq -c "[$s.initContainers[0], $s.containers[0]] |
		map(.securityContext.capabilities.drop)" <<<"$ds")" "all capabilities dropped"
	assert_eq '[null,["NET_ADMIN"]]' "$(jq -c "[$s.initContainers[0], $s.containers[0]] |
		map(.securityContext.capabilities.add)" <<<"$ds")" "capabilities added"
	assert_eq '{"/var/lib/cni":"/var/lib/cni","/run/ibcni":"/run/ibcni","/var/run/netns":"/var/run/netns HostToContainer","/etc/ibcni":"/etc/ibcni ro","/opt/cni/bin":"/opt/cni/bin ro","/sys":"/sys","/run/k8s.cni.cncf.io/devinfo/cni":"/run/k8s.cni.cncf.io/devinfo/cni"}' \
		"$(jq -c "$s as \$s | [\$s.containers[0].volumeMounts[] | . as \$m |
			{key: .mountPath, value: ((\$s.volumes[] | select(.name == \$m.name) | .hostPath.path) +
			 (if .mountPropagation then \" \\(.mountPropagation)\" else \"\" end) +
			 (if .readOnly then \" ro\" else \"\" end))}] | from_entries" <<<"$ds")" "agent mounts"
	# AppArmor unconfined: a kubelet without SeccompDefault runs a pod that
	# names no profile with seccomp Unconfined too.
	assert_eq '"RuntimeDefault"' "$(jq -c "$s.securityContext.seccompProfile.type" <<<"$ds")" \
		"the runtime's default seccomp profile"
	assert_eq '[null,null]' "$(jq -c "[$s.initContainers[0], $s.containers[0]] |
		map(.securityContext.seccompProfile)" <<<"$ds")" "no container overrides it"
	# A dead pod's release removes its Device Information file: without
	# the host's directory the removal finds nothing (success) and leaks it.
	assert_eq '"/run/k8s.cni.cncf.io/devinfo/cni"' "$(jq -c "$s.containers[0].volumeMounts[] |
		select(.mountPath | startswith(\"/run/k8s.cni.cncf.io\")) | .mountPath" <<<"$ds")" \
		"the agent sees the device-info directory where ib-sriov opens it"
	assert_eq '"/run/k8s.cni.cncf.io/devinfo/cni"' "$(sed -n 's/^#define CNI_DEVINFO_DIR "\(.*\)"$/"\1"/p' "$EX/../cni/state/devinfo.h")" \
		"the path cni/state/devinfo.h opens"
	assert_eq '"true"' "$(jq -c "$s.nodeSelector[\"feature.node.kubernetes.io/network-sriov.capable\"]" <<<"$ds")" \
		"SR-IOV nodes only"
	assert_eq '[]' "$(jq -c "[$s.tolerations[] | select(.key == null)]" <<<"$ds")" \
		"no blanket toleration"
	assert_eq true "$(jq -r "$s.hostNetwork" <<<"$ds")" "hostNetwork (the node's links)"
}

test_examples_boot_files() {
	# The unit runs an admin command rdma-ns lists; the modprobe line sets
	# exclusive mode (0), as ibcni-install writes it.
	local exec
	exec=$(sed -n 's/^ExecStart=//p' "$EX/rdma-ns-netns-mode.service")
	assert_eq "/opt/cni/bin/rdma-ns netns-mode exclusive" "$exec" "ExecStart"
	assert_match 'rdma-ns netns-mode exclusive' "$("$BIN/rdma-ns" --help)" "rdma-ns --help"
	assert_eq "options ib_core netns_mode=0" "$(grep -v '^#' "$EX/ib_core.conf")" "ib_core.conf"
}

test_help_and_version() {
	local b out link version src
	version=$(sed -n 's/^VERSION := //p' "$EX/../Makefile")
	src=$(version_source_re "$EX/..")
	for b in ib-sriov rdma-ns rdma ib-host-local; do
		out=$("$BIN/$b" --help)
		assert_eq 0 "$?" "$b --help"
		assert_match 'configuration keys:' "$out" "$b --help"
		assert_match 'logLevel, logFile' "$out" "$b --help"
		out=$("$BIN/$b" --version)
		assert_eq 0 "$?" "$b --version"
		assert_match "^$b $version \\($src\\)\$" "$(head -n 1 <<<"$out")" "$b --version"
		link=dynamic
		file -L "$BIN/$b" | grep -q 'statically linked' && link=static
		assert_match "build: $link, gcc [0-9.]+, glibc [0-9.]+" "$out" "$b --version: linkage"
		assert_match 'libraries: libnl 3\.[0-9]+\.[0-9]+, json-c [0-9.]+, libcap 2\.[0-9]+' "$out" \
			"$b --version: libraries"
	done
	assert_match 'deviceID, pciBusID' "$("$BIN/ib-sriov" --help)" "ib-sriov keys"
	assert_match 'ipam.dataDir' "$("$BIN/ib-host-local" --help)" "ib-host-local keys"
	assert_match 'admin commands' "$("$BIN/rdma-ns" --help)" "rdma-ns admin commands"
	# Still a CNI plugin: no argument, no CNI_COMMAND prints the about line.
	assert_match '^ib-sriov: ' "$("$BIN/ib-sriov" 2>&1)" "no argument"
}
