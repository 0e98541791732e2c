#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The Debian mirror this machine's apt uses: the first enabled binary entry
# for CODENAME (default: this system's) with component main, read from the
# deb822 files (/etc/apt/sources.list.d/*.sources, Debian 12's default) and
# then the one-line format (/etc/apt/sources.list and sources.list.d/*.list,
# what the Debian installer and debootstrap write), `[signed-by=...]` options
# included. Prints "URI<TAB>KEYRING" (KEYRING empty when the entry names
# none, or names it inline); exits 1 with a message naming what was read.
#
# Usage: apt-mirror.sh [CODENAME]
set -eu
codename=${1:-}
if [ -z "$codename" ]; then
	. /etc/os-release
	codename=${VERSION_CODENAME:?/etc/os-release has no VERSION_CODENAME}
fi
etc=${IBCNI_APT_ETC:-/etc/apt}	# tests point this at a tree of their own

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

read_files=()
for f in "$etc"/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	read_files+=("$f")
	found=$(mirror_deb822 "$f")
	[ -n "$found" ] && { echo "$found"; exit 0; }
done
for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	read_files+=("$f")
	found=$(mirror_oneline "$f")
	[ -n "$found" ] && { echo "$found"; exit 0; }
done
echo "apt-mirror: no enabled 'deb ... $codename main' entry in ${read_files[*]:-$etc/sources.list or $etc/sources.list.d/ (none exists)}" >&2
exit 1
