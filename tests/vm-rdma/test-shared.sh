# SPDX-License-Identifier: Apache-2.0
# Shared RDMA netns mode (the kernel's default): two pods on two VFs attached
# by ib-sriov + ib-host-local, real RDMA traffic between them verified on both
# ends, the negative controls that must fail, then DEL leaves the node as
# found. rxe in each pod stands in for the VF's own RDMA device (pods.sh).
. /bin/vm-rdma/pods.sh
NET=roce-network SUB=10.56.0.0/24
expect "the RDMA subsystem is in shared netns mode" shared \
	"$(rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p')"
before=$(host_state)
attach podA $NET $SUB "$VF0" 02:00:00:00:0a:01
attach podB $NET $SUB "$VF1" 02:00:00:00:0b:01
say "podA has VF $VF0 as net1 ($IP_podA), podB has VF $VF1 as net1 ($IP_podB)"
expect "podA: net1 with the NAD's MAC and MTU, up" "02:00:00:00:0a:01 $POD_MTU UP" \
	"$(ip -n podA -o link show net1 | sed -E 's/.*mtu ([0-9]+).*link\/ether ([0-9a-f:]+).*/\2 \1/') $(ip -n podA -o link show net1 | grep -o ',UP' | tr -d ,)"
expect "the PF's VF table has both pods' MAC and VLAN" '["02:00:00:00:0a:01",100,"02:00:00:00:0b:01",100]' \
	"$(ip -d -j link show "$PF" | igbhelper json '[0].vfinfo_list[0].address' '[0].vfinfo_list[0].vlan_list[0].vlan' \
		'[0].vfinfo_list[1].address' '[0].vfinfo_list[1].vlan_list[0].vlan')"
rxe_add podA rxeA
rxe_add podB rxeB
expect "rxe's UDP 4791 socket is in each pod, none on the host" "1 1 0" \
	"$(udp_4791 podA) $(udp_4791 podB) $(udp_4791)"
gA=$(gid_index rxeA "$IP_podA")
gB=$(gid_index rxeB "$IP_podB")
contains "the pods' RoCE v2 GIDs carry their addresses (index $gA, $gB)" "$gA$gB" "$gA$gB"
[ -n "$gA" ] && [ -n "$gB" ] || ko "RoCE v2 GIDs" "rxeA '$gA' rxeB '$gB'"

# rping: 5 payloads of 64 bytes each way, the same ones seen on both ends.
rping_pair() { # SERVER-POD SERVER-IP CLIENT-POD
	local name="rping $3 -> $1"
	serve cm "$1" rping -s -a "$2" -C 5 -S 64 -v
	in_pod "$3" rping -c -a "$2" -C 5 -S 64 -v >/tmp/rc 2>&1
	expect "$name: the client exits 0 ($(tail -1 /tmp/rc))" 0 $?
	served
	expect "$name: the server exits 0 ($(tail -1 /tmp/srv))" 0 $?
	sed -n 's/.*ping data: //p' /tmp/srv | sort >/tmp/rs.data
	sed -n 's/.*ping data: //p' /tmp/rc | sort >/tmp/rc.data
	expect "$name: 5 payloads received by the server" 5 "$(wc -l </tmp/rs.data)"
	expect "$name: the server's payloads are the client's" "$(cat /tmp/rc.data)" "$(cat /tmp/rs.data)"
	say "$name: $(head -1 /tmp/rs.data)"
}
rping_pair podB "$IP_podB" podA
rping_pair podA "$IP_podA" podB

# ibv_rc_pingpong over the RoCE v2 GIDs: 20 messages of 4096 bytes.
serve 18515 podB ibv_rc_pingpong -d rxeB -g "$gB" -n 20 -s 4096
in_pod podA ibv_rc_pingpong -d rxeA -g "$gA" -n 20 -s 4096 "$IP_podB" >/tmp/pc 2>&1
expect "ibv_rc_pingpong: the client exits 0 ($(tail -1 /tmp/pc))" 0 $?
served
expect "ibv_rc_pingpong: the server exits 0 ($(tail -1 /tmp/srv))" 0 $?
contains "ibv_rc_pingpong: the client moved 163840 bytes" "163840 bytes in" "$(cat /tmp/pc)"
contains "ibv_rc_pingpong: the server moved 163840 bytes" "163840 bytes in" "$(cat /tmp/srv)"
say "ibv_rc_pingpong podA -> podB: $(grep 'bytes in' /tmp/pc)"

# perftest over rdma_cm (-R); -F: TCG has no CPU frequency to read.
perf_pair() { # TOOL: server in podB, client in podA, byte counters read
	local tool=$1 rx tx rcvd sent
	rx=$(netdev_bytes podB rx_bytes) tx=$(netdev_bytes podA tx_bytes)
	rcvd=$(rxe_count rxeB rcvd_pkts) sent=$(rxe_count rxeA sent_pkts)
	serve cm podB "$tool" -d rxeB -R -F -n 20 -s 4096
	in_pod podA "$tool" -d rxeA -R -F -n 20 -s 4096 "$IP_podB" >/tmp/bc 2>&1
	expect "$tool: the client exits 0 ($(grep -i -m1 -E 'error|fail|unable' /tmp/bc))" 0 $?
	served
	expect "$tool: the server exits 0 ($(grep -i -m1 -E 'error|fail|unable' /tmp/srv))" 0 $?
	expect "$tool: the client's report: 20 iterations of 4096 bytes" "4096 20" \
		"$(awk '$1 == 4096 && $2 == 20 { print $1, $2 }' /tmp/bc)"
	[ "$tool" = ib_send_bw ] && expect "$tool: the server's report: 20 iterations of 4096 bytes" "4096 20" \
		"$(awk '$1 == 4096 && $2 == 20 { print $1, $2 }' /tmp/srv)"
	rx=$(($(netdev_bytes podB rx_bytes) - rx)) tx=$(($(netdev_bytes podA tx_bytes) - tx))
	rcvd=$(($(rxe_count rxeB rcvd_pkts) - rcvd)) sent=$(($(rxe_count rxeA sent_pkts) - sent))
	expect "$tool: podA's VF sent and podB's VF received at least 81920 bytes" "yes yes" \
		"$([ $tx -ge 81920 ] && echo yes || echo "no ($tx)") $([ $rx -ge 81920 ] && echo yes || echo "no ($rx)")"
	expect "$tool: rxeA's sent packets reached rxeB" "yes" \
		"$([ "$sent" -gt 0 ] && [ "$rcvd" -ge "$sent" ] && echo yes || echo "no (sent $sent, received $rcvd)")"
	say "$tool podA -> podB: $(awk '$1 == 4096 && $2 == 20' /tmp/bc | tr -s ' '), VF bytes out $tx, in $rx"
}
perf_pair ib_send_bw
perf_pair ib_write_bw

# Negative controls, with podB's server listening (so that the server is not
# what fails): a pod on another subnet, a pod without an RDMA device.
attach podC other-network 10.57.0.0/24 "$VF2" 02:00:00:00:0c:01
rxe_add podC rxeC
attach podD $NET $SUB "$VF3" 02:00:00:00:0d:01
serve cm podB rping -s -a "$IP_podB" -C 1 -S 64 -v
in_pod podC rping -c -a "$IP_podB" -C 1 -S 64 -v >/tmp/rc 2>&1
expect "podC on another subnet cannot reach podB" 1 "$([ $? -ne 0 ] && echo 1 || echo 0)"
contains "podC: rdma_cm says why" "unreachable" "$(cat /tmp/rc)"
say "podC (another subnet): $(grep -m1 rdma_ /tmp/rc || tail -1 /tmp/rc)"
in_pod podD rping -c -a "$IP_podB" -C 1 -S 64 -v >/tmp/rc 2>&1
expect "podD without an RDMA device cannot reach podB" 1 "$([ $? -ne 0 ] && echo 1 || echo 0)"
say "podD (no RDMA device): $(grep -m1 -E 'rdma_|error' /tmp/rc || tail -1 /tmp/rc)"
in_pod podA rping -c -a "$IP_podB" -C 1 -S 64 -v >/tmp/rc 2>&1
expect "podA still reaches podB's server after the refused ones" 0 $?
served
expect "podB's server saw podA's payload only" 1 "$(grep -c 'ping data' /tmp/srv)"

# DEL as the runtime calls it, the pods' netns still there.
detach podA $NET $SUB "$VF0" 02:00:00:00:0a:01
detach podB $NET $SUB "$VF1" 02:00:00:00:0b:01
detach podC other-network 10.57.0.0/24 "$VF2" 02:00:00:00:0c:01
detach podD $NET $SUB "$VF3" 02:00:00:00:0d:01
expect "after DEL: links, VF table, RDMA devices, records and leases as before" "$before" "$(host_state)"
expect "after DEL: no RDMA device left" "" "$(rdma link show)"
expect "after DEL: no UDP 4791 socket in the pods or on the host" "0 0 0 0" \
	"$(udp_4791 podA) $(udp_4791 podB) $(udp_4791 podC) $(udp_4791)"
expect "after DEL: the pods are empty" "" "$(for p in podA podB podC podD; do ip -n $p -o link show | grep -v ': lo:'; done)"
expect "after DEL: the node is as booted" "$BOOT_STATE" "$(host_state)"
