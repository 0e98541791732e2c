# SPDX-License-Identifier: Apache-2.0
# The node's own configuration (/etc/ibcni/ibcni.conf, a tmpfs of the test's
# mount namespace) and what it confines: dataDir (T1), logFile (T8), waits
# (T10). resolvConf (T11) is in test-ipam.sh's test_hostile_resolv_conf.

. "$(dirname "${BASH_SOURCE[0]}")/sriov-lib.sh"

hl_conf() { # NAME DATADIR [EXTRA-TOP-KEYS]
	printf '{"cniVersion":"1.0.0","name":"%s","type":"ib-host-local"%s,"ipam":{"type":"ib-host-local","dataDir":"%s","subnet":"10.9.0.0/24"}}' \
		"$1" "${3:+,$3}" "$2"
}

hl() { # CONF [COMMAND] [CONTAINERID]
	cni_exec ib-host-local "${2:-ADD}" "${3:-c1}" /proc/self/ns/net net1 "$1"
}

test_broken_node_conf_fails_add_not_del() {
	local conf cmd bad
	conf=$(hl_conf n /var/lib/cni/networks | jq -c '.cniVersion="1.1.0"')
	for bad in '{"maxWaitMs":"5"}|"maxWaitMs\" is \"5\"; it must be an integer from 0 to 600000' \
		'{"allowedDataDir":["/x"]}|unknown key \"allowedDataDir\"' \
		'{"deviceCheck":"on"}|"deviceCheck\" is \"on\"; it must be \"kubelet\" or \"off\"' \
		'{"softRdmaByMac":"yes"}|"softRdmaByMac\" is \"yes\"; it must be true' \
		'{"allowedDataDirs":["relative"]}|"allowedDataDirs\"\[0\] is \"relative\"' \
		'not json|not JSON'; do
		node_conf "${bad%%|*}"
		for cmd in ADD CHECK STATUS; do
			hl "$conf" $cmd
			assert_eq 1 "$RC" "$cmd with ${bad%%|*}"
			assert_json '[.code,.msg]' '[7,"invalid node configuration"]'
			assert_match "^/etc/ibcni/ibcni.conf: .*${bad#*|}" "$(jq -r .details <<<"$OUT")" \
				"$cmd names the file and the key"
		done
		# DEL and GC go on with the defaults, the error logged.
		for cmd in DEL GC; do
			hl "$conf" $cmd
			assert_eq 0 "$RC" "$cmd with ${bad%%|*} ($OUT)"
			assert_match "invalid node configuration: /etc/ibcni/ibcni.conf: .*${bad#*|}.*; $cmd goes on with the defaults" \
				"$ERR" "$cmd logs the file and the key"
		done
	done
	[ -e /var/lib/cni/networks ] && fail "a broken node config still created state"
	# Not the admin's file: group-writable, a link, another owner.
	node_conf '{}'
	chmod 0664 /etc/ibcni/ibcni.conf
	hl "$conf"
	assert_match "must be owned by uid 0 and not group- or other-writable" \
		"$(jq -r .details <<<"$OUT")" "group-writable"
	chmod 0644 /etc/ibcni/ibcni.conf && chown nobody /etc/ibcni/ibcni.conf
	hl "$conf"
	assert_match "owner [1-9]" "$(jq -r .details <<<"$OUT")" "another owner"
	mv /etc/ibcni/ibcni.conf /etc/ibcni/real && ln -s real /etc/ibcni/ibcni.conf
	hl "$conf"
	assert_match "is a symbolic link" "$(jq -r .details <<<"$OUT")" "a link"
	# VERSION needs no node config; an absent one is the defaults.
	cni_exec ib-host-local VERSION "" "" "" '{"cniVersion":"1.0.0"}'
	assert_eq 0 "$RC" "VERSION with a broken node config"
	rm -f /etc/ibcni/ibcni.conf /etc/ibcni/real
	hl "$conf"
	assert_eq 0 "$RC" "ADD with the defaults ($OUT)"
}

# R1b: directories outside allowedDataDirs: nothing created, chmod'ed or indexed.
test_data_dir_outside_allowed() {
	local V=/var/lib/cni/victim
	mkdir -p $V/var/lib/dpkg $V/etc/sudoers.d
	touch $V/var/lib/dpkg/lock $V/var/lib/dpkg/status
	chmod 640 $V/var/lib/dpkg/lock; chmod 750 $V/etc/sudoers.d
	hl "$(hl_conf dpkg $V/var/lib)" DEL
	assert_eq 0 "$RC" "DEL of a dataDir the node does not allow lets the pod go ($OUT)"
	assert_mode $V/var/lib/dpkg/lock 640
	[ -e $V/var/lib/.ib-host-local ] && fail "DEL created an index"
	assert_match "not allowed on this node" "$ERR" "DEL warns"
	hl "$(hl_conf sudoers.d $V/etc)"
	assert_json '[.code,.msg]' '[7,"ipam.dataDir not allowed"]'
	assert_match "^ipam.dataDir $V/etc is not an allowed data directory of this node or below one \(/var/lib/cni/networks, $T\); .*\"allowedDataDirs\" in /etc/ibcni/ibcni.conf" \
		"$(jq -r .details <<<"$OUT")" "names dataDir and the node key"
	assert_eq "" "$(ls -A $V/etc/sudoers.d)" "nothing leased in sudoers.d"
	hl "$(hl_conf d $V/etc/new/tree)"
	assert_json .code 7
	[ -e $V/etc/new ] && fail "a new tree was created"
	# ".." cannot climb out of an allowed directory.
	hl "$(hl_conf d /var/lib/cni/networks/../victim/etc)"
	assert_json .code 7
	assert_match "without \".\" or \"..\" components" "$(jq -r .details <<<"$OUT")" "dot-dot"
}

test_data_dir_allowed_root_made_never_its_parent() {
	node_conf '{"allowedDataDirs":["/var/lib/cni/absent/root","/var/lib/cni/made"]}'
	hl "$(hl_conf n /var/lib/cni/absent/root/sub)"
	assert_json '[.code,.msg]' '[7,"invalid ipam.dataDir"]'
	assert_match "the parent of /var/lib/cni/absent/root.*does not exist" \
		"$(jq -r .details <<<"$OUT")" "names the missing parent"
	[ -e /var/lib/cni/absent ] && fail "the allowed root's parent was created"
	hl "$(hl_conf n /var/lib/cni/made/a/b)"
	assert_eq 0 "$RC" "ADD under an allowed root that did not exist ($OUT)"
	assert_mode /var/lib/cni/made 700
	assert_mode /var/lib/cni/made/a/b/n 700
	assert_file /var/lib/cni/made/a/b/n/10.9.0.2 $'c1\r\nnet1'
	# The default is no longer allowed once the list names others.
	hl "$(hl_conf n /var/lib/cni/networks)"
	assert_json .code 7
	# A lease directory holding another program's lock: used, never chmod'ed.
	mkdir -p /var/lib/cni/made/x/n && touch /var/lib/cni/made/x/n/lock
	chmod 644 /var/lib/cni/made/x/n/lock && chmod 755 /var/lib/cni/made/x/n
	hl "$(hl_conf n /var/lib/cni/made/x)" DEL
	assert_eq 0 "$RC" "DEL ($OUT)"
	assert_mode /var/lib/cni/made/x/n/lock 644
	[ -e /var/lib/cni/made/x/.ib-host-local ] && fail "DEL created the index"
	hl "$(hl_conf n /var/lib/cni/made/x)"
	assert_eq 0 "$RC" "ADD ($OUT)"
	assert_mode /var/lib/cni/made/x/n/lock 644
	[ -d /var/lib/cni/made/x/.ib-host-local/n/owners ] || fail "ADD made no index"
}

# R1a: pseudo-filesystems refused by statfs magic, even where the node allows the path.
test_data_dir_pseudo_filesystems() {
	local tr=$T/tr
	mkdir -p $tr
	if mount -t tracefs nodev $tr 2>/dev/null; then
		node_conf '{"allowedDataDirs":["'$tr'/instances"]}'
		hl "$(hl_conf ibcni-r1a $tr/instances)"
		assert_json '[.code,.msg]' '[7,"invalid ipam.dataDir"]'
		assert_match "on a tracefs filesystem" "$(jq -r .details <<<"$OUT")" "tracefs named"
		if [ -e $tr/instances/ibcni-r1a ]; then
			fail "a trace instance was created"
			rmdir $tr/instances/ibcni-r1a
		fi
		umount $tr
	else
		echo "    (no tracefs here: proc and sysfs only)"
	fi
	node_conf '{"allowedDataDirs":["/proc/sys","/sys/kernel"]}'
	hl "$(hl_conf n /proc/sys/ibcni)"
	assert_match "on a proc filesystem" "$(jq -r .details <<<"$OUT")" "proc named"
	hl "$(hl_conf n /sys/kernel)"
	assert_match "on a sysfs filesystem" "$(jq -r .details <<<"$OUT")" "sysfs named"
	assert_json .code 7
}

# ib-sriov's built-in IPAM runs the same checks, before the VF moves.
test_builtin_ipam_data_dir_confined() {
	local before conf
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(sriov_conf ib-host-local | jq -c '.ipam.dataDir="/var/lib/cni/elsewhere"')
	before=$(host_state)
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_json '[.code,.msg]' '[7,"ipam.dataDir not allowed"]'
	assert_host_unchanged "$before" "refused dataDir"
	assert_no_link pod1 net1
	[ -e /var/lib/cni/elsewhere ] && fail "the refused dataDir was created"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
}

# R7: one network cannot write into another's log, nor name files with escapes;
# such a logFile is ignored (one warning, lines to stderr), never a failure.
test_log_file_is_the_networks_own() {
	local esc
	mkdir -p /var/log && mount -t tmpfs ibcni-log /var/log
	hl "$(hl_conf tenantB /var/lib/cni/networks '"logFile":"tenantB.log"')" ADD c2
	assert_eq 0 "$RC" "tenantB's own log ($OUT)"
	hl "$(hl_conf forged /var/lib/cni/networks '"logLevel":"debug","logFile":"tenantB.log"')" ADD c3
	assert_eq 0 "$RC" "ADD with another network's logFile ($OUT)"
	assert_match 'logFile "tenantB.log" ignored \(not this network.s file in /var/log/ibcni/\); logging to stderr: a logFile must be "forged"' \
		"$ERR" "the warning names the rule"
	assert_match 'ib-host-local ADD c3/net1: network forged' "$ERR" "forged's lines on stderr"
	grep -q forged /var/log/ibcni/tenantB.log && fail "forged's lines in tenantB.log"
	esc='\u001b[2J\u001b[31mPWNED\n'
	hl "$(hl_conf a /var/lib/cni/networks "\"logFile\":\"$esc\"")"
	assert_eq 0 "$RC" "ADD with escapes in logFile ($OUT)"
	assert_match 'logFile "\\x1b\[2J\\x1b\[31mPWNED\\n" ignored' "$ERR" "escaped in the warning"
	hl "$(hl_conf a /var/lib/cni/networks '"logFile":"a-debug.log"')" ADD c4
	assert_eq 0 "$RC" "a-debug.log is network a's ($OUT)"
	assert_eq "a-debug.log tenantB.log" "$(ls /var/log/ibcni | tr '\n' ' ' | sed 's/ $//')" "log files"
	hl "$(hl_conf forged /var/lib/cni/networks '"logFile":"tenantB.log"')" DEL c3
	assert_eq 0 "$RC" "DEL with an ignored logFile ($OUT)"
	assert_match 'logFile "tenantB.log" ignored' "$ERR" "DEL says so on stderr"
}

# What the SR-IOV Network Operator renders from a SriovNetwork's logFile (a
# path anywhere, the Go sriov-cni writes it), another network's file, `..`,
# a link under /var/log/ibcni, a NUL: every verb of ib-sriov, rdma-ns (its
# args.cni.debug too) and ib-host-local goes on, one warning on stderr names logFile, the path and
# where the lines go; nothing is made there, nothing outside /var/log/ibcni.
test_log_file_never_fails_a_verb() {
	local f conf mac before verb n want
	mkdir -p /var/log && mount -t tmpfs ibcni-log /var/log
	mkdir -p -m 0700 /var/log/ibcni "$T/elsewhere"
	echo secret >"$T/elsewhere/target"
	ln -s "$T/elsewhere/target" /var/log/ibcni/rdma-net-link.log
	sim_node 1 2 ib || { fail "sim_node"; return; }
	pod_ns pod1
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	before=$(find /var/log "$T/elsewhere" -printf '%p %y %s\n' | sort)
	for f in /var/log/sriov-cni.log /var/log/sriov-network.log /var/log/ibcni/other-net.log \
		../sriov-cni.log /var/log/ibcni/../sriov-cni.log "$T/elsewhere/rdma-net.log" rdma-net-link.log \
		'rdma-net.log\u0000/../../sriov-cni.log'; do
		conf=$(sriov_conf ib-host-local "\"logLevel\":\"info\",\"logFile\":\"$f\"")
		for verb in ADD CHECK STATUS GC DEL; do
			cni_exec ib-sriov $verb ctr1 pod1 net1 "$conf"
			assert_eq 0 "$RC" "ib-sriov $verb with logFile $f ($OUT)"
			n=$(grep -c 'logFile .*ignored' <<<"$ERR")
			assert_eq 1 "$n" "ib-sriov $verb with logFile $f: one warning ($ERR)"
			case $f in
			*u0000*) want='logFile ignored \(it contains a NUL character\); logging to stderr' ;;
			*) want="logFile \"$f\" ignored \(.*\); logging to stderr" ;;
			esac
			assert_match "$want" "$ERR" "ib-sriov $verb: the warning names the key, the path, stderr"
			[ $verb = ADD ] && assert_match '^"10\.56\.0\.[0-9]+/24"$' "$(jq -c '.ips[0].address' <<<"$OUT")" "ADD's address"
		done
		for verb in GC DEL; do # STATUS needs the RDMA subsystem
			cni_exec rdma-ns $verb ctr1 pod1 net1 "$(printf '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns","deviceID":"%s","args":{"cni":{"debug":true}},"logFile":"%s"}' "$(sim_vf_addr 0 1)" "$f")"
			assert_eq 0 "$RC" "rdma-ns $verb with logFile $f ($OUT)"
			assert_eq 1 "$(grep -c 'logFile .*ignored' <<<"$ERR")" "rdma-ns $verb: one warning ($ERR)"
		done
		cni_exec ib-host-local ADD c1 /proc/self/ns/net net1 "$(hl_conf n "$T/hl" "\"logFile\":\"$f\"")"
		assert_eq 0 "$RC" "ib-host-local ADD with logFile $f ($OUT)"
		cni_exec ib-host-local DEL c1 /proc/self/ns/net net1 "$(hl_conf n "$T/hl" "\"logFile\":\"$f\"")"
		assert_eq 0 "$RC" "ib-host-local DEL with logFile $f ($OUT)"
		assert_eq "$before" "$(find /var/log "$T/elsewhere" -printf '%p %y %s\n' | sort)" \
			"files under /var/log and beside the target after logFile $f"
		vf_as_found vf0_1 "$mac" 1500
	done
	assert_file "$T/elsewhere/target" secret
	# An unknown logLevel: info, with a warning, as the Go plugins do.
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$(sriov_conf ib-host-local '"logLevel":"verbose"')"
	assert_eq 0 "$RC" "ADD with logLevel verbose ($OUT)"
	assert_match 'logLevel "verbose" is not panic, error, warning, info or debug; using info' "$ERR" \
		"the logLevel warning"
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$(sriov_conf ib-host-local '"logLevel":"verbose"')"
	assert_eq 0 "$RC" "DEL with logLevel verbose ($OUT)"
}

# T10: no NAD wait beyond the node's maxWaitMs, refused before anything is probed.
test_waits_capped_by_the_node() {
	local conf
	conf=$(sriov_conf "" '"netdevWaitMs":60000' 1.1.0 0000:99:00.1)
	cni_exec ib-sriov ADD ctr1 /proc/self/ns/net net1 "$conf"
	assert_json '[.code,.details]' '[7,"\"netdevWaitMs\" is 60000; this node allows waits of at most 30000 ms (\"maxWaitMs\" in /etc/ibcni/ibcni.conf)"]'
	conf=$(sriov_conf "" '"pkeyWaitMs":30001' 1.1.0 0000:99:00.1)
	cni_exec ib-sriov ADD ctr1 /proc/self/ns/net net1 "$conf"
	assert_json .code 7
	# The admin widens it: the same request gets past the config (no such device here).
	node_conf '{"maxWaitMs":60000}'
	conf=$(sriov_conf "" '"netdevWaitMs":60000' 1.1.0 0000:99:00.1)
	cni_exec ib-sriov ADD ctr1 /proc/self/ns/net net1 "$conf"
	[ "$(jq -r .code <<<"$OUT")" = 7 ] && fail "60000 still refused: $OUT"
}

# "ranges": "node": each node's range sets for the network come from ibcni.conf.
NODE_RANGES='"ranges":{"ib0":[[{"subnet":"10.56.0.0/16","rangeStart":"10.56.3.1","rangeEnd":"10.56.3.254","gateway":"10.56.0.1"}],[{"subnet":"fd00:56::/64","rangeStart":"fd00:56::3:0","rangeEnd":"fd00:56::3:ffff"}]]}'

node_ranges_conf() { # NAME [RANGES]
	printf '{"cniVersion":"1.1.0","name":"%s","type":"x","ipam":{"type":"ib-host-local","dataDir":"%s","ranges":%s}}' \
		"$1" "$T" "${2:-\"node\"}"
}

test_ranges_node_from_the_node_conf() {
	local conf node
	node_conf '{"allowedDataDirs":["'"$T"'"],'"$NODE_RANGES"'}'
	conf=$(node_ranges_conf ib0)
	hl "$conf" ADD c1
	assert_eq 0 "$RC" "ADD ($OUT)"
	assert_json '[.ips[]|[.address,.gateway]]' '[["10.56.3.1/16","10.56.0.1"],["fd00:56::3:0/64","fd00:56::1"]]'
	assert_file "$T/ib0/10.56.3.1" $'c1\r\nnet1'
	assert_file "$T/ib0/fd00:56::3:0" $'c1\r\nnet1'
	assert_file "$T/ib0/last_reserved_ip.0" "10.56.3.1"
	hl "$conf" ADD c2
	assert_json '[.ips[].address]' '["10.56.3.2/16","fd00:56::3:1/64"]'
	hl "${conf%\}},\"prevResult\":$OUT}" CHECK c2
	assert_eq 0 "$RC" "CHECK ($OUT)"
	hl "$conf" DEL c1
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e "$T/ib0/10.56.3.1" ] && fail "DEL left the lease"
	# Mixed: the node's sets where "node" stands, the NAD's own after them.
	hl "$(node_ranges_conf ib0 '["node",[{"subnet":"10.99.0.0/24"}]]')" ADD c3
	assert_json '[.ips[].address]' '["10.56.3.3/16","fd00:56::3:2/64","10.99.0.2/24"]'
	# GC keeps c2 and c3, as for any range.
	hl "${conf%\}},\"cni.dev/valid-attachments\":[{\"containerID\":\"c2\",\"ifname\":\"net1\"}]}" GC
	assert_eq 0 "$RC" "GC ($OUT)"
	assert_eq "10.56.3.2 fd00:56::3:1" "$(cd "$T/ib0" && ls | grep -v -e lock -e last_ | sort | tr '\n' ' ' | sed 's/ $//')" "GC released c3 only"
}

# The installer writes the node's ranges as the drop-in ibcni.conf.d/ranges.conf
# (a previous release, which refuses keys it does not know in ibcni.conf,
# never reads it): the plugins take them from there, and a key in both files
# is refused naming both.
test_ranges_node_from_the_dropin() {
	local conf
	node_conf '{"allowedDataDirs":["'"$T"'"]}'
	node_dropin ranges.conf '{'"$NODE_RANGES"'}'
	conf=$(node_ranges_conf ib0)
	hl "$conf" ADD c1
	assert_eq 0 "$RC" "ADD ($OUT)"
	assert_json '[.ips[].address]' '["10.56.3.1/16","fd00:56::3:0/64"]'
	assert_file "$T/ib0/10.56.3.1" $'c1\r\nnet1'
	hl "$conf" DEL c1
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e "$T/ib0/10.56.3.1" ] && fail "DEL left the lease"
	node_conf '{"allowedDataDirs":["'"$T"'"],'"$NODE_RANGES"'}'
	node_dropin ranges.conf '{'"$NODE_RANGES"'}'
	hl "$conf" ADD c2
	assert_eq '{"cniVersion":"1.1.0","code":7,"msg":"invalid node configuration","details":"/etc/ibcni/ibcni.conf.d/ranges.conf: \"ranges\" is set in /etc/ibcni/ibcni.conf already; set each key in one file"}' \
		"$(jq -c . <<<"$OUT")" "a key in two files"
	[ -n "$(ls "$T/ib0" | grep -v -e lock -e last_)" ] && fail "a refused ADD leased"
	node_conf ''
}

test_ranges_node_without_an_entry() {
	local conf node
	node=$(uname -n)
	node_conf '{"allowedDataDirs":["'"$T"'"],'"$NODE_RANGES"'}'
	conf=$(node_ranges_conf storage)
	hl "$conf" ADD c1
	assert_eq 1 "$RC" "ADD without an entry"
	assert_eq '{"cniVersion":"1.1.0","code":7,"msg":"no ranges for this node","details":"ipam.ranges is \"node\" but node '"$node"' has no range sets for network \"storage\" in /etc/ibcni/ibcni.conf.d/ranges.conf or /etc/ibcni/ibcni.conf (\"ranges\".\"storage\"); add the network to the node'"'"'s entry (key '"$node"') of the installer'"'"'s ranges ConfigMap and rerun the installer (--node-ranges-dir, --node-name)"}' \
		"$(jq -c . <<<"$OUT")" "the error"
	[ -e "$T/storage" ] && fail "a refused ADD created the lease directory"
	hl "$conf" DEL c1
	assert_eq 0 "$RC" "DEL goes by owner ($OUT)"
	# A bad entry is the admin's: the file and the key path, for every verb.
	node_conf '{"ranges":{"ib0":[[{"subnet":"10.56.0.0/16","rangeStart":"10.57.0.1"}]]}}'
	hl "$(node_ranges_conf ib0)" ADD c1
	assert_eq '{"cniVersion":"1.1.0","code":7,"msg":"invalid node configuration","details":"/etc/ibcni/ibcni.conf: \"ranges.ib0\": invalid range set 0: RangeStart 10.57.0.1 not in network 10.56.0.0/16 (ranges.ib0[0][0])"}' \
		"$(jq -c . <<<"$OUT")" "ADD: bad entry"
	hl "$(node_ranges_conf ib0)" DEL c1
	assert_eq 0 "$RC" "DEL with a bad entry ($OUT)"
	assert_match "RangeStart 10.57.0.1 not in network" "$ERR" "DEL logs the bad entry"
	node_conf '{"ranges":{"ib0":[]}}'
	hl "$(node_ranges_conf ib0)" ADD c1
	assert_json '.details' '"/etc/ibcni/ibcni.conf: \"ranges.ib0\" must be a list of 1 to 8 range sets [[{\"subnet\": ...}], ...], as ipam.ranges"'
}

# U4: an entry with "namespaces" is for pods of those namespaces only
# (K8S_POD_NAMESPACE of the runtime's CNI_ARGS): another namespace's ADD is
# refused, nothing leased; an entry without the list is for every namespace.
test_ranges_node_limited_by_namespace() {
	local conf leased own
	node_conf '{"allowedDataDirs":["'"$T"'"]}'
	node_dropin ranges.conf '{"ranges":{"ib0":{"namespaces":["team-a"],"ranges":[[{"subnet":"10.56.0.0/16","rangeStart":"10.56.3.1","rangeEnd":"10.56.3.254"}]]},"open":[[{"subnet":"10.58.0.0/24"}]]}}'
	conf=$(node_ranges_conf ib0)
	cni_exec ib-host-local ADD c1 /proc/self/ns/net net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=p1"
	assert_eq 0 "$RC" "team-a's ADD ($OUT)"
	assert_json '[.ips[].address]' '["10.56.3.1/16"]'
	assert_file "$T/ib0/10.56.3.1" $'c1\r\nnet1'
	hl "${conf%\}},\"prevResult\":$OUT}" CHECK c1
	assert_eq 1 "$RC" "CHECK without the namespace"
	assert_json .code 4
	leased=$(ls "$T/ib0")
	cni_exec ib-host-local ADD c2 /proc/self/ns/net net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-b;K8S_POD_NAME=p2"
	assert_eq '{"cniVersion":"1.1.0","code":7,"msg":"namespace not allowed the node'"'"'s ranges","details":"pod namespace \"team-b\" may not use the node'"'"'s ranges of network \"ib0\": they are for namespaces team-a (\"ranges\".\"ib0\".\"namespaces\" in /etc/ibcni/ibcni.conf.d/ranges.conf); use a network of the namespace'"'"'s own, or the node'"'"'s admin adds \"team-b\" to the list in the installer'"'"'s ranges ConfigMap"}' \
		"$(jq -c . <<<"$OUT")" "another namespace refused"
	assert_eq "$leased" "$(ls "$T/ib0")" "nothing leased for team-b"
	# No K8S_POD_NAMESPACE: refused too (code 4); the config cannot name one.
	hl "$(jq -c '.args={"cni":{"K8S_POD_NAMESPACE":"team-a"}}' <<<"$conf")" ADD c3
	assert_json '[.code,.msg]' '[4,"CNI_ARGS does not name the pod'"'"'s namespace"]'
	assert_eq "$leased" "$(ls "$T/ib0")" "nothing leased without a namespace"
	# The list keeps the network's name too: another namespace's NAD of that
	# name writing team-a's block out as its own ipam.ranges (same lease
	# directory) is refused as well, nothing leased.
	own=$(node_ranges_conf ib0 '[[{"subnet":"10.56.0.0/16","rangeStart":"10.56.3.1","rangeEnd":"10.56.3.254"}]]')
	cni_exec ib-host-local ADD c5 /proc/self/ns/net net1 "$own" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-b;K8S_POD_NAME=p5"
	assert_json '[.code,.msg]' '[7,"namespace not allowed the node'"'"'s ranges"]'
	assert_eq "$leased" "$(ls "$T/ib0")" "nothing leased for team-b's own ranges"
	cni_exec ib-host-local ADD c5 /proc/self/ns/net net1 "$(jq -c '.ipam={"type":"ib-host-local","dataDir":"'"$T"'","subnet":"10.56.3.0/24"}' <<<"$own")" \
		"IgnoreUnknown=1;K8S_POD_NAMESPACE=team-b;K8S_POD_NAME=p5"
	assert_json '[.code,.msg]' '[7,"namespace not allowed the node'"'"'s ranges"]'
	assert_eq "$leased" "$(ls "$T/ib0")" "nothing leased for team-b's ipam.subnet"
	# DEL goes by owner, whatever CNI_ARGS says.
	hl "$conf" DEL c1
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e "$T/ib0/10.56.3.1" ] && fail "DEL left the lease"
	# An entry without the list: every namespace, as before.
	cni_exec ib-host-local ADD c4 /proc/self/ns/net net1 "$(node_ranges_conf open)" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-b"
	assert_eq 0 "$RC" "open network ($OUT)"
	assert_json '[.ips[].address]' '["10.58.0.2/24"]'
	# Through ib-sriov's built-in ib-host-local: refused and rolled back.
	sim_node 1 2 eth
	pod_ns pod1
	conf=$(printf '{"cniVersion":"1.1.0","name":"ib0","type":"ib-sriov","deviceID":"%s","ipam":{"type":"ib-host-local","dataDir":"%s","ranges":"node"}}' \
		"$(sim_vf_addr 0 1)" "$T")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-b;K8S_POD_NAME=p"
	assert_json '[.code,.msg]' '[7,"namespace not allowed the node'"'"'s ranges"]'
	assert_no_link pod1 net1
	assert_eq "" "$(records)" "no record"
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=p"
	assert_eq 0 "$RC" "team-a through ib-sriov ($OUT)"
	assert_json '[.ips[].address]' '["10.56.3.2/16"]'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
}

# The same through ib-sriov's built-in ib-host-local: the outer load's node
# config reaches it.
test_ranges_node_builtin_in_ib_sriov() {
	local conf
	sim_node 1 2 eth
	pod_ns pod1
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"],"ranges":{"rdma-net":[[{"subnet":"10.56.0.0/16","rangeStart":"10.56.7.10","rangeEnd":"10.56.7.20"}]]}}'
	conf=$(printf '{"cniVersion":"1.1.0","name":"rdma-net","type":"ib-sriov","deviceID":"%s","logLevel":"debug","ipam":{"type":"ib-host-local","dataDir":"%s","ranges":"node"}}' \
		"$(sim_vf_addr 0 1)" "$T/leases")
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD ($OUT)"
	assert_match "ib-host-local \\(built in\\)" "$ERR" "served in-process"
	assert_json '[.ips[].address]' '["10.56.7.10/16"]'
	assert_eq '["10.56.7.10/16"]' \
		"$(ip -n pod1 -j addr show net1 | jq -c '[.[0].addr_info[]|select(.scope=="global")|"\(.local)/\(.prefixlen)"]')" "on the pod's interface"
	assert_file "$T/leases/rdma-net/10.56.7.10" $'ctr1\r\nnet1'
	cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "DEL ($OUT)"
	[ -e "$T/leases/rdma-net/10.56.7.10" ] && fail "DEL left the lease"
	# A node without an entry: ib-sriov rolls back with the IPAM's error.
	node_conf '{"allowedDataDirs":["'"$T"'"]}'
	cni_exec ib-sriov ADD ctr2 pod1 net1 "$conf"
	assert_json '[.code,.msg]' '[7,"no ranges for this node"]'
	assert_no_link pod1 net1
}

# U3: a node configuration the plugins refuse (one bad drop-in, a key in two
# files, an unreadable file) never blocks teardown. ib-sriov's DEL and GC of
# an existing attachment answer 0, the VF back, record and lease gone, the
# error logged naming the file; ADD keeps refusing (code 7 naming the file).
# A lease in a dataDir only the broken file allowed stays (the defaults never
# widen what DEL may touch), said on stderr.
break_node_conf() { # KIND: the layout of one configuration error; prints the file it names
	local d=/etc/ibcni/ibcni.conf.d i
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}'
	case $1 in
	json) printf '{"maxWaitMs":' >/etc/ibcni/ibcni.conf; echo /etc/ibcni/ibcni.conf ;;
	link) node_dropin real.conf.txt '{}'; ln -s real.conf.txt $d/x.conf; echo $d/x.conf ;;
	writable) node_dropin x.conf '{}'; chmod 0666 $d/x.conf; echo $d/x.conf ;;
	owner) node_dropin x.conf '{}'; chown nobody $d/x.conf; echo $d/x.conf ;;
	twice) node_dropin ranges.conf '{"maxWaitMs":100}'
		node_dropin x.conf '{"maxWaitMs":200}'; echo $d/x.conf ;;
	many) for i in $(seq 10 26); do node_dropin "$i.conf" '{}'; done; echo $d ;;
	socket) # opening one is ENXIO, not an I/O error
		mkdir -p -m 0755 $d
		python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' $d/x.conf
		echo $d/x.conf ;;
	esac
}

test_broken_node_conf_never_blocks_teardown() {
	local kind file conf mac gc
	sim_node 1 2 eth
	mac=$(ip -j link show vf0_1 | jq -r '.[0].address')
	conf=$(sriov_conf ib-host-local | jq -c '.ipam.dataDir="/var/lib/cni/networks"')
	for kind in json link writable owner twice many socket; do
		pod_ns pod1
		node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}'
		cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$kind: ADD ($OUT)"
		assert_eq ctr1 "$(lease_owners /var/lib/cni/networks/rdma-net)" "$kind: leased"
		file=$(break_node_conf $kind)
		cni_exec ib-sriov ADD ctr2 pod1 net2 "$(sriov_conf ib-host-local "" 1.1.0 "$(sim_vf_addr 0 0)")"
		assert_json '[.code,.msg]' '[7,"invalid node configuration"]'
		assert_match "^$file: " "$(jq -r .details <<<"$OUT")" "$kind: ADD names $file"
		assert_no_link pod1 net2
		cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
		assert_eq 0 "$RC" "$kind: DEL ($OUT)"
		assert_match "invalid node configuration: $file: .*; DEL goes on with the defaults" "$ERR" \
			"$kind: DEL logs the file"
		vf_as_found vf0_1 "$mac" 1500
		assert_eq "" "$(records)" "$kind: no record"
		assert_eq "" "$(lease_owners /var/lib/cni/networks/rdma-net)" "$kind: the lease released"
		ip netns del pod1
	done
	# GC of an attachment the runtime no longer lists, under a broken file.
	pod_ns pod1
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}'
	cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf"
	assert_eq 0 "$RC" "ADD for GC ($OUT)"
	break_node_conf writable >/dev/null
	gc=$(jq -c '. + {"cni.dev/valid-attachments":[]}' <<<"$conf")
	cni_exec ib-sriov GC "" "" "" "$gc"
	assert_eq 0 "$RC" "GC ($OUT)"
	assert_match "invalid node configuration: .*x.conf: .*; GC goes on with the defaults" "$ERR" "GC logs"
	vf_as_found vf0_1 "$mac" 1500
	assert_eq "" "$(lease_owners /var/lib/cni/networks/rdma-net)" "GC released the lease"
	# Only the defaults: a lease in a dataDir the broken file alone allowed stays.
	node_conf '{"allowedDataDirs":["/var/lib/cni/networks","'"$T"'"]}'
	cni_exec ib-sriov ADD ctr3 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "ADD into \$T ($OUT)"
	break_node_conf twice >/dev/null
	cni_exec ib-sriov DEL ctr3 pod1 net1 "$(sriov_conf ib-host-local)"
	assert_eq 0 "$RC" "DEL ($OUT)"
	vf_as_found vf0_1 "$mac" 1500
	assert_eq ctr3 "$(lease_owners "$T/leases/rdma-net")" "the lease outside the defaults stays"
	assert_match "ipam.dataDir $T/leases is not allowed on this node" "$ERR" "said on stderr"
	# rdma-ns and ib-host-local DEL the same way.
	cni_exec rdma-ns DEL ctr3 pod1 net1 '{"cniVersion":"1.1.0","name":"rdma-net","type":"rdma-ns"}'
	assert_eq 0 "$RC" "rdma-ns DEL ($OUT)"
	assert_match "DEL goes on with the defaults" "$ERR" "rdma-ns logs"
	node_conf ''
}
