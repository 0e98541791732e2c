# SPDX-License-Identifier: Apache-2.0
# Security review 5, U1: rdma-ns's host branch (a device listed only on the
# host, found by the node GUID of the pod interface's MAC) never hands a
# tenant the victim's rxe. podV created rxeV over its net1 (exclusive mode:
# registered on the host, not yet moved); podT, on its own VF, sets net1 to
# podV's MAC in the pod (as the `tuning` plugin would) and asks rdma-ns for
# its VF's device: refused (code 101) with softRdmaByMac off (the default)
# and with it on (the MAC is on another netdev too). rxeV stays on the host
# under its name; podV's own ADD then takes it (the control).
. /bin/vm-rdma/pods.sh
NET=roce-network SUB=10.56.0.0/24
MAC_V=02:00:00:00:0a:01
mac_of() { ip -n "$1" -o link show net1 | sed -E 's/.*link\/ether ([0-9a-f:]+).*/\1/'; } # POD
plain_nad() { # VF: the tenant's network, no MAC asked (its chain's tuning sets one)
	printf '{"cniVersion":"1.0.0","name":"%s","type":"ib-sriov","deviceID":"%s",' "$NET" "$1"
	printf '"ipam":{"type":"ib-host-local","ranges":[[{"subnet":"%s"}]]}}' "$SUB"
}
podT_add() { # WHAT: podT's rdma-ns ADD for its own VF, refused (MSG, DETAILS); DEL as the runtime's
	cni rdma-ns ADD c-podT /run/netns/podT net1 "$(rdmans_conf "$VF1" "$RES_podT")" "$(multus_args podT)"
	say "U1 $1: podT's rdma-ns ADD: rc $RC $(J .code .msg .details | tr '\n' ' ') $(tr '\n' ' ' </tmp/stderr)"
	expect "U1 $1: podT's rdma-ns ADD is refused, code 101 (rc $RC)" 101 "$(J .code)"
	MSG=$(Jr .msg) DETAILS=$(Jr .details)
	expect "U1 $1: rxeV on the host under its name, podT lists no device" "rxeV|" "$(devs)|$(devs podT)"
	cni rdma-ns DEL c-podT /run/netns/podT net1 "$(rdmans_conf "$VF1" "$RES_podT")" "$(multus_args podT)"
	expect "U1 $1: podT's rdma-ns DEL exits 0 $(msg)" 0 "$RC"
	expect "U1 $1: after DEL rxeV is on the host, podT lists none" "rxeV|" "$(devs)|$(devs podT)"
}

netns_mode exclusive
attach podV $NET $SUB "$VF0" $MAC_V
in_pod podV rdma link add rxeV type rxe netdev net1 2>/tmp/err
rc=$?
expect "podV creates rxeV over its net1 ($(cat /tmp/err))" 0 $rc
expect "exclusive mode: rxeV is on the host, podV lists none" "rxeV|" "$(devs)|$(devs podV)"
ip netns add podT
cni ib-sriov ADD c-podT /run/netns/podT net1 "$(plain_nad "$VF1")" "$(multus_args podT)"
expect "podT: ib-sriov ADD of VF $VF1 exits 0 $(msg)" 0 "$RC"
RES_podT=$OUT
MAC_T=$(mac_of podT)
ip -n podT link set net1 address $MAC_V 2>/tmp/err
expect "podT sets its net1 to podV's MAC, as tuning would ($(cat /tmp/err))" "$MAC_V $MAC_V" \
	"$(mac_of podV) $(mac_of podT)"

podT_add "opt-in off"
contains "U1 opt-in off: the details name softRdmaByMac" softRdmaByMac "$DETAILS"
expect "U1 opt-in off: the message" "no RDMA device for deviceID" "$MSG"
if soft_rdma on; then
	ok "softRdmaByMac is a node key of this build"
	podT_add "opt-in on, podV's MAC on two netdevs"
	contains "U1 opt-in on: the details name the MAC" "$MAC_V" "$(echo "$DETAILS" | tr A-F a-f)"
else
	ko "softRdmaByMac is a node key of this build" "STATUS refused it"
fi

# tuning's DEL puts podT's MAC back; then podV's own ADD takes rxeV (with
# the opt-in on) and its DEL brings it home under its name.
ip -n podT link set net1 address "$MAC_T"
cni rdma-ns ADD c-podV /run/netns/podV net1 "$(rdmans_conf "$VF0" "$(res podV)")" "$(multus_args podV)"
expect "control: podV's rdma-ns ADD exits 0 (softRdmaByMac $SOFT_RDMA) $(msg)" 0 "$RC"
expect "control: podV lists rxeV, the host none" "|rxeV" "$(devs)|$(devs podV)"
cni rdma-ns DEL c-podV /run/netns/podV net1 "$(rdmans_conf "$VF0" "$(res podV)")" "$(multus_args podV)"
expect "control: podV's rdma-ns DEL exits 0 $(msg)" 0 "$RC"
expect "control: rxeV is back on the host under its name" "rxeV|" "$(devs)|$(devs podV)"

conf=$(plain_nad "$VF1")
cni ib-sriov DEL c-podT /run/netns/podT net1 "${conf%\}},\"prevResult\":$RES_podT}" "$(multus_args podT)"
expect "podT: ib-sriov DEL exits 0 $(msg)" 0 "$RC"
detach podV $NET $SUB "$VF0" $MAC_V
for d in $(devs); do rdma link del "$d" 2>/dev/null; done
ip netns del podV
ip netns del podT
soft_rdma off
netns_mode shared
expect "after DEL: the node is as booted" "$BOOT_STATE" "$(host_state)"
leftovers
