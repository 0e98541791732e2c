#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make check-valgrind`: every Criterion unit binary (one job, every test
# worker traced), then a subset of the netns tier with each plugin run
# through IBCNI_WRAP (and the ibcni delegates it execs traced too), all
# under memcheck. A test passes when it passes and its processes report no
# error and no definite leak. Prints `valgrind: N passed, M failed`.
# VALGRIND_NETNS (NETNS_FILTER substrings) replaces the netns subset.
set -u
# System programs (shells, the Go plugins, the fixture scripts) are not ours.
vg=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--show-leak-kinds=definite --num-callers=30 --vgdb=no --trace-children=yes
	'--trace-children-skip=/bin/*,/usr/*,/sbin/*,*/fixtures/*')

# As IBCNI_WRAP: `valgrind.sh --wrap BIN LOGDIR PROGRAM ARGS...` runs
# PROGRAM under valgrind when it is one of ours (under BIN), else as is
# (valgrind cannot run Go's host-local: SIGILL).
if [ "${1:-}" = --wrap ]; then
	bin=$2 dir=$3
	shift 3
	[[ $1 == "$bin"/* ]] && exec "${vg[@]}" --log-file="$dir/%p.log" "$@"
	exec "$@"
fi

out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
export IBCNI_FIXTURES=$here/fixtures
export IBCNI_BIN=$(cd "$out/bin" && pwd)
# Not under /run: the netns tier mounts a tmpfs there.
logs=$(mktemp -d /tmp/ibcni-valgrind.XXXXXX)
trap 'rm -rf "$logs"' EXIT
pass=0 fail=0 failed=()

# Sum of "ERROR SUMMARY: N errors" over the logs of dir; prints the bad logs.
errors() {
	local n=0 e f
	for f in "$1"/*.log; do
		[ -f "$f" ] || continue
		e=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$f" | tail -1)
		if [ "${e:-0}" -ne 0 ]; then
			n=$((n + e))
			sed 's/^/      /' "$f" | grep -v '^      ==[0-9]*== *$' | head -60
		fi
	done
	echo "$n" >"$1/count"
}

echo "== unit tier under valgrind"
for t in "$@"; do
	name=$(basename "$t") dir=$logs/unit-$name
	mkdir -p "$dir"
	# --no-early-exit is a no-op (and a warning) in Criterion 2.4: workers
	# always run to exit, so their leaks are seen.
	"${vg[@]}" --log-file="$dir/%p.log" "$t" --jobs 1 >"$dir/out" 2>&1
	line=$(grep -a 'Synthesis:' "$dir/out" | tail -1)
	p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$line")
	c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$line")
	[ -z "$line" ] && p=0 f=1 c=0
	errors "$dir"
	e=$(cat "$dir/count")
	pass=$((pass + p)) fail=$((fail + f + c))
	if [ "$e" -ne 0 ]; then
		fail=$((fail + 1)) failed+=("$name")
	fi
	[ $((f + c)) -ne 0 ] && failed+=("$name") && grep -a -B2 -A8 'FAIL\|CRASH\|fail' "$dir/out" | head -40
	printf '  %-28s %s, %d valgrind errors\n' "$name" "${line:-no synthesis line}" "$e"
done

echo "== netns tier (subset) under valgrind"
if [ "$(id -u)" -ne 0 ]; then
	echo "  needs root; not run"
	fail=$((fail + 1)) failed+=(netns)
else
	for filter in ${VALGRIND_NETNS:-test-ibsriov:test_add_check_del \
		test-ibsriov:test_add_without_ipam test-ibsriov:test_rollback_ipam_failure \
		test-ibsriov:test_rollback_garbage_ipam test-ibsriov:test_rollback_kernel_refuses \
		test-ibsriov:test_ifname_taken test-ibsriov:test_del_edge_cases \
		test-ibsriov:test_gc_releases test-ibsriov:test_bad_inputs \
		test-ipam:test_differential_every_version test-ipam:test_improved \
		test-ipam:test_check_verifies test-ipam:test_gc_and_status test-rdmans: \
		test-runtime:test_env_errors test-runtime:test_stdin_errors}; do
		dir=$logs/netns-${filter//[:\/]/-}
		mkdir -p "$dir"
		IBCNI_WRAP="$here/valgrind.sh --wrap $IBCNI_BIN $dir" NETNS_FILTER=$filter \
			"$here/netns/run.sh" >"$dir/out" 2>&1
		p=$(sed -n 's/^netns: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$dir/out")
		f=$(sed -n 's/^netns: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$dir/out")
		[ -z "$p" ] && p=0 f=1
		errors "$dir"
		e=$(cat "$dir/count")
		n=$(find "$dir" -name '*.log' | wc -l)
		pass=$((pass + p)) fail=$((fail + f))
		[ "$e" -ne 0 ] && fail=$((fail + 1)) && failed+=("$filter")
		[ "$f" -ne 0 ] && failed+=("$filter") && grep -v '^  PASS' "$dir/out" | head -40
		printf '  %-44s %d passed, %d failed, %d processes, %d valgrind errors\n' \
			"$filter" "$p" "$f" "$n" "$e"
	done
fi
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
