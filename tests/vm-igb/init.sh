#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the vm-igb tier: Debian's backports kernel on qemu's Intel 82576
# (igb PF, igbvf VFs). ib-sriov runs against the real driver; the PF's VF
# table is read back with `ip -d -j link` and compared before and after every
# step. The PF is up without carrier (qemu's link is set down before boot),
# as on an unplugged port. One line per test, a totals line, then poweroff.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/sbin:/opt/cni/bin
# Debian's static busybox runs its own applets before anything on PATH.
ip() { /usr/sbin/ip "$@"; }
rdma() { /usr/sbin/rdma "$@"; }
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /run /tmp /var/lib/cni
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko || echo "vm-igb: insmod $m failed"
done
ip link set lo up

# This tier found four ib-sriov defects on the real driver, all fixed and
# asserted here: a refused ADD left its record and DEL re-sent every setting;
# the restore wrote the VF's own MAC back as an admin MAC (VF locked); the
# refusal did not name the refused setting; mac on an untrusted VF (igb
# refuses the netdev's own change once an admin MAC is set).
pass=0 fail=0
ok() { echo "  PASS  $1"; pass=$((pass + 1)); }
ko() {
	echo "  FAIL  $1: $2"
	fail=$((fail + 1))
}
expect() { # NAME WANT GOT; a long mismatch shows as a diff
	if [ "$2" = "$3" ]; then
		ok "$1"
	elif [ ${#2} -lt 200 ]; then
		ko "$1" "want '$2', got '$3'"
	else
		printf '%s\n' "$2" | sed 's/},{"vf"/}\n{"vf"/g' >/tmp/want
		printf '%s\n' "$3" | sed 's/},{"vf"/}\n{"vf"/g' >/tmp/got
		ko "$1" "$(diff /tmp/want /tmp/got | grep '^[-+][^-+]' | tr '\n' ' ')"
	fi
}
contains() { # NAME NEEDLE HAYSTACK
	case $3 in *"$2"*) ok "$1" ;; *) ko "$1" "'$2' not in '$3'" ;; esac
}
# JSON of $OUT (jq takes two seconds to start under TCG; igbhelper none).
J() { printf '%s' "$OUT" | igbhelper json "$@"; }
Jr() { printf '%s' "$OUT" | igbhelper raw "$1"; }
jqe() { # NAME "PATH..." WANT
	set -f
	got=$(J $2)
	set +f
	expect "$1" "$3" "$got"
}
msg() { [ "$RC" = 0 ] || J .code .msg .details; }	# the error, for a failing name

BIN=/opt/cni/bin
D=/sys/bus/pci/devices
P=$(dirname "$(ls -d $D/*/sriov_totalvfs | head -1)")
PCI_PF=$(basename "$P")
PF=$(ls "$P/net")
LEASES=/tmp/leases
# The node config allows the lease directory (ipam.dataDir is confined to it).
mkdir -p /etc/ibcni && printf '{"allowedDataDirs":["/var/lib/cni/networks","%s"]}\n' "$LEASES" >/etc/ibcni/ibcni.conf

vf_pci() { basename "$(readlink "$P/virtfn$1")"; }
vf_net() { ls "$D/$1/net" 2>/dev/null | head -1; }
drv() { basename "$(readlink "$D/$1/driver")"; }
# The PF's VF table as `ip -d -j link` reads it back, whole or by fields.
vf_table() { ip -d -j link show "$PF" | igbhelper json '[0].vfinfo_list'; }
vf_get() { # N PATH...
	local n=$1 args=""
	shift
	set -f
	for f in "$@"; do args="$args [0].vfinfo_list[$n]$f"; done
	ip -d -j link show "$PF" | igbhelper json $args
	set +f
}
# A link as "name mac mtu up|down" (in NETNS when given).
link_sum() { # NETNS NAME
	ip ${1:+-n "$1"} -o link show "$2" 2>/dev/null |
		sed -E 's/^[0-9]+: ([^:@]+)[^<]*<([^>]*)> mtu ([0-9]+)[^\\]*\\ *link\/[a-z]+ ([0-9a-f:]+).*/\1 \4 \3 \2/' |
		awk '{ print $1, $2, $3, ($4 ~ /(^|,)UP(,|$)/ ? "up" : "down") }'
}
# What an attachment may touch on the host: every link, the VF table, records.
host_state() {
	ip -o link show |
		sed -E 's/^[0-9]+: ([^:@]+)[^<]*<([^>]*)> mtu ([0-9]+)[^\\]*\\ *link\/[a-z]+ ([0-9a-f:]+).*/\1 \4 \3 <\2>/' | sort
	vf_table
	ls /var/lib/cni/ib-sriov 2>/dev/null
}
leases() { ls "$LEASES/igb-net" 2>/dev/null | grep '^10\.' | tr '\n' ' '; }
pod_links() { ip -n "$1" -o link show | sed -E 's/^[0-9]+: ([^:@]+).*/\1/' | grep -v '^lo$' | tr '\n' ' '; }
wait_netdev() { # PCI: until the VF has a netdev on the host (a netns teardown is async)
	for _ in $(seq 50); do
		[ -n "$(vf_net "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}
cni() { # PLUGIN COMMAND ID NETNS IFNAME CONF: sets OUT and RC
	OUT=$(printf '%s' "$6" | env -i CNI_COMMAND=$2 CNI_CONTAINERID=$3 ${4:+CNI_NETNS=$4} \
		CNI_IFNAME=$5 CNI_PATH=$BIN $BIN/$1 2>/tmp/stderr)
	RC=$?
}
conf() { # DEVICE EXTRA-KEYS [IPAM] [VERSION]
	ipam=""
	[ -n "${3:-}" ] && ipam=",\"ipam\":{\"type\":\"$3\",\"dataDir\":\"$LEASES\",\"ranges\":[[{\"subnet\":\"10.56.0.0/24\"}]]}"
	printf '{"cniVersion":"%s","name":"igb-net","type":"ib-sriov","deviceID":"%s"%s%s}' \
		"${4:-1.1.0}" "$1" "${2:+,$2}" "$ipam"
}
zeros() { vf_table | grep -o '"address":"00:00:00:00:00:00"' | wc -l; }

ip link set "$PF" up
echo 4 >"$P/sriov_numvfs"
VF0=$(vf_pci 0) VF1=$(vf_pci 1) VF2=$(vf_pci 2) VF3=$(vf_pci 3)
# igbvf registers its random MAC with the PF once the PF is up.
for _ in $(seq 100); do
	[ "$(zeros)" = 0 ] && break
	sleep 0.1
done
echo
echo "vm-igb: kernel $(uname -r), PF $PF ($PCI_PF), VFs $VF0 $VF1 $VF2 $VF3"
for v in $VF0 $VF1 $VF2 $VF3; do
	echo "$v $(vf_net $v) $(cat "$D/$v/net/$(vf_net $v)/address")"
done >/tmp/boot

# Each section starts from the VFs as booted, so that one defect does not
# fail every later test: pods gone, records and leases removed, and a VF that
# differs from its boot state gets its PF-side settings cleared, its name,
# MTU and own MAC back (set while up, so that igbvf registers it).
now() { awk '{ printf "%.1f", $1 }' /proc/uptime; }
T0=$(now)
vf_boot() { echo "$(vf_get $1 '') $(link_sum "" "$2")"; }
i=0
while read -r v name mac; do
	vf_boot $i "$name" >/tmp/boot.$i
	i=$((i + 1))
done </tmp/boot
host_state >/tmp/boot.host
section() { # NAME
	local v name mac i=0 n
	echo "vm-igb: -- $1 (at $(now) s, tests from $T0 s)"
	for n in $(ip netns list | cut -d' ' -f1); do ip netns del "$n"; done
	rm -rf /var/lib/cni/ib-sriov/* "$LEASES"
	for v in $VF0 $VF1 $VF2 $VF3; do wait_netdev $v; done
	[ "$(host_state)" = "$(cat /tmp/boot.host)" ] && return 0
	while read -r v name mac; do
		if [ "$(vf_boot $i "$name")" != "$(cat /tmp/boot.$i)" ]; then
			ip link set "$PF" vf $i mac 00:00:00:00:00:00 vlan 0 spoofchk on trust off
			[ "$(vf_get $i .rate.max_tx)" = 0 ] || ip link set "$PF" vf $i max_tx_rate 0
			n=$(vf_net "$v")
			ip link set "$n" down
			[ "$n" = "$name" ] || ip link set "$n" name "$name"
			ip link set "$name" mtu 1500 up
			ip link set "$name" address "$mac"
			ip link set "$name" down
			[ "$(vf_boot $i "$name")" = "$(cat /tmp/boot.$i)" ] ||
				echo "vm-igb: $v not reset: $(vf_boot $i "$name")"
		fi
		i=$((i + 1))
	done </tmp/boot
}

# --- the device as the issue describes it
expect "igb binds the PF" igb "$(drv "$PCI_PF")"
expect "the PF offers 7 VFs" 7 "$(cat "$P/sriov_totalvfs")"
expect "the PF is up without carrier" "up 0" \
	"$(link_sum "" "$PF" | cut -d' ' -f4) $(cat /sys/class/net/$PF/carrier)"
expect "4 VFs bound to igbvf, each with a netdev" "igbvf:net igbvf:net igbvf:net igbvf:net " \
	"$(for v in $VF0 $VF1 $VF2 $VF3; do printf '%s:%s ' "$(drv $v)" "$([ -n "$(vf_net $v)" ] && echo net)"; done)"
expect "cni/pci reads the real topology" \
	"$VF1 pf=$PCI_PF index=1 pf_netdev=$PF netdev=$(vf_net "$VF1") driver=igbvf" "$(igbhelper vf "$VF1")"
expect "every VF registered its own MAC with the PF" 0 "$(zeros)"

# --- RDMA first: the netns mode can only switch while no other netns exists.
section "RDMA: rdma-ns and rdmaIsolation, rxe over a VF netdev"
. /bin/test-rdma.sh

# --- ADD, CHECK, DEL with every setting igb accepts
add_check_del() { # IPAM VERSION
	section "ADD, CHECK, DEL with $1"
	local vf=$VF1 net mac before table conf prev addr
	net=$(vf_net $vf)
	mac=$(cat /sys/class/net/$net/address)
	before=$(host_state)
	table=$(vf_table)
	ip netns add pod1
	conf=$(conf $vf '"mac":"02:11:22:33:44:55","vlan":10,"vlanQoS":3,"vlanProto":"802.1q","spoofchk":"off","trust":"on","mtu":1400' "$1" "$2")
	cni ib-sriov ADD c1 /run/netns/pod1 net1 "$conf"
	expect "$1: ADD exits 0 $(msg)" 0 "$RC"
	jqe "$1: interface in the result" .interfaces \
		"[{\"name\":\"net1\",\"mac\":\"02:11:22:33:44:55\",\"mtu\":1400,\"sandbox\":\"/run/netns/pod1\",\"pciID\":\"$vf\"}]"
	addr=$(Jr '.ips[0].address')
	contains "$1: an address from the range" "10.56.0." "$addr"
	expect "$1: VF table entry carries every setting" '["02:11:22:33:44:55",10,3,false,true]' \
		"$(vf_get 1 .address '.vlan_list[0].vlan' '.vlan_list[0].qos' .spoofchk .trust)"
	expect "$1: the other VF entries are untouched" \
		"$(printf '%s' "$table" | igbhelper json '[0]' '[2]' '[3]')" "$(vf_table | igbhelper json '[0]' '[2]' '[3]')"
	expect "$1: the VF netdev left the host" "" "$(link_sum "" "$net")"
	expect "$1: pod interface name, MAC, MTU, up" "net1 02:11:22:33:44:55 1400 up" "$(link_sum pod1 net1)"
	expect "$1: pod interface has the address" "$addr" \
		"$(ip -n pod1 -o -4 addr show net1 | awk '{ print $4 }')"
	prev=$OUT
	cni ib-sriov CHECK c1 /run/netns/pod1 net1 "${conf%\}},\"prevResult\":$prev}"
	expect "$1: CHECK exits 0 $(msg)" 0 "$RC"
	cni ib-sriov DEL c1 /run/netns/pod1 net1 "${conf%\}},\"prevResult\":$prev}"
	expect "$1: DEL exits 0 $(msg)" 0 "$RC"
	expect "$1: VF table as before" "$table" "$(vf_table)"
	expect "$1: host links, VF table and records as before" "$before" "$(host_state)"
	expect "$1: VF netdev name, MAC, MTU restored" "$net $mac 1500 down" "$(link_sum "" "$net")"
	expect "$1: lease released" "" "$(leases)"
	# The admin MAC must be unset again, not re-set to the VF's own MAC:
	# an untrusted VF can then change its MAC itself.
	ip link set "$net" address 02:00:00:00:77:01 2>/tmp/err
	expect "$1: the untrusted VF can set its own MAC after DEL ($(cat /tmp/err))" \
		'"02:00:00:00:77:01"' "$(vf_get 1 .address)"
	cni ib-sriov DEL c1 /run/netns/pod1 net1 "$conf"
	expect "$1: DEL again exits 0" 0 "$RC"
}
add_check_del ib-host-local 1.1.0
# Debian's Go host-local speaks up to 1.0.0.
add_check_del host-local 1.0.0

# --- mac on an untrusted VF: igb refuses a VF's own MAC change while an
# admin MAC is set, even to the same address ("Reload the VF driver").
section "mac on an untrusted VF"
net=$(vf_net $VF1)
mac=$(cat /sys/class/net/$net/address)
before=$(host_state)
table=$(vf_table)
ip netns add pod5
conf=$(conf $VF1 '"mac":"02:11:22:33:44:56"' ib-host-local)
cni ib-sriov ADD u1 /run/netns/pod5 net1 "$conf"
expect "untrusted mac: ADD exits 0 $(msg)" 0 "$RC"
expect "untrusted mac: pod interface has the MAC" "net1 02:11:22:33:44:56 1500 up" "$(link_sum pod5 net1)"
expect "untrusted mac: VF table entry" '"02:11:22:33:44:56"' "$(vf_get 1 .address)"
cni ib-sriov DEL u1 /run/netns/pod5 net1 "$conf"
expect "untrusted mac: DEL exits 0 $(msg)" 0 "$RC"
expect "untrusted mac: VF netdev name, MAC, MTU restored" "$net $mac 1500 down" "$(link_sum "" "$net")"
expect "untrusted mac: host as before" "$before" "$(host_state)"
ip link set "$net" address 02:00:00:00:77:03 2>/tmp/err
expect "untrusted mac: the VF can set its own MAC after DEL ($(cat /tmp/err))" \
	'"02:00:00:00:77:03"' "$(vf_get 1 .address)"

# --- every setting igb refuses: rolled back, nothing changed, named
refused() { # NAME ID KEYS KEY-NAMED
	local before table id=$2 keys=$3 net
	section "refused: $1"
	before=$(host_state)
	table=$(vf_table)
	ip netns add pod2
	# The VF is untrusted and its admin MAC is set: what the rollback must undo.
	cni ib-sriov ADD $id /run/netns/pod2 net1 \
		"$(conf $VF1 "\"mac\":\"02:11:22:33:44:66\",\"spoofchk\":\"off\",\"mtu\":1400,$keys" ib-host-local)"
	expect "$1: ADD fails" 1 "$RC"
	jqe "$1: the error is the PF's refusal" '.code .msg' '[101,"cannot configure the VF on its PF"]'
	contains "$1: the error names $4" "$4" "$(Jr .details)"
	expect "$1: VF table as before" "$table" "$(vf_table)"
	expect "$1: host as before, no record left" "$before" "$(host_state)"
	expect "$1: the pod is empty" "" "$(pod_links pod2)"
	expect "$1: no lease left" "" "$(leases)"
	cni ib-sriov DEL $id /run/netns/pod2 net1 "$(conf $VF1 "$keys" ib-host-local)"
	expect "$1: the runtime's DEL after the failed ADD exits 0 $(msg)" 0 "$RC"
	expect "$1: nothing changed by that DEL" "$before" "$(host_state)"
	net=$(vf_net $VF1)
	ip link set "$net" address 02:00:00:00:77:02 2>/tmp/err
	expect "$1: the untrusted VF can set its own MAC afterwards ($(cat /tmp/err))" \
		'"02:00:00:00:77:02"' "$(vf_get 1 .address)"
}
refused "link_state (EOPNOTSUPP)" r1 '"link_state":"enable"' link_state
refused "max_tx_rate without carrier (EINVAL)" r2 '"max_tx_rate":100' max_tx_rate
refused "min_tx_rate (EINVAL)" r3 '"min_tx_rate":10,"max_tx_rate":100' min_tx_rate
refused "vlanProto 802.1ad (EPROTONOSUPPORT)" r4 '"vlan":10,"vlanProto":"802.1ad"' vlanProto

. /bin/test-pod.sh
. /bin/test-device.sh

echo "vm-igb: -- done (at $(now) s)"
echo "vm-igb: $pass passed, $fail failed"
poweroff -f
