# SPDX-License-Identifier: Apache-2.0
# The DaemonSet's node agent (conf-examples/ibcni-daemonset.yaml, container
# "agent": `ib-sriov reconcile --every 60`) from make image's archive, with
# exactly the manifest's least privilege, through podman and containerd's
# CRI: command, args, securityContext (capabilities drop ALL + NET_ADMIN;
# not privileged; no privilege escalation; read-only root;
# AppArmor unconfined), hostNetwork and every host mount at its mountPath,
# all read from the yaml (daemonset_container). On the simulated SR-IOV
# node a pod died without DEL (its netns gone as the kernel leaves it, the
# VF back in the host under its pod name) and another lives: the agent's
# first pass releases the dead one's attachment and nothing else, then it
# keeps running until SIGTERM. A third pod died too, but its VF's lock is
# held on the host (an ADD or DEL at work): the agent, taking its locks in
# the host's /run/ibcni, leaves it for a later pass. With the netns mount
# made mountPropagation: None (both runtimes), a vfio pod started after the
# agent is an empty file in its view: a pass in that view (a one-shot
# container of the agent's, pass_spec) keeps it, releases nothing and warns
# once with the fix.
#
# The agent runs with the manifest's args, so with the default grace
# (120 s): the dead pod's record is made ten minutes old (touch -d) rather
# than passing --grace 0, which would run a command line the DaemonSet
# never runs. Its host paths are the node's own (/var/lib/cni, /run,
# /etc/ibcni, /sys/bus/pci are this test's tmpfs, /opt a tmpfs holding the
# image's plugins as the initContainer installs them). podman applies its
# default seccomp profile; kubelet's default is Unconfined, which the
# containerd run has.

AGENT_CAPS=0000000000001000 # CAP_NET_ADMIN (12)
AGENT_STOP_MAX_MS=3000      # "promptly": well under the runtimes' grace
GONE_MAC='' LIVE_BEFORE='' HOLDER='' # set by agent_node
DEVINFO=/run/k8s.cni.cncf.io/devinfo/cni
LEASES=/var/lib/cni/networks/rdma-net

agent_conf() { # VF MAC: ib-sriov with ib-host-local in its default data directory
	printf '{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","deviceID":"%s","mtu":1400,"mac":"%s","ipam":{"type":"ib-host-local","ranges":[[{"subnet":"10.56.0.0/24"}]]}}' \
		"$(sim_vf_addr 0 "$1")" "$2"
}

# What the agent must leave alone: the live pod's record, its link, its
# netns, its device-information file, its lease.
live_state() {
	cat /var/lib/cni/ibcni/ib-sriov/ctr-live:net1
	ip -n live -j -d link show dev net1 | jq -c '.[0] | {ifname, mtu, address, operstate}'
	stat -f -c '%T' /var/run/netns/live
	cat "$DEVINFO/rdma-net-ctr-live_net1"
}

# agent_node: the node as the agent finds it. The image's plugins in
# /opt/cni/bin and no /etc/ibcni/ibcni.conf, as the initContainer leaves
# them with the manifest's args (the defaults: reclaimLeases off); pods
# "live", "gone" and "busy" on VFs 0, 1 and 2 ADDed by that ib-sriov
# (CNI_PATH /opt/cni/bin, as a runtime on the node sets it), then "gone"
# and "busy" die without DEL, their records older than the grace, busy's
# VF lock held (HOLDER); an orphan lease (no record, its libcni cache
# naming a netns that is gone) for reclaimLeases to ignore.
agent_node() {
	local c gone live busy lock
	sim_node 1 3 ib
	mount -t tmpfs ibcni-opt /opt && mkdir -p /opt/cni/bin
	cp "$IBCNI_IMAGE_BIN/ib-sriov" "$IBCNI_IMAGE_BIN/rdma-ns" "$IBCNI_IMAGE_BIN/ib-host-local" /opt/cni/bin/
	node_conf ""
	GONE_MAC=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	gone=$(agent_conf 1 02:11:22:33:44:55)
	live=$(agent_conf 0 02:11:22:33:44:66)
	busy=$(agent_conf 2 02:11:22:33:44:77)
	ip netns add live && ip netns add gone && ip netns add busy
	CNI_PATH_OVERRIDE=/opt/cni/bin cni_exec /opt/cni/bin/ib-sriov ADD ctr-live /var/run/netns/live net1 "$live"
	assert_eq 0 "$RC" "ADD of the live pod ($OUT $ERR)"
	CNI_PATH_OVERRIDE=/opt/cni/bin cni_exec /opt/cni/bin/ib-sriov ADD ctr-gone /var/run/netns/gone net1 "$gone"
	assert_eq 0 "$RC" "ADD of the pod that dies ($OUT $ERR)"
	CNI_PATH_OVERRIDE=/opt/cni/bin cni_exec /opt/cni/bin/ib-sriov ADD ctr-busy /var/run/netns/busy net1 "$busy"
	assert_eq 0 "$RC" "ADD of the pod whose VF is busy ($OUT $ERR)"
	[ -f "$DEVINFO/rdma-net-ctr-gone_net1" ] || fail "ADD wrote no device-information file"
	c='{"cniVersion":"1.1.0","name":"rdma-net","ipam":{"type":"ib-host-local","ranges":[[{"subnet":"10.56.0.0/24"}]]}}'
	CNI_PATH_OVERRIDE=/opt/cni/bin cni_exec /opt/cni/bin/ib-host-local ADD orphan /var/run/netns/orphan eth1 "$c"
	assert_eq 0 "$RC" "the orphan's lease ($OUT $ERR)"
	mkdir -p /var/lib/cni/results
	echo '{"kind":"cniCacheV1","containerId":"orphan","ifName":"eth1","networkName":"rdma-net","netns":"/var/run/netns/orphan"}' \
		>/var/lib/cni/results/rdma-net-orphan-eth1
	gone_without_del gone net1 vf0_1
	assert_link host net1 '[.mtu,.address]' '[1400,"02:11:22:33:44:55"]'
	gone_without_del busy net1 vf0_2 dev2
	touch -d '-10 min' /var/lib/cni/ibcni/ib-sriov/ctr-gone:net1 /var/lib/cni/ibcni/ib-sriov/ctr-busy:net1 \
		"$LEASES"/10.* /var/lib/cni/results/rdma-net-orphan-eth1
	lock=/run/ibcni/ib-sriov/vf-$(sim_vf_addr 0 2).lock
	[ -f "$lock" ] || fail "no lock file $lock"
	# Bounded: it outlives the first pass, and ends by itself if the test
	# returns before lock_free.
	flock -o "$lock" sleep 60 &
	HOLDER=$!
	assert_eq "ctr-busy:net1 ctr-gone:net1 ctr-live:net1" "$(records)" "records before the agent"
	assert_eq "ctr-busy ctr-gone ctr-live orphan" "$(lease_owners "$LEASES")" "leases before the agent"
	LIVE_BEFORE=$(live_state)
	daemonset_container "$T/agent.json" "" main
	assert_eq '["/ibcni/bin/ib-sriov","reconcile","--every","60"]' \
		"$(jq -c '.command + .args' "$T/agent.json")" "the manifest's agent"
	assert_eq false "$(jq .privileged "$T/agent.json")" "the agent is not privileged"
}

lock_free() { # the busy VF's lock holder (flock and its sleep) ends
	local child
	[ -n "$HOLDER" ] || return 0
	child=$(pgrep -P "$HOLDER")
	kill "$HOLDER"
	wait "$HOLDER" 2>/dev/null
	[ -z "$child" ] || kill "$child"
	HOLDER=
}

# assert_first_pass LOG: the agent's first pass, from its log.
assert_first_pass() {
	lock_free
	assert_eq "reconcile: 3 records, released 1, kept 1, skipped 1 (young/locked), leases freed 0" \
		"$(grep -o 'reconcile: [0-9]* records.*' <<<"$1" | head -n1)" "the first summary line"
	assert_match "released net1 of container ctr-gone \(network rdma-net, VF $(sim_vf_addr 0 1)\): its netns /var/run/netns/gone is gone" \
		"$1" "the release line"
	assert_match "skipped ctr-busy:net1: VF $(sim_vf_addr 0 2) is locked" "$1" "the locked VF's line"
	grep -q -i -e warn -e error <<<"$1" && fail "the agent warned: $(grep -i -e warn -e error <<<"$1")"
	assert_eq "ctr-busy:net1 ctr-live:net1" "$(records)" "the dead pod's record is gone, the busy one's stays"
	# The VF home under its host name, as found.
	assert_link host vf0_1 '[.ifname,.address,.mtu]' "[\"vf0_1\",\"$GONE_MAC\",1500]"
	assert_no_link host net1
	# Its lease freed by the release (the record's IPAM config, through the
	# image's ib-host-local in /opt/cni/bin); reclaimLeases is off (the
	# node config's default), so the orphan's lease stays.
	assert_eq "ctr-busy ctr-live orphan" "$(lease_owners "$LEASES")" "leases after the pass"
	assert_link host dev2 '.ifname' '"dev2"'
	[ ! -e "$DEVINFO/rdma-net-ctr-gone_net1" ] || fail "the dead pod's device-information file stayed"
	assert_eq "$LIVE_BEFORE" "$(live_state)" "the live pod"
}

# assert_least_privilege PID: the agent holds NET_ADMIN and
# nothing else, in every set, and cannot gain more.
assert_least_privilege() {
	local s=/proc/$1/status
	assert_eq "$AGENT_CAPS $AGENT_CAPS $AGENT_CAPS 0000000000000000" \
		"$(awk '/^Cap(Prm|Eff|Bnd|Amb):/ {printf "%s ", $2}' "$s" | sed 's/ $//')" "CapPrm CapEff CapBnd CapAmb"
	assert_eq 1 "$(awk '/^NoNewPrivs:/ {print $2}' "$s")" "no_new_privs"
	assert_eq "$(readlink /proc/$$/ns/net)" "$(readlink /proc/"$1"/ns/net)" "the node's network namespace"
	touch "/proc/$1/root/probe" 2>/dev/null && fail "the root filesystem is writable"
}

# assert_propagation PID: a pod netns mounted on the host after the agent
# started appears in its view as a netns (HostToContainer), and one deleted
# on the host is gone from it.
assert_propagation() {
	ip netns add late
	assert_eq nsfs "$(stat -f -c %T "/proc/$1/root/var/run/netns/late" 2>&1)" "a later netns in the agent's view"
	ip netns del late
	[ ! -e "/proc/$1/root/var/run/netns/late" ] || fail "a deleted netns stays in the agent's view"
}

# --- podman ---

# podman_agent_args: podman run's flags for the manifest's container (AGENT).
podman_agent_args() { # [SPEC]: $T/agent.json unless given
	local f=${1:-$T/agent.json} m
	AGENT=()
	for m in $(jq -r '.capabilities.drop[]' "$f"); do AGENT+=("--cap-drop=$m"); done
	for m in $(jq -r '.capabilities.add[]' "$f"); do AGENT+=("--cap-add=$m"); done
	[ "$(jq .readonly_rootfs "$f")" = true ] && AGENT+=(--read-only)
	[ "$(jq .no_new_privs "$f")" = true ] && AGENT+=(--security-opt no-new-privileges)
	[ "$(jq .host_network "$f")" = true ] && AGENT+=(--network host)
	[ "$(jq -r .apparmor "$f")" = Unconfined ] && AGENT+=(--security-opt apparmor=unconfined)
	[ "$(jq .run_as_user "$f")" != null ] && AGENT+=(--user "$(jq .run_as_user "$f")")
	for m in $(jq -r '.mounts[] | "\(.host_path):\(.container_path):" +
		([if .readonly then "ro" else "rw" end] +
		 {"HostToContainer": ["rslave"], "Bidirectional": ["rshared"]}[.propagation] | join(","))' "$f"); do
		AGENT+=(-v "$m")
	done
	AGENT+=(--entrypoint "$(jq -r '.command[0]' "$f")" "$(jq -r .image "$f")")
	mapfile -t -O "${#AGENT[@]}" AGENT < <(jq -r '.args[]' "$f")
}

podman_wait_summary() { # up to 10 s
	local i
	for ((i = 0; i < 100; i++)); do
		podman logs ibcni-agent 2>&1 | grep -q 'reconcile: [0-9]* records' && return 0
		sleep 0.1
	done
	fail "no summary line in 10 s: $(podman logs ibcni-agent 2>&1)"
}

test_agent_podman() {
	local pid t0 ms
	agent_node
	podman_setup || return
	podman load -q -i "$IBCNI_IMAGE" >/dev/null || { fail "podman load"; return; }
	podman_agent_args
	podman run -d --name ibcni-agent "${AGENT[@]}" >"$T/run.out" 2>&1 ||
		{ fail "podman run ${AGENT[*]}: $(cat "$T/run.out")"; return; }
	podman_wait_summary
	assert_first_pass "$(podman logs ibcni-agent 2>&1)"
	pid=$(podman inspect -f '{{.State.Pid}}' ibcni-agent)
	assert_least_privilege "$pid"
	assert_propagation "$pid"
	sleep 5
	assert_eq true "$(podman inspect -f '{{.State.Running}}' ibcni-agent)" "running after the pass and 5 s"
	assert_eq 1 "$(podman logs ibcni-agent 2>&1 | grep -c 'reconcile: [0-9]* records')" "one pass in 60 s"
	t0=$(date +%s%N)
	podman stop -t 10 ibcni-agent >/dev/null
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_eq 0 "$(podman inspect -f '{{.State.ExitCode}}' ibcni-agent)" "exit status on SIGTERM"
	[ "$ms" -lt "$AGENT_STOP_MAX_MS" ] || fail "stop took $ms ms (SIGTERM not taken?)"
}

# --- containerd (the CRI, as kubelet drives it) ---

# containerd with the image, the agent's pod sandbox (hostNetwork, none of
# its containers privileged, as kubelet makes it) and the manifest's agent
# container started, its first pass asserted: sets the caller's id (the
# sandbox), ctr (the agent) and reads its log.
containerd_agent() {
	containerd_start || return 1
	ctr --address "$SOCK" -n k8s.io images import --snapshotter native "$IBCNI_IMAGE" >/dev/null ||
		{ fail "ctr images import $IBCNI_IMAGE"; return 1; }
	pod_spec "$T/pod.json" ibcni-agent uid-agent true
	# kubelet's sandbox of a pod none of whose containers is privileged.
	jq '.privileged = false' "$T/pod.json" >"$T/pod.tmp" && mv "$T/pod.tmp" "$T/pod.json"
	cri run-pod "$T/pod.json"
	assert_eq 0 "$RC" "RunPodSandbox (hostNetwork) ($ERR)"
	id=$OUT
	[ -n "$id" ] || return 1
	pod_started "$id"
	cri create-container "$id" "$T/pod.json" "$T/agent.json"
	assert_eq 0 "$RC" "CreateContainer ($ERR)"
	ctr=$OUT
	cri start "$ctr"
	assert_eq 0 "$RC" "StartContainer ($ERR)"
	for ((i = 0; i < 100; i++)); do
		grep -q 'reconcile: [0-9]* records' "$log" 2>/dev/null && break
		sleep 0.1
	done
	assert_first_pass "$(cat "$log" 2>/dev/null)"
	return 0
}

test_agent_containerd() {
	local id ctr pid t0 ms i log=$T/logs/agent.log
	agent_node
	# containerd checks that a HostToContainer source is on a shared or
	# slave mount, looking up /var/run/netns without resolving /var/run:
	# "/". systemd makes / shared on a node; this test's namespace is
	# private (a peer group of its own, nothing reaches the host).
	mount --make-shared /
	containerd_agent || return
	pid=$(cat "$T/containerd/state/io.containerd.runtime.v2.task/k8s.io/$ctr/init.pid" 2>/dev/null)
	if [ -n "$pid" ]; then
		assert_least_privilege "$pid"
		assert_propagation "$pid"
	else
		fail "no init.pid for container $ctr"
	fi
	sleep 5
	cri container-status "$ctr"
	assert_json '.state' '"CONTAINER_RUNNING"'
	assert_eq 1 "$(grep -c 'reconcile: [0-9]* records' "$log")" "one pass in 60 s"
	t0=$(date +%s%N)
	cri stop-container "$ctr"
	ms=$((($(date +%s%N) - t0) / 1000000))
	cri container-status "$ctr"
	assert_json '[.state, .exit_code]' '["CONTAINER_EXITED",0]'
	[ "$ms" -lt "$AGENT_STOP_MAX_MS" ] || fail "stop took $ms ms (SIGTERM not taken?)"
}

# --- the netns directory mounted without propagation ---
# The agent's netns mount receiving nothing from the host (podman's -v
# without rslave, the CRI's mountPropagation: None): a pod started after the
# agent is alive, but its netns file is an empty file in the agent's view.
# Its VF is vfio-bound (no netdev whose return would be a second proof): the
# agent must keep it, release nothing, and say once what to fix.

no_propagation() { # the manifest's agent with every HostToContainer mount made None
	jq '.mounts |= map(if .propagation == "HostToContainer" then .propagation = "None" else . end)' \
		"$T/agent.json" >"$T/agent.tmp" && mv "$T/agent.tmp" "$T/agent.json"
	assert_eq '"None"' "$(jq -c '.mounts[] | select(.container_path == "/var/run/netns") | .propagation' "$T/agent.json")" \
		"the netns mount without propagation"
}

# pass_spec: $T/pass.json, the agent's container (image, securityContext,
# mounts) as a one-shot pass: started before the late pod, its mounts are
# copied then, as the agent's were (exec into the agent would do, but runc
# cannot enter a container it made without pivot_root, as in a chroot); it
# waits for $T/go/now (the host's busybox, a directory of the test's), then
# runs `ib-sriov reconcile` once.
pass_spec() {
	local wait='for i in $(/busybox seq 300); do [ -e /go/now ] && exec /ibcni/bin/ib-sriov reconcile; /busybox sleep 0.1; done; exit 3'
	mkdir -p "$T/go"
	jq --arg wait "$wait" --arg go "$T/go" '.name = "pass" | .log_path = "pass.log" |
		.command = ["/busybox"] | .args = ["sh", "-c", $wait] |
		.mounts += [{container_path: "/busybox", host_path: "/bin/busybox", readonly: true, propagation: "None"},
			    {container_path: "/go", host_path: $go, readonly: true, propagation: "None"}]' \
		"$T/agent.json" >"$T/pass.json"
}

# late_pod: after the first pass, busy's attachment DELed (its runtime's
# late DEL), then pod "late" started on VF 1 bound to vfio-pci, its record
# older than the grace.
late_pod() {
	local d=/sys/bus/pci/devices/$(sim_vf_addr 0 1)
	CNI_PATH_OVERRIDE=/opt/cni/bin cni_exec /opt/cni/bin/ib-sriov DEL ctr-busy "" net1 "$(agent_conf 2 02:11:22:33:44:77)"
	assert_eq 0 "$RC" "the busy pod's DEL ($OUT $ERR)"
	ln -sfn ../../drivers/vfio-pci "$d/driver" && rm -rf "$d/net"
	ip netns add late
	CNI_PATH_OVERRIDE=/opt/cni/bin cni_exec /opt/cni/bin/ib-sriov ADD ctr-late /var/run/netns/late net1 \
		"{\"cniVersion\":\"1.1.0\",\"name\":\"vm-net\",\"type\":\"ib-sriov\",\"deviceID\":\"$(sim_vf_addr 0 1)\",\"vfioPciMode\":true}"
	assert_eq 0 "$RC" "ADD of the pod started after the agent ($OUT $ERR)"
	touch -d '-10 min' /var/lib/cni/ibcni/ib-sriov/ctr-late:net1
}

# assert_blind_pass LOG: a pass in the agent's view after late_pod.
assert_blind_pass() {
	assert_eq "reconcile: 2 records, released 0, kept 2, skipped 0 (young/locked), leases freed 0" \
		"$(grep -o 'reconcile: [0-9]* records.*' <<<"$1" | tail -n1)" "the pass's summary"
	assert_eq 1 "$(grep -c 'mountPropagation: HostToContainer' <<<"$1")" "one line with the fix ($1)"
	assert_match "kept 1 attachment\(s\) whose netns is in /var/run/netns: their files are there but are not namespace mounts" \
		"$1" "the line names the directory"
	assert_eq "ctr-late:net1 ctr-live:net1" "$(records)" "records after the pass"
	assert_eq nsfs "$(stat -f -c %T /var/run/netns/late)" "the late pod is alive on the host"
	assert_eq "$LIVE_BEFORE" "$(live_state)" "the live pod"
}

test_agent_podman_without_propagation() {
	agent_node
	no_propagation
	podman_setup || return
	podman load -q -i "$IBCNI_IMAGE" >/dev/null || { fail "podman load"; return; }
	podman_agent_args
	podman run -d --name ibcni-agent "${AGENT[@]}" >"$T/run.out" 2>&1 ||
		{ fail "podman run ${AGENT[*]}: $(cat "$T/run.out")"; return; }
	podman_wait_summary
	assert_first_pass "$(podman logs ibcni-agent 2>&1)"
	pass_spec
	podman_agent_args "$T/pass.json"
	podman run -d --name ibcni-pass "${AGENT[@]}" >"$T/run.out" 2>&1 ||
		{ fail "podman run ${AGENT[*]}: $(cat "$T/run.out")"; return; }
	late_pod
	[ "$(stat -f -c %T "/proc/$(podman inspect -f '{{.State.Pid}}' ibcni-pass)/root/var/run/netns/late")" != nsfs ] ||
		fail "the late netns is a namespace in the pass's view: the mount propagates"
	touch "$T/go/now"
	assert_eq 0 "$(timeout 30 podman wait ibcni-pass)" "the pass's exit status"
	assert_blind_pass "$(podman logs ibcni-pass 2>&1)"
	podman stop -t 10 ibcni-agent >/dev/null
}

test_agent_containerd_without_propagation() {
	local id ctr pass i log=$T/logs/agent.log
	agent_node
	no_propagation
	containerd_agent || return
	pass_spec
	cri create-container "$id" "$T/pod.json" "$T/pass.json"
	assert_eq 0 "$RC" "CreateContainer of the pass ($ERR)"
	pass=$OUT
	cri start "$pass"
	assert_eq 0 "$RC" "StartContainer of the pass ($ERR)"
	late_pod
	touch "$T/go/now"
	for ((i = 0; i < 300; i++)); do
		cri container-status "$pass"
		[ "$(jq -r .state <<<"$OUT")" = CONTAINER_EXITED ] && break
		sleep 0.1
	done
	assert_json '[.state, .exit_code]' '["CONTAINER_EXITED",0]'
	assert_blind_pass "$(cat "$T/logs/pass.log" 2>/dev/null)"
}
