# SPDX-License-Identifier: Apache-2.0
# Security review 5, U3: an rxe the host created over a VF netdev (a test
# node, an admin's soft-RoCE) cannot follow the netdev into a pod (rxe is
# unregistered when its netdev changes namespace). ib-sriov's
# rdmaIsolation refuses it (code 101 naming it) before moving anything:
# rxeH stays on the host over the VF netdev, no record is left.
. /bin/vm-rdma/pods.sh
iso_conf() { # VF
	printf '{"cniVersion":"1.0.0","name":"iso","type":"ib-sriov","deviceID":"%s","rdmaIsolation":true}' "$1"
}

netns_mode exclusive
n=$(vf_net "$VF2")
rdma link add rxeH type rxe netdev "$n" 2>/tmp/err
rc=$?
expect "the host creates rxeH over VF $VF2's netdev $n ($(cat /tmp/err))" 0 $rc
contains "rxeH's port is bound to $n" "netdev $n" "$(rdma link show rxeH/1)"
ip netns add podI
cni ib-sriov ADD c-podI /run/netns/podI net1 "$(iso_conf "$VF2")" "$(multus_args podI)"
say "U3: ib-sriov ADD (rdmaIsolation): rc $RC $(J .code .msg .details | tr '\n' ' ')"
expect "U3: ib-sriov ADD with rdmaIsolation is refused, code 101 (rc $RC)" 101 "$(J .code)"
contains "U3: the error names rxeH" rxeH "$(J .msg .details)"
expect "U3: rxeH is on the host, podI lists no device" "rxeH|" "$(devs)|$(devs podI)"
contains "U3: rxeH's port is still bound to $n" "netdev $n" "$(rdma link show rxeH/1)"
expect "U3: VF $VF2's netdev is on the host under its name" "$n" "$(vf_net "$VF2")"
expect "U3: podI has no net1" "" "$(ip -n podI -o link show net1 2>/dev/null)"
expect "U3: no record left" "" "$(find /var/lib/cni/ibcni /var/lib/cni/ib-sriov -type f ! -name '*lock*' 2>/dev/null)"
if [ "$RC" = 0 ]; then # the ADD went through (before the fix): its DEL, as the runtime's
	cni ib-sriov DEL c-podI /run/netns/podI net1 "$(iso_conf "$VF2")" "$(multus_args podI)"
	say "U3: ib-sriov DEL after it: rc $RC $(msg | tr '\n' ' ')"
fi
rdma link del rxeH 2>/dev/null
ip netns del podI
wait_netdev "$VF2"
netns_mode shared
expect "after DEL: the node is as booted" "$BOOT_STATE" "$(host_state)"
leftovers
