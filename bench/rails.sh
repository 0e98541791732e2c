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

# NRI's budget: dra-driver-sriov (STANDALONE) runs every VF's ADD of a pod
# inside its NRI RunPodSandbox hook, which containerd and CRI-O close after
# 2 s by default (containerd/nri pkg/api/timeouts.go). Each rail here is the
# driver's call (dra.md 1.1): a single-plugin config re-encoded with sorted
# keys, deviceID and the IPAM inside, no runtimeConfig; the sandbox ID;
# vfnet<n>; its CNI_ARGS. One sample is one pod's 8 ADDs in sequence (the
# DELs follow, unmeasured for this table); NRI_PODS pods (default 201).
NRI_PODS=${NRI_PODS:-201} NRI_BUDGET_MS=2000
sandbox=8c1f4e0a9b2d47c6a3e5f7081b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d
for ((k = 0; k < 8; k++)); do
	job "$T/rails/dra/$k" "$root/bin/ib-sriov" "PATH=$PATH
NRI_PLUGIN_NAME=dra-driver-sriov
CONFIGURATION_MODE=STANDALONE
CNI_CONTAINERID=$sandbox
CNI_NETNS=/run/netns/rails
CNI_ARGS=IgnoreUnknown=true;K8S_POD_NAMESPACE=train;K8S_POD_NAME=rank-0;K8S_POD_INFRA_CONTAINER_ID=$sandbox;K8S_POD_UID=7e4a2c19-5b3d-4f8e-a6c1-2d9b0e7f3a58
CNI_IFNAME=vfnet$k
CNI_PATH=$root/bin" \
		"$(jq -S -c . <<<"{\"cniVersion\":\"1.0.0\",\"name\":\"rail$k\",\"type\":\"ib-sriov\",\"deviceID\":\"$(sim_vf_addr 0 $k)\",\"railTable\":\"auto\",\"railSysctls\":true,\"ipam\":$(rail_ipam ib-host-local /var/lib/cni/rails-dra $k)}")"
done
out=$("$run" chain "$NRI_PODS" dra="$T/rails/dra")
pct() { awk -v a="$1" -v b="$NRI_BUDGET_MS" 'BEGIN { printf "%.1f%%", a / 1000 / b * 100 }'; }
set -- $(awk '$1 == "dra" { for (i = 2; i <= NF; i++) if ($i == "add") print $(i+1), $(i+2), $(i+3) }' <<<"$out")
echo
row "NRI RunPodSandbox, 8 rails under dra-driver-sriov ($NRI_PODS pods)" p50 p99 max \
	"of the 2 s budget (p50, p99)"
row --- --- --- --- ---
row "ADD x8, IPAM included (ms)" "$(ms "$1")" "$(ms "$2")" "$(ms "$3")" "$(pct "$1"), $(pct "$2")"
