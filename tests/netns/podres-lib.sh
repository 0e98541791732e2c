# SPDX-License-Identifier: Apache-2.0
# kubelet's PodResources API for the netns and cri tiers (sourced, never run
# by itself): tests/netns/podres-server.py (grpcio, messages from
# cni/protocol/podres.proto) on kubelet's socket, in the tmpfs lib_init mounts over
# /var/lib/kubelet.

PODRES_ROOT=$(cd "$FIXTURES/../.." && pwd)
PODRES_SOCK=/var/lib/kubelet/pod-resources/kubelet.sock
# CNI_ARGS as containerd sets them for a kubelet pod.
POD_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=tenant;K8S_POD_NAME=pod1;K8S_POD_UID=0c4b6bd4"
KUBELET_PID=

# kubelet MODE PODS [DELAY]: the server on kubelet's socket, serving PODS
# (podres-server.py's JSON); stopped when the test ends. KUBELET_DRA (names,
# cdi, off) overrides how it reports DRA claims.
kubelet() {
	kubelet_stop
	mkdir -p /var/lib/kubelet/pod-resources
	[ -f "$T/podres_pb2.py" ] ||
		protoc -I"$PODRES_ROOT/cni/protocol" --python_out="$T" "$PODRES_ROOT/cni/protocol/podres.proto" ||
		{ fail "protoc"; return 1; }
	printf '%s\n' "$2" >"$T/pods.json"
	rm -f "$PODRES_SOCK"
	"$PODRES_ROOT/tests/netns/podres-server.py" --socket "$PODRES_SOCK" --pods "$T/pods.json" \
		--pb-dir "$T" --mode "$1" --delay "${3:-5}" ${KUBELET_DRA:+--dra "$KUBELET_DRA"} >"$T/kubelet.log" 2>&1 &
	KUBELET_PID=$!
	trap kubelet_stop EXIT
	for _ in $(seq 100); do
		[ -S "$PODRES_SOCK" ] && return 0
		sleep 0.1
	done
	fail "the PodResources server did not start: $(cat "$T/kubelet.log")"
	return 1
}

kubelet_stop() {
	[ -n "$KUBELET_PID" ] || return 0
	kill "$KUBELET_PID" 2>/dev/null
	wait "$KUBELET_PID" 2>/dev/null
	KUBELET_PID=
	rm -f "$PODRES_SOCK"
}

pods() { # POD1-DEVICES-JSON [POD2-DEVICES-JSON]: pod1 and pod2 of namespace tenant
	printf '[{"namespace":"tenant","name":"pod1","devices":%s},{"namespace":"tenant","name":"pod2","devices":%s}]' \
		"$1" "${2:-{\}}"
}

