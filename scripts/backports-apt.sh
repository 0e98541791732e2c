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

# Print "URI<TAB>KEYRING" of the first enabled binary entry for $codename
# with component main: deb822 files first (Debian 12's default), then the
# one-line format.
mirror_deb822() {
	awk -v want="$codename" '
	function flush() {
		if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") &&
		    (" " comps " ") ~ / main / && tolower(enabled) != "no" && uri != "")
			{ print uri "\t" key; found = 1; exit }
		types = suites = comps = uri = key = enabled = ""
	}
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
	/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
	/^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
	/^URIs:/ { uri = $2 }
	/^Enabled:/ { enabled = $2 }
	/^Signed-By:/ { if ($2 ~ /^\//) key = $2 }
	END { if (!found) flush() }' "$@"
}
mirror_oneline() {
	awk -v want="$codename" '
	$1 == "deb" {
		key = ""; i = 2
		if ($2 ~ /^\[/) {
			for (; i <= NF; i++) {
				if ($i ~ /^\[?signed-by=/) { key = $i; sub(/.*signed-by=/, "", key); sub(/\]$/, "", key) }
				if ($i ~ /\]$/) { i++; break }
			}
		}
		if ($(i + 1) != want) next
		for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i "\t" key; exit }
	}' "$@"
}

found=""
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	found=$(mirror_deb822 "$f")
	[ -n "$found" ] && break
done
if [ -z "$found" ]; then
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		found=$(mirror_oneline "$f")
		[ -n "$found" ] && break
	done
fi
[ -n "$found" ] || {
	echo "backports-apt: no enabled '$codename main' entry in /etc/apt/sources.list*" >&2
	exit 1
}
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
