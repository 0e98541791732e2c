# SPDX-License-Identifier: Apache-2.0
# Sourced by init.sh: the pod's netns deleted before DEL, all VFs at once,
# GC, cnitool, and a rate limit once the PF has carrier.

netns_gone() { # NAME WITH-CNI_NETNS(yes|no) NAME-CONFLICT(yes|no)
	local vf=$VF2 net mac before table conf back
	section "$1"
	net=$(vf_net $vf)
	mac=$(cat /sys/class/net/$net/address)
	before=$(host_state)
	table=$(vf_table)
	ip netns add pod3
	# trust: on igb an untrusted VF cannot take the admin MAC (tested above).
	conf=$(conf $vf '"mac":"02:11:22:33:44:77","trust":"on","vlan":20,"mtu":1400' ib-host-local)
	cni ib-sriov ADD c3 /run/netns/pod3 net1 "$conf"
	expect "$1: ADD exits 0 $(msg)" 0 "$RC"
	[ "$3" = yes ] && ip link add net1 type veth peer name net1p
	ip netns del pod3
	wait_netdev $vf
	back=$(vf_net $vf)
	if [ "$3" = yes ]; then
		case $back in
		dev[0-9]*) ok "$1: the kernel renamed the returning VF ($back)" ;;
		*) ko "$1: the kernel renamed the returning VF" "got '$back'" ;;
		esac
	else
		expect "$1: the VF came back under its pod name" net1 "$back"
	fi
	if [ "$2" = yes ]; then
		cni ib-sriov DEL c3 /run/netns/pod3 net1 "$conf"
	else
		cni ib-sriov DEL c3 "" net1 "$conf"
	fi
	expect "$1: DEL exits 0 $(msg)" 0 "$RC"
	expect "$1: VF netdev name, MAC, MTU restored" "$net $mac 1500 down" "$(link_sum "" "$net")"
	expect "$1: VF table as before" "$table" "$(vf_table)"
	[ "$3" = yes ] && ip link del net1
	expect "$1: host as before, no record" "$before" "$(host_state)"
	expect "$1: lease released" "" "$(leases)"
}
netns_gone "netns gone, DEL with CNI_NETNS, name taken on the host" yes yes
netns_gone "netns gone, DEL without CNI_NETNS" no no

section "every VF at once"
before=$(host_state)
table=$(vf_table)
i=0
for v in $VF0 $VF1 $VF2 $VF3; do
	ip netns add cp$i
	(cni ib-sriov ADD cc$i /run/netns/cp$i net1 \
		"$(conf $v "\"mac\":\"02:00:00:00:0c:0$i\",\"trust\":\"on\",\"vlan\":$((i + 1))" ib-host-local)"
	 echo "$RC $(Jr '.ips[0].address') $(msg)" >/tmp/add.$i) &
	i=$((i + 1))
done
wait
expect "4 concurrent ADDs exit 0 ($(cat /tmp/add.* | grep -v '^0' | head -1))" "0 0 0 0" \
	"$(for i in 0 1 2 3; do cut -d' ' -f1 /tmp/add.$i; done | tr '\n' ' ' | sed 's/ $//')"
expect "4 distinct addresses" 4 "$(for i in 0 1 2 3; do cut -d' ' -f2 /tmp/add.$i; done | sort -u | grep -c '^10\.56\.0\.')"
expect "the VF table has each VF's MAC and VLAN" \
	'["02:00:00:00:0c:00",1,"02:00:00:00:0c:01",2,"02:00:00:00:0c:02",3,"02:00:00:00:0c:03",4]' \
	"$(vf_table | igbhelper json '[0].address' '[0].vlan_list[0].vlan' '[1].address' '[1].vlan_list[0].vlan' \
		'[2].address' '[2].vlan_list[0].vlan' '[3].address' '[3].vlan_list[0].vlan')"
expect "each pod has its VF" "net1 net1 net1 net1 " "$(for i in 0 1 2 3; do pod_links cp$i; done)"
i=0
for v in $VF0 $VF1 $VF2 $VF3; do
	(cni ib-sriov DEL cc$i /run/netns/cp$i net1 "$(conf $v "" ib-host-local)"; echo "$RC" >/tmp/del.$i) &
	i=$((i + 1))
done
wait
expect "4 concurrent DELs exit 0" "0 0 0 0" "$(cat /tmp/del.0 /tmp/del.1 /tmp/del.2 /tmp/del.3 | tr '\n' ' ' | sed 's/ $//')"
expect "after 4 concurrent ADD+DEL: VF table as before" "$table" "$(vf_table)"
expect "after 4 concurrent ADD+DEL: host as before" "$before" "$(host_state)"
expect "after 4 concurrent ADD+DEL: leases released" "" "$(leases)"
for i in 0 1 2 3; do ip netns del cp$i; done

section "GC after the pod is gone"
before=$(host_state)
table=$(vf_table)
net0=$(vf_net $VF0)
mac0=$(cat /sys/class/net/$net0/address)
ip netns add g0
ip netns add g1
cni ib-sriov ADD g0 /run/netns/g0 net1 "$(conf $VF0 '"mac":"02:00:00:00:0d:00","trust":"on","mtu":1400' ib-host-local)"
expect "GC: ADD g0 exits 0 $(msg)" 0 "$RC"
cni ib-sriov ADD g1 /run/netns/g1 net1 "$(conf $VF1 '"mac":"02:00:00:00:0d:01","trust":"on"' ib-host-local)"
expect "GC: ADD g1 exits 0 $(msg)" 0 "$RC"
ip netns del g0
wait_netdev $VF0
gc=$(conf $VF0 "" ib-host-local)
cni ib-sriov GC "" "" "" "${gc%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"g1\",\"ifname\":\"net1\"}]}"
expect "GC exits 0 $(msg)" 0 "$RC"
expect "GC: only the valid attachment's record is left" "g1-net1" "$(ls /var/lib/cni/ib-sriov)"
expect "GC: the stale VF is restored (name, MAC, MTU)" "$net0 $mac0 1500 down" "$(link_sum "" "$net0")"
expect "GC: the stale VF's table entry is restored" "$(printf '%s' "$table" | igbhelper json '[0]')" "$(vf_get 0 '')"
expect "GC: the valid pod keeps its VF" "net1 " "$(pod_links g1)"
expect "GC: forwarded to the IPAM (one lease left)" 1 "$(leases | wc -w)"
cni ib-sriov DEL g1 /run/netns/g1 net1 "$(conf $VF1 "" ib-host-local)"
expect "GC: DEL of the valid attachment exits 0" 0 "$RC"
expect "GC: VF table as before" "$table" "$(vf_table)"
expect "GC: host as before" "$before" "$(host_state)"
ip netns del g1

section "cnitool with a conflist"
before=$(host_state)
table=$(vf_table)
mkdir -p /tmp/net.d
cat >/tmp/net.d/10-igb.conflist <<CONF
{"cniVersion":"1.0.0","name":"igb-net","plugins":[{"type":"ib-sriov","deviceID":"$VF2",
 "capabilities":{"mac":true},"trust":"on","mtu":2000,"vlan":30,
 "ipam":{"type":"ib-host-local","dataDir":"$LEASES","ranges":[[{"subnet":"10.56.0.0/24"}]]}}]}
CONF
ip netns add pc
tool() { NETCONFPATH=/tmp/net.d CNI_PATH=$BIN cnitool "$@"; }
OUT=$(CAP_ARGS='{"mac":"02:aa:00:00:00:01"}' tool add igb-net /run/netns/pc 2>/tmp/err)
expect "cnitool add exits 0 ($(grep -v '\[info\]' /tmp/err))" 0 $?
jqe "cnitool: the result" '.interfaces[0].name .interfaces[0].mac .ips[0].interface' '["eth0","02:aa:00:00:00:01",0]'
expect "cnitool: pod interface MAC and MTU" "eth0 02:aa:00:00:00:01 2000 up" "$(link_sum pc eth0)"
expect "cnitool: VF table entry" '["02:aa:00:00:00:01",30,true]' "$(vf_get 2 .address '.vlan_list[0].vlan' .trust)"
tool check igb-net /run/netns/pc 2>/tmp/err
expect "cnitool check exits 0 ($(grep -v '\[info\]' /tmp/err))" 0 $?
tool del igb-net /run/netns/pc 2>/tmp/err
expect "cnitool del exits 0 ($(grep -v '\[info\]' /tmp/err))" 0 $?
expect "cnitool: VF table as before" "$table" "$(vf_table)"
expect "cnitool: host as before" "$before" "$(host_state)"
expect "cnitool: lease released" "" "$(leases)"
ip netns del pc

# --- with carrier, igb accepts a rate limit: set, then restored
wait_carrier() { # 0|1
	for _ in $(seq 100); do
		[ "$(cat /sys/class/net/$PF/carrier)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
section "a rate limit once the PF has carrier"
echo "vm-igb: monitor: set_link n0 on"
wait_carrier 1
expect "the PF has carrier once qemu's link is up" 1 "$(cat /sys/class/net/$PF/carrier)"
before=$(host_state)
table=$(vf_table)
ip netns add pr
cni ib-sriov ADD pr /run/netns/pr net1 "$(conf $VF3 '"max_tx_rate":100' ib-host-local)"
expect "max_tx_rate with carrier: ADD exits 0 $(msg)" 0 "$RC"
expect "max_tx_rate with carrier: VF table rate" '{"max_tx":100,"min_tx":0}' "$(vf_get 3 .rate)"
cni ib-sriov DEL pr /run/netns/pr net1 "$(conf $VF3 "" ib-host-local)"
expect "max_tx_rate with carrier: DEL exits 0" 0 "$RC"
expect "max_tx_rate with carrier: VF table as before" "$table" "$(vf_table)"
expect "max_tx_rate with carrier: host as before" "$before" "$(host_state)"
ip netns del pr
echo "vm-igb: monitor: set_link n0 off"
wait_carrier 0
