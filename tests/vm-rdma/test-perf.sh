# SPDX-License-Identifier: Apache-2.0
# RDMA throughput (ib_write_bw) and latency (ib_write_lat) between two pods
# attached by ib-sriov, against the same tests between the same two VFs moved
# into two namespaces by hand (ip link set ... netns; same addresses, MTU and
# rxe devices; no VLAN, admin MAC or spoofchk set on the PF). One warm-up run
# first (TCG translates the tools' code once), then the rounds in the order
# ibcni, by hand, by hand, ibcni, so that a steady drift of the emulation's
# speed hits both sides alike. Each side's figure is its best run (highest
# bandwidth, lowest latency): on a shared host other load only ever slows a
# run down, so the best run is the closest to the data path's own cost; the
# medians are printed too. Reported as `vm-rdma: perf` lines and ratios,
# never asserted: under TCG the data path is the emulator's.
. /bin/vm-rdma/pods.sh
NET=roce-network SUB=10.56.0.0/24
BW_SIZE=65536 BW_ITERS=40 LAT_SIZE=64 LAT_ITERS=200

# One tool run, server in podB, client in podA: its figure printed
# (ib_write_bw: BW average MB/s; ib_write_lat: t_typical usec) or nothing.
perf_run() { # TOOL SIZE ITERS
	serve cm podB "$1" -d rxeB -R -F -s "$2" -n "$3"
	in_pod podA "$1" -d rxeA -R -F -s "$2" -n "$3" "$IP_podB" >/tmp/pc 2>&1
	served
	case $1 in
	ib_write_bw) awk -v s="$2" '$1 == s && NF >= 5 { print $4; exit }' /tmp/pc ;;
	ib_write_lat) awk -v s="$2" '$1 == s && NF >= 6 { print $5; exit }' /tmp/pc ;;
	esac
}
best() { # max|min of the numbers on stdin
	sort -n | if [ "$1" = max ]; then tail -1; else head -1; fi
}
median() {
	sort -n | awk '{ v[NR] = $1 }
	END { if (NR % 2) print v[(NR + 1) / 2]; else if (NR) printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# Two runs of each tool on the pods as they are, appended to /tmp/perf.KIND.bw
# and /tmp/perf.KIND.lat.
perf_round() { # KIND
	local bw="" lat="" i
	for i in 1 2; do
		bw="$bw $(perf_run ib_write_bw $BW_SIZE $BW_ITERS)"
		lat="$lat $(perf_run ib_write_lat $LAT_SIZE $LAT_ITERS)"
	done
	expect "perf $1: 2 ib_write_bw and 2 ib_write_lat reports" "2 2" \
		"$(echo "$bw" | wc -w) $(echo "$lat" | wc -w)"
	echo "$bw" | tr ' ' '\n' | grep . >>"/tmp/perf.$1.bw"
	echo "$lat" | tr ' ' '\n' | grep . >>"/tmp/perf.$1.lat"
}

round_ibcni() { # [warm-up]
	attach podA $NET $SUB "$VF0" 02:00:00:00:0a:01
	attach podB $NET $SUB "$VF1" 02:00:00:00:0b:01
	rxe_add podA rxeA
	rxe_add podB rxeB
	[ -n "${1:-}" ] && perf_run ib_write_bw $BW_SIZE $BW_ITERS >/dev/null &&
		perf_run ib_write_lat $LAT_SIZE $LAT_ITERS >/dev/null
	perf_round ibcni
	detach podA $NET $SUB "$VF0" 02:00:00:00:0a:01
	detach podB $NET $SUB "$VF1" 02:00:00:00:0b:01
	ip netns del podA
	ip netns del podB
}
# The VF's netdev into POD as net1 with ADDR and the pods' MTU, and back.
by_hand() { # POD VF ADDR
	ip netns add "$1"
	ip link set "$(vf_net "$2")" netns "$1"
	ip -n "$1" link set "$(ip -n "$1" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')" name net1
	ip -n "$1" link set net1 mtu "$POD_MTU" up
	ip -n "$1" addr add "$3/24" dev net1
}
back_by_hand() { # POD VF NAME
	ip -n "$1" link set net1 down
	ip -n "$1" addr flush dev net1
	ip -n "$1" link set net1 mtu 1500 name "$3"
	ip -n "$1" link set "$3" netns 1
	ip netns del "$1"
	wait_netdev "$2"
}
round_hand() {
	by_hand podA "$VF0" "$IP_podA"
	by_hand podB "$VF1" "$IP_podB"
	rxe_add podA rxeA
	rxe_add podB rxeB
	perf_round hand
	back_by_hand podA "$VF0" "$n0"
	back_by_hand podB "$VF1" "$n1"
}

n0=$(vf_net "$VF0") n1=$(vf_net "$VF1")
rm -f /tmp/perf.*
round_ibcni warm-up
round_hand
round_hand
round_ibcni
expect "perf: the node is as booted" "$BOOT_STATE" "$(host_state)"
ratio() { # A B: A / B to 3 decimals
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "n/a" }'
}
line() { # TOOL SIZE ITERS UNIT max|min FILE-KIND
	local bi bh mi mh
	bi=$(best "$5" <"/tmp/perf.ibcni.$6") bh=$(best "$5" <"/tmp/perf.hand.$6")
	mi=$(median <"/tmp/perf.ibcni.$6") mh=$(median <"/tmp/perf.hand.$6")
	say "perf $1 $2 B x $3: ibcni pods $bi $4, VFs moved by hand $bh $4, ratio $(ratio "$bi" "$bh")" \
		"(medians $mi / $mh $4, ratio $(ratio "$mi" "$mh"); runs $(tr '\n' ' ' <"/tmp/perf.ibcni.$6")/" \
		"$(tr '\n' ' ' <"/tmp/perf.hand.$6" | sed 's/ $//'))"
}
line ib_write_bw $BW_SIZE $BW_ITERS MB/s max bw
line ib_write_lat $LAT_SIZE $LAT_ITERS us min lat
