# SPDX-License-Identifier: Apache-2.0
# ibcni-install (the image's entrypoint) run directly against a temporary
# host directory: what it writes, what it never does (write a binary in
# place, follow a link planted at a binary's name), and how it fails.

installer() { # ARGS...: run it once (--no-sleep) on the image's binaries; OUT, RC
	OUT=$("$IBCNI_INSTALLER" --src "$IBCNI_IMAGE_BIN" --no-sleep "$@" 2>&1)
	RC=$?
}

test_installer_never_writes_in_place() {
	local d=$T/host/opt/cni/bin
	mkdir -p "$d" "$T/host/etc/modprobe.d"
	echo old >"$d/ib-sriov"
	echo victim >"$T/victim"
	ln -s "$T/victim" "$d/rdma"               # a link where a binary goes
	echo junk >"$d/.rdma-ns.ibcni-new"         # a temp file a kill left
	OUT=$(strace -f -qq -e trace=openat,rename,renameat,renameat2,linkat -o "$T/strace" \
		"$IBCNI_INSTALLER" --src "$IBCNI_IMAGE_BIN" --cni-bin-dir "$d" --no-sleep \
		--netns-mode exclusive --modprobe-dir "$T/host/etc/modprobe.d" 2>&1)
	assert_eq 0 "$?" "install ($OUT)"
	assert_installed "$T/host" netns
	assert_file "$T/victim" victim
	# Binaries are only ever created under their temporary name and renamed.
	local writes
	writes=$(grep -E 'openat\(.*O_(WRONLY|RDWR)' "$T/strace" | grep -v '\.ibcni-new"' | grep -v modprobe)
	assert_eq "" "$writes" "opened for writing under a final name"
	assert_eq 3 "$(grep -cE 'rename(at2?)?\(.*\.(ib-sriov|rdma-ns|ib-host-local)\.ibcni-new' "$T/strace")" \
		"one rename per binary"
	assert_match 'RDMA netns mode exclusive from the next boot' "$OUT" "the netns mode message"
}

test_installer_fails_whole() {
	# A binary missing from the image: exit 1 naming it; what was installed
	# before it is whole, nothing after it is touched, no temp file is left.
	local src=$T/src d=$T/bin
	mkdir -p "$src" "$d"
	cp "$IBCNI_IMAGE_BIN/ib-sriov" "$IBCNI_IMAGE_BIN/rdma-ns" "$src/"
	OUT=$("$IBCNI_INSTALLER" --src "$src" --cni-bin-dir "$d" --no-sleep 2>&1)
	assert_eq 1 "$?" "exit status"
	assert_match 'cannot read ib-host-local from the image' "$OUT" "the message"
	cmp -s "$src/rdma-ns" "$d/rdma-ns" || fail "rdma-ns not installed whole"
	assert_eq "ib-sriov rdma-ns" "$(ls -A "$d" | tr '\n' ' ' | sed 's/ $//')" "files in the host directory"
	# A host directory that is a file; bad arguments.
	: >"$T/file"
	installer --cni-bin-dir "$T/file"
	assert_eq 1 "$RC" "a file as the host directory ($OUT)"
	installer --netns-mode sideways
	assert_eq 2 "$RC" "an unknown mode"
	assert_match 'usage: ibcni-install' "$OUT" "usage"
}

test_installer_writes_the_node_config() {
	# Only when asked: without the options an admin's file stays as it is.
	local d=$T/bin e=$T/host/etc/ibcni
	mkdir -p "$d" "$e"
	echo '{"maxWaitMs":1}' >"$e/ibcni.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e"
	assert_eq 0 "$RC" "install ($OUT)"
	assert_file "$e/ibcni.conf" '{"maxWaitMs":1}'
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --allowed-data-dir //srv//ipam/ \
		--allowed-data-dir /var/lib/cni/networks --device-check off --max-wait-ms 5000
	assert_eq 0 "$RC" "install with the node config ($OUT)"
	assert_file "$e/ibcni.conf" '{"allowedDataDirs":["/srv/ipam","/var/lib/cni/networks"],"deviceCheck":"off","maxWaitMs":5000}'
	assert_mode "$e/ibcni.conf" 644
	assert_eq "ibcni.conf" "$(ls -A "$e")" "no temp file left"
	# What it wrote, the plugins read: ADD under /srv/ipam is allowed, elsewhere not.
	mkdir -p /etc/ibcni && cp "$e/ibcni.conf" /etc/ibcni/ibcni.conf
	cni_exec "$d/ib-host-local" ADD c1 /proc/self/ns/net net1 \
		'{"cniVersion":"1.0.0","name":"n","type":"ib-host-local","ipam":{"type":"ib-host-local","dataDir":"/var/lib/cni/other","subnet":"10.9.0.0/24"}}'
	assert_json .msg '"ipam.dataDir not allowed"'
	# Bad values: usage, nothing written.
	installer --cni-bin-dir "$d" --node-conf-dir "$T/new" --device-check maybe
	assert_eq 2 "$RC" "a bad --device-check"
	installer --cni-bin-dir "$d" --node-conf-dir "$T/new" --allowed-data-dir relative
	assert_eq 2 "$RC" "a relative directory"
	installer --cni-bin-dir "$d" --node-conf-dir "$T/new" --max-wait-ms 600001
	assert_eq 2 "$RC" "a wait above the largest"
	[ -e "$T/new" ] && fail "a refused option wrote a node config"
	# A missing /etc/ibcni is made.
	installer --cni-bin-dir "$d" --node-conf-dir "$T/new" --max-wait-ms 0
	assert_eq 0 "$RC" "install into a new directory ($OUT)"
	assert_file "$T/new/ibcni.conf" '{"maxWaitMs":0}'
}

# installer_bg ARGS...: started in the background (no --no-sleep); PID, log
# in $T/bg.log.
installer_bg() {
	rm -f "$T/bg.log" # the last run's text must not be taken for this one's
	"$IBCNI_INSTALLER" --src "$IBCNI_IMAGE_BIN" "$@" >"$T/bg.log" 2>&1 &
	PID=$!
}

# wait_log TEXT: up to 10 s for TEXT in $T/bg.log.
wait_log() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q "$1" "$T/bg.log" && return 0
		sleep 0.1
	done
	return 1
}

test_installer_waits_for_sigterm() {
	# The upstream images' contract: no arguments (the Network Operator's
	# container) installs, then waits; SIGTERM or SIGINT ends it with 0.
	# --wait (the old DaemonSet's) is the same; --no-sleep exits at once.
	local d=$T/bin sig
	for sig in TERM INT; do
		installer_bg --cni-bin-dir "$d"
		wait_log 'waiting for SIGTERM' || fail "no-args: not waiting ($(cat "$T/bg.log"))"
		assert_installed_dir "$d"
		kill -0 "$PID" 2>/dev/null || fail "no-args: exited"
		kill -"$sig" "$PID"
		wait "$PID"
		assert_eq 0 "$?" "exit status on SIG$sig"
	done
	installer_bg --cni-bin-dir "$d" --wait
	wait_log 'waiting for SIGTERM' || fail "--wait: not waiting"
	kill -TERM "$PID"
	wait "$PID"
	assert_eq 0 "$?" "--wait: exit status on SIGTERM"
	installer --cni-bin-dir="$d"
	assert_eq 0 "$RC" "--no-sleep, --cni-bin-dir=PATH ($OUT)"
	assert_eq "" "$(grep waiting <<<"$OUT")" "--no-sleep does not wait"
	installer --cni-bin-dir "$d" --wait
	assert_eq 2 "$RC" "--wait with --no-sleep"
	assert_match 'contradict' "$OUT" "the message"
}

# assert_installed_dir DIR: the four files, each the image's, each its own inode.
assert_installed_dir() {
	local b
	for b in ib-sriov rdma-ns ib-host-local; do
		cmp -s "$IBCNI_IMAGE_BIN/$b" "$1/$b" || fail "$1/$b is not the image's"
	done
	cmp -s "$IBCNI_IMAGE_BIN/rdma-ns" "$1/rdma" || fail "$1/rdma is not the image's rdma-ns"
	assert_eq 4 "$(stat -c %i "$1"/ib-sriov "$1"/rdma-ns "$1"/ib-host-local "$1"/rdma | sort -u | wc -l)" \
		"four inodes"
}

test_installer_only_and_upstream_options() {
	local d=$T/bin
	installer --cni-bin-dir "$d" --only rdma
	assert_eq 0 "$RC" "--only rdma ($OUT)"
	assert_eq rdma "$(ls -A "$d")" "--only rdma installs rdma alone"
	cmp -s "$IBCNI_IMAGE_BIN/rdma-ns" "$d/rdma" || fail "rdma is not rdma-ns's bytes"
	installer --cni-bin-dir "$d" --only ib-sriov,ib-host-local
	assert_eq "ib-host-local ib-sriov rdma" "$(ls -A "$d" | sort | tr '\n' ' ' | sed 's/ $//')" "--only two more"
	installer --cni-bin-dir "$d" --only ''
	assert_eq 2 "$RC" "an empty --only"
	installer --cni-bin-dir "$d" --only ib-sriov,sriov
	assert_eq 2 "$RC" "an unknown name"
	assert_match '--only: unknown plugin "sriov"' "$OUT" "the message names it"
	assert_match 'usage: ibcni-install' "$OUT" "usage"
	# Upstream's options, as overrides written for their images pass them:
	# logged; a file the image does not have leaves ours (upstream's paths,
	# under $T: this host has an /usr/bin/rdma, iproute2's; the image not).
	installer --cni-bin-dir="$d" --ib-sriov-cni-bin-file="$T/usr/bin/ib-sriov" \
		--rdma-cni-bin-file="$T/usr/bin/rdma" --sriov-bin-file=/usr/bin/sriov
	assert_eq 0 "$RC" "upstream's options ($OUT)"
	assert_match 'sriov-bin-file=/usr/bin/sriov accepted and ignored' "$OUT" "--sriov-bin-file logged"
	assert_match "$T/usr/bin/ib-sriov: not in this image" "$OUT" "--ib-sriov-cni-bin-file logged"
	assert_match "$T/usr/bin/rdma: not in this image" "$OUT" "--rdma-cni-bin-file logged"
	assert_installed_dir "$d"
	# One the image has is what is installed under that name.
	cp /bin/true "$T/other"
	installer --cni-bin-dir "$d" --only rdma --rdma-cni-bin-file="$T/other"
	assert_eq 0 "$RC" "--rdma-cni-bin-file of a file there ($OUT)"
	cmp -s /bin/true "$d/rdma" || fail "--rdma-cni-bin-file: rdma is not that file"
	cmp -s "$IBCNI_IMAGE_BIN/rdma-ns" "$d/rdma-ns" || fail "rdma-ns changed"
}

test_installer_replaces_links() {
	# Whatever sits at a target name is replaced by rename, never followed
	# or written through: a symlink pointing out, the old release's rdma (a
	# hard link of rdma-ns), a hard link to a file elsewhere.
	local d=$T/bin b
	mkdir -p "$d"
	echo victim >"$T/victim"
	echo other >"$T/other"
	ln -s "$T/victim" "$d/ib-sriov"
	ln "$T/other" "$d/ib-host-local"
	cp "$IBCNI_IMAGE_BIN/rdma-ns" "$d/rdma-ns"
	ln "$d/rdma-ns" "$d/rdma"
	installer --cni-bin-dir "$d"
	assert_eq 0 "$RC" "install ($OUT)"
	assert_file "$T/victim" victim
	assert_file "$T/other" other
	assert_installed_dir "$d"
	for b in ib-sriov rdma-ns ib-host-local rdma; do
		[ -L "$d/$b" ] && fail "$b is still a link"
		assert_eq 1 "$(stat -c %h "$d/$b")" "$b: one link"
	done
	# cp -f onto rdma (rdma-cni's init container, GNU cp truncating in
	# place) changes rdma only.
	cp -f /bin/true "$d/rdma"
	cmp -s "$IBCNI_IMAGE_BIN/rdma-ns" "$d/rdma-ns" || fail "cp -f onto rdma wrote into rdma-ns"
	installer --cni-bin-dir "$d"
	assert_eq 3 "$(grep -c unchanged <<<"$OUT")" "three unchanged, rdma reinstalled ($OUT)"
}

test_installer_defers_to_sno_modprobe() {
	# SNO's rdmaMode owns ib_core netns_mode through its own modprobe.d
	# file: ours is never written beside it (an old one of ours goes), the
	# owner and its value are logged, a different mode warns, exit 0.
	local m=$T/modprobe.d d=$T/bin
	mkdir -p "$m"
	echo "options ib_core netns_mode=0" >"$m/sriov_network_operator_modules_config.conf"
	echo "options ib_core netns_mode=0" >"$m/ibcni-rdma.conf"
	echo "options mlx5_core foo=1" >"$m/other.conf"
	installer --cni-bin-dir "$d" --netns-mode exclusive --modprobe-dir "$m"
	assert_eq 0 "$RC" "exclusive under SNO's exclusive ($OUT)"
	assert_match "sriov_network_operator_modules_config.conf sets ib_core netns_mode=0" "$OUT" "the owner named"
	assert_eq "" "$(grep warning <<<"$OUT")" "no warning when they agree"
	assert_eq "other.conf sriov_network_operator_modules_config.conf" "$(ls "$m" | tr '\n' ' ' | sed 's/ $//')" \
		"ours removed, none written"
	installer --cni-bin-dir "$d" --netns-mode shared --modprobe-dir "$m"
	assert_eq 0 "$RC" "shared under SNO's exclusive ($OUT)"
	assert_match 'warning: --netns-mode shared asked for netns_mode=1, the node boots with 0' "$OUT" "the warning"
	assert_match 'rdmaMode' "$OUT" "where to set it"
	assert_eq "" "$(ls "$m" | grep ibcni)" "still none of ours"
	# Without an owner ours is written (as before).
	rm "$m/sriov_network_operator_modules_config.conf"
	installer --cni-bin-dir "$d" --netns-mode shared --modprobe-dir "$m"
	assert_eq "options ib_core netns_mode=1" "$(grep -v '^#' "$m/ibcni-rdma.conf")" "ours without an owner"
}

test_installer_writes_node_ranges() {
	# --node-name --node-ranges-dir: DIR/NAME (a ConfigMap entry, a link
	# into ..data as kubelet mounts it) becomes the drop-in
	# ibcni.conf.d/ranges.conf: ibcni.conf keeps only the keys a previous
	# release knows, so a downgrade never fails on it.
	local d=$T/bin e=$T/etc cm=$T/cm
	mkdir -p "$cm/..data"
	printf '%s' '{"ib-net":[[{"subnet":"10.56.1.0/24","rangeStart":"10.56.1.10","rangeEnd":"10.56.1.200"}]],"ib-net2":[[{"subnet":"10.57.1.0/24"}],[{"subnet":"fd00:1::/64"}]]}' \
		>"$cm/..data/node-1"
	ln -s ..data/node-1 "$cm/node-1"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 100 --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "install ($OUT)"
	assert_file "$e/ibcni.conf" '{"maxWaitMs":100}'
	assert_file "$e/ibcni.conf.d/ranges.conf" '{"ranges":{"ib-net":[[{"subnet":"10.56.1.0/24","rangeStart":"10.56.1.10","rangeEnd":"10.56.1.200"}]],"ib-net2":[[{"subnet":"10.57.1.0/24"}],[{"subnet":"fd00:1::/64"}]]}}'
	# No entry for this node: the earlier drop-in removed (its ranges are
	# another node's now), ibcni.conf left alone, said in one line.
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-2 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "no entry ($OUT)"
	assert_eq 1 "$(grep -c "no entry for node node-2" <<<"$OUT")" "one line"
	assert_file "$e/ibcni.conf" '{"maxWaitMs":100}'
	[ ! -e "$e/ibcni.conf.d/ranges.conf" ] || fail "a stale ranges drop-in was kept"
	# Written again for node-1.
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "install again ($OUT)"
	# A symlink planted at the drop-in's name is replaced, never written through.
	ln -sf "$T/victim" "$e/ibcni.conf.d/ranges.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "over a link ($OUT)"
	[ ! -L "$e/ibcni.conf.d/ranges.conf" ] && [ ! -e "$T/victim" ] || fail "the link was followed"
	# Bad entries: exit 1 naming the file, nothing installed or written;
	# values the plugins would refuse too (a drop-in they refuse fails
	# every command on the node, every pod's DEL included).
	local bad
	for bad in '[]' '{"n":[{"subnet":"10.0.0.0/24"}]}' '{"n":[]}' '{"n":[[1]]}' '{"n":[[{"subnet":1}]]}' '{"n":' \
		"{\"n\":[[{\"subnet\":\"$(head -c 40000 /dev/zero | tr '\0' a)\"}]]}" \
		'{"n":[[{"subnet":"10.0.0.0/33"}]]}' '{"n":[[{"subnet":"10.0.0.0/24","rangeStart":"10.0.1.1"}]]}' \
		'{"n":[[{"subnet":"10.0.0.0/24"}],[{"subnet":"10.0.0.0/25"}]]}' "{\"$(head -c 200 /dev/zero | tr '\0' n)\":[[{\"subnet\":\"10.0.0.0/24\"}]]}"; do
		rm -rf "$T/b2" "$T/e2"
		printf '%s' "$bad" >"$cm/node-3"
		installer --cni-bin-dir "$T/b2" --node-conf-dir "$T/e2" --node-name node-3 --node-ranges-dir "$cm"
		assert_eq 1 "$RC" "bad entry ${bad:0:40}"
		assert_match "$cm/node-3" "$OUT" "the message names the file"
		[ -e "$T/b2" ] || [ -e "$T/e2" ] && fail "a bad entry installed or wrote something: ${bad:0:40}"
	done
	installer --cni-bin-dir "$d" --node-name node-1
	assert_eq 2 "$RC" "--node-name alone"
	installer --cni-bin-dir "$d" --node-name ../x --node-ranges-dir "$cm"
	assert_eq 2 "$RC" "a node name that is a path"
	installer --cni-bin-dir "$d" --node-name '$(NODE_NAME)' --node-ranges-dir "$cm"
	assert_eq 2 "$RC" "an unexpanded \$(NODE_NAME)"
	assert_match 'fieldRef spec.nodeName' "$OUT" "the message says where the name comes from"
}

test_installer_refuses_a_node_config_that_does_not_load() {
	# Before writing, the whole configuration as it would be (ibcni.conf and
	# every drop-in) is loaded with the plugins' own loader; when it does not
	# load (here "ranges" set by hand in ibcni.conf too), exit 1 naming both
	# files and the key, nothing written: ADD on the node would refuse it.
	local d=$T/bin e=$T/etc cm=$T/cm hand
	mkdir -p "$cm" "$e"
	hand='{"ranges":{"x":[[{"subnet":"10.9.0.0/24"}]]}}'
	printf '%s' '{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}' >"$cm/node-1"
	printf '%s\n' "$hand" >"$e/ibcni.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 1 "$RC" "ranges in both files ($OUT)"
	assert_match "$e/ibcni.conf.d/ranges.conf: \"ranges\" is set in $e/ibcni.conf already; set each key in one file" \
		"$OUT" "names both files and the key"
	[ -e "$e/ibcni.conf.d/ranges.conf" ] && fail "ranges.conf left"
	assert_eq "" "$(ls -A "$e/ibcni.conf.d")" "nothing left in ibcni.conf.d"
	assert_file "$e/ibcni.conf" "$hand"
	# An earlier ranges.conf stays as it was.
	rm "$e/ibcni.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "install ($OUT)"
	printf '%s\n' "$hand" >"$e/ibcni.conf"
	printf '%s' '{"ib-net":[[{"subnet":"10.56.2.0/24"}]]}' >"$cm/node-1"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 1 "$RC" "again ($OUT)"
	assert_file "$e/ibcni.conf.d/ranges.conf" '{"ranges":{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}}'
	assert_eq "ranges.conf" "$(ls -A "$e/ibcni.conf.d")" "no saved copy left"
	# ibcni.conf too: a drop-in of the admin's sets the key it writes.
	rm "$e/ibcni.conf"
	printf '%s\n' '{"maxWaitMs":5}' >"$e/ibcni.conf.d/admin.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 100
	assert_eq 1 "$RC" "maxWaitMs in both ($OUT)"
	assert_match "$e/ibcni.conf.d/admin.conf: \"maxWaitMs\" is set in $e/ibcni.conf already" "$OUT" "names both"
	assert_eq "" "$(ls -A "$e" | grep -v ibcni.conf.d)" "no ibcni.conf (there was none), no saved copy"
	# A drop-in the plugins refuse (group-writable) fails the install as well.
	rm "$e/ibcni.conf.d/admin.conf"
	chmod 0664 "$e/ibcni.conf.d/ranges.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 100
	assert_eq 1 "$RC" "a group-writable drop-in ($OUT)"
	assert_match "$e/ibcni.conf.d/ranges.conf: must be owned by uid 0 and not group- or other-writable" "$OUT" "names it"
	[ -e "$e/ibcni.conf" ] && fail "ibcni.conf written over a refused drop-in"
	chmod 0644 "$e/ibcni.conf.d/ranges.conf"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 100
	assert_eq 0 "$RC" "fixed ($OUT)"
	assert_file "$e/ibcni.conf" '{"maxWaitMs":100}'
}

test_installer_carries_range_namespaces() {
	# An entry's network may be {"namespaces": [...], "ranges": [...]}: the
	# ConfigMap carries the list into ranges.conf as it is; a bad one is
	# refused naming the file, nothing written.
	local d=$T/bin e=$T/etc cm=$T/cm
	mkdir -p "$cm"
	printf '%s' '{"ib-net":{"namespaces":["team-a","team-b"],"ranges":[[{"subnet":"10.56.1.0/24"}]]},"open":[[{"subnet":"10.57.1.0/24"}]]}' >"$cm/node-1"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "install ($OUT)"
	assert_file "$e/ibcni.conf.d/ranges.conf" '{"ranges":{"ib-net":{"namespaces":["team-a","team-b"],"ranges":[[{"subnet":"10.56.1.0/24"}]]},"open":[[{"subnet":"10.57.1.0/24"}]]}}'
	printf '%s' '{"ib-net":{"namespaces":["Team_A"],"ranges":[[{"subnet":"10.56.1.0/24"}]]}}' >"$cm/node-2"
	installer --cni-bin-dir "$T/b2" --node-conf-dir "$T/e2" --node-name node-2 --node-ranges-dir "$cm"
	assert_eq 1 "$RC" "a bad namespace ($OUT)"
	assert_match "$cm/node-2: \"ranges.ib-net.namespaces\[0\]\" is \"Team_A\"; a namespace is a DNS label" "$OUT" "named"
	[ -e "$T/e2" ] && fail "a bad entry wrote something"
}

# installer_traced ARGS...: installer under strace (-y: each fd with its
# path) into $T/strace; OUT, RC.
installer_traced() {
	OUT=$(strace -f -qq -y -e trace=rename,renameat,renameat2,openat,linkat,unlinkat,mkdir,mkdirat \
		-o "$T/strace" "$IBCNI_INSTALLER" --src "$IBCNI_IMAGE_BIN" --no-sleep "$@" 2>&1)
	RC=$?
}

# real_writes DIR: the traced calls that created, renamed onto or unlinked
# DIR/ibcni.conf or DIR/ibcni.conf.d/ranges.conf (the last name of a call is
# its target; a linkat from them into the stage is a read).
real_writes() {
	local e=$1 name
	name="(<$e>, \"ibcni\\.conf\"|<$e/ibcni\\.conf\\.d>, \"ranges\\.conf\"|\"$e/ibcni\\.conf(\\.d/ranges\\.conf)?\")"
	grep -E "^[0-9]+ +(rename|renameat2?|linkat|unlinkat)\(.*$name(, [A-Z_0-9|]+)?\) += " "$T/strace"
	grep -E "^[0-9]+ +openat\(.*$name, [^)]*O_(WRONLY|RDWR|CREAT)" "$T/strace"
}

test_installer_checks_the_node_config_before_writing() {
	# The would-be configuration is loaded from a private stage in the node
	# directory (.ibcni-stage.*: the loader reads no dot name) before any
	# file the plugins read changes: a refused one never reaches them, not
	# even for the moment between writing and undoing.
	local d=$T/bin e=$T/etc cm=$T/cm hand ino node
	mkdir -p "$cm" "$e"
	hand='{"ranges":{"x":[[{"subnet":"10.9.0.0/24"}]]}}'
	printf '%s' '{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}' >"$cm/node-1"
	printf '%s\n' "$hand" >"$e/ibcni.conf"
	installer_traced --cni-bin-dir "$d" --node-conf-dir "$e" --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 1 "$RC" "ranges in both files ($OUT)"
	assert_match "$e/ibcni.conf.d/ranges.conf: \"ranges\" is set in $e/ibcni.conf already; set each key in one file" \
		"$OUT" "names both files and the key"
	assert_eq "" "$(real_writes "$e")" "a real file written"
	assert_eq "ibcni.conf" "$(ls -A "$e")" "nothing made, no stage left"
	assert_file "$e/ibcni.conf" "$hand"
	# Both files would be written (or ranges.conf removed: no entry for
	# node-2) over an admin's drop-in the plugins refuse: none is touched.
	mkdir -p "$e/ibcni.conf.d"
	printf '%s\n' '{"maxWaitMs":1}' >"$e/ibcni.conf"
	printf '%s\n' '{"ranges":{"ib-net":[[{"subnet":"10.56.9.0/24"}]]}}' >"$e/ibcni.conf.d/ranges.conf"
	printf '%s\n' '{"reclaimLeases":true}' >"$e/ibcni.conf.d/admin.conf"
	chmod 0664 "$e/ibcni.conf.d/admin.conf"
	cp -a "$e" "$T/before"
	ino=$(stat -c %i "$e/ibcni.conf" "$e/ibcni.conf.d/ranges.conf")
	for node in node-1 node-2; do
		installer_traced --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 100 \
			--node-name "$node" --node-ranges-dir "$cm"
		assert_eq 1 "$RC" "$node: a group-writable drop-in ($OUT)"
		assert_match "ibcni-install: the node configuration does not load: invalid node configuration: $e/ibcni.conf.d/admin.conf: must be owned by uid 0 and not group- or other-writable" \
			"$OUT" "$node: names it"
		assert_eq "" "$(real_writes "$e")" "$node: a real file written"
		diff -r "$T/before" "$e" >/dev/null || fail "$node: the node directory changed"
		assert_eq "$ino" "$(stat -c %i "$e/ibcni.conf" "$e/ibcni.conf.d/ranges.conf")" "$node: same inodes"
		assert_eq "" "$(ls -A "$e" | grep -v '^ibcni\.conf')" "$node: no stage left"
	done
	# Fixed: both written as before; a stage a killed run left is removed.
	chmod 0644 "$e/ibcni.conf.d/admin.conf"
	mkdir -p "$e/.ibcni-stage.Xk3j9Q/ibcni.conf.d"
	echo '{"maxWaitMs":' >"$e/.ibcni-stage.Xk3j9Q/ibcni.conf"
	ln "$e/ibcni.conf.d/admin.conf" "$e/.ibcni-stage.Xk3j9Q/ibcni.conf.d/admin.conf"
	installer_traced --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 100 --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 0 "$RC" "fixed ($OUT)"
	assert_file "$e/ibcni.conf" '{"maxWaitMs":100}'
	assert_file "$e/ibcni.conf.d/ranges.conf" '{"ranges":{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}}'
	assert_file "$e/ibcni.conf.d/admin.conf" '{"reclaimLeases":true}'
	assert_eq 1 "$(stat -c %h "$e/ibcni.conf.d/admin.conf")" "admin.conf: its one link"
	assert_eq "ibcni.conf ibcni.conf.d" "$(ls -A "$e" | tr '\n' ' ' | sed 's/ $//')" "no stage left"
	assert_eq "admin.conf ranges.conf" "$(ls -A "$e/ibcni.conf.d" | tr '\n' ' ' | sed 's/ $//')" "no temp file left"
	grep -qE 'mkdir(at)?\(.*"[^"]*\.ibcni-stage\.' "$T/strace" || fail "no stage made"
	# Two renames are not one: when ranges.conf cannot be written after
	# ibcni.conf (a directory at its temp name), ibcni.conf is put back.
	mkdir -p "$e/ibcni.conf.d/.ranges.conf.ibcni-new/x"
	printf '%s' '{"ib-net":[[{"subnet":"10.56.2.0/24"}]]}' >"$cm/node-1"
	installer --cni-bin-dir "$d" --node-conf-dir "$e" --max-wait-ms 200 --node-name node-1 --node-ranges-dir "$cm"
	assert_eq 1 "$RC" "ranges.conf not written ($OUT)"
	assert_match "$e/ibcni.conf put back as it was" "$OUT" "said"
	assert_file "$e/ibcni.conf" '{"maxWaitMs":100}'
	assert_file "$e/ibcni.conf.d/ranges.conf" '{"ranges":{"ib-net":[[{"subnet":"10.56.1.0/24"}]]}}'
	assert_eq "ibcni.conf ibcni.conf.d" "$(ls -A "$e" | tr '\n' ' ' | sed 's/ $//')" "no saved copy, no stage left"
}
