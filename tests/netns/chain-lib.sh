# SPDX-License-Identifier: Apache-2.0
# Helpers for ib-sriov chained with the operators' tuning and sbr (Debian's
# Go plugins), shared by tests/netns/test-chain.sh and tests/cri/test-chain.sh
# (sourced, never run by itself). POD is the pod's netns name under
# /run/netns, IF its interface.

RAILS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../conf-examples" && pwd)/ib-sriov-rails.conflist
RAIL_IP=192.168.120.2
POD=pod1 IF=net1

# chain_conf OUT [JQ-FILTER]: the example as Multus hands it to libcni (the
# pod's device as deviceID and pciBusID in every plugin, as its
# addDeviceIDInConfList does), FILTER applied.
chain_conf() {
	jq --arg d "$(sim_vf_addr 0 1)" "${2:-.} | .plugins |= map(. + {deviceID: \$d, pciBusID: \$d})" "$RAILS" >"$1"
}

# chain_spies DIR REAL PLUGIN...: in DIR, a spy per PLUGIN that logs each
# call (plugin, command, deviceID, prevResult) as one JSON line in $T/calls,
# then runs REAL/PLUGIN on the same stdin.
chain_spies() {
	local dir=$1 real=$2 p
	shift 2
	mkdir -p "$dir"
	for p in "$@"; do
		printf '%s\n' '#!/bin/sh' 'in=$(cat)' \
			"printf '%s' \"\$in\" | jq -c --arg p $p --arg c \"\$CNI_COMMAND\" '{plugin: \$p, cmd: \$c, deviceID, prev: .prevResult}' >>'$T/calls'" \
			"printf '%s' \"\$in\" | exec '$real/$p'" >"$dir/$p"
		chmod +x "$dir/$p"
	done
}

calls() { # CMD: the plugins called with CMD, in order
	jq -r --arg c "$1" 'select(.cmd == $c) | .plugin' "$T/calls" | tr '\n' ' ' | sed 's/ $//'
}

prev_of() { # PLUGIN CMD: the prevResult it was given (the first call's), keys sorted
	jq -S -c --arg p "$1" --arg c "$2" 'select(.plugin == $p and .cmd == $c) | .prev' "$T/calls" | head -1
}

# The node as a pod's attachment may change it: links (name, MTU, MAC,
# state), records, the host's rules and routes, lease files under
# /var/lib/cni and DIRS (not the lock, last_reserved_ip or ib-host-local's
# index, which stay as host-local's do).
node_snapshot() { # [DIRS...]
	host_state
	ip -j rule | jq -c '.[]'
	ip -j route show table all | jq -c '.[]'
	find /var/lib/cni "$@" -type f 2>/dev/null |
		grep -v -e '/lock$' -e '/last_reserved_ip' -e '/\.ib-host-local/' | sort
}

pod_routing() { # the pod's rules and routes, every table
	ip -n "$POD" -j rule | jq -c '.[]'
	ip -n "$POD" -j route show table all | jq -c '.[]'
}

pod_sysctls() { # IF: arp_ignore, arp_announce, rp_filter of all and IF, from /proc/sys in the pod
	ip netns exec "$POD" sh -c "cd /proc/sys/net/ipv4/conf && echo \$(cat all/arp_ignore all/arp_announce \
		all/rp_filter $1/arp_ignore $1/arp_announce $1/rp_filter)"
}

# rail_result MAC SANDBOX: ib-sriov's result for the example's rail, keys
# sorted: the chain passes it on unchanged (sbr and tuning print their
# prevResult).
rail_result() {
	printf '{"cniVersion":"1.0.0","dns":{},"interfaces":[{"mac":"%s","name":"%s","sandbox":"%s"}],"ips":[{"address":"%s/24","gateway":"192.168.120.1","interface":0}],"routes":[{"dst":"192.168.0.0/16"}]}' \
		"$1" "$IF" "$2" "$RAIL_IP"
}

# assert_sbr: sbr's policy rule for the pod's address and its table 100
# (the default route through the gateway, the subnet, ib-sriov's route),
# nothing of IF's left in main.
assert_sbr() {
	assert_eq "[{\"priority\":0,\"src\":\"all\",\"table\":\"local\"},{\"priority\":32765,\"src\":\"$RAIL_IP\",\"table\":\"100\"},{\"priority\":32766,\"src\":\"all\",\"table\":\"main\"},{\"priority\":32767,\"src\":\"all\",\"table\":\"default\"}]" \
		"$(ip -n "$POD" -j rule)" "sbr's rule"
	assert_eq "[[\"192.168.0.0/16\",\"192.168.120.1\",\"$IF\"],[\"192.168.120.0/24\",null,\"$IF\"],[\"default\",\"192.168.120.1\",\"$IF\"]]" \
		"$(ip -n "$POD" -j route show table 100 | jq -c '[.[] | [.dst, .gateway, .dev]] | sort')" "table 100"
	assert_eq '[]' "$(ip -n "$POD" -j route show table main dev "$IF")" "$IF's routes left in main"
}

assert_same() { # BEFORE NOW WHAT: two snapshots, the lines that differ named
	[ "$1" == "$2" ] || fail "$3: $(diff <(echo "$1") <(echo "$2") | grep '^[<>]' | tr '\n' ' ')"
}
