#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cri tier: every test_* function of tests/cri/test-*.sh, each in private
# mount and network namespaces (a node of its own: the runtime it starts, the
# simulated SR-IOV devices, the pods). One line per test, then the totals.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export IBCNI_FIXTURES=$root/tests/fixtures IBCNI_HELPER=none
export IBCNI_CRI_DIR=$root/build/cri
if [ "$(id -u)" -ne 0 ]; then
	echo "cri: needs root (a container runtime, namespaces); run as root, or with sudo: make check-cri"
	echo "cri: 0 passed, 1 failed"
	exit 1
fi
if ! "$here/deps.sh"; then
	echo "cri: 0 passed, 1 failed"
	exit 1
fi

# The client's messages, and the test image (busybox-static, offline).
mkdir -p "$IBCNI_CRI_DIR/rootfs/bin"
protoc -I"$here" --python_out="$IBCNI_CRI_DIR" "$here/cri.proto" || exit 1
cp /bin/busybox "$IBCNI_CRI_DIR/rootfs/bin/"
for a in sh sleep ip cat ls; do ln -sf busybox "$IBCNI_CRI_DIR/rootfs/bin/$a"; done
"$root/scripts/image/oci-archive.sh" "$IBCNI_CRI_DIR/rootfs" "$IBCNI_CRI_DIR/busybox.tar" \
	ibcni.test/busybox:1 '["/bin/sleep", "2147483647"]' || exit 1

pass=0 fail=0 failed=()
filter=${CRI_FILTER:-}
for file in "$here"/test-*.sh; do
	for fn in $(bash -c ". '$file'; declare -F" 2>/dev/null | awk '{print $3}' | grep '^test_'); do
		name="$(basename "$file" .sh):$fn"
		[[ -n $filter && $name != *$filter* ]] && continue
		log=$(mktemp)
		start=$(date +%s%N)
		timeout 240 unshare --mount --net --propagation private bash -c \
			". '$root/tests/netns/lib.sh'; . '$root/tests/netns/sriov-lib.sh'; . '$here/lib.sh';
			 . '$file'; lib_init && $fn; cri_finish; lib_finish" >"$log" 2>&1
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ $rc -eq 0 ]; then
			pass=$((pass + 1))
			printf '  PASS  %-58s %6d ms\n' "$name" "$ms"
		else
			fail=$((fail + 1))
			failed+=("$name")
			printf '  FAIL  %-58s %6d ms\n' "$name" "$ms"
			sed 's/^/        /' "$log"
		fi
		rm -f "$log"
	done
done
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "cri: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
