# SPDX-License-Identifier: Apache-2.0
# ibcni-install (the image's entrypoint) run directly against a temporary
# host directory: what it writes, what it never does (write a binary in
# place, follow a link planted at a binary's name), and how it fails.

installer() { # ARGS...: run it on the image's binaries; OUT, RC
	OUT=$("$IBCNI_INSTALLER" --src "$IBCNI_IMAGE_BIN" "$@" 2>&1)
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
		"$IBCNI_INSTALLER" --src "$IBCNI_IMAGE_BIN" --cni-bin-dir "$d" \
		--netns-mode exclusive --modprobe-dir "$T/host/etc/modprobe.d" 2>&1)
	assert_eq 0 "$?" "install ($OUT)"
	assert_installed "$T/host"
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
	OUT=$("$IBCNI_INSTALLER" --src "$src" --cni-bin-dir "$d" 2>&1)
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
