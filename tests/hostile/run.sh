#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The hostile-input corpus, standalone: every group of tests/hostile/*.cases
# (or those whose name contains FILTER) in its own private mount and network
# namespace, one line per group, then the totals. Needs root; the netns tier
# runs the same groups through tests/netns/test-hostile-corpus.sh.
#   sudo tests/hostile/run.sh [FILTER]     (after make)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export IBCNI_BIN=${IBCNI_BIN:-$top/bin} IBCNI_FIXTURES=${IBCNI_FIXTURES:-$top/tests/fixtures}
export IBCNI_HELPER=${IBCNI_HELPER:-$top/build/netns/cnihelper}
if [ "$(id -u)" -ne 0 ]; then
	echo "corpus: needs root (namespaces, veth, mounts); run: sudo $0"
	exit 1
fi
filter=${1:-}
n=0 p=0 f=0 k=0
for file in "$here"/*.cases; do
	g=$(basename "$file" .cases)
	[[ -n $filter && $g != *"$filter"* ]] && continue
	res=$(mktemp)
	timeout 300 unshare --mount --net --propagation private bash -c \
		". '$top/tests/netns/lib.sh'; . '$here/corpus.sh'; lib_init &&
		 corpus_group '$file'; cp \"\$T/.r/totals\" '$res' 2>/dev/null; lib_finish; true"
	read -r gn gp gf gk <"$res" 2>/dev/null
	if [ -z "${gn:-}" ]; then # the group never finished: every case failed
		gn=$(grep -c ' | ' "$file") gp=0 gf=$gn gk=0
		echo "  $g: did not finish; its $gn cases count as failed"
	fi
	n=$((n + gn)) p=$((p + gp)) f=$((f + gf)) k=$((k + gk))
	unset gn gp gf gk
	rm -f "$res"
done
echo "corpus: $n cases, $p passed, $f failed, $k known"
[ "$f" -eq 0 ]
