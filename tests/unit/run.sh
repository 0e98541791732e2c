#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Run every Criterion unit binary and print one totals line.
set -u
out=$1; shift
export IBCNI_FIXTURES=$(cd "$(dirname "$0")/../fixtures" && pwd)
export IBCNI_BIN=$(cd "$out/bin" && pwd)
pass=0 fail=0 rc=0
for t in "$@"; do
	log=$(mktemp)
	"$t" --jobs 2 >"$log" 2>&1
	st=$?
	line=$(grep -a 'Synthesis:' "$log" | tail -1)
	p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$line")
	c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$line")
	if [ -z "$line" ]; then
		p=0 f=1 c=0
	fi
	pass=$((pass + p)); fail=$((fail + f + c))
	if [ "$st" -ne 0 ] || [ -z "$line" ]; then
		rc=1
		cat "$log"
	fi
	printf '  %-28s %s\n' "$(basename "$t")" "${line:-no synthesis line (crashed?)}"
	rm -f "$log"
done
echo "unit: $pass passed, $fail failed"
exit $rc
