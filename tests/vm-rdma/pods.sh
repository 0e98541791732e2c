# SPDX-License-Identifier: Apache-2.0
# Sourced by the shared-mode case files: pods attached by ib-sriov and
# ib-host-local as users deploy them (the RoCE network of
# conf-examples/ib-sriov-nad.yaml with ib-host-local as its IPAM and without
# its max_tx_rate: a rate limit would be the performance case's difference,
# and vm-igb asserts it on the VF table), called as Multus
# calls a delegate: the NAD's config with the deviceID of the pod's VF and the
# runtimeConfig of its capabilities added, Multus' CNI_ARGS. Inside each pod
# an rxe device over the pod's interface stands in for the VF's own RDMA
# device (a ConnectX VF has one; an igb VF has none). rxe follows its netdev,
# so it is created in the pod after the move, where a ConnectX VF's device
# would already be.

nad() { # NETWORK SUBNET VF MAC: the config ib-sriov receives for one pod
	printf '{"cniVersion":"1.0.0","name":"%s","type":"ib-sriov","deviceID":"%s",' "$1" "$3"
	printf '"vlan":100,"spoofchk":"on","trust":"off","mtu":%s,' "$POD_MTU"
	printf '"capabilities":{"mac":true},"runtimeConfig":{"mac":"%s"},' "$4"
	printf '"ipam":{"type":"ib-host-local","ranges":[[{"subnet":"%s"}]]}}' "$2"
}
POD_MTU=${POD_MTU:-9000}
multus_args() { # POD
	echo "IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=$1;K8S_POD_INFRA_CONTAINER_ID=c-$1"
}
# ADD of POD's VF: the pod's netns created, its address in the variable
# IP_<POD> (without prefix), its result in RES_<POD>.
attach() { # POD NETWORK SUBNET VF MAC
	ip netns add "$1"
	cni ib-sriov ADD "c-$1" "/run/netns/$1" net1 "$(nad "$2" "$3" "$4" "$5")" "$(multus_args "$1")"
	expect "$1: ib-sriov ADD of VF $4 exits 0 $(msg)" 0 "$RC"
	eval "IP_$1=$(Jr '.ips[0].address' | cut -d/ -f1)"
	eval "RES_$1='$OUT'"
}
detach() { # POD NETWORK SUBNET VF MAC
	local res conf
	eval "res=\$RES_$1"
	conf=$(nad "$2" "$3" "$4" "$5")
	cni ib-sriov DEL "c-$1" "/run/netns/$1" net1 "${conf%\}},\"prevResult\":$res}" "$(multus_args "$1")"
	expect "$1: ib-sriov DEL exits 0 $(msg)" 0 "$RC"
}
# COMMAND in the pod's netns (its own /sys), killed after 60 s: a peer that
# never comes must not hang the tier. busybox's timeout execs COMMAND in its
# own process, so a background in_pod's $! is the tool's.
in_pod() { # POD COMMAND...
	local pod=$1
	shift
	timeout 60 /usr/bin/ip netns exec "$pod" "$@"
}
# The RoCE v2 GID of IPV4 on DEV port 1 (::ffff:a.b.c.d), its index printed.
gid_index() { # DEV IPV4
	local want g i
	want=$(echo "$2" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for _ in $(seq 50); do
		for g in /sys/class/infiniband/$1/ports/1/gids/*; do
			i=${g##*/}
			[ "$(cat "$g" 2>/dev/null)" = "$want" ] &&
				[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
				{ echo "$i"; return 0; }
		done
		sleep 0.1
	done
	return 1
}
# The RoCE v2 GID of IPV4 on DEV port 1, read in POD's sysfs (one shell
# there: the table has 1024 entries).
gid_in() { # POD DEV IPV4
	local want d=/sys/class/infiniband/$2/ports/1 i
	want=$(echo "$3" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for _ in $(seq 50); do
		i=$(in_pod "$1" sh -c "for f in \$(grep -l -x $want $d/gids/* 2>/dev/null); do
			[ \"\$(cat $d/gid_attrs/types/\${f##*/})\" = 'RoCE v2' ] && echo \${f##*/} && break
		done")
		[ -n "$i" ] && { echo "$i"; return 0; }
		sleep 0.1
	done
	return 1
}
rxe_add() { # POD DEV: rxe over the pod's net1, created from inside the pod
	in_pod "$1" rdma link add "$2" type rxe netdev net1 2>/tmp/err
	expect "$1: rxe device $2 over net1 ($(cat /tmp/err))" "link $2/1 state ACTIVE physical_state LINK_UP netdev net1" \
		"$(in_pod "$1" rdma link show "$2/1" | sed 's/ *$//')"
}
# A server in POD, in the background (its output in /tmp/srv), once the
# previous server's rdma_cm listener is gone, waited for until it listens:
# through rdma_cm (cm) or on TCP PORT (ibv_rc_pingpong's exchange).
serve() { # cm|PORT POD COMMAND...
	local how=$1 pod=$2
	shift 2
	for _ in $(seq 100); do
		rdma resource show cm_id 2>/dev/null | grep -q LISTEN || break
		sleep 0.1
	done
	timeout 60 /usr/bin/ip netns exec "$pod" "$@" >/tmp/srv 2>&1 &
	SRV=$!
	if [ "$how" = cm ]; then
		for _ in $(seq 100); do
			rdma resource show cm_id 2>/dev/null | grep -q LISTEN && return 0
			sleep 0.1
		done
	else
		how=$(printf ':%04X 00000000:0000 0A' "$how")
		for _ in $(seq 100); do
			in_pod "$pod" cat /proc/net/tcp | grep -q "$how" && return 0
			sleep 0.1
		done
	fi
}
served() { wait "$SRV"; } # the server's exit status
# A server and its client (outputs /tmp/srv, /tmp/cli; exit statuses SRC,
# RC), tried up to 3 times: under TCG on a loaded host rdma_cm's address and
# route resolution can time out (perftest then crashes on the error path).
# Each retry is said, with the client's last line.
pair() { # HOW SERVER-POD "SERVER-ARGS" CLIENT-POD "CLIENT-ARGS"
	local try
	for try in 1 2 3; do
		# shellcheck disable=SC2086 # argument lists without spaces
		serve "$1" "$2" $3
		# shellcheck disable=SC2086
		in_pod "$4" $5 >/tmp/cli 2>&1
		RC=$?
		[ "$RC" = 0 ] && break
		kill "$SRV" 2>/dev/null
		[ $try = 3 ] || say "retry $try of '${5%% *}': the client exited $RC: $(tail -1 /tmp/cli)"
	done
	served
	SRC=$?
}
# A counter of POD's net1 (rx_bytes, tx_bytes) or of DEV's port (hw_counters).
netdev_bytes() { in_pod "$1" cat "/sys/class/net/net1/statistics/$2"; }
rxe_count() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
udp_4791() { # [POD]: rxe's UDP socket (port 4791, 0x12B7) in POD or on the host
	if [ -n "${1:-}" ]; then in_pod "$1" cat /proc/net/udp; else cat /proc/net/udp; fi |
		awk '$2 ~ /:12B7$/ { n++ } END { print n + 0 }'
}

# Exclusive RDMA netns mode (rdma-ns chained after ib-sriov; the case sets NET).
rdmans_conf() { # VF PREVRESULT [EXTRA]: rdma-ns's config as Multus passes it
	printf '{"cniVersion":"1.0.0","name":"%s","type":"rdma","deviceID":"%s"%s,"prevResult":%s}' \
		"$NET" "$1" "${3:+,$3}" "$2"
}
res() { eval "printf '%s' \"\$RES_$1\""; } # POD: ib-sriov's ADD result
devs() { # [POD]: the RDMA device names a socket there lists
	if [ -n "${1:-}" ]; then in_pod "$1" rdma dev show; else rdma dev show; fi |
		sed -n 's/^[0-9]*: \([^:]*\):.*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//'
}
dev_index() { # NAME [POD]: the index of the RDMA device NAME there
	if [ -n "${2:-}" ]; then in_pod "$2" rdma dev show; else rdma dev show; fi |
		sed -n "s/^\([0-9]*\): $1:.*/\1/p"
}
dev_name() { # INDEX [POD]: the name of the RDMA device of INDEX there
	if [ -n "${2:-}" ]; then in_pod "$2" rdma dev show; else rdma dev show; fi |
		sed -n "s/^$1: \([^:]*\):.*/\1/p"
}
netns_mode() { # exclusive|shared: switches the RDMA netns mode (no other netns may exist)
	"$BIN/rdma-ns" netns-mode "$1" >/tmp/out 2>&1
	expect "the RDMA netns mode switches to $1 ($(cat /tmp/out))" "$1" \
		"$(rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p')"
}
# The admin's opt-in to rdma-ns's host branch (docs/operators.md, "Node
# configuration"): an rxe/siw a pod created over its interface, registered
# on the host in exclusive mode, found by the node GUID of the interface's
# MAC. Each case file starts with it off (init.sh). A build that refuses the
# key (STATUS's code 7, invalid node configuration: one whose branch has no
# switch) is said, and the file stays without it; SOFT_RDMA tells on, off
# or refused.
soft_rdma() { # on|off
	echo '{}' >/etc/ibcni/ibcni.conf
	SOFT_RDMA=off
	[ "$1" = on ] || return 0
	echo '{"softRdmaByMac": true}' >/etc/ibcni/ibcni.conf
	cni rdma-ns STATUS "" "" "" '{"cniVersion":"1.1.0","name":"probe","type":"rdma"}'
	if [ "$RC" = 0 ] || [ "$(J .code)" != 7 ]; then
		SOFT_RDMA=on
		return 0
	fi
	say "this build refuses softRdmaByMac ($(msg)): ibcni.conf stays {}"
	echo '{}' >/etc/ibcni/ibcni.conf
	SOFT_RDMA=refused
	return 1
}
rdmans_records() { find /var/lib/cni/rdma-ns -type f ! -name '*lock*' 2>/dev/null | sort; }
# Records and leases a failed case left, each said and removed, so the next
# case file starts from the node as booted; a passing case leaves none.
leftovers() {
	local f
	for f in $(find /var/lib/cni/ibcni /var/lib/cni/ib-sriov /var/lib/cni/rdma-ns -type f ! -name '*lock*' 2>/dev/null) \
		$(find "$LEASES" -type f 2>/dev/null | grep -E '/[0-9a-f.:]+$'); do
		say "left behind, removed: $f"
		rm -f "$f"
	done
}
