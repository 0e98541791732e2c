# SPDX-License-Identifier: Apache-2.0
# The cri tier's harness (sourced after tests/netns/lib.sh, whose assertions
# and simulated SR-IOV node it reuses). Each test runs in its own mount and
# network namespace: the runtime started here, its pods, the simulated
# /sys/bus/pci and the node's "host" links all vanish with it.

CRI_DIR=${IBCNI_CRI_DIR:?}          # protoc output and the test images (run.sh)
CRI_PY="/usr/bin/python3 $(dirname "${BASH_SOURCE[0]}")/cri.py"
export CRI_PB_DIR=$CRI_DIR
TEST_IMAGE=ibcni.test/busybox:1     # sandbox (pause) and container image
SOCK=                               # containerd's socket while it runs
CTRD_PID=

# A CNI directory as a node has it: our plugins and Debian's loopback
# (containerd's CRI brings up lo through it).
cni_bin_dir() {
	mkdir -p "$T/cni-bin"
	cp "$BIN/ib-sriov" "$BIN/rdma-ns" "$BIN/ib-host-local" "$T/cni-bin/"
	ln -f "$T/cni-bin/rdma-ns" "$T/cni-bin/rdma"
	cp /usr/lib/cni/loopback "$T/cni-bin/"
}

# containerd_start: containerd with its CRI plugin as a kubelet node runs it,
# minus systemd (cgroupfs), and with what this VM cannot do turned off: no
# oom_score_adj below ours (no CAP_SYS_RESOURCE), runc (crun fails on the
# hybrid cgroup tree), the native snapshotter (no overlay on overlay).
containerd_start() {
	local c=$T/containerd
	mkdir -p "$c" "$T/net.d" "$T/logs"
	cni_bin_dir
	SOCK=$c/containerd.sock
	cat >"$c/config.toml" <<EOF
version = 2
root = "$c/root"
state = "$c/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$TEST_IMAGE"
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "/usr/sbin/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$T/cni-bin"
    conf_dir = "$T/net.d"
    max_conf_num = 1
EOF
	containerd --config "$c/config.toml" >"$c/log" 2>&1 &
	CTRD_PID=$!
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q 'containerd successfully booted' "$c/log" && break
		sleep 0.1
	done
	$CRI_PY --socket "$SOCK" version >/dev/null 2>"$T/cri.err" ||
		{ fail "containerd did not start: $(cat "$T/cri.err"; tail -5 "$c/log")"; return 1; }
	ctr --address "$SOCK" -n k8s.io images import --snapshotter native \
		"$CRI_DIR/busybox.tar" >/dev/null ||
		{ fail "ctr images import of the test image failed"; return 1; }
}

containerd_stop() {
	[ -n "$CTRD_PID" ] || return 0
	kill "$CTRD_PID" 2>/dev/null
	wait "$CTRD_PID" 2>/dev/null
	CTRD_PID=
}

# podman_setup: podman's configuration for this test only (CONTAINERS_CONF
# and CONTAINERS_STORAGE_CONF): cgroupfs, runc, vfs storage, file events,
# and rlimits no higher than ours (root here lacks CAP_SYS_RESOURCE).
podman_setup() {
	local nproc
	nproc=$(ulimit -Hu)
	[ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ] && nproc=4096
	mkdir -p "$T/podman" "$T/net.d"
	cni_bin_dir
	cat >"$T/podman/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=$nproc:$nproc"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
tmp_dir = "$T/podman/tmp"
[network]
network_backend = "cni"
cni_plugin_dirs = ["$T/cni-bin"]
network_config_dir = "$T/net.d"
CONF
	cat >"$T/podman/storage.conf" <<CONF
[storage]
driver = "vfs"
runroot = "$T/podman/run"
graphroot = "$T/podman/root"
CONF
	export CONTAINERS_CONF=$T/podman/containers.conf
	export CONTAINERS_STORAGE_CONF=$T/podman/storage.conf
	podman load -q -i "$CRI_DIR/busybox.tar" >/dev/null || { fail "podman load"; return 1; }
}

cri() { # CRI call; output in OUT, status in RC, stderr in ERR
	OUT=$($CRI_PY --socket "$SOCK" "$@" 2>"$T/cri.err")
	RC=$?
	ERR=$(cat "$T/cri.err")
}

pod_spec() { # FILE NAME UID [HOST_NETWORK]: a pod as kubelet describes it
	jq -n --arg name "$2" --arg uid "$3" --argjson hn "${4:-false}" --arg logs "$T/logs" \
		'{name: $name, namespace: "default", uid: $uid, log_directory: $logs,
		  host_network: $hn, privileged: $hn}' >"$1"
}

# A pod's sandbox ID, remembered so that cri_finish can take it down.
pod_started() {
	echo "$1" >>"$T/pods"
}

# cri_finish: everything this test started goes, by its own ID: the pods
# through the CRI, then containerd, then any shim left (found by the socket
# path only this test uses), then podman's containers.
cri_finish() {
	local id pid
	if [ -n "$CTRD_PID" ]; then
		while read -r id; do
			$CRI_PY --socket "$SOCK" stop-pod "$id" >/dev/null 2>&1
			$CRI_PY --socket "$SOCK" remove-pod "$id" >/dev/null 2>&1
		done < <(cat "$T/pods" 2>/dev/null)
		containerd_stop
		for pid in $(pgrep -f -- "-address $SOCK\$"); do
			kill -KILL "$pid" 2>/dev/null
		done
	fi
	[ -n "${CONTAINERS_CONF:-}" ] && podman rm -f -a -t 0 >/dev/null 2>&1
	findmnt -rn -o TARGET | grep "^$T/" | sort -r | xargs -r umount -l 2>/dev/null
	return 0
}

# rec_ipam: an IPAM that records each call (command, CNI_ARGS, CNI_NETNS and
# the config it was given, one JSON line in $T/ipam.log), then is
# ib-host-local: what the runtime handed the chain, seen from inside it.
rec_ipam() {
	cat >"$T/cni-bin/rec-ipam" <<EOF2
#!/bin/sh
input=\$(cat)
printf '%s' "\$input" | jq -c --arg cmd "\$CNI_COMMAND" --arg args "\$CNI_ARGS" \\
	--arg netns "\$CNI_NETNS" '{cmd: \$cmd, args: \$args, netns: \$netns, conf: .}' >>"$T/ipam.log"
printf '%s' "\$input" | exec "$T/cni-bin/ib-host-local"
EOF2
	chmod +x "$T/cni-bin/rec-ipam"
}

# assert_vf_home NAME MAC: the VF netdev is back on the node as found, its
# lease released and no attachment record left.
assert_vf_home() {
	assert_link host "$1" '[.ifname,.address]' "[\"$1\",\"$2\"]"
	local left
	left=$(find /var/lib/cni/ibcni /var/lib/cni/ib-sriov /var/lib/cni/rdma-ns -type f 2>/dev/null)
	[ -z "$left" ] || fail "records left: $left"
	left=$(ls /var/lib/cni/networks/rdma-net 2>/dev/null | grep -v -e '^lock$' -e '^last_reserved_ip')
	[ -z "$left" ] || fail "leases left: $left"
}

# daemonset_container OUT HOSTROOT [KIND]: the DaemonSet's initContainer
# (KIND init, the default) or long-running container (KIND main) as cri.py's
# CTR.json, read from conf-examples/ibcni-daemonset.yaml: image, command,
# args with $(VAR) expanded as kubelet does (spec.nodeName is "node-1"),
# the securityContext as kubelet hands it to the runtime (privileged,
# capabilities, readonly_rootfs, no_new_privs from allowPrivilegeEscalation,
# run_as_user, apparmor), mounts with readOnly and mountPropagation, each
# hostPath under HOSTROOT and each ConfigMap at HOSTROOT/configmap/NAME.
daemonset_container() {
	/usr/bin/python3 - "$1" "$2" "${3:-init}" "$(dirname "${BASH_SOURCE[0]}")/../../conf-examples/ibcni-daemonset.yaml" <<'PY'
import json, re, sys, yaml
out, hostroot, kind, path = sys.argv[1:]
ds = yaml.safe_load(open(path))
pod = ds["spec"]["template"]["spec"]
c = (pod["initContainers"] if kind == "init" else pod["containers"])[0]
def host(v):
    if "hostPath" in v:
        return hostroot + v["hostPath"]["path"]
    return hostroot + "/configmap/" + v["configMap"]["name"]
vols = {v["name"]: host(v) for v in pod["volumes"]}
field = {"spec.nodeName": "node-1"}
env = {e["name"]: e.get("value", field.get(e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")))
       for e in c.get("env", [])}
args = [re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], a) for a in c["args"]]
sc = c.get("securityContext", {})
caps = sc.get("capabilities", {})
json.dump({"name": c["name"], "image": c["image"], "command": c["command"],
           "args": args,
           "privileged": sc.get("privileged", False),
           "capabilities": {"add": caps.get("add", []), "drop": caps.get("drop", [])},
           "readonly_rootfs": sc.get("readOnlyRootFilesystem", False),
           "no_new_privs": sc.get("allowPrivilegeEscalation", True) is False,
           "run_as_user": sc.get("runAsUser"),
           "apparmor": sc.get("appArmorProfile", {}).get("type", ""),
           "host_network": pod.get("hostNetwork", False),
           "log_path": c["name"] + ".log",
           "mounts": [{"container_path": m["mountPath"], "host_path": vols[m["name"]],
                       "readonly": m.get("readOnly", False),
                       "propagation": m.get("mountPropagation", "None")}
                      for m in c["volumeMounts"]]}, open(out, "w"))
PY
}

# assert_installed HOSTROOT: the installer's work on a host root: each plugin
# the image's (make image's static build), rdma a copy of rdma-ns, no
# temporary file left; with netns, the RDMA netns mode (exclusive) recorded
# for the next boot.
assert_installed() { # HOSTROOT [netns]
	local d=$1/opt/cni/bin b
	for b in ib-sriov rdma-ns ib-host-local; do
		cmp -s "$IBCNI_IMAGE_BIN/$b" "$d/$b" || fail "$d/$b is not the image's $b"
		assert_mode "$d/$b" 755
	done
	# rdma is rdma-ns's bytes in a file of its own: rdma-cni's init container
	# `cp -f`s onto it, which would write through a hard link into rdma-ns.
	cmp -s "$IBCNI_IMAGE_BIN/rdma-ns" "$d/rdma" || fail "$d/rdma is not the image's rdma-ns"
	assert_eq "1 1" "$(stat -c %h "$d/rdma-ns" "$d/rdma" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')" \
		"rdma and rdma-ns: one link each"
	[ "$(stat -c %i "$d/rdma-ns")" != "$(stat -c %i "$d/rdma")" ] || fail "rdma is rdma-ns's inode"
	assert_mode "$d/rdma" 755
	assert_eq "" "$(ls -A "$d" | grep ibcni-new)" "temporary files"
	[ "${2:-}" = netns ] || return 0
	assert_eq "options ib_core netns_mode=0" \
		"$(grep -v '^#' "$1/etc/modprobe.d/ibcni-rdma.conf" 2>/dev/null)" "the modprobe.d file"
}
