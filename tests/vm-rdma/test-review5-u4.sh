# SPDX-License-Identifier: Apache-2.0
# Security review 5, U4: DEL never brings a device home under the name the
# pod gave it. podC holds rxeC (index I); over veths of its own it creates
# rxe devices named rxeC, rxeC_I, rxeC_I_2 .. rxeC_I_15 (exclusive mode:
# each lands on the host) and renames its device hijack0. DEL brings index I
# home under a name neither hijack0 nor any of the 16 (rxeC_I_<random hex>).
# Without squatting DEL brings it home as rxeC: test-exclusive.sh's rxeB.
. /bin/vm-rdma/pods.sh
NET=roce-network SUB=10.56.0.0/24

netns_mode exclusive
soft_rdma on
attach podC $NET $SUB "$VF0" 02:00:00:00:0c:01
in_pod podC rdma link add rxeC type rxe netdev net1 2>/tmp/err
rc=$?
expect "podC creates rxeC over its net1 ($(cat /tmp/err))" 0 $rc
I=$(dev_index rxeC)
cni rdma-ns ADD c-podC /run/netns/podC net1 "$(rdmans_conf "$VF0" "$(res podC)")" "$(multus_args podC)"
expect "podC: rdma-ns ADD exits 0 $(msg)" 0 "$RC"
expect "podC holds rxeC (index $I), the host none" "|$I rxeC" "$(devs)|$(dev_index rxeC podC) rxeC"

# The 16 names DEL could derive, squatted on the host from inside podC.
names="rxeC rxeC_$I"
for k in $(seq 2 15); do names="$names rxeC_${I}_$k"; done
k=0
for name in $names; do
	in_pod podC ip link add sq$k type veth peer name sqp$k
	in_pod podC ip link set sq$k up
	in_pod podC rdma link add "$name" type rxe netdev sq$k 2>>/tmp/err
	k=$((k + 1))
done
expect "podC squats the 16 names on the host" "$(echo "$names" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" "$(devs)"
in_pod podC rdma dev set rxeC name hijack0 2>/tmp/err
rc=$?
expect "podC renames its device hijack0 ($(cat /tmp/err))" "0 hijack0" "$rc $(dev_name "$I" podC)"

cni rdma-ns DEL c-podC /run/netns/podC net1 "$(rdmans_conf "$VF0" "$(res podC)")" "$(multus_args podC)"
expect "U4: rdma-ns DEL exits 0 $(msg)" 0 "$RC"
home=$(dev_name "$I")
say "U4: index $I is home as '$home' (podC lists '$(devs podC)')"
expect "U4: podC lists no device" "" "$(devs podC)"
if [ -z "$home" ]; then
	ko "U4: index $I home" "the host does not list it"
else
	case " hijack0 $names " in
	*" $home "*) ko "U4: index $I home under a name the pod did not choose" "it is '$home'" ;;
	*) ok "U4: index $I home under a name the pod did not choose ($home)" ;;
	esac
fi
expect "U4: the name is rxeC_${I}_<random hex>" yes \
	"$(echo "$home" | grep -qE "^rxeC_${I}_[0-9a-f]+$" && echo yes)"
for name in $names; do rdma link del "$name" 2>/dev/null; done
detach podC $NET $SUB "$VF0" 02:00:00:00:0c:01
for d in $(devs); do rdma link del "$d" 2>/dev/null; done
expect "after DEL: no RDMA device left" "" "$(rdma link show)"
ip netns del podC
soft_rdma off
netns_mode shared
expect "after DEL: the node is as booted" "$BOOT_STATE" "$(host_state)"
leftovers
