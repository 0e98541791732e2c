#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The documentation a reader navigates, checked without root (the static tier
# runs it): every relative link resolves, every #anchor names a heading of its
# file (GitHub's slug), and `make help` names every .PHONY target.
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0

# Every Markdown file a reader reaches from the README, and the plain READMEs.
doc_files() {
	local f
	for f in README.md docs/*.md tests/README.md tests/*/README* conf-examples/*.md; do
		[ -f "$f" ] && echo "$f"
	done
	find cni -name README.md | sort
}

# FILE: "H<TAB>slug" per heading and "L<TAB>line<TAB>target" per link, outside
# fenced code and code spans. The slug is GitHub's: the heading's text, lower
# case, punctuation dropped (non-ASCII too: no heading here has a letter
# beyond ASCII), each space a hyphen, a repeated slug suffixed -1, -2.
scan() {
	awk '
	/^(```|~~~)/ { fence = !fence; next }
	fence { next }
	{
		line = $0
		gsub(/`[^`]*`/, "", line)	# code spans hold no links
		if ($0 ~ /^#+ /) {
			h = $0
			sub(/^#+ +/, "", h); sub(/ +#* *$/, "", h)
			while (match(h, /\[[^]]*\]\([^)]*\)/)) {	# a link: its text
				t = substr(h, RSTART + 1, RLENGTH - 2); sub(/\]\(.*/, "", t)
				h = substr(h, 1, RSTART - 1) t substr(h, RSTART + RLENGTH)
			}
			h = tolower(h)
			gsub(/[^a-z0-9 _-]/, "", h)
			gsub(/ /, "-", h)
			s = h
			if (h in seen) s = h "-" seen[h]
			seen[h]++
			print "H\t" s
		}
		while (match(line, /\]\([^)]*\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
			print "L\t" NR "\t" t
		}
	}' "$1"
}

links_fail=0
check_link() { # FILE LINE TARGET
	local file=$1 n=$2 target=$3 path anchor dest
	case $target in
	http://* | https://* | mailto:*) return ;;
	esac
	path=${target%%#*}
	anchor=
	[[ $target == *"#"* ]] && anchor=${target#*#}
	if [ -z "$path" ]; then
		dest=$file
	else
		dest=$(dirname "$file")/$path
	fi
	if [ ! -e "$dest" ]; then
		echo "    $file:$n: $target: no such file"
		links_fail=$((links_fail + 1))
		return
	fi
	[ -n "$anchor" ] || return
	if [ ! -f "$dest" ] || ! scan "$dest" | grep -qxF "H	$anchor"; then
		echo "    $file:$n: $target: no heading with that anchor in $dest"
		links_fail=$((links_fail + 1))
	fi
}

nlinks=0
while read -r f; do
	while IFS=$'\t' read -r kind n target; do
		[ "$kind" = L ] || continue
		nlinks=$((nlinks + 1))
		check_link "$f" "$n" "$target"
	done < <(scan "$f")
done < <(doc_files)
if [ "$links_fail" -eq 0 ] && [ "$nlinks" -gt 0 ]; then
	pass=$((pass + 1)); echo "  PASS  docs: $nlinks relative links and anchors resolve"
else
	fail=$((fail + 1)); echo "  FAIL  docs: $links_fail of $nlinks links do not resolve"
fi

# Every target of a .PHONY line in the Makefiles appears as `make <target>` in
# `make help` (a line may name several: `make fuzz, make fuzz-build`).
help=$(make --no-print-directory -s help 2>/dev/null)
missing=()
for t in $(cat Makefile tests/*.mk tests/*/*.mk 2>/dev/null | sed -n 's/^\.PHONY: *//p'); do
	grep -qE "(^|[ ,(])make \[?$t\]?([ ,:)]|$)" <<<"$help" || missing+=("$t")
done
if [ "${#missing[@]}" -eq 0 ] && [ -n "$help" ]; then
	pass=$((pass + 1)); echo "  PASS  make help names every .PHONY target"
else
	fail=$((fail + 1)); echo "  FAIL  make help leaves out: ${missing[*]:-(no output)}"
fi

echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
