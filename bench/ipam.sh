#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ib-host-local against Debian's Go host-local, side by side in one run:
# wall time per ADD+DEL, peak RSS, and how both scale with the number of
# leases already on disk. Prints ratios (Go / ours); asserts nothing.
set -eu
bin=${IBCNI_BIN:-$(cd "$(dirname "$0")/.." && pwd)/bin}
go=${GO_CNI:-/usr/lib/cni}/host-local
ops=${OPS:-200}

conf() { printf '{"cniVersion":"1.0.0","name":"b","type":"x","ipam":{"type":"x","dataDir":"%s","ranges":[[{"subnet":"10.0.0.0/8"}]]}}' "$1"; }

# The plugin is exec'ed straight from this shell with the config in a file,
# so the loop adds as little as possible to what is measured.
export CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 CNI_PATH=/x
call() { # PLUGIN CMD ID DATADIR
	CNI_COMMAND=$2 CNI_CONTAINERID=$3 "$1" <"$4.conf" >/dev/null 2>&1
}

prefill() { # DATADIR N: leases written as host-local writes them
	mkdir -p "$1/b"
	for ((i = 0; i < $2; i++)); do
		printf 'old%d\r\neth0' $i >"$1/b/10.200.$((i / 250)).$((1 + i % 250))"
	done
}

per_op_us() { # PLUGIN DATADIR
	local start end
	conf "$2" >"$2.conf"
	call "$1" ADD warm "$2"; call "$1" DEL warm "$2"
	start=$(date +%s%N)
	for ((i = 0; i < ops; i++)); do
		call "$1" ADD c$i "$2"
		call "$1" DEL c$i "$2"
	done
	end=$(date +%s%N)
	echo $(((end - start) / 1000 / ops / 2))
}

rss_kb() { # PLUGIN DATADIR
	CNI_COMMAND=ADD CNI_CONTAINERID=rss /usr/bin/time -f %M "$1" <"$2.conf" 2>&1 >/dev/null | tail -1
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

for base in /var/tmp /dev/shm; do
T=$(mktemp -d "$base/ibcni-bench.XXXXXX")
printf '\n%-36s %12s %12s %8s\n' "lease dir on $(stat -f -c %T "$T")" "Go" "ours" "Go/ours"
for leases in 0 5000; do
	rm -rf "$T/go" "$T/ours"
	prefill "$T/go" $leases; prefill "$T/ours" $leases
	g=$(per_op_us "$go" "$T/go"); o=$(per_op_us "$bin/ib-host-local" "$T/ours")
	printf '%-36s %10s us %10s us %8s\n' "per call (ADD, DEL), $leases leases" "$g" "$o" "$(ratio "$g" "$o")"
	g=$(rss_kb "$go" "$T/go"); o=$(rss_kb "$bin/ib-host-local" "$T/ours")
	printf '%-36s %10s kB %10s kB %8s\n' "peak RSS, $leases leases" "$g" "$o" "$(ratio "$g" "$o")"
done
rm -rf "$T"
done
