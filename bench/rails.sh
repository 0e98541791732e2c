# SPDX-License-Identifier: Apache-2.0
# bench.sh's "8 rails" table (sourced by bench.sh, after its helpers and the
# simulated node): PF 0's 8 VFs into one pod, one network per rail, each
# rail's ADD then, last first, each DEL (run.c chain; sbr and tuning get the
# previous plugin's result as prevResult, every DEL its chain's result).
declare -A got # (bench.sh declares it again, keeping these)
pod_ns rails
rail_ipam() { # TYPE DATADIR K
	printf '{"type":"%s","dataDir":"%s","ranges":[[{"subnet":"10.80.%d.0/24"}]],"routes":[{"dst":"10.90.%d.0/24"}]}' \
		"$1" "$2" "$3" "$3"
}
for ((k = 0; k < 8; k++)); do
	vf=$(sim_vf_addr 0 $k) dev=vf0_$k n=net$((k + 1))
	env="PATH=$PATH
CNI_NETNS=/run/netns/rails
CNI_IFNAME=$n
CNI_CONTAINERID=rails"
	sysctl="\"sysctl\":{\"net.ipv4.conf.$n.arp_ignore\":\"1\",\"net.ipv4.conf.$n.arp_announce\":\"2\",\"net.ipv4.conf.$n.rp_filter\":\"2\"}"
	job "$T/rails/ours/$k" "$root/bin/ib-sriov" "$env
CNI_PATH=$root/bin" \
		"{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"ib-sriov\",\"deviceID\":\"$vf\",\"railTable\":\"auto\",\"railSysctls\":true,\"ipam\":$(rail_ipam ib-host-local /var/lib/cni/rails-ours $k)}"
	# What the rail keys cost: the same without them (no policy routing).
	job "$T/rails/plain/$k" "$root/bin/ib-sriov" "$env
CNI_PATH=$root/bin" \
		"{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"ib-sriov\",\"deviceID\":\"$vf\",\"ipam\":$(rail_ipam ib-host-local /var/lib/cni/rails-plain $k)}"
	# The chains: the rail's plugin, then sbr, then tuning.
	job "$T/rails/sbr/$((3 * k))" "$root/bin/ib-sriov" "$env
CNI_PATH=$root/bin" \
		"{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"ib-sriov\",\"deviceID\":\"$vf\",\"ipam\":$(rail_ipam ib-host-local /var/lib/cni/rails-sbr $k)}"
	job "$T/rails/go/$((3 * k))" "$go/host-device" "$env
CNI_PATH=$go" \
		"{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"host-device\",\"device\":\"$dev\",\"ipam\":$(rail_ipam host-local /var/lib/cni/rails-go $k)}"
	for c in sbr go; do
		job "$T/rails/$c/$((3 * k + 1))" "$go/sbr" "$env
CNI_PATH=$go" "{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"sbr\"}"
		job "$T/rails/$c/$((3 * k + 2))" "$go/tuning" "$env
CNI_PATH=$go" "{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"tuning\",$sysctl}"
		: >"$T/rails/$c/$((3 * k + 1))/chained"
		: >"$T/rails/$c/$((3 * k + 2))/chained"
	done
done
out=$("$run" chain "$RAIL_ITER" ours="$T/rails/ours" sbr="$T/rails/sbr" go="$T/rails/go" \
	plain="$T/rails/plain")
row "8 rails in one pod, ADD x8 + DEL x8" "Go (host-device + host-local + sbr + tuning)" \
	"ib-sriov + ib-host-local + Go sbr + tuning" "ibcni (railTable + railSysctls)" \
	"Go/ibcni, chain/ibcni; ibcni without the rail keys"
row --- --- --- --- ---
for f in wall cpu; do
	o=$(field ours $f) s=$(field sbr $f) g=$(field go $f) p=$(field plain $f)
	got[rails_go_$f]=$(ratio "$(med "$g")" "$(med "$o")")
	got[rails_sbr_$f]=$(ratio "$(med "$s")" "$(med "$o")")
	row "$f (ms)" "$(cell "$g")" "$(cell "$s")" "$(cell "$o")" \
		"${got[rails_go_$f]}, ${got[rails_sbr_$f]}; $(cell "$p")"
done
set -- "$(rss go)" "$(rss sbr)" "$(rss ours)" "$(rss plain)"
row "peak RSS (MiB)" "$(mib "$1")" "$(mib "$2")" "$(mib "$3")" "$(mib "$4")"
echo
