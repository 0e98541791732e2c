# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/vm/init.sh at its end (exclusive mode, rxe0 over veth0,
# rxe1 over the simulated VF vf0, the pod netns): the verbs view of real
# rxe devices through the static binaries, which carry libibverbs and its
# rxe provider (this initramfs has no rdma-core), ib-sriov doctor, and
# CHECK of rdma-ns and of ib-sriov with rdmaIsolation while the port's
# netdev goes down. rxe devices cannot move between namespaces, so CHECK's
# success path runs in shared mode, where the pod sees every device.

ms() { # monotonic-enough milliseconds (busybox date may lack %N)
	local n
	n=$(date +%s%N 2>/dev/null)
	case $n in *N | "") awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime ;; *) echo $((n / 1000000)) ;; esac
}
json_field() { # KEY JSON: the first "KEY": value on a line of pretty JSON
	echo "$2" | sed -n "s/^ *\"$1\": \(.*\)/\1/p" | sed 's/,$//' | head -1
}
wait_port() { # DEVICE STATE: rdma link show until the port reaches it (10 s)
	local i=0
	while [ $i -lt 50 ]; do
		rdma link show "$1/1" 2>/dev/null | grep -q "state $2" && return 0
		sleep 0.2; i=$((i + 1))
	done
	return 1
}

expect "no rdma-core in the initramfs" "" "$(ls -d /usr/lib/x86_64-linux-gnu/libibverbs* /etc/libibverbs.d 2>/dev/null)"

# The readiness report on the host, in exclusive mode.
out=$(ib-sriov doctor --json); rc=$?
expect "doctor exits 0 without errors" 0 "$rc"
contains "doctor reads the mode" '"netnsMode": "exclusive"' "$out"
rxe0=$(echo "$out" | sed -n '/"name": "rxe0"/,/"ports"/p')
contains "rxe0 opens through the static libibverbs" '"opensHere": true' "$rxe0"
contains "usable from this netns only" '"usableFrom": "this network namespace only' "$rxe0"
port=$(echo "$out" | sed -n '/"name": "rxe0"/,/"pkeys"/p')
expect "rxe0 port 1 is ACTIVE" '"ACTIVE"' "$(json_field state "$port")"
expect "rxe0 is Ethernet (RoCE)" '"Ethernet"' "$(json_field linkLayer "$port")"
expect "no port GUID on RoCE" 'null' "$(json_field portGuid "$port")"
contains "rxe0's GID table size" '"gidTableSize": ' "$port"
contains "rxe0's pkey table" '"0xffff"' "$(echo "$out" | sed -n '/"name": "rxe0"/,/\]/p' | tr -d ' \n')"
out=$(ib-sriov doctor)
echo "$out"	# the whole report, in the console log
contains "the text report shows the port" "port 1: ACTIVE (LinkUp), Ethernet" "$out"
contains "exclusive, set by hand: lost at reboot" "WARNING RDMA netns mode: exclusive now, but nothing here sets it at boot" "$out"
contains "the simulated VF without a driver" "WARNING 0000:00:09.0: VF 0 of 0000:00:07.0 has no driver" "$out"
contains "the text report ends with its totals" "doctor: 0 errors, " "$(echo "$out" | tail -1)"

# The port follows its netdev: down, the report says so and why.
ip link set veth0 down
wait_port rxe0 DOWN || ko "rxe0 goes DOWN" "$(rdma link show rxe0/1)"
out=$(ib-sriov doctor --json)
contains "doctor sees rxe0 port 1 DOWN" '"subject": "rxe0 port 1"' "$out"
contains "with the RoCE hint" "a RoCE port follows its netdev" "$out"
ip link set veth0 up
wait_port rxe0 ACTIVE || ko "rxe0 comes back ACTIVE" "$(rdma link show rxe0/1)"

# The RDMA shared device plugin registered with the kubelet, in exclusive mode.
mkdir -p /var/lib/kubelet/device-plugins
printf '%s' '{"Data":{"RegisteredDevices":{"rdma/rdma_shared_device_a":["a"]}},"Checksum":1}' \
	>/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
out=$(ib-sriov doctor); rc=$?
expect "the shared device plugin conflict is an error (exit 1)" 1 "$rc"
contains "the conflict is explained" "ERROR   RDMA netns mode: the RDMA shared device plugin runs here but the mode is exclusive" "$out"
rm -rf /var/lib/kubelet

# Shared mode (once the pod's netns is gone), so that a pod sees rxe0.
ip netns del pod
i=0
until rdma-ns netns-mode shared >/dev/null 2>&1 || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
expect "switched to shared for the CHECK tests" shared "$(kernel_mode)"
ip netns add podv
out=$(ip netns exec podv /bin/ib-sriov doctor --json)
contains "inside a pod in shared mode, rxe0 opens" '"opensHere": true' "$(echo "$out" | sed -n '/"name": "rxe0"/,/"ports"/p')"
contains "and the report says why" '"usableFrom": "every network namespace (shared mode)"' "$out"

# rdma-ns CHECK of an attachment whose rxe0 the pod sees.
mkdir -p /var/lib/cni/rdma-ns
printf '%s' '{"network":"rdma-net","containerID":"cv","ifname":"net1","netns":"/run/netns/podv","deviceID":"0000:00:09.0","rdma":["rxe0"]}' \
	>/var/lib/cni/rdma-ns/rdma-net:cv:net1
out=$(cni CHECK cv /run/netns/podv net1 "$conf"); rc=$?
expect "rdma-ns CHECK passes: rxe0 listed, opens, port ACTIVE in the pod" 0 "$rc"
[ "$rc" -eq 0 ] || echo "vm: $out"
ip link set veth0 down
wait_port rxe0 DOWN
out=$(cni CHECK cv /run/netns/podv net1 "$conf"); rc=$?
expect "rdma-ns CHECK fails with the port DOWN" 1 "$rc"
contains "CHECK says which state" '"details": "RDMA device rxe0 port 1 is DOWN' "$out"
contains "and why" "a RoCE port follows its netdev: that netdev is down or has no carrier" "$out"
ip link set veth0 up
wait_port rxe0 ACTIVE

# What a verbs check costs: CHECK with it (our record) against CHECK
# without it (an rdma-cni entry: netlink only), 10 of each, under TCG.
rdmacni rdma-net-cw-net1 rxe0
t0=$(ms)
for i in 1 2 3 4 5 6 7 8 9 10; do cni CHECK cv /run/netns/podv net1 "$conf" >/dev/null; done
t1=$(ms)
for i in 1 2 3 4 5 6 7 8 9 10; do cni CHECK cw /run/netns/podv net1 "$conf" rdma >/dev/null; done
t2=$(ms)
echo "vm: verbs cost: rdma-ns CHECK $(((t1 - t0) / 10)) ms with the verbs check, $(((t2 - t1) / 10)) ms without (qemu TCG)"
rm -rf /var/lib/cni/rdma /var/lib/cni/rdma-ns

# ib-sriov with rdmaIsolation: ADD without it (rxe devices cannot move),
# then the record says the VF's RDMA device moved, as ADD writes it on
# hardware that can move. rxe1 was over vf0, and the kernel deletes an rxe
# device whose netdev leaves its namespace: CHECK reports it gone. rxe0
# (veth0 stays home) then plays the moved device.
sriov='{"cniVersion":"1.1.0","name":"ib","type":"ib-sriov","deviceID":"0000:00:08.1"}'
out=$(cni ADD c7 /run/netns/podv net1 "$sriov" ib-sriov); rc=$?
expect "ib-sriov ADD of the simulated VF" 0 "$rc"
rec=/var/lib/cni/ibcni/ib-sriov/c7:net1
sed -i 's/^{/{"rdma":["rxe1"],/' $rec
iso='{"cniVersion":"1.1.0","name":"ib","type":"ib-sriov","deviceID":"0000:00:08.1","rdmaIsolation":true,"prevResult":'"$out"'}'
out=$(cni CHECK c7 /run/netns/podv net1 "$iso" ib-sriov); rc=$?
expect "ib-sriov CHECK fails: rxe1 went with its netdev" 1 "$rc"
expect "the kernel deleted rxe1 with its netdev leaving" "" "$(rdma-ns devices | grep " rxe1 ")"
contains "CHECK says verbs does not list it" '"details": "RDMA device rxe1 is not usable through verbs in the pod: not listed by libibverbs here' "$out"
sed -i 's/"rdma":\["rxe1"\],/"rdma":["rxe0"],/' $rec
out=$(cni CHECK c7 /run/netns/podv net1 "$iso" ib-sriov); rc=$?
expect "ib-sriov CHECK passes: rxe0 opens in the pod, port ACTIVE" 0 "$rc"
[ "$rc" -eq 0 ] || echo "vm: $out"
ip link set veth0 down
wait_port rxe0 DOWN
out=$(cni CHECK c7 /run/netns/podv net1 "$iso" ib-sriov); rc=$?
expect "ib-sriov CHECK fails with the port DOWN" 1 "$rc"
contains "CHECK names the device and the state" '"details": "RDMA device rxe0 port 1 is DOWN' "$out"
ip link set veth0 up
wait_port rxe0 ACTIVE
