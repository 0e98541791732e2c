# SPDX-License-Identifier: Apache-2.0
# The image contract of the upstream CNI images (ib-sriov-cni's
# images/image_test.sh, rdma-cni's entrypoint), on make image's archive as
# the operators run it, through podman and through containerd's CRI:
# - SNO's init container: args ["--no-sleep"], a host directory at
#   /host/opt/cni/bin, privileged: exits 0, the plugins are build/static's
#   byte for byte, rdma a file of its own;
# - the Network Operator's container: no command, no args: still running
#   after 10 s, SIGTERM (a stop) ends it promptly with 0;
# - --only rdma installs rdma alone; a symlink planted in the bin directory,
#   pointing outside it (into another mount), is replaced, its target left.

CONTRACT_STOP_MAX_S=3 # "promptly": a stop well under the runtimes' grace

# contract_host: the host directories; a symlink at ib-sriov pointing into
# the second mount (a victim a write-through would change).
contract_host() {
	HOST=$T/host
	mkdir -p "$HOST/opt/cni/bin" "$HOST/other"
	echo victim >"$HOST/other/victim"
}

# assert_contract_files: what the SNO shape leaves.
assert_contract_files() {
	assert_installed "$HOST"
	assert_eq "ib-host-local ib-sriov rdma rdma-ns" "$(ls -A "$HOST/opt/cni/bin" | sort | tr '\n' ' ' | sed 's/ $//')" \
		"the bin directory holds the four plugins and nothing else"
}

# --- podman ---

podman_contract() { # ARGS...: the image run like SNO's init container; OUT, RC
	OUT=$(podman run --rm --privileged --network host -v "$HOST/opt/cni/bin:/host/opt/cni/bin" \
		-v "$HOST/other:/host/other" "$IBCNI_IMAGE_NAME" "$@" 2>&1)
	RC=$?
}

test_contract_podman_sno_init_container() {
	contract_host
	podman_setup || { fail "podman_setup"; return; }
	podman load -q -i "$IBCNI_IMAGE" >/dev/null || { fail "podman load"; return; }
	ln -s /host/other/victim "$HOST/opt/cni/bin/ib-sriov"
	podman_contract --no-sleep
	assert_eq 0 "$RC" "--no-sleep ($OUT)"
	assert_contract_files
	assert_file "$HOST/other/victim" victim
	# Upstream's own spelling of the same (ib-sriov-cni's image test).
	rm -f "$HOST"/opt/cni/bin/*
	podman_contract --cni-bin-dir=/host/opt/cni/bin --no-sleep --ib-sriov-cni-bin-file=/usr/bin/ib-sriov \
		--rdma-cni-bin-file=/usr/bin/rdma
	assert_eq 0 "$RC" "--cni-bin-dir= --no-sleep ($OUT)"
	assert_contract_files
	rm -f "$HOST"/opt/cni/bin/*
	podman_contract --no-sleep --only rdma
	assert_eq 0 "$RC" "--only rdma ($OUT)"
	assert_eq rdma "$(ls -A "$HOST/opt/cni/bin")" "--only rdma: rdma alone"
	cmp -s "$IBCNI_IMAGE_BIN/rdma-ns" "$HOST/opt/cni/bin/rdma" || fail "rdma is not build/static's rdma-ns"
	podman_contract --no-sleep --only rdma,sriov
	assert_eq 2 "$RC" "--only with a name not ours"
	assert_match 'unknown plugin "sriov"' "$OUT" "named"
}

test_contract_podman_network_operator_container() {
	local t0 ms
	contract_host
	podman_setup || { fail "podman_setup"; return; }
	podman load -q -i "$IBCNI_IMAGE" >/dev/null || { fail "podman load"; return; }
	podman run -d --name ibcni-contract --privileged --network host \
		-v "$HOST/opt/cni/bin:/host/opt/cni/bin" "$IBCNI_IMAGE_NAME" >/dev/null ||
		{ fail "podman run -d"; return; }
	sleep 10
	assert_eq true "$(podman inspect -f '{{.State.Running}}' ibcni-contract)" "running after 10 s"
	assert_contract_files
	t0=$(date +%s%N)
	podman stop -t 10 ibcni-contract >/dev/null
	ms=$((($(date +%s%N) - t0) / 1000000))
	assert_eq 0 "$(podman inspect -f '{{.State.ExitCode}}' ibcni-contract)" "exit status on SIGTERM"
	[ "$ms" -lt $((CONTRACT_STOP_MAX_S * 1000)) ] || fail "stop took $ms ms (SIGTERM not taken?)"
	assert_match 'waiting for SIGTERM' "$(podman logs ibcni-contract 2>&1)" "the log"
}

# --- containerd (the CRI, as kubelet drives it) ---

# cri_contract OUT ARGS-JSON: a container of the image with its own
# entrypoint, the host directories mounted, privileged as SNO's.
cri_contract() {
	jq -n --arg img "$IBCNI_IMAGE_NAME" --argjson args "$2" --arg bin "$HOST/opt/cni/bin" \
		--arg other "$HOST/other" \
		'{name: "contract", image: $img, args: $args, privileged: true, log_path: "contract.log",
		  mounts: [{container_path: "/host/opt/cni/bin", host_path: $bin},
			   {container_path: "/host/other", host_path: $other}]}' >"$1"
}

# cri_contract_start ARGS-JSON: a pod and the container started; CTR.
cri_contract_start() {
	cri_contract "$T/c.json" "$1"
	pod_spec "$T/pod.json" "contract-$RANDOM" "uid-$RANDOM" true
	cri run-pod "$T/pod.json"
	[ "$RC" = 0 ] || { fail "RunPodSandbox ($ERR)"; return 1; }
	pod_started "$OUT"
	cri create-container "$OUT" "$T/pod.json" "$T/c.json"
	[ "$RC" = 0 ] || { fail "CreateContainer ($ERR)"; return 1; }
	CTR=$OUT
	cri start "$CTR"
	assert_eq 0 "$RC" "StartContainer ($ERR)"
}

cri_wait_exit() { # up to 10 s
	local i
	for ((i = 0; i < 100; i++)); do
		cri container-status "$CTR"
		[ "$(jq -r .state <<<"$OUT")" = CONTAINER_EXITED ] && return 0
		sleep 0.1
	done
}

containerd_contract_setup() {
	contract_host
	containerd_start || { fail "containerd_start"; return 1; }
	ctr --address "$SOCK" -n k8s.io images import --snapshotter native "$IBCNI_IMAGE" >/dev/null ||
		{ fail "ctr images import $IBCNI_IMAGE"; return 1; }
}

test_contract_containerd_sno_init_container() {
	containerd_contract_setup || return
	ln -s /host/other/victim "$HOST/opt/cni/bin/ib-sriov"
	cri_contract_start '["--no-sleep"]' || return
	cri_wait_exit
	assert_json '[.state, .exit_code]' '["CONTAINER_EXITED",0]'
	assert_contract_files
	assert_file "$HOST/other/victim" victim
	rm -f "$HOST"/opt/cni/bin/*
	cri_contract_start '["--no-sleep", "--only", "rdma"]' || return
	cri_wait_exit
	assert_json '[.state, .exit_code]' '["CONTAINER_EXITED",0]'
	assert_eq rdma "$(ls -A "$HOST/opt/cni/bin")" "--only rdma: rdma alone"
}

test_contract_containerd_network_operator_container() {
	local t0 ms
	containerd_contract_setup || return
	cri_contract_start '[]' || return
	sleep 10
	cri container-status "$CTR"
	assert_json '.state' '"CONTAINER_RUNNING"'
	assert_contract_files
	t0=$(date +%s%N)
	cri stop-container "$CTR"
	ms=$((($(date +%s%N) - t0) / 1000000))
	cri container-status "$CTR"
	assert_json '[.state, .exit_code]' '["CONTAINER_EXITED",0]'
	[ "$ms" -lt $((CONTRACT_STOP_MAX_S * 1000)) ] || fail "stop took $ms ms (SIGTERM not taken?)"
}
