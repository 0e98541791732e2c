# SPDX-License-Identifier: Apache-2.0
# The runtime as every production binary exposes it: VERSION, env and stdin
# rules, error JSON, the about text.

test_version_all_binaries() {
	local b
	for b in ib-sriov rdma-ns ib-host-local; do
		cni_exec $b VERSION "" "" "" ""
		assert_eq 0 "$RC" "$b VERSION exit"
		assert_json '.supportedVersions' '["0.1.0","0.2.0","0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]'
		assert_json '.cniVersion' '"1.1.0"'
	done
}

test_about_without_command() {
	local b out err
	for b in ib-sriov rdma-ns ib-host-local; do
		out=$(env -i "$BIN/$b" 2>"$T/err" </dev/null)
		assert_eq 0 $? "$b without CNI_COMMAND exit"
		assert_eq "" "$out" "$b stdout"
		err=$(cat "$T/err")
		assert_match "CNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0" "$err" "$b about"
	done
}

test_env_errors_are_code_4() {
	local conf='{"cniVersion":"1.0.0","name":"n","type":"ib-host-local"}'
	cni_exec ib-host-local ADD ctr "" eth0 "$conf"
	assert_eq 1 "$RC" "exit"
	assert_json '{code,msg,cniVersion}' '{"code":4,"msg":"required env variables [CNI_NETNS] missing","cniVersion":"1.0.0"}'
	cni_exec ib-host-local ADD 'bad/id' /proc/self/ns/net eth0 "$conf"
	assert_json '{code,msg,details}' '{"code":4,"msg":"invalid characters in containerID","details":"bad/id"}'
	cni_exec ib-host-local ADD ctr /proc/self/ns/net 0123456789abcdef "$conf"
	assert_json '.msg' '"interface name is too long"'
	cni_exec ib-host-local FOO ctr /proc/self/ns/net eth0 "$conf"
	assert_json '{code,msg}' '{"code":4,"msg":"unknown CNI_COMMAND: FOO"}'
}

test_stdin_errors() {
	cni_exec ib-sriov ADD ctr /proc/self/ns/net eth0 'nope'
	assert_json '.code' '6'
	cni_exec ib-sriov ADD ctr /proc/self/ns/net eth0 '{"cniVersion":"1.0.0","name":"../evil"}'
	assert_json '{code,msg,details}' '{"code":7,"msg":"invalid characters found in network name","details":"../evil"}'
	cni_exec rdma-ns ADD ctr /proc/self/ns/net eth0 '{"cniVersion":"2.0.0","name":"n"}'
	assert_json '.code' '1'
	cni_exec rdma-ns CHECK ctr /proc/self/ns/net eth0 '{"cniVersion":"0.3.1","name":"n"}'
	assert_json '{code,msg}' '{"code":1,"msg":"config version does not allow CHECK"}'
	# Errors are 4-space indented with no trailing newline, like Go's skel.
	cni_exec rdma-ns GC "" "" "" '{"cniVersion":"1.0.0","name":"n"}'
	assert_eq $'{\n    "cniVersion": "1.0.0",\n    "code": 1,\n    "msg": "config version does not allow GC",' \
		"$(head -4 <<<"$OUT")" "error bytes"
}

# Log lines start with the UTC time of the call, whatever the node's zone.
test_log_stamp_is_utc() {
	local before after stamp
	before=$(date -u +%s)
	cni_exec ib-sriov ADD ctr /proc/self/ns/net eth0 'nope'
	after=$(date -u +%s)
	stamp=$(head -1 <<<"$ERR" | cut -d' ' -f1)
	assert_match '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "$stamp" "stamp format"
	stamp=$(date -u -d "${stamp%Z} UTC" +%s)
	[ "$stamp" -ge $((before - 1)) ] && [ "$stamp" -le "$after" ] ||
		fail "stamp $stamp not within $before..$after"
}

test_large_config_accepted_oversize_refused() {
	local pad big
	pad=$(head -c 1040000 /dev/zero | tr '\0' 'a')
	big="{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"pad\":\"$pad\"}"
	cni_exec rdma-ns FOO ctr /proc/self/ns/net eth0 "$big"
	assert_json '.code' '4'
	cni_exec rdma-ns ADD ctr "" eth0 "$big${pad:0:20000}"
	assert_json '.code' '4'
	OUT=$(printf '%s' "$big$pad" | env -i CNI_COMMAND=DEL CNI_CONTAINERID=c CNI_IFNAME=e CNI_PATH=/x "$BIN/rdma-ns" 2>/dev/null)
	assert_json '{code,msg}' '{"code":7,"msg":"network configuration too large"}'
}

test_log_file_from_config() {
	local conf
	# logFile lives in /var/log/ibcni/ (a private tmpfs here, 0700 as ours).
	mkdir -p /var/log/ibcni && mount -t tmpfs -o mode=0700 ibcni-log /var/log/ibcni
	conf='{"cniVersion":"1.0.0","name":"n","logLevel":"debug","logFile":"/var/log/ibcni/n.log"}'
	cni_exec rdma-ns CHECK ctr /proc/self/ns/net eth0 "$conf"
	assert_eq "" "$ERR" "stderr stays quiet with a logFile"
	assert_match "\\[debug\\] rdma-ns CHECK ctr/eth0: network n" "$(cat /var/log/ibcni/n.log)" "log file"
	assert_mode /var/log/ibcni/n.log 600
}
