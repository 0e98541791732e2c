#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Run each libFuzzer target for FUZZ_SECONDS on its committed seeds
# (tests/fuzz/corpus/<target>) plus what earlier runs found
# (<out>/corpus/<target>); print executions and crashes per target, then
# `fuzz: N executions, M crashes`. A crash, leak or hang leaves its input
# in <out>/crashes/<target>/ and fails the run.
set -u
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECONDS:-60}
scratch=$(mktemp -d /dev/shm/ibcni-fuzz.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT
total_exec=0 total_crash=0
for t in "$@"; do
	corpus=$out/corpus/$t crashes=$out/crashes/$t log=$scratch/$t.log
	mkdir -p "$corpus" "$crashes" "$here/corpus/$t"
	before=$(find "$crashes" -type f | wc -l)
	dict=()
	case $t in
	conf | result | json | ipam_conf | ibsriov_conf) dict=(-dict="$here/json.dict") ;;
	esac
	# TMPDIR: the harnesses' scratch files live on tmpfs and go away.
	TMPDIR=$scratch "$out/bin/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" \
		"$corpus" "$here/corpus/$t" </dev/null >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	[ -z "$execs" ] && execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1)
	execs=${execs:-0}
	crash=$(($(find "$crashes" -type f | wc -l) - before))
	[ "$rc" -ne 0 ] && [ "$crash" -eq 0 ] && crash=1
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	printf '  %-14s %10d executions in %ss, %s, %d crashes\n' "$t" "$execs" "$secs" \
		"${cov:-cov: ?}" "$crash"
	if [ "$crash" -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -20 | sed 's/^/      /'
	fi
	total_exec=$((total_exec + execs)) total_crash=$((total_crash + crash))
done
echo "fuzz: $total_exec executions, $total_crash crashes"
[ "$total_crash" -eq 0 ]
