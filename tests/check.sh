#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make check`: every tier this machine supports, then one totals line.
# A tier that cannot run here says why and counts as failed unless its
# behaviour is covered one tier down (see docs/testing.md).
set -u
out=${1:-.}
cd "$(dirname "$0")/.."
total_pass=0 total_fail=0 summary=()

tier() { # NAME COMMAND...
	local name=$1 log p f
	shift
	echo "== $name"
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	local st=${PIPESTATUS[0]}
	read -r p f < <(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -1 |
		sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
	if [ -z "${p:-}" ]; then
		p=0 f=1
	fi
	[ "$st" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f))
	summary+=("$(printf '%-8s %4d passed, %d failed' "$name" "$p" "$f")")
	rm -f "$log"
}

tier unit make --no-print-directory check-unit
if [ "$(id -u)" -eq 0 ]; then
	tier netns make --no-print-directory check-netns
	tier compat make --no-print-directory check-compat
	tier budget make --no-print-directory check-budget
	tier crash make --no-print-directory check-crash
else
	echo "== netns: skipped, needs root (sudo make check)"
	summary+=("netns    not run: needs root")
	total_fail=$((total_fail + 1))
	echo "== compat: skipped, needs root (sudo make check)"
	summary+=("compat   not run: needs root")
	total_fail=$((total_fail + 1))
	echo "== budget: skipped, needs root (sudo make check)"
	summary+=("budget   not run: needs root")
	total_fail=$((total_fail + 1))
fi
tier static tests/static.sh
tier arm64 make --no-print-directory check-arm64
if [ "$(id -u)" -eq 0 ]; then
	tier cri make --no-print-directory check-cri
else
	summary+=("cri      not run: needs root")
	total_fail=$((total_fail + 1))
fi
if [ -x tests/vm/run.sh ]; then
	tier vm make --no-print-directory check-vm
fi
if [ -x tests/vm-igb/run.sh ]; then
	tier vm-igb make --no-print-directory check-vm-igb
fi
if [ -x tests/vm-rdma/run.sh ]; then
	tier vm-rdma make --no-print-directory check-vm-rdma
fi
echo "== summary"
printf '  %s\n' "${summary[@]}"
echo "check: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
