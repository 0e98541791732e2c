#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The hardware tier: ib-sriov (and rdma-ns) against a real SR-IOV PF and
# spare VFs, InfiniBand or Ethernet (RoCE). Opt-in only; see tests/hw/README.md
# for what it changes and how it restores. The vm-igb tier runs this same
# script on qemu's igb PF (its Ethernet part).
#
#   IBCNI_HW=1                    the opt-in: the VFs below may be changed
#   IBCNI_HW_PF=<netdev>          the PF, e.g. ens1f0 or ibp59s0f0
#   IBCNI_HW_VFS="<pci> [<pci>]"  spare VFs of that PF (PCI addresses)
#   IBCNI_HW_GUID, IBCNI_HW_PKEY  InfiniBand: the GUID to set (default
#                                 02:00:00:1b:c0:00:00:01) and a pkey of the
#                                 fabric to join (optional)
#   IBCNI_HW_BIN, IBCNI_HW_STATE  plugins (default ./bin), scratch directory
#                                 (default /tmp/ibcni-hw)
# Exit 0 all passed, 1 a test failed, 2 refused to run.
set -u
if [ -x /usr/sbin/ip ]; then ip() { /usr/sbin/ip "$@"; }; fi
if [ -x /usr/sbin/rdma ]; then rdma() { /usr/sbin/rdma "$@"; }; fi
here=$(cd "$(dirname "$0")" && pwd)
BIN=${IBCNI_HW_BIN:-$here/../../bin}
S=${IBCNI_HW_STATE:-/tmp/ibcni-hw}
GUID=${IBCNI_HW_GUID:-02:00:00:1b:c0:00:00:01}
PKEY=${IBCNI_HW_PKEY:-}
SYS=/sys/bus/pci/devices
NS=ibcni-hw

refuse() { echo "hw: refused: $*" >&2; echo "hw: 0 passed, 0 failed"; exit 2; }
[ "${IBCNI_HW:-}" = 1 ] || refuse "set IBCNI_HW=1, IBCNI_HW_PF and IBCNI_HW_VFS to opt in (tests/hw/README.md: it reconfigures those VFs and restores them)"
PF=${IBCNI_HW_PF:-}
VFS=${IBCNI_HW_VFS:-}
[ -n "$PF" ] && [ -n "$VFS" ] || refuse "IBCNI_HW_PF and IBCNI_HW_VFS are both needed"
[ "$(id -u)" = 0 ] || refuse "needs root"
for b in ib-sriov rdma-ns ib-host-local; do
	[ -x "$BIN/$b" ] || refuse "$BIN/$b is missing (make, or set IBCNI_HW_BIN)"
done
ip link show "$PF" >/dev/null 2>&1 || refuse "no netdev $PF"

vf_net() { ls "$SYS/$1/net" 2>/dev/null | head -1; }
vf_index() { # PCI: N of the PF's virtfnN that points at it
	for l in "$SYS/$PCI_PF"/virtfn*; do
		[ "$(basename "$(readlink "$l")")" = "$1" ] && { echo "${l##*virtfn}"; return 0; }
	done
	return 1
}
PCI_PF=$(basename "$(readlink -f "/sys/class/net/$PF/device")")
# Text, not JSON: no jq needed (and jq starts slowly under the vm tier's TCG).
sum() { # NETNS NAME: "name mac mtu up|down" of a link (NETNS "" is the host's)
	ip ${1:+-n "$1"} -o link show dev "$2" 2>/dev/null |
		sed -E 's/^[0-9]+: ([^:@]+)[^<]*<([^>]*)> mtu ([0-9]+)[^\\]*\\ *link\/[a-z]+ ([0-9a-f:]+).*/\1 \4 \3 \2/' |
		awk '{ print $1, $2, $3, ($4 ~ /(^|,)UP(,|$)/ ? "up" : "down") }'
}
case $(ip -o link show "$PF") in
*link/infiniband*) LINK=infiniband ;;
*) LINK=ether ;;
esac

# A VF is in use when anything but us may be relying on it.
for v in $VFS; do
	[ -e "$SYS/$v/physfn" ] || refuse "$v is not a VF"
	[ "$(basename "$(readlink -f "$SYS/$v/physfn")")" = "$PCI_PF" ] || refuse "$v is not a VF of $PF"
	drv=$(basename "$(readlink "$SYS/$v/driver" 2>/dev/null)")
	[ -n "$drv" ] || refuse "$v has no driver bound"
	[ "$drv" != vfio-pci ] || refuse "$v is bound to vfio-pci (a VM or DPDK may own it)"
	net=$(vf_net "$v")
	[ -n "$net" ] || refuse "$v has no netdev on the host: it is probably in a pod"
	case $(sum "" "$net") in *" up") refuse "$v ($net) is up: in use" ;; esac
	[ -z "$(ip -o addr show dev "$net" scope global)" ] || refuse "$v ($net) has addresses: in use"
	case $(ip -o link show "$net") in *" master "*) refuse "$v ($net) is enslaved: in use" ;; esac
	! grep -qs "\"$v\"" /var/lib/cni/ib-sriov/* || refuse "$v has an ib-sriov attachment record: in use"
	[ -n "$(vf_index "$v")" ] || refuse "$v is not listed by $PF's virtfn links"
done
# Each VF's index, looked up once: "pci=N ...".
IDXS=""
for v in $VFS; do IDXS="$IDXS $v=$(vf_index "$v")"; done
set -- $VFS
VF=$1
VF2=${2:-}

pass=0 fail=0 n=0
ok() { echo "  PASS  $1"; pass=$((pass + 1)); }
ko() { echo "  FAIL  $1: $2"; fail=$((fail + 1)); }
skip() { echo "  SKIP  $1: $2"; }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want '$2', got '$3'"; fi; }
contains() { case $3 in *"$2"*) ok "$1" ;; *) ko "$1" "'$2' not in '$3'" ;; esac; }

# The VF's line of the PF's VF table as iproute2 prints it: MAC or GUIDs,
# VLAN, QoS, rates, spoofchk, link state, trust.
vf_entry() { ip -d link show "$PF" | sed -n "s/^ *vf $(idx_of "$1") *//p"; }
idx_of() { for p in $IDXS; do [ "${p%=*}" = "$1" ] && echo "${p#*=}"; done; }
# Everything a test may touch: each VF's table entry and netdev, the
# records (one read of the VF table and one of the links for all VFs).
snapshot() {
	local table links v
	table=$(ip -d link show "$PF")
	links=$(ip -o link show)
	for v in $VFS; do
		echo "$v | $(echo "$table" | sed -n "s/^ *vf $(idx_of "$v") *//p")" \
			"| $(echo "$links" | grep "^[0-9]*: $(vf_net "$v"):" |
				sed -E 's/^[0-9]+: ([^:@]+)[^<]*<([^>]*)> mtu ([0-9]+)[^\\]*\\ *link\/[a-z]+ ([0-9a-f:]+).*/\1 \4 \3 \2/')"
	done
	ls /var/lib/cni/ib-sriov 2>/dev/null | grep "^$NS-" || true
}
# A top-level key of the plugin's pretty-printed result or error.
field() { printf '%s\n' "$OUT" | sed -n "s/^    \"$1\": \"\{0,1\}\(.*[^\",]\)\"\{0,1\},\{0,1\}\$/\1/p" | head -1; }
cni() { # COMMAND ID IFNAME CONF: sets OUT and RC; every attachment is remembered
	[ "$1" = ADD ] && echo "$2 $3 $4" >>"$S/attachments"
	OUT=$(printf '%s' "$4" | env -i CNI_COMMAND=$1 CNI_CONTAINERID=$2 CNI_NETNS=/run/netns/$2 \
		CNI_IFNAME=$3 CNI_PATH=$BIN "$BIN/ib-sriov" 2>>"$S/stderr")
	RC=$?
}
conf() { # DEVICE EXTRA-KEYS
	# Leases in the node's default data directory (/var/lib/cni/networks,
	# which every node config allows), under the network's own name.
	printf '{"cniVersion":"1.1.0","name":"%s","type":"ib-sriov","deviceID":"%s"%s,"ipam":{"type":"ib-host-local","ranges":[[{"subnet":"192.0.2.0/24"}]]}}' \
		"$NS" "$1" "${2:+,$2}"
}
pod() { ip netns add "$1" && echo "$1" >>"$S/netns"; }

# The guaranteed restore: whatever happens (failure, ^C, kill), every
# attachment made is DELeted (DEL is idempotent), every netns we made is
# removed, and the VFs are compared with the snapshot taken first.
restore() {
	trap - EXIT INT TERM HUP
	if [ -f "$S/attachments" ]; then
		while read -r id ifname c; do
			printf '%s' "$c" | env -i CNI_COMMAND=DEL CNI_CONTAINERID=$id CNI_NETNS=/run/netns/$id \
				CNI_IFNAME=$ifname CNI_PATH=$BIN "$BIN/ib-sriov" >/dev/null 2>&1 ||
				ko "restore: DEL $id/$ifname" "failed"
		done <"$S/attachments"
	fi
	[ -f "$S/netns" ] && sort -u "$S/netns" | while read -r n; do ip netns del "$n" 2>/dev/null; done
	rm -rf "/var/lib/cni/networks/$NS" "/var/lib/cni/networks/.ib-host-local/$NS"
	sleep 1	# a deleted netns hands physical netdevs back asynchronously
	# Best effort for what a failed DEL left behind: netdev name and MTU.
	echo "$FIRST" | while IFS='|' read -r v _ link; do
		set -- $link	# name mac mtu flags
		[ -n "${1:-}" ] || continue
		cur=$(vf_net "${v% }")
		if [ -n "$cur" ] && [ "$cur" != "$1" ]; then
			ip link set "$cur" down
			ip link set "$cur" name "$1"
		fi
		ip link set "$1" mtu "$3" 2>/dev/null
	done
	now=$(snapshot)
	if [ "$now" = "$FIRST" ]; then
		ok "restore: every VF as found ($S/snapshot.before)"
	else
		echo "$now" >"$S/snapshot.after"
		ko "restore: VFs differ from the start" "diff $S/snapshot.before $S/snapshot.after"
	fi
	echo "hw: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}
rm -rf "$S"
mkdir -p "$S"
FIRST=$(snapshot)
echo "$FIRST" >"$S/snapshot.before"
trap restore EXIT
trap 'exit 1' INT TERM HUP
echo "hw: PF $PF ($PCI_PF, $LINK), VFs $VFS, driver $(basename "$(readlink "$SYS/$VF/driver")")"

step() { # NAME KEYS CHECK-FN: ADD, check, CHECK, DEL; the VF as before
	local before id
	n=$((n + 1))
	id=$NS-$n
	before=$(snapshot)
	pod "$id"
	cni ADD "$id" net1 "$(conf "$VF" "$2")"
	if [ "$RC" != 0 ]; then
		ko "$1: ADD" "$(field msg): $(field details)"
		expect "$1: a failed ADD changes nothing" "$before" "$(snapshot)"
		return
	fi
	ok "$1: ADD"
	$3 "$id"
	cni CHECK "$id" net1 "$(conf "$VF" "$2" | sed 's/}$//'),\"prevResult\":$OUT}"
	expect "$1: CHECK" 0 "$RC"
	cni DEL "$id" net1 "$(conf "$VF" "$2")"
	expect "$1: DEL" 0 "$RC"
	expect "$1: VF table entry, netdev and records as before" "$before" "$(snapshot)"
}
# A setting the driver may refuse: either applied and undone, or refused
# with the setting named and nothing changed.
optional() { # NAME KEYS KEY TEXT-IN-THE-VF-TABLE
	local before id=$NS-opt-$3
	before=$(snapshot)
	pod "$id"
	cni ADD "$id" net1 "$(conf "$VF" "$2")"
	if [ "$RC" = 0 ]; then
		contains "$1: applied" "$4" "$(vf_entry "$VF")"
		cni DEL "$id" net1 "$(conf "$VF" "$2")"
		expect "$1: DEL" 0 "$RC"
	else
		contains "$1: refused by the driver, the error names $3" "$3" "$(field details)"
		cni DEL "$id" net1 "$(conf "$VF" "$2")"
		expect "$1: DEL after the refused ADD" 0 "$RC"
	fi
	expect "$1: as before" "$before" "$(snapshot)"
}

eth_check() {
	local e
	expect "eth: pod interface MAC, MTU, up" "net1 02:1b:c0:00:00:01 1400 up" "$(sum "$1" net1)"
	e=$(vf_entry "$VF")
	contains "eth: VF table has the MAC" "link/ether 02:1b:c0:00:00:01 " "$e"
	contains "eth: VF table has the VLAN and QoS" "vlan 42, qos 2," "$e"
	contains "eth: VF table has spoofchk off" "spoof checking off" "$e"
	contains "eth: VF table has trust on" "trust on" "$e"
}
guid_check() {
	local g
	g=$(sum "$1" net1 | cut -d' ' -f2 | cut -d: -f13-)
	expect "ib: the pod netdev (found again after the rebind) has the GUID" "$GUID" "$g"
}
pkey_check() {
	local p
	p=$(ip -n "$1" -d -o link show net1 | sed -n 's/.* pkey *\(0x[0-9a-f]*\).*/\1/p')
	[ -z "$p" ] && p=$(cat "/sys/class/net/$(vf_net "$VF")/pkey" 2>/dev/null)
	expect "ib: the pod interface is on the partition" "$(printf '0x%04x' $((PKEY | 0x8000)))" \
		"$(printf '0x%04x' $((p | 0x8000)))"
}
# guidFallback's GUID (docs/guid.md): PF-GUID with the local bit, VF index
# XORed into bytes 1-2.
fallback_guid() { # PF-GUID VF-INDEX
	local v=$2 IFS=:
	set -- $1
	printf '%02x:%02x:%02x:%s:%s:%s:%s:%s\n' $((0x$1 ^ 2)) $((0x$2 ^ (v >> 8))) \
		$((0x$3 ^ (v & 255))) "$4" "$5" "$6" "$7" "$8"
}
fallback_check() {
	local g
	g=$(sum "$1" net1 | cut -d' ' -f2 | cut -d: -f13-)
	expect "ib: guidFallback: the pod netdev (after the rebind) has the derived GUID" "$FALLBACK" "$g"
	contains "ib: guidFallback: the VF table has it as node GUID" "NODE_GUID $FALLBACK" "$(vf_entry "$VF")"
}
rdma_check() {
	contains "rdma: the VF's RDMA device is in the pod" "$RDEV" "$(ip netns exec "$1" "$BIN/rdma-ns" devices)"
	case $(rdma dev show "$RDEV" 2>&1) in
	*"$RDEV"*) ko "rdma: the device left the host" "still listed" ;;
	*) ok "rdma: the device left the host" ;;
	esac
}

if [ "$LINK" = infiniband ]; then
	step "ib: GUID set, VF rebound, netdev rediscovered" "\"guid\":\"$GUID\",\"mtu\":2044" guid_check
	if [ -n "$PKEY" ]; then
		step "ib: pkey $PKEY" "\"guid\":\"$GUID\",\"pkey\":\"$PKEY\"" pkey_check
	else
		skip "ib: pkey and IPoIB child" "set IBCNI_HW_PKEY to a pkey of the fabric"
	fi
	optional "ib: link_state enable" "\"guid\":\"$GUID\",\"link_state\":\"enable\"" link_state \
		"link-state enable"
	# guidFallback: only on a VF without a GUID now (DEL puts that back).
	vg=$(sum "" "$(vf_net "$VF")" | cut -d' ' -f2 | cut -d: -f13-)
	case $vg in
	00:00:00:00:00:00:00:00 | ff:ff:ff:ff:ff:ff:ff:ff)
		FALLBACK=$(fallback_guid "$(sum "" "$PF" | cut -d' ' -f2 | cut -d: -f13-)" "$(idx_of "$VF")")
		step "ib: guidFallback derives $FALLBACK, DEL restores $vg" '"guidFallback":true' fallback_check
		;;
	*) skip "ib: guidFallback" "$VF has GUID $vg (guidFallback is for a VF without one)" ;;
	esac
else
	step "eth: MAC, VLAN/QoS, spoofchk, trust, MTU" \
		'"mac":"02:1b:c0:00:00:01","vlan":42,"vlanQoS":2,"spoofchk":"off","trust":"on","mtu":1400' eth_check
	optional "eth: link_state enable" '"link_state":"enable"' link_state "link-state enable"
	optional "eth: max_tx_rate 100" '"max_tx_rate":100' max_tx_rate "max_tx_rate 100Mbps"
	optional "eth: vlanProto 802.1ad" '"vlan":43,"vlanProto":"802.1ad"' vlanProto "vlan protocol 802.1ad"
fi

# rdmaIsolation needs an RDMA device under the VF and the exclusive netns
# mode, which this script never switches (the node's pods rely on it).
RDEV=$(ls "$SYS/$VF/infiniband" 2>/dev/null | head -1)
mode=$("$BIN/rdma-ns" netns-mode show 2>/dev/null)
if [ -z "$RDEV" ]; then
	skip "rdma: rdmaIsolation" "$VF has no RDMA device"
elif [ "$mode" != exclusive ]; then
	skip "rdma: rdmaIsolation" "the RDMA netns mode is '$mode' (rdma-ns netns-mode exclusive, at boot)"
else
	step "rdma: rdmaIsolation moves $RDEV" '"rdmaIsolation":true' rdma_check
fi

if [ -n "$VF2" ]; then
	before=$(snapshot)
	pod "$NS-c1"
	pod "$NS-c2"
	cni ADD "$NS-c2" net1 "$(conf "$VF2" "")" &
	cni ADD "$NS-c1" net1 "$(conf "$VF" "")"
	wait
	expect "two VFs at once: both pods have their VF" "net1 net1" \
		"$(sum "$NS-c1" net1 | cut -d' ' -f1) $(sum "$NS-c2" net1 | cut -d' ' -f1)"
	cni DEL "$NS-c1" net1 "$(conf "$VF" "")"
	cni DEL "$NS-c2" net1 "$(conf "$VF2" "")"
	expect "two VFs at once: as before" "$before" "$(snapshot)"
fi
