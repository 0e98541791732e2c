#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A private apt configuration that adds Debian's <codename>-backports suite,
# taken from the mirror the machine's own sources already use. The system's
# sources, lists and preferences are never written: our sources and lists
# live under DIR, and callers run `apt-get -c DIR/apt.conf ...`.
#
# Usage: backports-apt.sh DIR    (prints DIR/apt.conf; updates the lists when
#                                 they are missing or older than a day)
set -eu
dir=${1:?usage: backports-apt.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
. /etc/os-release
codename=${VERSION_CODENAME:?/etc/os-release has no VERSION_CODENAME}

# The mirror and keyring of the system's own '$codename main' entry (deb822
# or one-line sources: scripts/apt-mirror.sh says what it could not find).
found=$("$(dirname "$0")/apt-mirror.sh" "$codename") || exit 1
uri=${found%%	*}
key=${found#*	}

# Our parts directory (not named *.d: the Makefile includes build/**/*.d): the system's own parts (read in place through
# symlinks, so a later edit of them is seen) plus the backports entry.
mkdir -p "$dir/parts" "$dir/lists/partial" "$dir/cache/archives/partial"
find "$dir/parts" -mindepth 1 -delete
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && ln -s "$f" "$dir/parts/system-$(basename "$f")"
done
{
	echo "Types: deb"
	echo "URIs: $uri"
	echo "Suites: $codename-backports"
	echo "Components: main"
	[ -n "$key" ] && echo "Signed-By: $key"
} >"$dir/parts/ibcni-backports.sources"
cat >"$dir/apt.conf" <<EOF
Dir::Etc::SourceParts "$dir/parts";
Dir::State::Lists "$dir/lists";
Dir::Cache "$dir/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF

# Lists: seeded from the system's (apt then only fetches what changed),
# refreshed once a day.
stamp=$dir/lists/.updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	if [ ! -f "$stamp" ]; then
		find /var/lib/apt/lists -maxdepth 1 -type f ! -name lock \
			-exec cp -p {} "$dir/lists/" \; 2>/dev/null || true
	fi
	apt-get -c "$dir/apt.conf" update -qq >/dev/null || {
		echo "backports-apt: apt-get update with $codename-backports from $uri failed" >&2
		exit 1
	}
	touch "$stamp"
fi
echo "$dir/apt.conf"
