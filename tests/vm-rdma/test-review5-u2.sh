# SPDX-License-Identifier: Apache-2.0
# Security review 5, U2: a pod deletes the rxe rdma-ns moved into it
# (`rdma link delete`, its CAP_NET_ADMIN). The device is in neither the
# pod's namespace nor the host's: gone, not "not yet home". rdma-ns DEL
# answers 0 with a warning naming it and drops its record; ib-sriov's DEL
# then gives the VF back: the node as booted.
. /bin/vm-rdma/pods.sh
NET=roce-network SUB=10.56.0.0/24

netns_mode exclusive
soft_rdma on
attach podA $NET $SUB "$VF0" 02:00:00:00:0a:01
in_pod podA rdma link add rxeA type rxe netdev net1 2>/tmp/err
rc=$?
expect "podA creates rxeA over its net1 ($(cat /tmp/err))" 0 $rc
cni rdma-ns ADD c-podA /run/netns/podA net1 "$(rdmans_conf "$VF0" "$(res podA)")" "$(multus_args podA)"
expect "podA: rdma-ns ADD exits 0 $(msg)" 0 "$RC"
expect "podA holds rxeA, the host none" "|rxeA" "$(devs)|$(devs podA)"
expect "rdma-ns recorded the attachment" 1 "$(rdmans_records | grep -c .)"

in_pod podA rdma link delete rxeA 2>/tmp/err
rc=$?
expect "podA deletes rxeA ($(cat /tmp/err))" 0 $rc
expect "rxeA is in neither namespace" "|" "$(devs)|$(devs podA)"
cni rdma-ns DEL c-podA /run/netns/podA net1 "$(rdmans_conf "$VF0" "$(res podA)")" "$(multus_args podA)"
say "U2: rdma-ns DEL: rc $RC $(msg | tr '\n' ' ') stderr: $(tr '\n' ' ' </tmp/stderr)"
expect "U2: rdma-ns DEL of a deleted device exits 0 $(msg)" 0 "$RC"
contains "U2: DEL warns, naming rxeA" rxeA "$(grep -F '[warning]' /tmp/stderr)"
expect "U2: rdma-ns's record is gone" "" "$(rdmans_records)"
cni rdma-ns DEL c-podA /run/netns/podA net1 "$(rdmans_conf "$VF0" "$(res podA)")" "$(multus_args podA)"
expect "U2: a second rdma-ns DEL exits 0 $(msg)" 0 "$RC"
detach podA $NET $SUB "$VF0" 02:00:00:00:0a:01
ip netns del podA
wait_netdev "$VF0"
expect "U2: VF $VF0's netdev is back on the host" yes "$([ -n "$(vf_net "$VF0")" ] && echo yes)"
soft_rdma off
netns_mode shared
expect "after DEL: the node is as booted" "$BOOT_STATE" "$(host_state)"
leftovers
