#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make check-budget`: one ib-sriov ADD and one DEL (ib-host-local IPAM,
# IPv4 and IPv6 ranges and a route, as users run it) on the netns tier's
# simulated SR-IOV node, counted: system calls per binary and in total
# (strace -f) and page faults, minor + major (wait4() of the plugin and of
# every child it waited for). Each count is compared with
# tests/budget/budget.txt; one above its budget fails. RECORD=1 rewrites
# that file from this machine's counts instead (tests/budget/README.md).
#
# Each count is the smallest of RUNS (default 3) cycles after one warm-up
# cycle: the first ADD on a node creates the state directories, and a
# regression raises the smallest count as much as any.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
budget=${BUDGET_FILE:-$here/budget.txt}
RUNS=${RUNS:-3} RECORD=${RECORD:-}
if [ "$(id -u)" -ne 0 ]; then
	echo "budget: needs root (namespaces, veth, mounts); run: sudo make check-budget"
	echo "budget: 0 passed, 1 failed"
	exit 1
fi
strace=$(command -v strace) || {
	echo "budget: strace is not installed (scripts/deps.sh installs it)"
	echo "budget: 0 passed, 1 failed"
	exit 1
}
if [ -z "${IBCNI_BUDGET_INSIDE:-}" ]; then
	exec env IBCNI_BUDGET_INSIDE=1 unshare --mount --net --propagation private "$0" "$@"
fi
export IBCNI_BIN=${IBCNI_BIN:-$root/bin} IBCNI_HELPER=/nonexistent
export IBCNI_FIXTURES=$root/tests/fixtures
faults=${IBCNI_FAULTS:?the faults helper (tests/budget/faults.c)}
. "$root/tests/netns/lib.sh"
. "$root/tests/netns/sriov-lib.sh"

lib_init >/dev/null || exit 1
sim_node 1 2 eth || exit 1
pod_ns pod1 || exit 1
conf=$(sriov_conf ib-host-local)

declare -A got # measure -> smallest count over the runs

keep() { # MEASURE COUNT
	if [ -z "${got[$1]:-}" ] || [ "$2" -lt "${got[$1]}" ]; then
		got[$1]=$2
	fi
}

# syscalls TRACE: "BINARY COUNT" per binary of strace -f's output, then
# "total COUNT". A process counts under the binary it ran; what a child did
# before its exec (a vfork child setting up the IPAM), under its parent's.
syscalls() {
	awk '
	{ pid = $1; $1 = ""; sub(/^ /, "") }
	/^(\+\+\+|---)/ { next }
	/^<\.\.\. [a-z0-9_]+ resumed>/ {
		name = $2
		if (name ~ /^(clone|clone3|fork|vfork)$/ && $NF ~ /^[0-9]+$/) born[$NF] = bin[pid]
		else if (name == "execve" && $NF == "0") bin[pid] = exe[pid]
		next
	}
	/^[a-z0-9_]+\(/ {
		name = substr($0, 1, index($0, "(") - 1)
		if (name == "execve") {
			split($0, q, "\"")
			n = split(q[2], p, "/")
			exe[pid] = p[n]
			if ($NF == "0") bin[pid] = exe[pid]
		}
		if (name ~ /^(clone|clone3|fork|vfork)$/ && $NF ~ /^[0-9]+$/) born[$NF] = bin[pid]
		calls[pid, bin[pid]]++
	}
	END {
		for (k in calls) {
			split(k, a, SUBSEP)
			b = a[2]
			if (b == "") b = born[a[1]]
			if (b == "") b = "unknown"
			per[b] += calls[k]
			total += calls[k]
		}
		for (b in per) print b, per[b]
		print "total", total
	}' "$1"
}

# cycle N: ADD and DEL under strace, then ADD and DEL counting faults.
cycle() {
	local cmd b n minor major
	for cmd in ADD DEL; do
		rm -f "$T/trace"
		IBCNI_WRAP="$strace -f -qq -o $T/trace" cni_exec ib-sriov $cmd ctr1 pod1 net1 "$conf"
		[ "$RC" -eq 0 ] || { echo "budget: $cmd under strace failed ($RC): $OUT $ERR"; return 1; }
		while read -r b n; do
			keep "${cmd,,}.syscalls.$b" "$n"
		done < <(syscalls "$T/trace")
	done
	for cmd in ADD DEL; do
		IBCNI_WRAP="$faults $T/faults" cni_exec ib-sriov $cmd ctr1 pod1 net1 "$conf"
		[ "$RC" -eq 0 ] || { echo "budget: $cmd failed ($RC): $OUT $ERR"; return 1; }
		read -r minor major <"$T/faults"
		keep "${cmd,,}.faults" $((minor + major))
	done
}

cni_exec ib-sriov ADD ctr1 pod1 net1 "$conf" # warm-up
cni_exec ib-sriov DEL ctr1 pod1 net1 "$conf"
for ((i = 0; i < RUNS; i++)); do
	cycle || { echo "budget: 0 passed, 1 failed"; exit 1; }
done
measures=$(printf '%s\n' "${!got[@]}" | sort)

# The budget: the count plus 10%, and at least 5, so that noise (a netlink
# answer split in two, a retried EINTR) passes and a loop does not.
if [ -n "$RECORD" ]; then
	{
		echo "# check-budget's budget (tests/budget/README.md): MEASURE BUDGET RECORDED."
		echo "# Recorded by \`make check-budget RECORD=1\` on $(uname -r), $(date -u +%F):"
		echo "# the smallest of $RUNS counts, plus 10% and at least 5."
		for m in $measures; do
			n=${got[$m]} extra=$((got[$m] / 10))
			[ "$extra" -lt 5 ] && extra=5
			printf '%-28s %6d %6d\n' "$m" $((n + extra)) "$n"
		done
	} >"$budget.new" && mv "$budget.new" "$budget"
	echo "budget: recorded $(wc -w <<<"$measures") measures in $budget"
fi

pass=0 fail=0
printf '  %-6s %-28s %8s %8s %8s\n' "" measure measured budget recorded
for m in $measures; do
	read -r b r < <(awk -v m="$m" '$1 == m { print $2, $3 }' "$budget")
	if [ -z "${b:-}" ]; then
		fail=$((fail + 1))
		printf '  %-6s %-28s %8d %8s %8s  (no budget: re-record, tests/budget/README.md)\n' \
			FAIL "$m" "${got[$m]}" - -
	elif [ "${got[$m]}" -le "$b" ]; then
		pass=$((pass + 1))
		printf '  %-6s %-28s %8d %8d %8d\n' PASS "$m" "${got[$m]}" "$b" "$r"
	else
		fail=$((fail + 1))
		printf '  %-6s %-28s %8d %8d %8d\n' FAIL "$m" "${got[$m]}" "$b" "$r"
	fi
	b= r=
done
echo "budget: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
