#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Run every test_* function of tests/netns/test-*.sh in private mount and
# network namespaces; print one line per test and a totals line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export IBCNI_FIXTURES=$(cd "$here/../fixtures" && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "${NETNS_TIER:-netns}: needs root (namespaces, veth, mounts); run: sudo make check-${NETNS_TIER:-netns}"
	echo "${NETNS_TIER:-netns}: 0 passed, 1 failed"
	exit 1
fi
pass=0 fail=0 failed=()
filter=${NETNS_FILTER:-}
for file in "$here"/test-*.sh; do
	for fn in $(bash -c ". '$here/lib.sh' 2>/dev/null; . '$file'; declare -F" | awk '{print $3}' | grep '^test_'); do
		name="$(basename "$file" .sh):$fn"
		[[ -n $filter && $name != *$filter* ]] && continue
		skip=
		for x in ${NETNS_EXCLUDE:-}; do	# substrings, space-separated
			[[ $name == *$x* ]] && skip=1
		done
		[ -n "$skip" ] && continue
		log=$(mktemp)
		start=$(date +%s%N)
		timeout 120 unshare --mount --net --propagation private \
			bash -c ". '$here/lib.sh'; . '$file'; lib_init && $fn; lib_finish" >"$log" 2>&1
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ $rc -eq 0 ]; then
			pass=$((pass + 1))
			printf '  PASS  %-58s %5d ms\n' "$name" "$ms"
		else
			fail=$((fail + 1))
			failed+=("$name")
			printf '  FAIL  %-58s %5d ms\n' "$name" "$ms"
			sed 's/^/        /' "$log"
		fi
		rm -f "$log"
	done
done
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "${NETNS_TIER:-netns}: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
