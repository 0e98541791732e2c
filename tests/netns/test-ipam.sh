# SPDX-License-Identifier: Apache-2.0
# ib-host-local against Debian's Go host-local: the same sequences through
# both, results and store files compared where they are meant to be equal,
# the improved behaviour asserted where they are not.

GO_HL=$GO_CNI/host-local

ipam_conf() { # NAME DATADIR IPAM-BODY [VERSION]
	printf '{"cniVersion":"%s","name":"%s","type":"x","ipam":{"type":"ib-host-local","dataDir":"%s",%s}}' \
		"${4-1.0.0}" "$1" "$2" "$3"
}

# store_dump DIR: every file with its mode and content, one per line.
store_dump() {
	local f
	for f in $(ls "$1" | sort); do
		[ "$f" = lock ] && continue
		printf '%s=%s\n' "$f" "$(od -An -c "$1/$f" | tr -s ' ' | tr -d '\n')"
	done
}

# run_both CMD ID IFNAME CONF: Go into $T/go, ours into $T/ours; GO_OUT/OUT.
run_both() {
	local conf_go conf_ours
	conf_go=${4//@DATA@/$T/go}
	conf_ours=${4//@DATA@/$T/ours}
	cni_exec "$GO_HL" "$1" "$2" /proc/self/ns/net "$3" "$conf_go" "${5:-}"
	GO_OUT=$OUT GO_RC=$RC
	cni_exec ib-host-local "$1" "$2" /proc/self/ns/net "$3" "$conf_ours" "${5:-}"
}

same_result() { # what
	local a b
	a=$(jq -S -c 'del(.cniVersion)' <<<"$GO_OUT" 2>/dev/null)
	b=$(jq -S -c 'del(.cniVersion)' <<<"$OUT" 2>/dev/null)
	[ "$GO_RC" = "$RC" ] || fail "$1: exit Go $GO_RC, ours $RC ($OUT)"
	if [ "$RC" = 0 ]; then
		[ "$a" == "$b" ] || fail "$1: Go $a, ours $b"
	else
		assert_eq "$(jq -r .msg <<<"$GO_OUT")" "$(jq -r .msg <<<"$OUT")" "$1: error text"
	fi
}

same_store() { # NETWORK what
	local a b
	a=$(store_dump "$T/go/$1")
	b=$(store_dump "$T/ours/$1")
	[ "$a" == "$b" ] || fail "$2: stores differ: Go [$a] ours [$b]"
}

WORKED='"resolvConf":"@RESOLV@","ranges":[[{"subnet":"10.22.0.0/29","gateway":"10.22.0.1"},{"subnet":"10.23.0.0/30"}],[{"subnet":"fd00:22::/120","rangeStart":"fd00:22::10","rangeEnd":"fd00:22::12"}]],"routes":[{"dst":"0.0.0.0/0"},{"dst":"192.168.0.0/16","gw":"10.22.0.254"},{"dst":"::/0"}]'

test_differential_worked_example() {
	printf 'nameserver 192.0.2.53\nsearch example.com corp.example\noptions ndots:2\n' >/run/resolv.conf
	local conf step held
	conf=$(ipam_conf demo-net @DATA@ "${WORKED//@RESOLV@//run/resolv.conf}")
	for step in "ADD ctr-a eth0" "ADD ctr-b eth0" "ADD ctr-a eth1" "CHECK ctr-a eth0" \
		"ADD ctr-c eth0" "DEL ctr-a eth0" "DEL ctr-a eth0" "ADD ctr-c eth0" "ADD ctr-d eth0" \
		"DEL ctr-b eth0" "ADD ctr-e eth0"; do
		run_both $step "$conf"
		same_result "$step"
		same_store demo-net "after $step"
		[ "$step" = "ADD ctr-e eth0" ] && held=$OUT
	done
	# Repeated ADD: host-local fails ("duplicate allocation is not
	# allowed"); ours answers the lease the attachment holds, byte for byte,
	# and the stores stay equal (nothing leased, no pointer moved).
	run_both ADD ctr-e eth0 "$conf"
	assert_eq 1 "$GO_RC" "host-local refuses a repeated ADD"
	assert_match "duplicate allocation is not allowed" "$GO_OUT" "host-local's message"
	assert_eq 0 "$RC" "ours answers a repeated ADD ($OUT)"
	assert_json '[.ips[].address]' '["10.22.0.2/29","fd00:22::11/120"]'
	assert_eq "$held" "$OUT" "the same result as the first ADD"
	same_store demo-net "after the repeated ADD"
}

test_differential_every_version() {
	local v conf
	for v in "" 0.1.0 0.2.0 0.3.0 0.3.1 0.4.0 1.0.0; do
		conf=$(ipam_conf "n${v//./}" @DATA@ '"ranges":[[{"subnet":"10.30.0.0/24"}],[{"subnet":"2001:db8:30::/64"}]]' "$v")
		run_both ADD ctr eth0 "$conf"
		same_result "ADD cniVersion '$v'"
		assert_json .cniVersion "\"${v:-0.1.0}\""
		[ "$v" = 0.4.0 ] && { run_both CHECK ctr eth0 "$conf"; same_result "CHECK $v"; }
		run_both DEL ctr eth0 "$conf"
		same_result "DEL $v"
		same_store "n${v//./}" "version '$v'"
	done
	# 1.1.0 is beyond Debian's host-local; ours answers it.
	conf=$(ipam_conf n110 "$T/ours" '"ranges":[[{"subnet":"10.30.0.0/24"}]]' 1.1.0)
	cni_exec ib-host-local ADD ctr eth0 "" "$conf"
	cni_exec ib-host-local ADD ctr /proc/self/ns/net eth0 "$conf"
	assert_json '[.cniVersion,.ips[0].address]' '["1.1.0","10.30.0.2/24"]'
	# Two v4 sets are beyond 0.2.0, for both.
	conf=$(ipam_conf n020 @DATA@ '"ranges":[[{"subnet":"10.31.0.0/24"}],[{"subnet":"10.32.0.0/24"}]]' 0.2.0)
	run_both ADD ctr eth0 "$conf"
	same_result "0.2.0 with two IPv4 sets"
}

test_differential_static_and_args() {
	local conf
	conf=$(ipam_conf s @DATA@ '"ranges":[[{"subnet":"10.40.0.0/24"}],[{"subnet":"2001:db8:40::/64"}]]')
	conf=${conf%\}}',"args":{"cni":{"ips":["10.40.0.77","2001:db8:40::77/64"]}}}'
	run_both ADD s1 eth0 "$conf"
	same_result "args.cni.ips"
	run_both ADD s2 eth0 "$conf"
	same_result "requested IP taken"
	conf=$(ipam_conf s @DATA@ '"ranges":[[{"subnet":"10.40.0.0/24"}]]')
	run_both ADD s3 eth0 "$conf" "IgnoreUnknown=1;K8S_POD_NAME=p;IP=10.40.0.90"
	same_result "CNI_ARGS IP"
	run_both ADD s4 eth0 "$conf" "K8S_POD_NAME=p;IP=10.40.0.91"
	assert_eq 1 "$RC" "unknown CNI_ARGS refused"
	assert_eq "$GO_RC" "$RC" "unknown CNI_ARGS refused by both"
	run_both ADD s5 eth0 "$conf" "IP=10.40.0.1"
	same_result "requested gateway"
	same_store s "static requests"
}

test_improved_rollback_keeps_earlier_leases() {
	# s5 holds .88 and ::79; a second ADD asks for .90 and fails on the v6
	# duplicate. host-local's rollback deletes all three; ours only .90.
	local conf
	conf=$(ipam_conf r @DATA@ '"ranges":[[{"subnet":"10.40.0.0/24"}],[{"subnet":"2001:db8:40::/64"}]]')
	conf=${conf%\}}',"args":{"cni":{"ips":["10.40.0.88","2001:db8:40::79"]}}}'
	run_both ADD s5 eth0 "$conf"
	same_result "first ADD"
	conf=$(ipam_conf r @DATA@ '"ranges":[[{"subnet":"10.40.0.0/24"}],[{"subnet":"2001:db8:40::/64"}]]')
	run_both ADD s5 eth0 "$conf" "IP=10.40.0.90"
	assert_eq 1 "$RC" "second ADD fails"
	[ -e "$T/go/r/10.40.0.88" ] && fail "host-local kept .88 (its defect is gone?)"
	assert_file "$T/ours/r/10.40.0.88" $'s5\r\neth0'
	assert_file "$T/ours/r/2001:db8:40::79" $'s5\r\neth0'
	[ -e "$T/ours/r/10.40.0.90" ] && fail "the failed ADD's lease survived"
	true
}

test_improved_del_with_broken_ranges() {
	local good bad
	good=$(ipam_conf d @DATA@ '"ranges":[[{"subnet":"10.50.0.0/24"}]]')
	bad=$(ipam_conf d @DATA@ '"subnet":"10.50.0.0/31"')
	run_both ADD c1 eth0 "$good"
	run_both DEL c1 eth0 "$bad"
	assert_eq 1 "$GO_RC" "host-local fails DEL on a bad config"
	assert_eq 0 "$RC" "ours releases by owner"
	[ -e "$T/go/d/10.50.0.2" ] || fail "host-local released (its defect is gone?)"
	[ -e "$T/ours/d/10.50.0.2" ] && fail "ours kept the lease"
	bad=$(ipam_conf d @DATA@ '"ranges":[]')
	run_both ADD c2 eth0 "$good"
	run_both DEL c2 eth0 "$bad"
	assert_eq 0 "$RC" "DEL with no ranges at all"
	[ -e "$T/ours/d/10.50.0.3" ] && fail "ours kept c2's lease"
	true
}

test_improved_legacy_match_only_ip_files() {
	local conf
	conf=$(ipam_conf l @DATA@ '"ranges":[[{"subnet":"10.60.0.0/24","rangeStart":"10.60.0.100"}]]')
	run_both ADD c1 eth0 "$conf"
	run_both ADD c2 eth0 "$conf"
	printf hello >"$T/go/l/README"; printf hello >"$T/ours/l/README"
	run_both DEL 10.60.0.101 eth0 "$conf"
	run_both DEL hello eth0 "$conf"
	[ -e "$T/go/l/last_reserved_ip.0" ] && fail "host-local kept the pointer (defect gone?)"
	[ -e "$T/go/l/README" ] && fail "host-local kept README (defect gone?)"
	assert_file "$T/ours/l/last_reserved_ip.0" 10.60.0.101
	assert_file "$T/ours/l/README" hello
	# Legacy bare-ID files are still honoured.
	printf 'legacy-ctr\n' >"$T/ours/l/10.60.0.150"
	cni_exec ib-host-local CHECK legacy-ctr /proc/self/ns/net eth0 "${conf//@DATA@/$T/ours}"
	assert_eq 0 "$RC" "CHECK of a legacy lease"
	cni_exec ib-host-local DEL legacy-ctr /proc/self/ns/net eth0 "${conf//@DATA@/$T/ours}"
	[ -e "$T/ours/l/10.60.0.150" ] && fail "legacy lease not released"
	true
}

test_improved_bounds_and_config_errors() {
	local conf
	conf=$(ipam_conf b @DATA@ '"subnet":"10.9.0.0/30","rangeStart":"10.9.0.0","rangeEnd":"10.9.0.3","gateway":"10.9.0.1"')
	run_both ADD c1 eth0 "$conf"
	assert_json '.ips[0].address' '"10.9.0.2/30"'
	assert_eq '"10.9.0.0/30"' "$(jq -c '.ips[0].address' <<<"$GO_OUT")" "host-local leases the network address"
	run_both ADD c2 eth0 "$conf"
	assert_json '[.code,.msg]' '[110,"failed to allocate for range 0: no IP addresses available in range set: 10.9.0.0-10.9.0.3"]'
	for body in '"subnet":"10.1.2.0/24","rangeStart":"10.1.2.50","rangeEnd":"10.1.2.40"' \
		'"subnet":"10.8.0.0/24","gateway":"192.0.2.1"' \
		'"subnet":"255.255.255.0/24","rangeStart":"255.255.255.255","gateway":"255.255.255.255"' \
		'"subnet":"10.1.2.0/24","rangeStart":"10.1.2.255"'; do
		conf=$(ipam_conf e "$T/ours" "$body")
		cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
		assert_json .code 7
		[ -e "$T/ours/e" ] && fail "a rejected config created state ($body)"
	done
	true
}

test_improved_requested_outside_changes_nothing() {
	local conf
	conf=$(ipam_conf o @DATA@ '"ranges":[[{"subnet":"10.40.0.0/24"}]]')
	conf=${conf%\}}',"runtimeConfig":{"ips":["10.99.0.5"]}}'
	run_both ADD c1 eth0 "$conf"
	same_result "requested outside every set"
	[ -e "$T/go/o/last_reserved_ip.0" ] || fail "host-local left no pointer (defect gone?)"
	[ -e "$T/ours/o/last_reserved_ip.0" ] && fail "ours moved the pointer"
	true
}

test_improved_static_duplicate_check() {
	local conf
	conf=$(ipam_conf sd @DATA@ '"ranges":[[{"subnet":"10.40.0.0/24"}]]')
	run_both ADD c1 eth0 "$conf"
	run_both ADD c1 eth0 "$conf" "IP=10.40.0.50"
	assert_eq 0 "$GO_RC" "host-local grants a second static lease"
	assert_eq 1 "$RC" "ours refuses a second lease"
	assert_json .code 111
	[ -e "$T/ours/sd/10.40.0.50" ] && fail "static duplicate was leased"
	true
}

test_check_verifies_prev_result() {
	local conf prev
	conf=$(ipam_conf ck "$T/ours" '"ranges":[[{"subnet":"10.70.0.0/24"}]]')
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	cni_exec ib-host-local ADD c2 /proc/self/ns/net eth0 "$conf"
	prev='"prevResult":{"cniVersion":"1.0.0","ips":[{"address":"10.70.0.2/24"},{"address":"192.168.9.9/24"}]}'
	cni_exec ib-host-local CHECK c1 /proc/self/ns/net eth0 "${conf%\}},$prev}"
	assert_eq 0 "$RC" "CHECK of our own address ($OUT)"
	cni_exec ib-host-local CHECK c2 /proc/self/ns/net eth0 "${conf%\}},$prev}"
	assert_json '[.code,.msg,.details]' '[112,"ib-host-local: 10.70.0.2 is not leased to c2/eth0","it is leased to c1/eth0"]'
	prev='"prevResult":{"cniVersion":"1.0.0","ips":[{"address":"10.70.0.9/24"}]}'
	cni_exec ib-host-local CHECK c1 /proc/self/ns/net eth0 "${conf%\}},$prev}"
	assert_json '.details' '"the address is free"'
}

test_gc_and_status() {
	local conf
	conf=$(ipam_conf g "$T/ours" '"ranges":[[{"subnet":"10.80.0.0/30"}]]' 1.1.0)
	cni_exec ib-host-local STATUS "" "" "" "$conf"
	assert_eq 0 "$RC" "STATUS with room"
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	cni_exec ib-host-local STATUS "" "" "" "$conf"
	assert_json '[.code,.msg]' '[50,"no free addresses"]'
	printf 'keep\n' >"$T/ours/g/10.80.0.1"   # a legacy lease (on the gateway address)
	: >"$T/ours/g/10.80.0.3"                  # a crash leftover
	cni_exec ib-host-local GC "" "" "" "${conf%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"keep\",\"ifname\":\"net1\"}]}"
	assert_eq 0 "$RC" "GC ($OUT)"
	[ -e "$T/ours/g/10.80.0.2" ] && fail "GC kept c1's lease"
	[ -e "$T/ours/g/10.80.0.1" ] || fail "GC removed a valid container's legacy lease"
	[ -e "$T/ours/g/10.80.0.3" ] || fail "GC deleted an unparsable file"
	assert_match "10.80.0.3 is empty or unreadable; left in place" "$ERR" "GC reports the bad file"
	cni_exec ib-host-local GC "" "" "" "${conf%\}},\"cni.dev/attachments\":[]}"
	[ -e "$T/ours/g/10.80.0.1" ] && fail "an empty list releases all"
	cni_exec "$GO_HL" GC x /proc/self/ns/net eth0 "$conf"
	assert_eq 1 "$RC" "Debian's host-local has no GC"
	true
}

test_lock_timeout_is_code_11() {
	local conf
	conf=$(ipam_conf lk "$T/ours" '"ranges":[[{"subnet":"10.90.0.0/24"}]]')
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	flock "$T/ours/lk/lock" sleep 3 &
	sleep 0.3
	OUT=$(env -i CNI_COMMAND=ADD CNI_CONTAINERID=c2 CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
		CNI_PATH=/x IBCNI_LOCK_TIMEOUT_MS=200 "$BIN/ib-host-local" <<<"$conf" 2>/dev/null)
	assert_json '.code' 11
	wait
	[ -e "$T/ours/lk/10.90.0.3" ] && fail "a timed-out ADD leased"
	true
}

test_concurrent_adds_distinct() {
	local conf i n
	conf=$(ipam_conf cc "$T/ours" '"ranges":[[{"subnet":"10.100.0.0/24"}]]')
	for i in $(seq 1 100); do
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=ctr$i CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
			CNI_PATH=/x IBCNI_LOCK_TIMEOUT_MS=90000 "$BIN/ib-host-local" <<<"$conf" >"$T/out.$i" 2>/dev/null &
	done
	wait
	n=$(cat "$T"/out.* | jq -r '.ips[0].address' 2>/dev/null | sort -u | grep -c '^10\.100\.0\.')
	assert_eq 100 "$n" "distinct addresses from 100 concurrent ADDs"
	assert_eq 100 "$(ls "$T/ours/cc" | grep -c '^10\.100')" "lease files"
	for i in $(seq 1 100); do
		env -i CNI_COMMAND=DEL CNI_CONTAINERID=ctr$i CNI_IFNAME=eth0 CNI_PATH=/x \
			IBCNI_LOCK_TIMEOUT_MS=90000 "$BIN/ib-host-local" <<<"$conf" >/dev/null 2>&1 &
	done
	wait
	assert_eq 0 "$(ls "$T/ours/cc" | grep -c '^10\.100')" "all released"
}

test_interop_shared_directory() {
	# Go host-local and ours allocate concurrently in one directory. Go waits
	# for the lock without a bound; ours gets one far above what 120 ADDs
	# need even on a loaded machine: this test is about correctness, and
	# test_lock_timeout_is_code_11 about the bound.
	local conf i n dup
	conf=$(ipam_conf mix "$T/shared" '"ranges":[[{"subnet":"10.110.0.0/24"}]]')
	for i in $(seq 1 60); do
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=go$i CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
			CNI_PATH=/x "$GO_HL" <<<"$conf" >"$T/go.$i" 2>/dev/null &
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=ib$i CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
			CNI_PATH=/x IBCNI_LOCK_TIMEOUT_MS=90000 "$BIN/ib-host-local" <<<"$conf" >"$T/ib.$i" 2>/dev/null &
	done
	wait
	for i in $(seq 1 60); do
		jq -e .ips "$T/ib.$i" >/dev/null 2>&1 || fail "ours ib$i: $(cat "$T/ib.$i")"
		jq -e .ips "$T/go.$i" >/dev/null 2>&1 || fail "Go go$i: $(cat "$T/go.$i")"
	done
	n=$(cat "$T"/go.* "$T"/ib.* | jq -r '.ips[0].address' 2>/dev/null | grep -c '^10\.110\.0\.')
	dup=$(cat "$T"/go.* "$T"/ib.* | jq -r '.ips[0].address' 2>/dev/null | sort | uniq -d | wc -l)
	assert_eq 120 "$n" "every ADD of both got an address"
	assert_eq 0 "$dup" "no address leased twice"
	assert_eq 120 "$(ls "$T/shared/mix" | grep -c '^10\.110')" "lease files"
	# Ours releases what Go leased (the index is rebuilt from the files).
	cni_exec ib-host-local DEL go7 "" eth0 "$conf"
	assert_eq 0 "$(grep -l '^go7' "$T/shared/mix"/10.* 2>/dev/null | wc -l)" "ours DELs a Go lease"
	cni_exec "$GO_HL" DEL ib9 "" eth0 "$conf"
	assert_eq 0 "$(grep -l '^ib9' "$T/shared/mix"/10.* 2>/dev/null | wc -l)" "Go DELs our lease"
	cni_exec ib-host-local ADD ib9 /proc/self/ns/net eth0 "$conf"
	assert_eq 0 "$RC" "ours ADDs after Go changed the directory"
}

test_cost_independent_of_lease_count() {
	# 3000 leases on disk (written as host-local would); after the one
	# rebuild they cause, an ADD or DEL opens a handful of files, not 3000.
	local conf i opens
	command -v strace >/dev/null || { fail "strace is missing (make deps installs it)"; return; }
	conf=$(ipam_conf big "$T/ours" '"ranges":[[{"subnet":"10.120.0.0/16"}]]')
	cni_exec ib-host-local ADD first /proc/self/ns/net eth0 "$conf"
	for i in $(seq 0 2999); do
		printf 'old%d\r\neth0' $i >"$T/ours/big/10.120.$((100 + i / 250)).$((1 + i % 250))"
	done
	cni_exec ib-host-local ADD rebuild /proc/self/ns/net eth0 "$conf"
	for cmd in ADD DEL; do
		# -y: ours opens relative to directory fds, printed with their paths.
		env -i CNI_COMMAND=$cmd CNI_CONTAINERID=probe CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
			CNI_PATH=/x strace -f -qq -y -e trace=open,openat -o "$T/trace" "$BIN/ib-host-local" \
			<<<"$conf" >/dev/null 2>&1
		opens=$(grep -c "$T/ours" "$T/trace")
		[ "$opens" -ge 3 ] || fail "$cmd: only $opens opens seen under the data dir (trace broken?)"
		[ "$opens" -le 25 ] || fail "$cmd opened $opens files under the data dir"
	done
	# host-local reads every lease on each ADD (its duplicate check).
	env -i CNI_COMMAND=ADD CNI_CONTAINERID=probe2 CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
		CNI_PATH=/x strace -f -qq -e trace=open,openat -o "$T/trace" "$GO_HL" \
		<<<"$conf" >/dev/null 2>&1
	opens=$(grep -c "$T/ours" "$T/trace")
	[ "$opens" -ge 3000 ] || fail "host-local opened only $opens files (the comparison is stale)"
	true
}

test_differential_host_local_suite() {
	# host_local_test.go's scenarios not covered above, through both binaries.
	local c0 c1 conf i
	printf 'nameserver 192.0.2.3\n; comment\n# other comment\nnameserver 192.0.2.4\ndomain example.org\nsearch a.example\nsearch b.example c.example\noptions ndots:1\noptions attempts:3 rotate\nbadline\n' >/run/resolv.conf
	# 1 + dns: all resolv.conf fields, comments skipped, search/options accumulate.
	conf=$(ipam_conf dns @DATA@ "\"resolvConf\":\"/run/resolv.conf\",\"ranges\":[[{\"subnet\":\"10.1.2.0/24\"}]]")
	run_both ADD dummy eth0 "$conf"
	same_result "resolvConf"
	assert_json .dns '{"nameservers":["192.0.2.3","192.0.2.4"],"domain":"example.org","search":["a.example","b.example","c.example"],"options":["ndots:1","attempts:3","rotate"]}'
	# 7: no error chatter on the first ADD of a fresh network.
	[[ $ERR == *"Error retrieving last reserved ip"* ]] && fail "error output on first ADD"
	# 2: one container on two networks with two interfaces.
	c0=$(ipam_conf mynet0 @DATA@ '"ranges":[[{"subnet":"10.1.2.0/24"}]]')
	c1=$(ipam_conf mynet1 @DATA@ '"ranges":[[{"subnet":"10.2.2.0/24"}]]')
	run_both ADD dummy eth0 "$c0"; same_result "mynet0 eth0"
	run_both ADD dummy eth1 "$c1"; same_result "mynet1 eth1"
	run_both DEL dummy eth0 "$c0"; same_result "DEL eth0"
	same_store mynet0 "eth0 released"
	same_store mynet1 "eth1 kept"
	assert_file "$T/ours/mynet1/10.2.2.2" $'dummy\r\neth1'
	# 9 + 10: requested addresses over several sets and both families.
	conf=$(ipam_conf multi @DATA@ '"ranges":[[{"subnet":"172.16.1.0/24"},{"subnet":"10.1.2.0/24"}],[{"subnet":"10.1.3.0/24"}],[{"subnet":"2001:db8:1::/48"}]]')
	conf=${conf%\}}',"args":{"cni":{"ips":["10.1.2.88","10.1.3.77","2001:db8:1::999"]}}}'
	run_both ADD dummy eth0 "$conf"
	same_result "requested over three sets"
	same_store multi "requested over three sets"
	# 11: two requests for one set: always the same one is refused, nothing leased.
	conf=$(ipam_conf two @DATA@ '"ranges":[[{"subnet":"10.1.2.0/24"}]]')
	conf=${conf%\}}',"args":{"cni":{"ips":["10.1.2.88","10.1.2.77"]}}}'
	for i in 1 2 3 4 5; do
		cni_exec ib-host-local ADD dummy /proc/self/ns/net eth0 "${conf//@DATA@/$T/ours}"
		assert_json .msg '"failed to allocate all requested IPs: 10.1.2.77"'
	done
	[ ! -e "$T/ours/two" ] || [ "$(ls "$T/ours/two")" = lock ] || fail "something was leased"
}

test_lease_published_complete() {
	# host-local creates the lease file and then writes it: a crash between
	# leaves an empty file. Ours writes elsewhere and link()s the finished
	# file into place: the lease path never appears in an open() or creat().
	local conf
	command -v strace >/dev/null || { fail "strace is missing"; return; }
	conf=$(ipam_conf at @DATA@ '"ranges":[[{"subnet":"10.130.0.0/24"}]]')
	for who in go ours; do
		local plugin=$BIN/ib-host-local
		[ $who = go ] && plugin=$GO_HL
		# -y: file descriptors printed with their paths (ours works from directory fds).
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=c1 CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
			CNI_PATH=/x strace -f -qq -y -e trace=open,openat,creat,link,linkat,rename,renameat,renameat2 \
			-o "$T/trace.$who" "$plugin" <<<"${conf//@DATA@/$T/$who}" >/dev/null 2>&1
	done
	grep -q "\"$T/go/at/10.130.0.2\".*O_CREAT" "$T/trace.go" ||
		fail "host-local no longer creates the lease in place (comparison stale)"
	grep -Eq "\"($T/ours/at/)?10\.130\.0\.2\".*O_CREAT" "$T/trace.ours" && fail "ours created the lease in place"
	grep -Eq "^[0-9 ]*linkat\([0-9]+<$T/ours/at>, \"[^\"]+\", [0-9]+<$T/ours/at>, \"10\.130\.0\.2\"" "$T/trace.ours" ||
		fail "ours did not link() the lease beside it"
	assert_file "$T/ours/at/10.130.0.2" $'c1\r\neth0'
}

# --- a hostile node: planted files and directories, kills, mounts ---

test_hostile_resolv_conf() {
	# resolvConf is chosen by the config's author and read as root: only a
	# regular file under /etc or /run that root alone can write, on an
	# ordinary filesystem, no link on the way; anything else is code 7 at once.
	local conf body what R=/run/rc
	mkdir -p $R/proc && mount -t proc proc $R/proc && ln -s /proc $R/plink
	printf 'nameserver 192.0.2.53\n' >"$R/good"
	mkfifo "$R/fifo"; mkdir "$R/dir"; ln -s "$R/good" "$R/link"
	cp "$R/good" "$R/theirs"; chown nobody "$R/theirs"
	cp "$R/good" "$R/shared"; chmod 664 "$R/shared"
	cp "$R/good" "$T/good"
	head -c 70000 /dev/zero | tr '\0' '#' >"$R/huge"; printf '\nnameserver 192.0.2.1\n' >>"$R/huge"
	for what in fifo:"not a regular file" /dev/zero:"outside /etc and /run" /proc/version:"outside /etc and /run" \
		$T/good:"outside /etc and /run" /run/../etc/shadow:"outside /etc and /run" \
		proc/version:"on a proc filesystem" plink/version:"a symbolic link on the path" dir:"not a regular file" \
		link:"a symbolic link" theirs:"not owned by root" shared:"writable by group or others" \
		huge:"larger than 64 KiB"; do
		local f=${what%%:*} why=${what#*:}
		[[ $f == /* ]] || f=$R/$f
		body="\"resolvConf\":\"$f\",\"ranges\":[[{\"subnet\":\"10.150.0.0/24\"}]]"
		conf=$(ipam_conf rc "$T/ours" "$body")
		local t0=$(date +%s%N)
		cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
		[ $((($(date +%s%N) - t0) / 1000000)) -lt 5000 ] || fail "$f: took too long"
		assert_json '[.code,.msg]' '[7,"cannot read resolvConf"]'
		assert_match "ipam.resolvConf $f.*$why" "$(jq -r .details <<<"$OUT")" "$f: details"
	done
	[ -e "$T/ours/rc" ] && fail "a refused resolvConf left state"
	conf=$(ipam_conf rc "$T/ours" "\"resolvConf\":\"$R/good\",\"ranges\":[[{\"subnet\":\"10.150.0.0/24\"}]]")
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	assert_json .dns.nameservers '["192.0.2.53"]'
}

test_hostile_lease_directory_modes() {
	# "dataDir":"/","name":"etc" used to chmod /etc 0700 and lock it: a
	# directory with files and no lock is no lease directory.
	local conf
	mkdir -p "$T/root/etc" && chmod 755 "$T/root/etc" && echo x >"$T/root/etc/passwd"
	conf=$(ipam_conf etc "$T/root" '"ranges":[[{"subnet":"10.151.0.0/24"}]]')
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	assert_json '[.code,.msg]' '[7,"not a lease directory"]'
	assert_match "ipam.dataDir" "$(jq -r .details <<<"$OUT")" "names dataDir"
	cni_exec ib-host-local DEL c1 "" eth0 "$conf"
	assert_eq 0 "$RC" "DEL: nothing was ever leased there ($OUT)"
	assert_mode "$T/root/etc" 755
	[ -e "$T/root/etc/lock" ] && fail "a lock was created in a foreign directory"
	[ -e "$T/root/.ib-host-local" ] && fail "an index was created for a foreign directory"
	# Writable by others: refused for every command, mode untouched.
	mkdir -p "$T/root/wide" && chmod 777 "$T/root/wide" && : >"$T/root/wide/lock"
	conf=$(ipam_conf wide "$T/root" '"ranges":[[{"subnet":"10.151.0.0/24"}]]')
	for cmd in ADD DEL; do
		cni_exec ib-host-local $cmd c1 /proc/self/ns/net eth0 "$conf"
		assert_json '[.code,.msg]' '[7,"unsafe lease directory"]'
		assert_match "chmod go-w.*ipam.dataDir" "$(jq -r .details <<<"$OUT")" "$cmd names the fix"
	done
	assert_mode "$T/root/wide" 777
	# host-local's 0755 directory is used as it is.
	conf=$(ipam_conf hl @DATA@ '"ranges":[[{"subnet":"10.151.0.0/24"}]]')
	run_both ADD c1 eth0 "$conf"
	same_result "first ADD"
	assert_mode "$T/go/hl" 755
	mkdir -p "$T/ours/hl2" && chmod 755 "$T/ours/hl2" && cp -a "$T/go/hl/." "$T/ours/hl2/"
	conf=$(ipam_conf hl2 "$T/ours" '"ranges":[[{"subnet":"10.151.0.0/24"}]]')
	cni_exec ib-host-local ADD c2 /proc/self/ns/net eth0 "$conf"
	assert_json '.ips[0].address' '"10.151.0.3/24"'
	assert_mode "$T/ours/hl2" 755
}

test_hostile_links_in_data_dir() {
	# A tenant-writable dataDir with planted links: DEL used to empty the
	# directory they pointed at. Now: code 7, and the target is untouched.
	local conf victim=$T/victim
	mkdir -p "$T/tenant" "$victim/n/owners" "$victim/n/tmp" "$victim/v2"
	chmod 755 "$T" && chown nobody "$T/tenant" && chmod 777 "$T/tenant"
	echo precious >"$victim/n/owners/keep"; echo precious >"$victim/n/tmp/keep"
	printf 'c1\r\neth0' >"$victim/v2/10.152.0.2"; : >"$victim/v2/lock"
	conf=$(ipam_conf n "$T/tenant" '"ranges":[[{"subnet":"10.152.0.0/24"}]]')
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	assert_eq 0 "$RC" "ADD in a tenant-writable dataDir ($OUT)"
	rm -rf "$T/tenant/.ib-host-local"
	su nobody -s /bin/sh -c "ln -s '$victim' '$T/tenant/.ib-host-local'"
	for cmd in DEL ADD GC; do
		cni_exec ib-host-local $cmd c1 /proc/self/ns/net eth0 \
			"${conf%\}},\"cniVersion\":\"1.1.0\",\"cni.dev/valid-attachments\":[]}"
		assert_json '[.code,.msg]' '[7,"invalid ipam.dataDir"]'
	done
	assert_file "$victim/n/owners/keep" precious
	assert_file "$victim/n/tmp/keep" precious
	# The lease directory itself a link.
	su nobody -s /bin/sh -c "ln -s '$victim/v2' '$T/tenant/v2'"
	conf=$(ipam_conf v2 "$T/tenant" '"ranges":[[{"subnet":"10.152.0.0/24"}]]')
	cni_exec ib-host-local DEL c1 "" eth0 "$conf"
	assert_json '[.code,.msg]' '[7,"invalid ipam.dataDir"]'
	assert_file "$victim/v2/10.152.0.2" $'c1\r\neth0'
	# A link higher up in dataDir.
	ln -s "$T/tenant" "$T/alias"
	conf=$(ipam_conf n "$T/alias" '"ranges":[[{"subnet":"10.152.0.0/24"}]]')
	cni_exec ib-host-local ADD c9 /proc/self/ns/net eth0 "$conf"
	assert_json '[.code,.msg]' '[7,"invalid ipam.dataDir"]'
}

test_lease_directory_on_its_own_mount() {
	# The temp file lives beside the leases: link() never crosses a mount.
	local conf
	mkdir -p "$T/ours/m" && mount -t tmpfs -o mode=0700 lease-mount "$T/ours/m"
	conf=$(ipam_conf m "$T/ours" '"ranges":[[{"subnet":"10.153.0.0/24"}]]')
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	assert_json '.ips[0].address' '"10.153.0.2/24"'
	assert_file "$T/ours/m/10.153.0.2" $'c1\r\neth0'
	umount "$T/ours/m"
}

test_packed_range_one_fsync_per_lease() {
	# A /22 with one free address: the ADD probes ~1020 taken ones with
	# link() from one temp file, written and fsync'ed once.
	local conf i n fsyncs links
	conf=$(ipam_conf p "$T/ours" '"ranges":[[{"subnet":"10.154.0.0/22"}]]')
	cni_exec ib-host-local ADD first /proc/self/ns/net eth0 "$conf"
	for ((i = 3; i < 1022; i++)); do
		printf 'old%d\r\neth0' $i >"$T/ours/p/10.154.$((i / 256)).$((i % 256))"
	done
	rm -f "$T/ours/p/10.154.3.254"
	printf 10.154.0.2 >"$T/ours/p/last_reserved_ip.0"
	cni_exec ib-host-local ADD warm /proc/self/ns/net eth0 "$conf"   # the rebuild
	assert_json '.ips[0].address' '"10.154.3.254/22"'
	cni_exec ib-host-local DEL warm "" eth0 "$conf"
	printf 10.154.0.2 >"$T/ours/p/last_reserved_ip.0"
	env -i CNI_COMMAND=ADD CNI_CONTAINERID=probe CNI_NETNS=/proc/self/ns/net CNI_IFNAME=eth0 \
		CNI_PATH=/x strace -f -qq -e trace=fsync,fdatasync,linkat,link -o "$T/trace" \
		"$BIN/ib-host-local" <<<"$conf" >"$T/out" 2>/dev/null
	OUT=$(cat "$T/out")
	assert_json '.ips[0].address' '"10.154.3.254/22"'
	fsyncs=$(grep -Ec '^[0-9 ]*f(data)?sync\(' "$T/trace")
	links=$(grep -Ec '^[0-9 ]*link(at)?\(' "$T/trace")
	[ "$links" -ge 1000 ] || fail "only $links link() probes (the scenario is not packed)"
	[ "$fsyncs" -le 3 ] || fail "$fsyncs fsyncs for one ADD (one file, one directory expected)"
	echo "    packed /22: $links link() probes, $fsyncs fsyncs"
}

test_killed_runs_leave_nothing_for_good() {
	# strace kills the plugin at the step named: just before publishing the
	# lease or a pointer that did not exist yet (removed first: a temp file
	# is left), before writing a new owner file (created empty, while the
	# token is spoilt), or before resealing the index token it spoilt in
	# place (an existing pointer is rewritten in place too). The next run
	# removes what the killed one left, rebuilds the index, and the store
	# stays consistent.
	local conf step n=0 sc when left prep ids=()
	command -v strace >/dev/null || { fail "strace is missing"; return; }
	conf=$(ipam_conf k "$T/ours" '"ranges":[[{"subnet":"10.155.0.0/24"}]]')
	for step in linkat:1:k/.ib-host-local.lease.tmp: \
		renameat:1:k/.ib-host-local.ptr.tmp:rmptr \
		write:2:.ib-host-local/k/owners/kill3@65746830:owner \
		pwrite64:3:.ib-host-local/k/token:; do
		IFS=: read -r sc when left prep <<<"$step"
		n=$((n + 1))
		[ "$prep" = rmptr ] && rm -f "$T/ours/k/last_reserved_ip.0"
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=kill$n CNI_NETNS=/proc/self/ns/net \
			CNI_IFNAME=eth0 CNI_PATH=/x strace -f -qq -o /dev/null \
			-e trace=$sc -e inject=$sc:signal=SIGKILL:when=$when "$BIN/ib-host-local" \
			<<<"$conf" >/dev/null 2>&1
		if [ "$sc" = pwrite64 ]; then
			[ "$(head -c1 "$T/ours/$left")" = "!" ] || fail "$step: the kill left no spoilt token"
		elif [ "$prep" = owner ]; then
			[ -e "$T/ours/$left" ] && [ ! -s "$T/ours/$left" ] ||
				fail "$step: the kill left no empty owner file"
			[ "$(head -c1 "$T/ours/.ib-host-local/k/token")" = "!" ] ||
				fail "$step: the kill left the token sealed over a torn owner file"
		else
			[ -e "$T/ours/$left" ] || fail "$step: the kill left no $left (wrong kill point?)"
		fi
		cni_exec ib-host-local ADD next$n /proc/self/ns/net eth0 "$conf"
		assert_eq 0 "$RC" "ADD after a kill at $step ($OUT)"
		if [ "$sc" = pwrite64 ]; then
			[ "$(head -c1 "$T/ours/$left")" = "!" ] && fail "$step: the token is still spoilt"
		elif [ "$prep" = owner ]; then
			# Rebuilt from the leases: it names the killed run's lease.
			grep -qx '10\.155\.0\.[0-9]*' "$T/ours/$left" ||
				fail "$step: the owner file was not rebuilt: $(cat "$T/ours/$left")"
		else
			[ -e "$T/ours/$left" ] && fail "$step: $left is still there"
		fi
		ids+=(kill$n next$n)
	done
	# Every lease names its owner and DEL releases what the killed runs got.
	for f in "$T"/ours/k/10.*; do
		[ -s "$f" ] || fail "empty lease $f"
	done
	for step in "${ids[@]}"; do
		cni_exec ib-host-local DEL "$step" "" eth0 "$conf"
	done
	assert_eq "" "$(ls "$T/ours/k" | grep '^10\.')" "all released"
}

test_del_releases_a_lease_rewritten_in_place() {
	# As host-local's own tests do: the lease rewritten (same inode) in the
	# legacy bare-ID format. The index still names the old owner; the file wins.
	local conf
	conf=$(ipam_conf ip "$T/ours" '"ranges":[[{"subnet":"10.156.0.0/24"}]]')
	cni_exec ib-host-local ADD c1 /proc/self/ns/net eth0 "$conf"
	printf c1 >"$T/ours/ip/10.156.0.2"
	cni_exec ib-host-local DEL c1 "" eth0 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e "$T/ours/ip/10.156.0.2" ] && fail "the rewritten lease was not released"
	true
}

test_code_health_format_checked() {
	# range.c's message helper is printf-checked: a stray "%d" does not build.
	local src cflags
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	cflags="-std=gnu11 -D_GNU_SOURCE -I$src/include -I$src/cni -I$src/ipam -Wall -Wextra -Wformat=2 -Werror $(pkg-config --cflags json-c)"
	grep -q 'pragma GCC diagnostic' "$src/ipam/range.c" && fail "range.c still switches a warning off"
	gcc $cflags -c "$src/ipam/range.c" -o "$T/range.o" 2>"$T/cc" || fail "range.c does not build: $(cat "$T/cc")"
	sed 's/"mixed address families"/"mixed address families %d"/' "$src/ipam/range.c" >"$T/range.c"
	grep -q 'families %d' "$T/range.c" || { fail "the probe edit did not apply"; return; }
	gcc $cflags -c "$T/range.c" -o "$T/bad.o" 2>/dev/null && fail "a stray %d built under -Werror"
	true
}

# ipIndex: the address N places after each set's first address, the same host
# part on every rail; refusals change nothing on disk.
test_ip_index() {
	local conf rails before
	rails='"ranges":[[{"subnet":"10.60.0.0/16","rangeStart":"10.60.1.0","rangeEnd":"10.60.1.255"}],[{"subnet":"fd00:60::/64"}]]'
	conf=$(ipam_conf ix "$T/ix" "$rails")
	cni_exec ib-host-local ADD r5 /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=5"
	assert_eq 0 "$RC" "ADD index 5 ($OUT)"
	assert_json '[.ips[].address]' '["10.60.1.5/16","fd00:60::6/64"]'
	assert_file "$T/ix/ix/10.60.1.5" $'r5\r\nnet1'
	assert_file "$T/ix/ix/fd00:60::6" $'r5\r\nnet1'
	# Asked again by the same attachment: the same addresses, no new lease.
	cni_exec ib-host-local ADD r5 /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=5"
	assert_eq 0 "$RC" "idempotent ADD ($OUT)"
	assert_json '[.ips[].address]' '["10.60.1.5/16","fd00:60::6/64"]'
	assert_eq 4 "$(ls "$T/ix/ix" | grep -vc lock)" "two leases and two pointers"
	# args.cni wins over CNI_ARGS; index 0 is rangeStart (or the subnet's
	# first host: the default gateway, refused before anything is leased).
	cni_exec ib-host-local ADD r1 /proc/self/ns/net net1 "${conf%\}},\"args\":{\"cni\":{\"ipIndex\":1}}}" "IB_IP_INDEX=9"
	assert_json '[.ips[].address]' '["10.60.1.1/16","fd00:60::2/64"]'
	before=$(store_dump "$T/ix/ix")
	cni_exec ib-host-local ADD r0 /proc/self/ns/net net1 "${conf%\}},\"args\":{\"cni\":{\"ipIndex\":0}}}"
	assert_eq '{"cniVersion":"1.0.0","code":7,"msg":"ipIndex 0 is the gateway of range set 1","details":"args.cni.ipIndex 0 is fd00:60::1, the range'"'"'s gateway, which is never leased; ask for another index, or set rangeStart past the gateway"}' \
		"$(jq -c . <<<"$OUT")" "the gateway"
	cni_exec ib-host-local ADD other /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=5"
	assert_eq '{"cniVersion":"1.0.0","code":111,"msg":"ipIndex 5: 10.60.1.5 of range set 0 is taken","details":"another attachment holds that address; ask for another index, or DEL the attachment that holds it"}' \
		"$(jq -c . <<<"$OUT")" "taken"
	cni_exec ib-host-local ADD other /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=256"
	assert_eq '{"cniVersion":"1.0.0","code":7,"msg":"ipIndex 256 is outside range set 0","details":"CNI_ARGS IB_IP_INDEX 256 lies past the end of range 10.60.1.0-10.60.1.255 (256 addresses from its first); ask for a smaller index or widen the range"}' \
		"$(jq -c . <<<"$OUT")" "outside"
	# Taken in the second set only: the first set's address is not leased either.
	cni_exec ib-host-local ADD v6 /proc/self/ns/net net1 \
		"$(ipam_conf ix "$T/ix" '"ranges":[[{"subnet":"10.61.0.0/24"}],[{"subnet":"fd00:60::/64"}]]')" "IB_IP_INDEX=5"
	assert_json '[.code,.msg]' '[111,"ipIndex 5: fd00:60::6 of range set 1 is taken"]'
	cni_exec ib-host-local ADD other /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=x"
	assert_json '[.code,.details]' '[7,"CNI_ARGS IB_IP_INDEX is x; it must be an integer from 0 to 4294967295 (the address that many places after the range'"'"'s first one)"]'
	assert_eq "$before" "$(store_dump "$T/ix/ix")" "refusals changed nothing"
	cni_exec ib-host-local DEL r5 /proc/self/ns/net net1 "$conf" "IB_IP_INDEX=5"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e "$T/ix/ix/10.60.1.5" ] && fail "DEL left the lease"
	true
}

# dranet's webhook provider (dra.md §5, cmd/webhook-whereabouts): the IPAM
# plugin exec'ed directly at NodePrepareResources, before any pod exists:
# the webhook's own environment first, CNI_NETNS=/dev/null, the claim UID as
# container ID, the device name as ifname, and the profile file verbatim on
# stdin (no top-level "type", cniVersion 0.3.0). kubelet retries
# NodePrepareResources, and the provider must answer a retry with the same
# result without leasing more.
DRANET_UID=5d3c8f0e-7a41-4b8e-9c2d-1f6a0b9e4c37
DRANET_PROFILE='{
  "cniVersion": "0.3.0",
  "name": "dranet-rdma",
  "ipam": {
    "type": "ib-host-local",
    "ranges": [[{"subnet": "10.90.0.0/24"}], [{"subnet": "fd00:90::/64"}]],
    "routes": [{"dst": "10.91.0.0/16"}]
  }
}'

dranet_exec() { # CMD CLAIM-UID IFNAME
	OUT=$(env -i PATH="$PATH" HOME=/root HOSTNAME=dranet-webhook-7c9f \
		KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
		CNI_COMMAND="$1" CNI_CONTAINERID="$2" CNI_NETNS=/dev/null CNI_IFNAME="$3" \
		CNI_PATH="$BIN" \
		CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-whereabouts;K8S_POD_INFRA_CONTAINER_ID=$2" \
		${IBCNI_WRAP:-} "$BIN/ib-host-local" <<<"$DRANET_PROFILE" 2>"$T/stderr")
	RC=$?
	ERR=$(cat "$T/stderr")
}

test_dranet_webhook_retried_add() {
	local dir=/var/lib/cni/networks/dranet-rdma first before want
	want='{"cniVersion":"0.3.0","ips":[{"version":"4","address":"10.90.0.2/24","gateway":"10.90.0.1"},{"version":"6","address":"fd00:90::2/64","gateway":"fd00:90::1"}],"routes":[{"dst":"10.91.0.0/16"}],"dns":{}}'
	dranet_exec ADD "$DRANET_UID" 0000-8a-00-0
	assert_eq 0 "$RC" "ADD with CNI_NETNS=/dev/null ($OUT $ERR)"
	assert_eq "$want" "$(jq -c . <<<"$OUT")" "ADD result"
	assert_file "$dir/10.90.0.2" "$DRANET_UID"$'\r\n0000-8a-00-0'
	assert_file "$dir/fd00:90::2" "$DRANET_UID"$'\r\n0000-8a-00-0'
	assert_file "$dir/last_reserved_ip.0" 10.90.0.2
	assert_file "$dir/last_reserved_ip.1" fd00:90::2
	first=$OUT before=$(store_dump "$dir")
	# kubelet retries NodePrepareResources: the same answer, byte for byte,
	# and nothing more leased (host-local fails here: "duplicate allocation").
	dranet_exec ADD "$DRANET_UID" 0000-8a-00-0
	assert_eq 0 "$RC" "retried ADD ($OUT)"
	assert_eq "$first" "$OUT" "retried ADD answers the same lease"
	assert_eq "$before" "$(store_dump "$dir")" "the retry leased nothing"
	# The same claim's second device is another attachment.
	dranet_exec ADD "$DRANET_UID" dra1a2b3c4d
	assert_json '[.ips[].address]' '["10.90.0.3/24","fd00:90::3/64"]'
	# Unprepare: DEL with CNI_NETNS=/dev/null releases it; a second DEL is fine.
	dranet_exec DEL "$DRANET_UID" 0000-8a-00-0
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_eq "" "$OUT" "DEL prints nothing"
	[ -e "$dir/10.90.0.2" ] && fail "DEL left 10.90.0.2"
	[ -e "$dir/fd00:90::2" ] && fail "DEL left fd00:90::2"
	assert_file "$dir/10.90.0.3" "$DRANET_UID"$'\r\ndra1a2b3c4d'
	dranet_exec DEL "$DRANET_UID" 0000-8a-00-0
	assert_eq 0 "$RC" "second DEL ($OUT)"
	true
}
