# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/vm/init.sh after verbs.sh (rxe0 over veth0, ACTIVE; the
# pod netns podv, whose net1 is taken): ib-sriov's waitPortActiveMs against a real port. The
# kernel deletes an rxe device whose netdev changes namespace, so the
# simulated VF 0000:00:0a.1 (netdev vf2, which ADD moves into the pod) has
# rxe0 as its RDMA device: its sysfs entry links to the kernel's, and the
# port follows veth0's carrier, which follows its peer veth1.
ip link add pf2 type veth peer name pf2p
ip link add vf2 type veth peer name vf2p
mkdir -p $D/0000:00:0a.0/net/pf2 $D/0000:00:0a.1/net/vf2 $D/0000:00:0a.1/infiniband
ln -s /sys/class/infiniband/rxe0 $D/0000:00:0a.1/infiniband/rxe0
ln -s ../0000:00:0a.0 $D/0000:00:0a.1/physfn
ln -s ../0000:00:0a.1 $D/0000:00:0a.0/virtfn0
wconf='{"cniVersion":"1.1.0","name":"rails","type":"ib-sriov","deviceID":"0000:00:0a.1","waitPortActiveMs":1500}'
expect "the simulated VF reads rxe0's real port state" "4: ACTIVE" "$(cat $D/0000:00:0a.1/infiniband/rxe0/ports/1/state)"

# Carrier down: the port goes DOWN, ADD waits 1.5 s and fails naming it.
ip link set veth1 down
wait_port rxe0 DOWN || ko "rxe0 follows veth0's carrier down" "$(rdma link show rxe0/1)"
before=$(ip -br link show vf2)
out=$(cni ADD c8 /run/netns/podv net5 "$wconf" ib-sriov); rc=$?
expect "ADD with the port DOWN fails" 1 "$rc"
contains "code 11" '"code": 11' "$out"
contains "the error names the device and the state" '"details": "rxe0 port 1 (VF 0000:00:0a.1) is DOWN' "$out"
contains "and the fix: the carrier" "follows its netdev's carrier" "$out"
expect "vf2 is back on the host as it was" "$before" "$(ip -br link show vf2)"
expect "no record is left" "" "$(ls /var/lib/cni/ibcni/ib-sriov | grep c8)"
expect "no device-info file is left" "" "$(ls /run/k8s.cni.cncf.io/devinfo/cni 2>/dev/null | grep c8)"

# Carrier back 0.5 s into the wait: ADD succeeds once the port is ACTIVE.
(sleep 0.5; ip link set veth1 up) &
out=$(cni ADD c8 /run/netns/podv net5 "$wconf" ib-sriov); rc=$?
wait
expect "ADD succeeds once the port comes up during the wait" 0 "$rc"
[ "$rc" -eq 0 ] || echo "vm: $out"
contains "the wait is logged with its length" "rxe0 port 1 is ACTIVE after" "$(cat /tmp/stderr)"
contains "the device-info file names rxe0" '"rdma-device":"rxe0"' "$(cat /run/k8s.cni.cncf.io/devinfo/cni/rails-c8_net5 2>&1)"
cni DEL c8 /run/netns/podv net5 "$wconf" ib-sriov >/dev/null
expect "DEL succeeds" 0 $?
expect "DEL removes the device-info file" "" "$(ls /run/k8s.cni.cncf.io/devinfo/cni 2>/dev/null | grep c8)"
