# SPDX-License-Identifier: Apache-2.0
# bench.sh's "big PF" rows (sourced by bench.sh, after its helpers and the
# simulated node): one VF's ADD+DEL with a VF setting (an admin MAC, so the
# PF's VF table is read) on the last VF of a 127-VF PF against the last VF
# of an 8-VF PF, interleaved (run.c cycle); then one traced cycle of each
# counts the netlink requests sent and the bytes received (strace).
#
# What the sim can and cannot show: its PFs are veths, which have no PCI
# parent, so the kernel sends them no VF table; the rows measure everything
# of the cycle that could grow with the PF's VF count here (127 VF netdevs
# and their peers on the host, 127 virtfn links, the sysfs walks, the
# requests made) and must stay flat. The table itself (about 30 KiB for 127
# VFs without the counters, one read per verb) is the unit tier's
# (tests/unit/test_ibsriov_add.c, test_nl.c).
declare -A got # (bench.sh declares it again, keeping these)
sim_pf 4 127 eth
sim_pf 5 8 eth
pod_ns bigpf
for c in "big 4 126" "small 5 7"; do
	set -- $c
	job "$T/bigpf/$1/0" "$root/bin/ib-sriov" "PATH=$PATH
CNI_NETNS=/run/netns/bigpf
CNI_IFNAME=net1
CNI_CONTAINERID=bigpf-$1
CNI_PATH=$root/bin" \
		"{\"cniVersion\":\"1.0.0\",\"name\":\"bigpf\",\"type\":\"ib-sriov\",\"deviceID\":\"$(sim_vf_addr "$2" "$3")\",\"mac\":\"02:00:00:00:0$2:07\",\"ipam\":$(ipam_conf ib-host-local /var/lib/cni/bigpf-$1 10.9$2.0.0/16)}"
done

# nl_count NAME: "REQUESTS BYTES" of one ADD and one DEL of job NAME under
# strace: netlink messages sent (sendmsg/sendto to AF_NETLINK) and the
# bytes of every netlink datagram received.
nl_count() {
	local d=$T/bigpf/$1/0 tr=$T/bigpf/$1.trace cmd
	: >"$tr"
	for cmd in ADD DEL; do
		(
			while IFS= read -r l; do export "$l"; done <"$d/env"
			CNI_COMMAND=$cmd strace -f -qq -e trace=sendmsg,sendto,recvmsg,recvfrom \
				-e signal=none -o "$tr.$cmd" "$d/bin" <"$d/stdin" >/dev/null 2>&1
		) || return 1
		cat "$tr.$cmd" >>"$tr"
	done
	awk '/AF_NETLINK/ && /(sendmsg|sendto)\(/ { req++ }
	     /AF_NETLINK/ && /(recvmsg|recvfrom)\(/ && $NF ~ /^[0-9]+$/ { bytes += $NF }
	     END { print req + 0, bytes + 0 }' "$tr"
}

out=$("$run" cycle "$ITER" big="$T/bigpf/big" small="$T/bigpf/small")
read -r big_req big_bytes < <(nl_count big)
read -r small_req small_bytes < <(nl_count small)
row "big PF: one VF's ADD+DEL with an admin MAC" "8-VF PF" "127-VF PF" "" "127/8"
row --- --- --- --- ---
for f in wall cpu; do
	b=$(field big $f) s=$(field small $f)
	got[bigpf_$f]=$(ratio "$(med "$b")" "$(med "$s")")
	row "$f (ms)" "$(cell "$s")" "$(cell "$b")" "" "${got[bigpf_$f]}"
done
row "netlink requests (one ADD + one DEL)" "$small_req" "$big_req" "" "$(ratio "$big_req" "$small_req")"
row "netlink bytes received" "$small_bytes" "$big_bytes" "" "$(ratio "$big_bytes" "$small_bytes")"
echo
