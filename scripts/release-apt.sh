#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A private, download-only apt configuration for another Debian release
# (CODENAME and CODENAME-backports, main), from the mirror and keyring of the
# machine's own sources. Nothing of the system is read or written but those
# sources: our sources list, lists and cache live under DIR, the dpkg status
# is /dev/null (every package counts as not installed, so `apt-get install
# --download-only` resolves a whole dependency closure and installs nothing).
# Callers run `apt-get -c DIR/apt.conf ...`; tests/vm-lib.sh does.
#
# Usage: release-apt.sh DIR CODENAME   (prints DIR/apt.conf; updates the
#                                       lists when missing or a day old)
set -eu
dir=${1:?usage: release-apt.sh DIR CODENAME}
rel=${2:?usage: release-apt.sh DIR CODENAME}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
. /etc/os-release
found=$("$(dirname "$0")/apt-mirror.sh" "${VERSION_CODENAME:?/etc/os-release has no VERSION_CODENAME}") ||
	exit 1
uri=${found%%	*}
key=${found#*	}
arch=$(dpkg --print-architecture)

mkdir -p "$dir/parts" "$dir/lists/partial" "$dir/cache/archives/partial"
{
	echo "Types: deb"
	echo "URIs: $uri"
	echo "Suites: $rel $rel-backports"
	echo "Components: main"
	[ -n "$key" ] && echo "Signed-By: $key"
} >"$dir/ibcni.sources"
# Empty parts and preferences directories: the system's pins do not apply.
cat >"$dir/apt.conf" <<EOF
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$dir/parts";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$dir/parts";
Dir::State::Lists "$dir/lists";
Dir::State::status "/dev/null";
Dir::Cache "$dir/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Install-Recommends "false";
Acquire::Languages "none";
EOF
# deb822 sources are read from the parts directory only.
mv "$dir/ibcni.sources" "$dir/parts/ibcni.sources"

stamp=$dir/lists/.updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	apt-get -c "$dir/apt.conf" update -qq >/dev/null || {
		echo "release-apt: apt-get update of $rel and $rel-backports from $uri failed" >&2
		exit 1
	}
	touch "$stamp"
fi
echo "$dir/apt.conf"
