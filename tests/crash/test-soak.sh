# SPDX-License-Identifier: Apache-2.0
# A bounded soak: 64 loops, each one container in its own pod, run random
# ib-sriov ADD/DEL/CHECK/GC against 8 VFs (so attachments contend for VFs
# and for the one ib-host-local network) and SIGKILL some of their own plugin
# runs at a random moment, for SOAK_S seconds (15, FULL=1 60). Then every
# attachment is DELed and the node must be as it was found.

SOAK_LOOPS=${SOAK_LOOPS:-64}
SOAK_VFS=8

soak_conf() { # VF [EXTRA]
	printf '{"cniVersion":"1.1.0","name":"%s","type":"ib-sriov","deviceID":"%s","mtu":1400%s,"ipam":{"type":"ib-host-local","dataDir":"%s","ranges":[[{"subnet":"10.60.0.0/24"}]]}}' \
		"$NET" "$(sim_vf_addr 0 "$1")" "${2:+,$2}" "$T/leases"
}

# soak_run LOOP OP ID VF KILL-AFTER CONF: one plugin run; its stdout in
# $T/s.$LOOP.out. The group's output is a pipe read to the end, so this
# returns when the plugin and any delegate it left behind have exited.
soak_run() {
	local i=$1 op=$2 id=$3 ns=/run/netns/p$1 conf=$6
	[ "$op" = GC ] && ns= id=
	{
		env -i PATH="$PATH" CNI_COMMAND="$op" CNI_CONTAINERID="$id" CNI_NETNS="$ns" \
			CNI_IFNAME="${id:+net1}" CNI_PATH="$BIN" IBCNI_LOCK_TIMEOUT_MS=3000 \
			"$BIN/ib-sriov" <<<"$conf" 2>&1 >"$T/s.$i.out" &
		local pid=$!
		if [ -n "$5" ]; then
			sleep "$5"
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
		echo $? >"$T/s.$i.rc"
	} | cat >/dev/null
}

# One loop: "start end op container vf rc code ips" a line in $T/s.$i.log.
soak_loop() { # LOOP DEADLINE
	local i=$1 end=$2 id=c$1 vf=$((RANDOM % SOAK_VFS)) prev= op r kill conf rc code ips t0
	while [ "$(date +%s)" -lt "$end" ]; do
		r=$((RANDOM % 100))
		if [ $r -lt 45 ]; then
			op=ADD vf=$((RANDOM % SOAK_VFS))
		elif [ $r -lt 75 ]; then
			op=DEL
		elif [ $r -lt 90 ] && [ -n "$prev" ]; then
			op=CHECK
		else
			op=GC
		fi
		conf=$(soak_conf "$vf")
		[ "$op" = CHECK ] && conf=$(soak_conf "$vf" "\"prevResult\":$prev")
		[ "$op" = GC ] && conf=${conf%\}}",\"cni.dev/valid-attachments\":[$VALID]}"
		kill=
		[ $((RANDOM % 100)) -lt 12 ] && kill=$(printf '0.%03d' $((RANDOM % 400)))
		t0=$(date +%s%N)
		soak_run "$i" "$op" "$id" "$vf" "$kill" "$conf"
		rc=$(cat "$T/s.$i.rc")
		code=- ips=-
		if [ "$rc" = 0 ] && [ "$op" = ADD ]; then
			prev=$(cat "$T/s.$i.out")
			ips=$(jq -r '[.ips[].address]|join(",")' <<<"$prev" 2>/dev/null)
		elif [ "$rc" = 1 ]; then
			code=$(jq -r 'if (.code|type)=="number" and (.msg|length)>0 then .code else "bad" end' \
				"$T/s.$i.out" 2>/dev/null)
			[ -n "$code" ] || code=bad
			[ "$code" = bad ] && cp "$T/s.$i.out" "$T/s.$i.bad.$t0"
		fi
		[ "$op" = DEL ] && [ "$rc" = 0 ] && prev=
		echo "$t0 $(date +%s%N) $op $id $vf $rc $code ${ips:--}" >>"$T/s.$i.log"
	done
	echo "$vf" >"$T/s.$i.vf"
}

# Two ADDs handed one address only if the first holder's DEL began before
# the second ADD ended. Lines "start end op id vf rc code ips", any order.
soak_duplicates() {
	sort -n -k2 "$T"/s.*.log | awk '
	$3 == "DEL" { dels[$4] = dels[$4] " " $1 }
	$3 == "ADD" && $6 == 0 {
		n = split($8, a, ",")
		for (j = 1; j <= n; j++) {
			ip = a[j]
			if (ip in holder && holder[ip] != $4) {
				ok = 0
				m = split(dels[holder[ip]], d, " ")
				for (k = 1; k <= m; k++)
					if (d[k] > since[ip] && d[k] < $2) ok = 1
				if (!ok) print ip, "handed to", $4, "while", holder[ip], "held it"
			}
			holder[ip] = $4; since[ip] = $1
		}
	}'
}

test_soak() {
	local secs=15 i end pids=() before line addrs
	[ "$FULL" = 1 ] && secs=60
	secs=${SOAK_S:-$secs}
	sim_node 1 $SOAK_VFS eth || { fail "sim_node"; return; }
	for ((i = 0; i < SOAK_LOOPS; i++)); do
		pod_ns p$i || { fail "pod p$i"; return; }
	done
	VALID=$(for ((i = 0; i < SOAK_LOOPS; i++)); do printf '{"containerID":"c%d","ifname":"net1"},' $i; done)
	VALID=${VALID%,}
	# What stays after any ADD and DEL: locks, pointers, the index.
	for ((i = 0; i < SOAK_VFS; i++)); do
		run_plugin ib-sriov ADD warm p0 net1 "$(soak_conf $i)"
		[ "$RC" = 0 ] || { fail "warm-up ADD on VF $i: $OUT"; return; }
		run_plugin ib-sriov DEL warm p0 net1 "$(soak_conf $i)"
	done
	baseline
	end=$(($(date +%s) + secs))
	for ((i = 0; i < SOAK_LOOPS; i++)); do
		soak_loop $i $end &
		pids+=($!)
	done
	wait "${pids[@]}"

	# Quiescent: the address of every pod whose last ADD or DEL was a
	# successful ADD (others may be mid-DEL: lease released, VF not yet
	# back, which the final DEL finishes) is unique and leased to it.
	addrs=$(for ((i = 0; i < SOAK_LOOPS; i++)); do
		[ "$(awk '$3 == "ADD" || $3 == "DEL" {l = $3 " " $6} END {print l}' "$T/s.$i.log")" = "ADD 0" ] ||
			continue
		ip -n p$i -o -4 addr show dev net1 scope global 2>/dev/null | awk -v c=c$i '{split($4, a, "/"); print a[1], c}'
	done)
	line=$(awk '{print $1}' <<<"$addrs" | grep . | sort | uniq -d)
	[ -z "$line" ] || fail "addresses in two pods at once: $line"
	while read -r line i; do
		[ -n "$line" ] || continue
		[ "$(head -1 "$T/leases/$NET/$line" 2>/dev/null | tr -d '\r')" = "$i" ] ||
			fail "$i has $line, leased to '$(head -1 "$T/leases/$NET/$line" 2>/dev/null | tr -d '\r')'"
	done <<<"$addrs"
	line=$(soak_duplicates)
	[ -z "$line" ] || fail "duplicate addresses: $line"

	# The end: DEL every attachment, then the node as found.
	for ((i = 0; i < SOAK_LOOPS; i++)); do
		run_plugin ib-sriov DEL c$i p$i net1 "$(soak_conf "$(cat "$T/s.$i.vf")")"
		[ "$RC" = 0 ] || fail "final DEL of c$i: $OUT"
	done
	SHOWN=0 POINT="after the soak"
	converged
	line=$(find /var/lib/cni/ibcni/ib-sriov /var/lib/cni/ib-sriov -type f 2>/dev/null)
	[ -z "$line" ] || fail "records left: $line"
	[ -z "$(ls "$T/leases/$NET" | grep '^10\.')" ] || fail "leases left: $(ls "$T/leases/$NET" | grep '^10\.' | tr '\n' ' ')"

	local total killed ok bad
	total=$(cat "$T"/s.*.log | wc -l)
	killed=$(awk '$6 == 137' "$T"/s.*.log | wc -l)
	ok=$(awk '$6 == 0' "$T"/s.*.log | wc -l)
	bad=$(awk '$7 == "bad" || ($6 != 0 && $6 != 1 && $6 != 137)' "$T"/s.*.log | wc -l)
	[ "$bad" = 0 ] || fail "$bad runs ended without a clean CNI error: $(cat "$T"/s.*.bad.* 2>/dev/null | head -c 600)"
	echo "    soak: $SOAK_LOOPS loops, $SOAK_VFS VFs, ${secs} s: $total runs, $ok succeeded, $killed killed, $((total - ok - killed - bad)) clean errors, $bad unclean"
	for op in ADD DEL CHECK GC; do
		printf '    %-5s %5d runs, %5d ok, killed %4d, errors by code:%s\n' "$op" \
			"$(awk -v o=$op '$3 == o' "$T"/s.*.log | wc -l)" \
			"$(awk -v o=$op '$3 == o && $6 == 0' "$T"/s.*.log | wc -l)" \
			"$(awk -v o=$op '$3 == o && $6 == 137' "$T"/s.*.log | wc -l)" \
			"$(awk -v o=$op '$3 == o && $6 == 1 {n[$7]++} END {for (c in n) printf " %s:%d", c, n[c]}' "$T"/s.*.log)"
	done
}
