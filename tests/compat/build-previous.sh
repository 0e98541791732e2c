#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build the previous release's plugins (tests/compat/PREVIOUS) from this
# checkout's history into build/compat/<commit>/ and print the directory of
# its binaries. The build is cached by commit: a second run builds nothing.
# A tree without .git (a release tarball) has no history to build from: say
# so on stderr and exit 2. Usage: build-previous.sh [JOBS]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${1:-1}
git=(git -c safe.directory="$root" -C "$root")
prev=$(grep -v '^#' "$root/tests/compat/PREVIOUS" | head -n 1)
if [ "$("${git[@]}" rev-parse --show-toplevel 2>/dev/null)" != "$root" ]; then
	echo "compat: cannot run: $root is not a git checkout (a release tarball?)," \
		"so the previous release $prev cannot be built from its history" >&2
	exit 2
fi
commit=$("${git[@]}" rev-parse --verify --quiet "$prev^{commit}") || {
	echo "compat: cannot run: commit $prev (tests/compat/PREVIOUS) is not in this repository's history" >&2
	exit 2
}
out=$root/build/compat/$commit
# The release's default build (static plugins, bin/): what it shipped, and
# about as fast as DYNAMIC=1 (13 s and 12 s with -j1; docs/testing.md).
if [ ! -f "$out/done" ]; then
	rm -rf "$out"
	mkdir -p "$out/src"
	"${git[@]}" archive "$commit" | tar -x -C "$out/src"
	log=$out/build.log
	if ! make -C "$out/src" --no-print-directory -j"$jobs" all >"$log" 2>&1; then
		echo "compat: the previous release $prev did not build; $log:" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
	touch "$out/done"
fi
echo "$out/src/bin"
