#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the vm-rdma tier: Linux 7 (trixie-backports) on qemu's igb PF with
# 4 igbvf VFs and trixie's RDMA userland (rdma-core, perftest, iproute2).
# Sets up the node, then runs each case file /bin/vm-rdma/test-*.sh in its
# own subshell (the helpers below are its interface: tests/vm-rdma/README.md),
# adds up their PASS/FAIL lines, prints the totals and powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/sbin:/usr/bin:/opt/cni/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /run /tmp /var/lib/cni /dev/pts
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
mount -t devpts devpts /dev/pts
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko || echo "vm-rdma: insmod $m failed"
done
# Debian's static busybox runs its own applets before anything on PATH.
ip() { /usr/bin/ip "$@"; }
rdma() { /usr/bin/rdma "$@"; }
ip link set lo up

pass=0 fail=0
ok() {
	echo "  PASS  $1"
	pass=$((pass + 1))
}
ko() {
	echo "  FAIL  $1: $2"
	fail=$((fail + 1))
}
expect() { # NAME WANT GOT; a long or multi-line mismatch shows as a diff
	if [ "$2" = "$3" ]; then
		ok "$1"
	elif [ ${#2} -lt 200 ] && [ "$(printf '%s\n' "$2" | wc -l)" = 1 ]; then
		ko "$1" "want '$2', got '$3'"
	else
		printf '%s\n' "$2" >/tmp/want
		printf '%s\n' "$3" >/tmp/got
		ko "$1" "$(diff /tmp/want /tmp/got | grep '^[-+][^-+]' | tr '\n' ' ')"
	fi
}
contains() { # NAME NEEDLE HAYSTACK
	case $3 in *"$2"*) ok "$1" ;; *) ko "$1" "'$2' not in '$3'" ;; esac
}
# JSON of $OUT by path (igbhelper: jq needs seconds to start under TCG).
J() { printf '%s' "$OUT" | igbhelper json "$@"; }
Jr() { printf '%s' "$OUT" | igbhelper raw "$1"; }
msg() { [ "$RC" = 0 ] || J .code .msg .details; } # the error, for a failing name
now() { awk '{ printf "%.1f", $1 }' /proc/uptime; }
say() { echo "vm-rdma: $*"; } # a plain line in the tier's output

BIN=/opt/cni/bin
D=/sys/bus/pci/devices
P=$(dirname "$(ls -d $D/*/sriov_totalvfs | head -1)")
PCI_PF=$(basename "$P")
PF=$(ls "$P/net")
LEASES=/var/lib/cni/networks
mkdir -p /etc/ibcni && echo '{}' >/etc/ibcni/ibcni.conf

vf_pci() { basename "$(readlink "$P/virtfn$1")"; }
vf_net() { ls "$D/$1/net" 2>/dev/null | head -1; }
wait_netdev() { # PCI: until the VF has a netdev on the host (a netns teardown is async)
	for _ in $(seq 100); do
		[ -n "$(vf_net "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}
cni() { # PLUGIN COMMAND ID NETNS IFNAME CONF [CNI_ARGS]: sets OUT and RC
	OUT=$(printf '%s' "$6" | env -i CNI_COMMAND=$2 CNI_CONTAINERID=$3 ${4:+CNI_NETNS=$4} \
		CNI_IFNAME=$5 CNI_PATH=$BIN ${7:+CNI_ARGS=$7} $BIN/$1 2>/tmp/stderr)
	RC=$?
}
# Every link on the host (name, MAC, MTU, flags), the PF's VF table, RDMA
# devices, ib-sriov's records (and their Go-format twins), rdma-ns's records
# and the leases: what a case must leave as found.
host_state() {
	ip -o link show | sed -E 's/^[0-9]+: ([^:@]+)[^<]*<([^>]*)> mtu ([0-9]+)[^\\]*\\ *link\/[a-z]+ ([0-9a-f:]+).*/\1 \4 \3 <\2>/' | sort
	ip -d -j link show "$PF" | igbhelper json '[0].vfinfo_list'
	rdma link show
	find /var/lib/cni/ibcni /var/lib/cni/ib-sriov /var/lib/cni/rdma-ns -type f ! -name '*lock*' 2>/dev/null | sort
	find "$LEASES" -type f 2>/dev/null | grep -E '/[0-9a-f.:]+$' | sort # leases, by address
}
# Each case file starts from the node as booted: netns deleted, VFs back,
# the node configuration's defaults (softRdmaByMac off: pods.sh's soft_rdma).
reset_node() {
	local n v
	echo '{}' >/etc/ibcni/ibcni.conf
	for n in $(ip netns list | cut -d' ' -f1); do ip netns del "$n"; done
	for v in $VFS; do wait_netdev "$v"; done
}

ip link set "$PF" up
echo 4 >"$P/sriov_numvfs"
VF0=$(vf_pci 0) VF1=$(vf_pci 1) VF2=$(vf_pci 2) VF3=$(vf_pci 3)
VFS="$VF0 $VF1 $VF2 $VF3"
# igbvf registers its random MAC with the PF once the PF is up; the VFs have
# carrier while the PF's link is up.
for _ in $(seq 100); do
	ip -d -j link show "$PF" | grep -q '"address":"00:00:00:00:00:00"' || break
	sleep 0.1
done
for v in $VFS; do ip link set "$(vf_net "$v")" up; done
for _ in $(seq 100); do
	n=0
	for v in $VFS; do [ "$(cat "$D/$v/net/$(vf_net "$v")/carrier" 2>/dev/null)" = 1 ] && n=$((n + 1)); done
	[ $n = 4 ] && break
	sleep 0.1
done
for v in $VFS; do ip link set "$(vf_net "$v")" down; done
echo
say "kernel $(uname -r), PF $PF ($PCI_PF), VFs $VFS, at $(now) s"
BOOT_STATE=$(host_state)
export BOOT_STATE

# VM_RDMA_FILTER: substrings, comma-separated; a case runs when its file
# name contains one (none given: every case).
filter=$(sed -n 's/.*vm_rdma_filter=\([^ ]*\).*/\1/p' /proc/cmdline)
wanted() { # FILE
	local s
	[ -z "$filter" ] && return 0
	for s in $(echo "$filter" | tr , ' '); do
		case ${1##*/} in *"$s"*) return 0 ;; esac
	done
	return 1
}
for f in /bin/vm-rdma/test-*.sh; do
	wanted "$f" || continue
	reset_node
	say "== ${f##*/} (at $(now) s)"
	rm -f /tmp/counts
	(
		pass=0 fail=0
		. "$f"
		echo "$pass $fail" >/tmp/counts
	)
	if [ -f /tmp/counts ] && read -r p f2 </tmp/counts; then
		pass=$((pass + p)) fail=$((fail + f2))
	else
		ko "${f##*/} ran to its end" "it exited early"
	fi
done
say "-- done (at $(now) s)"
say "$pass passed, $fail failed"
poweroff -f
