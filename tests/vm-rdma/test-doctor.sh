# SPDX-License-Identifier: Apache-2.0
# `ib-sriov doctor --pod` on Linux 7.3 (issue 39): a pair of pods attached
# as test-exclusive.sh attaches them (ib-sriov + ib-host-local, rdma-ns
# chained, exclusive mode, the node's softRdmaByMac opt-in; rxe created in
# each pod stands in for the VF's RDMA device). The healthy pair reports no
# error and its GID indices, the ones the kernel shows; then each fault,
# injected into poda by hand, restored before the next: the doctor names it
# (one error, of the expected check, and no other), rdma-ns CHECK fails with
# the same text where the two share it (GID, MTU), and what the kernel shows
# of the fault is said. Pod names are lower case: `--pod` takes Kubernetes
# names, as ADD gets them in K8S_POD_NAME.
. /bin/vm-rdma/pods.sh
NET=roce-network SUB=10.56.0.0/24
# CNI 1.1.0: its results carry the interface's MTU, which rdma-ns's CHECK
# compares (1.0.0's have no "mtu"); otherwise pods.sh's configs.
nad() {
	printf '{"cniVersion":"1.1.0","name":"%s","type":"ib-sriov","deviceID":"%s",' "$1" "$3"
	printf '"vlan":100,"spoofchk":"on","trust":"off","mtu":%s,' "$POD_MTU"
	printf '"capabilities":{"mac":true},"runtimeConfig":{"mac":"%s"},' "$4"
	printf '"ipam":{"type":"ib-host-local","ranges":[[{"subnet":"%s"}]]}}' "$2"
}
rdmans_conf() {
	printf '{"cniVersion":"1.1.0","name":"%s","type":"rdma","deviceID":"%s"%s,"prevResult":%s}' \
		"$NET" "$1" "${3:+,$3}" "$2"
}
v4gid() { echo "$1" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }'; }

doctor() { # POD: ib-sriov doctor --pod default/POD --json; OUT, RC
	OUT=$("$BIN/ib-sriov" doctor --pod "default/$1" --json 2>/tmp/dstderr)
	RC=$?
}
# The findings of $OUT of SEVERITY, one a line: "check|what".
findings() { # SEVERITY
	local i=0 s
	while s=$(Jr ".findings[$i].severity") && [ "$s" != null ]; do
		[ "$s" = "$1" ] && printf '%s|%s\n' "$(Jr ".findings[$i].check")" "$(Jr ".findings[$i].what")"
		i=$((i + 1))
	done
}
# The index in $OUT's attachments of the one PLUGIN made.
att() { # PLUGIN
	local i=0 p
	while p=$(Jr ".attachments[$i].plugin") && [ "$p" != null ]; do
		[ "$p" = "$1" ] && { echo "$i"; return 0; }
		i=$((i + 1))
	done
	echo 99
}
# What the kernel shows of poda's rxeA (or on the host with POD empty):
# port state, active MTU, the valid GIDs (index=gid).
kernel() { # [POD]
	local d=/sys/class/infiniband/rxeA/ports/1 run=
	[ -n "${1:-}" ] && run="in_pod $1"
	$run sh -c "echo port \$(cat $d/state | cut -d' ' -f2)/\$(cat $d/phys_state | cut -d' ' -f2)
		for f in \$(grep -l -v 0000:0000:0000:0000:0000:0000:0000:0000 $d/gids/* 2>/dev/null); do
			echo gid \${f##*/}=\$(cat \$f)
		done" 2>&1 | tr '\n' ' '
	$run ibv_devinfo -d rxeA -v 2>/dev/null | sed -n 's/.*active_mtu:[ \t]*\([0-9]*\).*/active_mtu \1/p'
}
# What an application in poda sees of a fault (docs/operators.md, "RDMA
# doesn't work in my pod"), said: ibv_devinfo, and an rping client toward
# podb (nothing listens there: a healthy path would answer REJECTED, but
# rxe's QP1 defect after a move answers first, see below).
symptoms() { # NAME
	say "$1: ibv_devinfo: $(in_pod poda timeout 5 ibv_devinfo 2>&1 | grep -m1 -E 'state:|No IB|Failed|rror' | tr -s ' \t' ' ')"
	say "$1: rping: $(in_pod poda timeout 4 rping -c -a "$IP_podb" -C 1 -S 64 2>&1 | head -2 | tr '\n' ' ')"
}
# The doctor's verdict on poda for fault NAME: exit 1, one error, of CHECK.
# Its text is left in WHAT.
one_error() { # NAME CHECK
	doctor poda
	expect "$1: the doctor exits 1 ($(head -c 200 /tmp/dstderr))" 1 "$RC"
	expect "$1: the doctor's errors: one '$2'" "$2" "$(findings error | cut -d'|' -f1 | tr '\n' ' ' | sed 's/ $//')"
	WHAT=$(findings error | cut -d'|' -f2-)
	say "$1: doctor: [$2] $WHAT"
}
check_poda() { # rdma-ns CHECK of poda; RC, OUT
	cni rdma-ns CHECK c-poda /run/netns/poda net1 "$(rdmans_conf "$VF0" "$(res poda)")" "$(multus_args poda)"
}
# rdma-ns CHECK fails, code 101, with the doctor's text (the GID and MTU checks).
check_same() { # NAME
	check_poda
	expect "$1: rdma-ns CHECK fails with code 101 ($(J .msg))" "1 101" "$RC $(J .code)"
	expect "$1: CHECK's details are the doctor's text" "$WHAT" "$(Jr .details)"
}
healthy() { # POD DEV IP NAME: the doctor reports no error, the GID index the kernel shows
	local k i
	doctor "$1"
	expect "$4: the doctor exits 0 for $1 ($(findings error | head -1))" 0 "$RC"
	expect "$4: no error, no warning for $1" "0 0" "$(J .summary.errors) $(J .summary.warnings)"
	k=$(gid_in "$1" "$2" "$3")
	i=$(att rdma-ns)
	expect "$4: $1's rdma-ns attachment: $2, its GID for $3 at the kernel's index ($k)" \
		"[\"$2\",\"$3\",$k,\"::ffff:$3\",\"RoCE v2\"]" \
		"$(J ".attachments[$i].rdmaDevice" ".attachments[$i].gids[0].address" ".attachments[$i].gids[0].index" \
			".attachments[$i].gids[0].gid" ".attachments[$i].gids[0].type")"
	contains "$4: the gid info names index $k for NCCL" "$3 of net1 is RoCE v2 GID index $k of $2 port 1 (NCCL_IB_GID_INDEX=$k" \
		"$(findings info | grep '^gid|')"
}

netns_mode exclusive
soft_rdma on
dmesg -c >/dev/null 2>&1 # the kernel's lines from the moves on (rping below)
attach poda $NET $SUB "$VF0" 02:00:00:00:0a:01
attach podb $NET $SUB "$VF1" 02:00:00:00:0b:01
for pv in "a A $VF0" "b B $VF1"; do
	set -- $pv
	in_pod "pod$1" rdma link add "rxe$2" type rxe netdev net1 2>/tmp/err
	expect "pod$1 creates rxe$2 over its net1 ($(cat /tmp/err))" 0 $?
	cni rdma-ns ADD "c-pod$1" "/run/netns/pod$1" net1 "$(rdmans_conf "$3" "$(res "pod$1")")" "$(multus_args "pod$1")"
	expect "pod$1: rdma-ns ADD moves rxe$2 in $(msg)" "0 rxe$2" "$RC $(devs "pod$1")"
done
contains "the records keep the pod's namespace and name from CNI_ARGS" '"podNamespace":"default","podName":"poda"' \
	"$(cat /var/lib/cni/rdma-ns/roce-network:c-poda:net1)"

# The healthy pair: no error, the GID indices, traffic.
healthy poda rxeA "$IP_poda" healthy
gA=$(J ".attachments[$(att rdma-ns)].gids[0].index")
healthy podb rxeB "$IP_podb" healthy
gB=$(J ".attachments[$(att rdma-ns)].gids[0].index")
symptoms "healthy"
serve 18515 podb timeout 20 ib_write_bw -d rxeB -F -n 5
say "healthy: ib_write_bw -x 7 (no such GID index): $(in_pod poda timeout 10 ib_write_bw -d rxeA -x 7 -F -n 5 "$IP_podb" 2>&1 | grep -i -m2 -E 'gid|fail|unable|couldn' | tr '\n' ' ')"
kill "$SRV" 2>/dev/null
wait
say "kernel, healthy: $(kernel poda)"
# The text reports of a healthy pod and (a. below) a broken one: what
# `make demo-rdma` shows of this case (its "doctor|" lines).
"$BIN/ib-sriov" doctor --pod default/podb >/tmp/report 2>&1
expect "healthy: the text report exits 0" 0 $?
while IFS= read -r l; do say "doctor| $l"; done </tmp/report
# rping: rxe cannot re-create QP1 after a netns move on 7.3 (test-exclusive.sh):
# named when seen; verbs traffic over the doctor's GID indices either way.
serve cm podb timeout 30 rping -s -a "$IP_podb" -C 3 -S 64 -v
in_pod poda timeout 10 rping -c -a "$IP_podb" -C 3 -S 64 -v >/tmp/rc 2>&1
rc=$?
kill "$SRV" 2>/dev/null
wait
if [ $rc -eq 0 ] && [ "$(grep -c 'ping data' /tmp/srv)" = 3 ]; then
	ok "healthy: rping poda -> podb, 3 payloads"
elif dmesg | grep -q "Couldn't create ib_mad QP1"; then
	ok "healthy: rping poda -> podb: Linux $(uname -r)'s rxe QP1 defect after the move ($(grep -m1 -E 'rdma_|error' /tmp/rc)), not ours"
else
	ko "healthy: rping poda -> podb" "$(tr '\n' ' ' </tmp/rc) kernel: $(dmesg | tail -3 | tr '\n' ' ')"
fi
pair 18515 podb "ibv_rc_pingpong -d rxeB -g $gB -n 20 -s 4096" poda "ibv_rc_pingpong -d rxeA -g $gA -n 20 -s 4096 $IP_podb"
expect "healthy: ibv_rc_pingpong over the doctor's GID indices ($gA, $gB): both exit 0 ($(tail -1 /tmp/cli))" "0 0" "$RC $SRC"
contains "healthy: ibv_rc_pingpong moved 163840 bytes" "163840 bytes in" "$(cat /tmp/cli)"

# a. net1 down in the pod: the port goes DOWN, the GIDs stay.
in_pod poda ip link set net1 down
k=$(kernel poda)
say "kernel, a. net1 down: $k"
contains "a. net1 down: rxeA's port is DOWN/Disabled" "port DOWN/Disabled" "$k"
one_error "a. net1 down" port
symptoms "a. net1 down"
contains "a. net1 down: the doctor names the port state" "rxeA port 1 is DOWN (physical state Disabled)" "$WHAT"
"$BIN/ib-sriov" doctor --pod default/poda >/tmp/report 2>&1
expect "a. net1 down: the text report exits 1" 1 $?
while IFS= read -r l; do say "doctor| $l"; done </tmp/report
check_poda
expect "a. net1 down: rdma-ns CHECK fails, code 101" "1 101" "$RC $(J .code)"
contains "a. net1 down: CHECK names the port state" "rxeA port 1 is DOWN (physical state Disabled" "$(Jr .details)"
in_pod poda ip link set net1 up
for _ in $(seq 50); do
	in_pod poda rdma link show rxeA/1 | grep -q 'state ACTIVE' && break
	sleep 0.1
done
healthy poda rxeA "$IP_poda" "a. net1 up again"

# b1. the address ADD gave removed in the pod: the kernel drops its GID.
in_pod poda ip addr del "$IP_poda/24" dev net1
k=$(kernel poda)
say "kernel, b1. $IP_poda removed: $k"
expect "b1. address removed: no GID carries $IP_poda" "" "$(echo "$k" | grep -o "$(v4gid "$IP_poda")")"
one_error "b1. $IP_poda removed" gid
symptoms "b1. address removed"
contains "b1. address removed: the doctor names the address" "$IP_poda" "$WHAT"
check_same "b1. address removed"
in_pod poda ip addr add "$IP_poda/24" dev net1
healthy poda rxeA "$IP_poda" "b1. address back"

# b2. an address added in the pod while rxeA is on the host: Linux 7.3
# keeps RoCE GIDs in step with the netdev's addresses whatever the
# namespaces (the GID update follows address events in every namespace,
# and a device's move re-scans them): the GID is there, on the host and
# back in the pod, and the doctor reports it as such.
ip netns attach host 1
in_pod poda rdma dev set rxeA netns host 2>/tmp/err
expect "b2. poda moves rxeA to the host by hand ($(cat /tmp/err))" "rxeA" "$(devs)"
in_pod poda ip addr add 10.56.0.200/24 dev net1
sleep 0.5
k=$(kernel)
say "kernel, b2. 10.56.0.200 added in poda, rxeA on the host (host's view): $k"
contains "b2. the kernel adds 10.56.0.200's GID to rxeA in the host's namespace" "=$(v4gid 10.56.0.200)" "$k"
rdma dev set rxeA netns poda 2>/tmp/err
expect "b2. rxeA back in poda ($(cat /tmp/err))" "rxeA" "$(devs poda)"
k=$(kernel poda)
say "kernel, b2. rxeA back in poda: $k"
contains "b2. back in the pod, rxeA carries 10.56.0.200's GID" "=$(v4gid 10.56.0.200)" "$k"
doctor poda
expect "b2. the doctor: no error ($(findings error | head -1))" "0 0" "$RC $(J .summary.errors)"
kidx=$(gid_in poda rxeA 10.56.0.200)
contains "b2. the doctor gives 10.56.0.200's index, the kernel's ($kidx)" "10.56.0.200 of net1 is RoCE v2 GID index $kidx of rxeA" \
	"$(findings info | grep '^gid|')"
in_pod poda ip addr del 10.56.0.200/24 dev net1

# b3. the nearest real fault: an address the GID table does not carry.
# rxe's table has 1024 entries; /32 fillers take them, 10.56.0.200 comes
# while it is full (no GID), and keeps none when the fillers go.
n=$(in_pod poda ibv_devinfo -d rxeA -v | sed -n 's/.*gid_tbl_len:[ \t]*//p' | head -1)
awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) printf "address add 10.99.%d.%d/32 dev net1\n", i / 256, i % 256 }' >/tmp/fill
sed 's/^address add/address del/' /tmp/fill >/tmp/unfill
gids() { # [MAX]: poda's valid GIDs on rxeA, waited for (the kernel adds them from a workqueue) until at most MAX
	local c
	for _ in $(seq 100); do
		c=$(in_pod poda sh -c "grep -l -v 0000:0000:0000:0000:0000:0000:0000:0000 /sys/class/infiniband/rxeA/ports/1/gids/* 2>/dev/null | wc -l")
		[ -z "${1:-}" ] && [ "$c" -ge "$n" ] && break
		[ -n "${1:-}" ] && [ "$c" -le "$1" ] && break
		sleep 0.2
	done
	echo "$c"
}
in_pod poda /usr/bin/ip -batch /tmp/fill
expect "b3. the fillers fill rxeA's GID table" "$n" "$(gids)"
in_pod poda ip addr add 10.56.0.200/24 dev net1
sleep 0.5
in_pod poda /usr/bin/ip -batch /tmp/unfill
gids 3 >/dev/null
k=$(kernel poda)
say "kernel, b3. GID table ($n) filled, 10.56.0.200 added, the fillers removed: $k"
expect "b3. rxeA carries $IP_poda's GID and not 10.56.0.200's" "$(v4gid "$IP_poda")" \
	"$(echo "$k" | grep -o -E "$(v4gid "$IP_poda")|$(v4gid 10.56.0.200)" | tr '\n' ' ' | sed 's/ $//')"
one_error "b3. 10.56.0.200 without a GID" gid
symptoms "b3. 10.56.0.200 without a GID"
contains "b3. the doctor names 10.56.0.200" "no RoCE v2 GID for 10.56.0.200 of net1 on rxeA port 1" "$WHAT"
check_same "b3. 10.56.0.200 without a GID"
in_pod poda ip addr del 10.56.0.200/24 dev net1
healthy poda rxeA "$IP_poda" "b3. 10.56.0.200 removed"

# c. rxeA left in the host's namespace in exclusive mode.
in_pod poda rdma dev set rxeA netns host 2>/tmp/err
expect "c. rxeA moved to the host by hand ($(cat /tmp/err))" "rxeA " "$(devs) $(devs poda)"
say "kernel, c. rxeA on the host (host's view): $(kernel)"
one_error "c. rxeA on the host" rdma-device
symptoms "c. rxeA on the host"
contains "c. the doctor says where rxeA is" "rxeA is not in the pod's network namespace: it is in the host's, as rxeA" "$WHAT"
check_poda
expect "c. rdma-ns CHECK fails, code 101" "1 101" "$RC $(J .code)"
contains "c. CHECK names rxeA as not in the pod" "rxeA is not in the pod" "$(Jr .details)"
rdma dev set rxeA netns poda 2>/tmp/err
ip netns del host
healthy poda rxeA "$IP_poda" "c. rxeA back"

# d. net1's MTU lowered after ADD: RoCE follows it down.
in_pod poda ip link set net1 mtu 1200
k=$(kernel poda)
say "kernel, d. net1 mtu 1200 (ADD set $POD_MTU): $k"
contains "d. rxeA's active MTU drops to 1024" "active_mtu 1024" "$k"
one_error "d. net1 mtu 1200" mtu
symptoms "d. net1 mtu 1200"
contains "d. the doctor names both MTUs" "net1's MTU is 1200, ADD set $POD_MTU; RoCE on rxeA port 1 runs at 1024 bytes (active MTU), where $POD_MTU gives 4096" "$WHAT"
check_same "d. net1 mtu 1200"
in_pod poda ip link set net1 mtu "$POD_MTU"
healthy poda rxeA "$IP_poda" "d. MTU back"

for pv in "a $VF0" "b $VF1"; do
	set -- $pv
	cni rdma-ns DEL "c-pod$1" "/run/netns/pod$1" net1 "$(rdmans_conf "$2" "$(res "pod$1")")" "$(multus_args "pod$1")"
	expect "pod$1: rdma-ns DEL exits 0 $(msg)" 0 "$RC"
done
detach poda $NET $SUB "$VF0" 02:00:00:00:0a:01
detach podb $NET $SUB "$VF1" 02:00:00:00:0b:01
for d in $(devs); do rdma link del "$d" 2>/dev/null; done
expect "after DEL: no RDMA device left" "" "$(rdma link show)"
ip netns del poda
ip netns del podb
soft_rdma off
netns_mode shared
expect "after DEL: the node is as booted" "$BOOT_STATE" "$(host_state)"
