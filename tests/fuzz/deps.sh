#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Install whichever of the named Debian packages are missing (root), as
# scripts/deps.sh does for the build: `make fuzz` needs clang and its
# libFuzzer runtime, `make check-valgrind` needs valgrind.
set -eu
missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
