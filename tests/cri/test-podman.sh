# SPDX-License-Identifier: Apache-2.0
# podman (Debian 12's 4.3) with its CNI backend: our conflist in its network
# directory, our plugins in its plugin directory, `podman run --network`.

test_podman_cni_backend() {
	sim_node 1 2 eth
	local mac
	mac=$(ip -j link show dev vf0_1 | jq -r '.[0].address')
	podman_setup || return
	rec_ipam
	cat >"$T/net.d/rdma-net.conflist" <<CONF
{"cniVersion": "1.0.0", "name": "rdma-net", "plugins": [
  {"type": "ib-sriov", "deviceID": "$(sim_vf_addr 0 1)",
   "ipam": {"type": "rec-ipam", "ranges": [[{"subnet": "10.61.0.0/24"}]]}}]}
CONF
	OUT=$(podman run --rm --name rdma-pod --network rdma-net --entrypoint /bin/sh "$TEST_IMAGE" -c 'ip -o -4 addr show dev eth0; ip -o link show dev eth0' 2>"$T/err")
	RC=$?
	assert_eq 0 "$RC" "podman run ($(cat "$T/err"))"
	assert_match 'eth0 +inet 10\.61\.0\.2/24' "$OUT" "the VF's address in the container"
	assert_match "link/ether $mac" "$OUT" "the VF itself (its MAC) in the container"
	# --rm: podman's teardown ran DEL; the VF is back and the lease released.
	assert_vf_home vf0_1 "$mac"
	local add
	add=$(grep '"cmd":"ADD"' "$T/ipam.log" | head -1)
	assert_match '(^|;)K8S_POD_NAME=rdma-pod(;|$)' "$(jq -r .args <<<"$add")" "podman's CNI_ARGS"
	assert_match '(^|;)IgnoreUnknown=1(;|$)' "$(jq -r .args <<<"$add")" "podman's CNI_ARGS"
	assert_match '"cmd":"DEL"' "$(cat "$T/ipam.log")" "podman's DEL"
}

test_podman_runs_the_daemonset_installer() {
	# The DaemonSet's initContainer run by podman from make image's archive
	# with no capability at all (as the manifest asks), twice: the second
	# run changes nothing. This node's ConfigMap entry becomes "ranges".
	local host=$T/host
	podman_setup || return
	OUT=$(podman load -i "$IBCNI_IMAGE" 2>&1)
	assert_match "Loaded image: $IBCNI_IMAGE_NAME" "$OUT" "podman load"
	mkdir -p "$host/opt/cni/bin" "$host/etc/modprobe.d" "$host/etc/ibcni" "$host/configmap/ibcni-node-ranges"
	echo '{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}' >"$host/configmap/ibcni-node-ranges/node-1"
	daemonset_container "$T/ds.json" "$host"
	local args=() m
	for m in $(jq -r '.mounts[] | "\(.host_path):\(.container_path)"' "$T/ds.json"); do
		args+=(-v "$m")
	done
	mapfile -t cmd < <(jq -r '.args[]' "$T/ds.json")
	assert_eq false "$(jq .privileged "$T/ds.json")" "the initContainer is not privileged"
	args+=(--cap-drop=all --security-opt no-new-privileges --read-only)
	OUT=$(podman run --rm --network host "${args[@]}" \
		--entrypoint "$(jq -r '.command[0]' "$T/ds.json")" "$IBCNI_IMAGE_NAME" "${cmd[@]}" 2>&1)
	assert_eq 0 "$?" "podman run installer ($OUT)"
	assert_match 'ib-sriov installed' "$OUT" "first run"
	assert_installed "$host"
	# The ranges in their drop-in; with none of the older keys given, no ibcni.conf.
	assert_file "$host/etc/ibcni/ibcni.conf.d/ranges.conf" '{"ranges":{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}}'
	[ ! -e "$host/etc/ibcni/ibcni.conf" ] || fail "ibcni.conf written: $(cat "$host/etc/ibcni/ibcni.conf")"
	local before
	before=$(stat -c '%n %i %Y' "$host"/opt/cni/bin/*)
	OUT=$(podman run --rm --network host "${args[@]}" \
		--entrypoint "$(jq -r '.command[0]' "$T/ds.json")" "$IBCNI_IMAGE_NAME" "${cmd[@]}" 2>&1)
	assert_eq 0 "$?" "podman run installer again ($OUT)"
	assert_eq 4 "$(grep -c unchanged <<<"$OUT")" "second run: all four unchanged"
	assert_eq "$before" "$(stat -c '%n %i %Y' "$host"/opt/cni/bin/*)" "second run touched nothing"
}
