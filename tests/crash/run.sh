#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The crash tier: every test_* function of tests/crash/test-*.sh in private
# mount and network namespaces (the netns tier's harness), with its figures
# and one totals line. FULL=1 injects at every point (see lib.sh);
# CRASH_FILTER=<substring> runs a subset.
set -u
here=$(cd "$(dirname "$0")" && pwd)
netns=$(cd "$here/../netns" && pwd)
export IBCNI_FIXTURES=$(cd "$here/../fixtures" && pwd)
export FULL=${FULL:-0}
if [ "$(id -u)" -ne 0 ]; then
	echo "crash: needs root (namespaces, veth, mounts); run: sudo make check-crash"
	echo "crash: 0 passed, 1 failed"
	exit 1
fi
if ! command -v strace >/dev/null || ! command -v flock >/dev/null; then
	echo "crash: needs strace and flock (sudo make deps)"
	echo "crash: 0 passed, 1 failed"
	exit 1
fi
limit=600
[ "$FULL" = 1 ] && limit=14400
pass=0 fail=0 failed=()
filter=${CRASH_FILTER:-}
start_all=$(date +%s)
for file in "$here"/test-*.sh; do
	for fn in $(bash -c ". '$netns/lib.sh' 2>/dev/null; . '$file'; declare -F" | awk '{print $3}' | grep '^test_'); do
		name="$(basename "$file" .sh):$fn"
		[[ -n $filter && $name != *$filter* ]] && continue
		log=$(mktemp)
		start=$(date +%s%N)
		timeout $limit unshare --mount --net --propagation private \
			bash -c ". '$netns/lib.sh'; . '$netns/sriov-lib.sh'; . '$here/lib.sh'; . '$file';
				lib_init && $fn; lib_finish" >"$log" 2>&1
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ $rc -eq 0 ]; then
			pass=$((pass + 1))
			printf '  PASS  %-50s %6d ms\n' "$name" "$ms"
		else
			fail=$((fail + 1))
			failed+=("$name")
			printf '  FAIL  %-50s %6d ms%s\n' "$name" "$ms" "$([ $rc -eq 124 ] && echo ' (timed out)')"
		fi
		# The figures (indented lines) always; failures with them.
		cat "$log"
		rm -f "$log"
	done
done
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "crash: $pass passed, $fail failed ($(($(date +%s) - start_all)) s, FULL=$FULL)"
[ "$fail" -eq 0 ]
