#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the vm tier: Debian's kernel with rdma_rxe, the static ibcni
# binaries, iproute2's ip and rdma. Prints one line per test and a totals
# line on the serial console, then powers off.
/bin/busybox --install -s /bin
export PATH=/bin
# Debian's static busybox runs its own applets before anything on PATH:
# iproute2's ip and rdma are called by path.
ip() { /usr/sbin/ip "$@"; }
rdma() { /usr/sbin/rdma "$@"; }
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /run /tmp /var/lib/cni
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
for m in crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe veth e1000; do
	insmod /lib/modules/$m.ko || echo "vm: insmod $m failed"
done
ip link set lo up

pass=0 fail=0
ok() { echo "  PASS  $1"; pass=$((pass + 1)); }
ko() { echo "  FAIL  $1: $2"; fail=$((fail + 1)); }
expect() { # NAME WANT GOT
	if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want '$2', got '$3'"; fi
}
contains() { # NAME NEEDLE HAYSTACK
	case $3 in *"$2"*) ok "$1" ;; *) ko "$1" "'$2' not in '$3'" ;; esac
}
cni() { # COMMAND ID NETNS IFNAME CONF [BINARY]
	echo "$5" | env -i CNI_COMMAND=$1 CNI_CONTAINERID=$2 CNI_NETNS=$3 CNI_IFNAME=$4 \
		CNI_PATH=/bin /bin/${6:-rdma-ns} 2>/tmp/stderr
}
kernel_mode() { rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p'; }

echo "vm: kernel $(uname -r), $(kernel_mode) mode at boot"

# netns mode: show agrees with iproute2; exclusive with no other netns.
expect "netns-mode show agrees with rdma system show" "$(kernel_mode)" "$(rdma-ns netns-mode show)"
out=$(rdma-ns netns-mode exclusive 2>&1); rc=$?
expect "switch to exclusive exits 0" 0 "$rc"
expect "the kernel reports exclusive" exclusive "$(kernel_mode)"
expect "switching again is idempotent" "exclusive (unchanged)" "$(rdma-ns netns-mode exclusive 2>&1)"
expect "show after the switch" exclusive "$(rdma-ns netns-mode show)"

# rxe devices over a veth, found by our netlink dump.
ip link add veth0 type veth peer name veth1
ip link set veth0 up; ip link set veth1 up
rdma link add rxe0 type rxe netdev veth0
devs=$(rdma-ns devices)
contains "the device dump finds rxe0" " rxe0 " "$devs"
contains "the kernel's uverbs driver ID says rxe0 is rxe" " rxe0 rxe " "$devs"
expect "iproute2 sees the same device" "rxe0" "$(rdma dev | sed -n 's/^[0-9]*: \([a-z0-9]*\):.*/\1/p' | head -1)"

# qemu's NIC: a real PCI netdev (its address before sysfs is simulated).
nic=$(basename "$(readlink /sys/class/net/eth0/device)")
nic_mac=$(cat /sys/class/net/eth0/address)

# A simulated PF 0000:00:07.0 and its VF 0000:00:09.0, whose infiniband/
# both name rxe0, and a pod.
mount -t tmpfs pci /sys/bus/pci/devices
D=/sys/bus/pci/devices
mkdir -p $D/0000:00:07.0/infiniband/rxe0 $D/0000:00:09.0/infiniband/rxe0
ln -s ../0000:00:07.0 $D/0000:00:09.0/physfn
ln -s ../0000:00:09.0 $D/0000:00:07.0/virtfn0
ip netns add pod
conf='{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"0000:00:09.0","prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"net1"}],"ips":[{"address":"10.1.0.5/24","interface":0}]}}'
out=$(cni ADD c1 /run/netns/pod net1 "$conf"); rc=$?
expect "ADD of rxe0 fails" 1 "$rc"
contains "the move reaches the kernel's EOPNOTSUPP" '"msg": "the RDMA device cannot change network namespace"' "$out"
contains "the error names the device and the limitation" "rxe0: its driver does not support moving between network namespaces" "$out"
contains "rxe0 is still on the host" " rxe0 " "$(rdma-ns devices)"
expect "no record is left" "" "$(ls /var/lib/cni/rdma-ns 2>/dev/null)"
cni DEL c1 /run/netns/pod net1 "$conf" >/dev/null; expect "DEL succeeds" 0 $?
cni DEL c1 /run/netns/pod net1 "$conf" >/dev/null; expect "DEL twice succeeds" 0 $?
cni GC "" "" "" '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","cni.dev/valid-attachments":[]}' >/dev/null
expect "GC succeeds" 0 $?
cni STATUS "" "" "" '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns"}' >/dev/null
expect "STATUS succeeds in exclusive mode" 0 $?
cni CHECK c1 /run/netns/pod net1 "$conf" >/dev/null
expect "CHECK without an attachment fails" 1 $?

# The PF's RDMA device is the host's: refused before anything moves.
pfconf=$(echo "$conf" | sed 's/0000:00:09.0/0000:00:07.0/')
out=$(cni ADD c1 /run/netns/pod net1 "$pfconf" rdma); rc=$?
contains "rdma refuses the PF's RDMA device" '"msg": "deviceID is not a VF"' "$out"
contains "rxe0 stays on the host" " rxe0 " "$(rdma-ns devices)"
expect "no rdma-cni directory is ever written" "" "$(ls -d /var/lib/cni/rdma 2>/dev/null)"

# No deviceID and a 1.0 prevResult without pciID: the MAC of the interface
# in this sandbox finds qemu's NIC in the pod, the NIC's driver names its
# PCI address, and that address (simulated as a VF with rxe0) is the device.
if [ -n "$nic" ]; then
	mkdir -p $D/$nic/infiniband/rxe0
	ln -s ../0000:00:07.0 $D/$nic/physfn
	ln -s ../$nic $D/0000:00:07.0/virtfn1
	ip link set eth0 netns pod name net2
	macconf='{"cniVersion":"1.0.0","name":"rdma-net","type":"rdma","prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"net2","mac":"'$nic_mac'","sandbox":"/run/netns/pod"}]}}'
	out=$(cni ADD c9 /run/netns/pod net2 "$macconf" rdma)
	contains "the pod NIC's MAC leads to its PCI device" "device $nic: the PCI device of net2 ($nic_mac)" "$(cat /tmp/stderr)"
	contains "and from there to the kernel's move of rxe0" "rxe0: its driver does not support moving" "$out"
	ip -n pod link set net2 netns 1 name eth0
else
	ko "qemu's NIC" "no eth0 with a PCI device"
fi

# Upgrade from rdma-cni: its cache entry, in its format and place.
mkdir -p /var/lib/cni/rdma
rdmacni() { # NAME DEVICE
	printf '{"version":"1.0","deviceID":"0000:00:09.0","sandboxRdmaDevName":"%s","containerRdmaDevName":"%s"}' \
		"$2" "$2" >/var/lib/cni/rdma/$1
}
rdmacni rdma-net-c3-net1 rxe0
out=$(cni CHECK c3 /run/netns/pod net1 "$conf" rdma)
contains "CHECK looks for rdma-cni's device in the pod" "RDMA device rxe0 (attached by rdma-cni) is not in the pod" "$out"
cni DEL c3 /run/netns/pod net1 "$conf" rdma >/dev/null
expect "DEL of an rdma-cni attachment succeeds" 0 $?
expect "its cache entry is gone" "" "$(ls /var/lib/cni/rdma)"
contains "its device is on the host" " rxe0 " "$(rdma-ns devices)"
rdmacni rdma-net-c4-net1 rxe0
rdmacni rdma-net-c5-net1 rxe9
rdmacni rdma-net-c6-net1 rxe0
cni GC "" "" "" '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma","cni.dev/valid-attachments":[{"containerID":"c6","ifname":"net1"}]}' rdma >/dev/null
expect "GC succeeds" 0 $?
expect "GC releases only the stale entry whose device is home" "rdma-net-c5-net1 rdma-net-c6-net1" "$(ls /var/lib/cni/rdma | tr '\n' ' ' | sed 's/ $//')"
rm -rf /var/lib/cni/rdma

# ib-sriov's rdmaIsolation on a simulated VF whose RDMA device is rxe1 over
# the VF's own netdev: the mode check passes, the kernel's driver ID says
# rxe, so the move is refused before it is tried (a soft device dies with
# its netdev's move), and the VF ends as it was found.
ip link add pf0 type veth peer name pf0p
ip link add vf0 type veth peer name vf0p
ip link set vf0 up; ip link set vf0p up
rdma link add rxe1 type rxe netdev vf0
D=/sys/bus/pci/devices
mkdir -p $D/0000:00:08.0/net/pf0 $D/0000:00:08.1/net/vf0 $D/0000:00:08.1/infiniband/rxe1
ln -s ../0000:00:08.0 $D/0000:00:08.1/physfn
ln -s ../0000:00:08.1 $D/0000:00:08.0/virtfn0
sriov='{"cniVersion":"1.1.0","name":"ib","type":"ib-sriov","deviceID":"0000:00:08.1","rdmaIsolation":true}'
before=$(ip -br link show vf0)
out=$(echo "$sriov" | env -i CNI_COMMAND=ADD CNI_CONTAINERID=c2 CNI_NETNS=/run/netns/pod \
	CNI_IFNAME=net1 CNI_PATH=/bin /bin/ib-sriov 2>/dev/null)
contains "ib-sriov rdmaIsolation refuses the soft PCI child" '"msg": "a software RDMA device cannot follow the VF into the pod"' "$out"
contains "the refusal names rxe1 and its driver" '"details": "rdmaIsolation: rxe1, the RDMA device of 0000:00:08.1 (found by PCI child, vf0), is a software RDMA device (the kernel reports its driver as rxe)' "$out"
expect "the VF netdev is as it was found" "$before" "$(ip -br link show vf0)"
contains "rxe1 is still on the host" " rxe1 " "$(rdma-ns devices)"
expect "no ib-sriov record is left" "" "$(ls /var/lib/cni/ib-sriov 2>/dev/null)"
echo "$sriov" | env -i CNI_COMMAND=STATUS CNI_PATH=/bin /bin/ib-sriov >/dev/null 2>&1
expect "ib-sriov STATUS with rdmaIsolation in exclusive mode" 0 $?

# With a second namespace, the kernel refuses any switch: our explanation.
out=$(rdma-ns netns-mode shared 2>&1); rc=$?
expect "switch with a second netns exits 1" 1 "$rc"
contains "the refusal is explained as EBUSY" "refused to switch to shared (EBUSY)" "$out"
contains "the blocking namespace is named" "named network namespace pod" "$out"
contains "the boot-time fix is given" "options ib_core netns_mode=1" "$out"
expect "the mode did not change" exclusive "$(kernel_mode)"

# The verbs view (tests/vm/verbs.sh), then waitPortActiveMs (portwait.sh).
. /verbs.sh
. /portwait.sh

echo "vm: $pass passed, $fail failed"
poweroff -f
