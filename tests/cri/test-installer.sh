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
