# SPDX-License-Identifier: Apache-2.0
# The production binaries against hostile input: configs written by namespace
# users, planted files, a pod's namespace that is the host's. Each attack is
# one that worked before the runtime was hardened.

hostile_conf() { # EXTRA-KEYS [DEVICE]: an ib-sriov config on the simulated node
	printf '{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","deviceID":"%s"%s}' \
		"${2:-$(sim_vf_addr 0 1)}" "${1:+,$1}"
}

# A root-owned 0700 /var/log/ibcni, private to this test.
log_dir() {
	mkdir -p /var/log/ibcni && mount -t tmpfs -o mode=0700 ibcni-log /var/log/ibcni
}

assert_utf8_json() { # what: $OUT is valid UTF-8 and JSON
	iconv -f UTF-8 -t UTF-8 <<<"$OUT" >/dev/null 2>&1 || fail "$1: stdout is not UTF-8"
	jq -e . <<<"$OUT" >/dev/null 2>&1 || fail "$1: stdout is not JSON: $OUT"
}

test_logfile_cannot_append_a_key() {
	local keys=$T/authorized_keys key='ssh-ed25519 AAAAC3Nz owner@host' evil
	log_dir
	printf '%s\n' "$key" >"$keys"
	chmod 600 "$keys"
	ln -s "$keys" /var/log/ibcni/rdma-net-link.log
	evil='x\nssh-ed25519 AAAAattacker evil@pod\n'
	for f in "$keys" /var/log/ibcni/rdma-net-link.log "/var/log/ibcni/../..$keys" rdma-net-link.log; do
		cni_exec ib-sriov DEL ctr1 "" net1 "$(hostile_conf "\"logLevel\":\"$evil\",\"logFile\":\"$f\"")"
		assert_eq 0 "$RC" "DEL with logFile $f"
		assert_file "$keys" "$key"
		assert_match "logFile \"$f\" ignored" "$ERR" "ignored, said on stderr"
		[[ $ERR != *$'\nssh-ed25519'* ]] || fail "a forged line on stderr: $ERR"
		assert_match 'logLevel "x\\nssh-ed25519 AAAAattacker evil@pod\\n" is not' "$ERR" "escaped on stderr"
	done
	# Accepted: a file in the directory; the injected text stays inside one line.
	cni_exec ib-sriov DEL ctr1 "" net1 "$(hostile_conf "\"logLevel\":\"$evil\",\"logFile\":\"rdma-net-ok.log\"")"
	assert_eq "" "$ERR" "stderr with an accepted logFile"
	grep -q '^ssh' /var/log/ibcni/rdma-net-ok.log && fail "a line of the log starts with the key"
	[ "$(grep -cv '^20[0-9-]*T[0-9:]*Z \[' /var/log/ibcni/rdma-net-ok.log)" = 0 ] ||
		fail "a log line does not start with a timestamp: $(cat /var/log/ibcni/rdma-net-ok.log)"
	assert_mode /var/log/ibcni/rdma-net-ok.log 600
}

test_logfile_planted_files_refused_without_hanging() {
	local f
	log_dir
	mkfifo /var/log/ibcni/rdma-net-fifo.log
	mkdir /var/log/ibcni/rdma-net-dir.log
	mknod /var/log/ibcni/rdma-net-zero.log c 1 5
	touch /var/log/ibcni/rdma-net-shared.log && chmod 666 /var/log/ibcni/rdma-net-shared.log
	echo secret >/var/log/ibcni/other && ln /var/log/ibcni/other /var/log/ibcni/rdma-net-hard.log
	for f in rdma-net-fifo.log rdma-net-dir.log rdma-net-zero.log rdma-net-shared.log rdma-net-hard.log /proc/self/fd/1; do
		OUT=$(timeout 10 env -i CNI_COMMAND=DEL CNI_CONTAINERID=c CNI_IFNAME=net1 CNI_PATH=/x \
			"$BIN/ib-sriov" 2>"$T/err" <<<"$(hostile_conf "\"logFile\":\"$f\"")")
		RC=$?
		assert_eq 0 "$RC" "DEL with logFile $f (124 is a hang)"
		assert_match "logFile \"$f\" ignored" "$(cat "$T/err")" "$f ignored, said on stderr"
	done
	assert_file /var/log/ibcni/other secret
	assert_eq "" "$(cat /var/log/ibcni/rdma-net-shared.log)" "group/other-writable file written"
}

test_log_one_write_per_line() {
	local lines writes
	log_dir
	command -v strace >/dev/null || { fail "strace missing (make deps installs it)"; return; }
	OUT=$(env -i CNI_COMMAND=DEL CNI_CONTAINERID=c CNI_IFNAME=net1 CNI_PATH=/x \
		strace -qq -f -y -e trace=write -s 0 -o "$T/strace" "$BIN/ib-sriov" 2>/dev/null \
		<<<"$(hostile_conf '"logLevel":"debug","logFile":"rdma-net-w.log"')")
	lines=$(wc -l </var/log/ibcni/rdma-net-w.log)
	writes=$(grep -c '^[0-9]* *write([0-9]*</var/log/ibcni/rdma-net-w.log>' "$T/strace")
	[ "$lines" -ge 2 ] || fail "want several log lines, got $lines"
	assert_eq "$lines" "$writes" "write() calls for $lines log lines"
}

test_netns_planted_or_own_refused() {
	local f before
	sim_node 1 2 eth || { fail "sim_node"; return; }
	mkfifo "$T/fifo"
	mkdir "$T/dir"
	before=$(ip -j link show vf0_1 | jq -c '.[0] | [.ifname, .address, .mtu]')
	for f in "$T/fifo" /dev/zero "$T/dir" /proc/self/ns/uts; do
		OUT=$(timeout 10 env -i CNI_COMMAND=ADD CNI_CONTAINERID=c CNI_NETNS="$f" CNI_IFNAME=net1 \
			CNI_PATH="$BIN" "$BIN/ib-sriov" 2>/dev/null <<<"$(hostile_conf)")
		assert_json '[.code,.msg]' '[4,"CNI_NETNS is not a network namespace"]'
	done
	# The plugin's own namespace, by any name: the VF would "move" into
	# the host and be configured there as the pod's interface.
	for f in /proc/self/ns/net /proc/thread-self/ns/net "/proc/$$/ns/net"; do
		cni_exec ib-sriov ADD c "$f" net1 "$(hostile_conf)"
		assert_json '[.code,.msg]' '[4,"CNI_NETNS is the host network namespace"]'
	done
	assert_link host vf0_1 '[.ifname,.address,.mtu]' "$before"
	assert_no_link host net1
	[ -z "$(ls /var/lib/cni/ib-sriov 2>/dev/null)" ] || fail "a record was left"
}

test_escaped_nul_refused_naming_the_key() {
	sim_node 1 2 eth || { fail "sim_node"; return; }
	pod_ns pod1
	cni_exec ib-sriov ADD c pod1 net1 "$(hostile_conf '"spoofchk":"on\u0000"')"
	assert_json '[.code,.details]' '[7,"\"spoofchk\" contains a NUL character (\\u0000)"]'
	cni_exec ib-sriov ADD c pod1 net1 \
		'{"cniVersion":"1.0.0\u0000","name":"rdma-net","type":"ib-sriov","deviceID":"0000:03:01.1"}'
	assert_json '[.code,.details]' '[7,"\"cniVersion\" contains a NUL character (\\u0000)"]'
	cni_exec ib-sriov ADD c pod1 net1 "$(hostile_conf '"mac":"02:00:00:00:00:01\u0000x"')"
	assert_json '.details' '"\"mac\" contains a NUL character (\\u0000)"'
	cni_exec ib-sriov ADD c pod1 net1 "$(hostile_conf "" '0000:03:01.1\u0000')"
	assert_json '.details' '"\"deviceID\" contains a NUL character (\\u0000)"'
	cni_exec ib-host-local ADD c pod1 net1 \
		'{"cniVersion":"1.0.0","name":"n","ipam":{"type":"ib-host-local","dataDir":"/tmp\u0000","subnet":"10.9.0.0/24"}}'
	assert_json '.details' '"\"ipam.dataDir\" contains a NUL character (\\u0000)"'
	[ -z "$(ip -n pod1 -j link show | jq -r '.[].ifname' | grep -v '^lo$')" ] || fail "pod changed"
}

test_invalid_utf8_never_printed() {
	cni_exec ib-sriov ADD c /run/netns/x net1 $'{"cniVersion":"1.0.0","name":"n\xff"}'
	assert_json '[.code,.details]' $'[7,"n\xef\xbf\xbd"]'
	assert_utf8_json "bad name"
	cni_exec ib-sriov ADD c /run/netns/x net1 $'{"cniVersion":"1.0.0","name":"n","mac":"\xc3"}'
	assert_json '[.code,.details]' '[6,"invalid UTF-8 at byte 40"]'
	assert_utf8_json "bad byte"
	cni_exec ib-sriov ADD c /run/netns/x $'e\e]0;x\a' "$(hostile_conf)"
	assert_json '[.code,.msg,.details]' '[4,"interface name contains control characters","CNI_IFNAME=e\u001b]0;x\u0007"]'
	assert_utf8_json "ESC in CNI_IFNAME"
	cni_exec ib-sriov ADD c /run/netns/x $'e\xff' "$(hostile_conf)"
	assert_json '[.code,.msg]' '[4,"interface name is not valid UTF-8"]'
	assert_utf8_json "invalid CNI_IFNAME"
}

test_relative_cni_path_not_searched() {
	local p conf='"ipam":{"type":"evil-ipam"}'
	mkdir -p "$T/cwd"
	printf '#!/bin/sh\ntouch %s/ran\n' "$T" >"$T/cwd/evil-ipam"
	chmod 755 "$T/cwd/evil-ipam"
	cd "$T/cwd" || return
	for p in . ./ : ":.:" ".:$BIN" "..:cwd"; do
		CNI_PATH_OVERRIDE=$p cni_exec ib-sriov DEL c "" net1 "$(hostile_conf "$conf")"
		[ -e "$T/ran" ] && fail "CNI_PATH \"$p\": a delegate ran from the working directory"
		rm -f "$T/ran"
	done
	cd "$T" || return
	CNI_PATH_OVERRIDE=cwd cni_exec ib-sriov DEL c "" net1 "$(hostile_conf "$conf")"
	[ -e "$T/ran" ] && fail "CNI_PATH cwd: a delegate ran from a relative directory"
	assert_match 'CNI_PATH entry "cwd" is not absolute; skipped' "$ERR" "relative entry logged"
	cd / || return
}

test_route_fields_range_checked() {
	local r field val max
	for r in scope:256:255 table:-1:2147483647 table:4294967296:2147483647 mtu:-1:65535 \
		advmss:-1:65535 priority:-1:2147483647; do
		IFS=: read -r field val max <<<"$r"
		cni_exec ib-host-local ADD c /run/netns/x net1 \
			"{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"ipam\":{\"type\":\"ib-host-local\",\"dataDir\":\"$T/l\",\"subnet\":\"10.9.0.0/24\",\"routes\":[{\"dst\":\"0.0.0.0/0\",\"$field\":$val}]}}"
		assert_json '[.code,.details]' "[7,\"\\\"routes[0].$field\\\" is $val; it must be from 0 to $max\"]"
	done
	[ -z "$(ls "$T/l/n" 2>/dev/null | grep -v lock)" ] || fail "a lease was taken: $(ls "$T/l/n")"
}
