# SPDX-License-Identifier: Apache-2.0
# scripts/apt-mirror.sh, which backports-apt.sh, build-cnitool.sh and
# fresh-root.sh read the machine's Debian mirror with: both source formats
# (deb822 and one-line, signed-by options included), entries that do not
# count skipped, and a message naming what was read when nothing fits.

MIRROR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)/apt-mirror.sh

mirror() { # ETC-DIR [CODENAME]: sets OUT (stdout+stderr) and RC
	OUT=$(IBCNI_APT_ETC=$1 "$MIRROR" "${2:-bookworm}" 2>&1)
	RC=$?
}

test_apt_mirror_deb822() {
	local e=$T/etc
	mkdir -p "$e/sources.list.d"
	# Disabled, source-only and other-suite entries come first and do not count.
	cat >"$e/sources.list.d/debian.sources" <<-'X'
	# a comment
	Types: deb
	URIs: http://disabled.example/debian
	Suites: bookworm
	Components: main
	Enabled: no

	Types: deb-src
	URIs: http://src.example/debian
	Suites: bookworm
	Components: main

	Types: deb
	URIs: http://security.example/debian-security
	Suites: bookworm-security
	Components: main

	Types: deb
	URIs: http://mirror.example/debian
	Suites: bookworm bookworm-updates
	Components: main contrib
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	X
	mirror "$e"
	assert_eq 0 "$RC" "deb822 exit"
	assert_eq "$(printf 'http://mirror.example/debian\t/usr/share/keyrings/debian-archive-keyring.gpg')" "$OUT" "deb822"
	# An inline key is no file to name.
	sed -i 's|^Signed-By: .*|Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n abc|' \
		"$e/sources.list.d/debian.sources"
	mirror "$e"
	assert_eq "$(printf 'http://mirror.example/debian\t')" "$OUT" "deb822, inline key"
}

test_apt_mirror_one_line() {
	local e=$T/etc
	mkdir -p "$e/sources.list.d"
	# What the Debian installer and debootstrap write: no deb822 file at all.
	cat >"$e/sources.list" <<-'X'
	# deb cdrom:[Debian GNU/Linux 12]/ bookworm main
	deb-src http://src.example/debian bookworm main
	deb http://security.example/debian-security bookworm-security main
	deb http://other.example/debian bookworm contrib
	deb http://deb.example/debian bookworm main non-free-firmware
	X
	mirror "$e"
	assert_eq 0 "$RC" "one-line exit"
	assert_eq "$(printf 'http://deb.example/debian\t')" "$OUT" "one-line"
	# Options in brackets, signed-by among them, with and without spaces.
	printf 'deb [arch=amd64 signed-by=/etc/apt/keyrings/d.gpg] http://a.example/debian bookworm main\n' \
		>"$e/sources.list"
	mirror "$e"
	assert_eq "$(printf 'http://a.example/debian\t/etc/apt/keyrings/d.gpg')" "$OUT" "[arch= signed-by=]"
	printf 'deb [ signed-by=/k.gpg ] http://b.example/debian bookworm main\n' >"$e/sources.list"
	mirror "$e"
	assert_eq "$(printf 'http://b.example/debian\t/k.gpg')" "$OUT" "[ signed-by= ]"
	# A .list in sources.list.d counts too; deb822 files are read first.
	: >"$e/sources.list"
	printf 'deb http://c.example/debian bookworm main\n' >"$e/sources.list.d/extra.list"
	mirror "$e"
	assert_eq "$(printf 'http://c.example/debian\t')" "$OUT" "sources.list.d/*.list"
	printf 'Types: deb\nURIs: http://d.example/debian\nSuites: bookworm\nComponents: main\n' \
		>"$e/sources.list.d/d.sources"
	mirror "$e"
	assert_eq "$(printf 'http://d.example/debian\t')" "$OUT" "deb822 before one-line"
}

test_apt_mirror_none() {
	local e=$T/etc
	mkdir -p "$e/sources.list.d"
	printf 'deb http://deb.example/debian trixie main\n' >"$e/sources.list"
	mirror "$e"
	assert_eq 1 "$RC" "no bookworm entry: exit"
	assert_match "no enabled 'deb \\.\\.\\. bookworm main' entry in .*/etc/sources.list" "$OUT" "names what was read"
	rm "$e/sources.list"
	mirror "$e"
	assert_eq 1 "$RC" "no sources at all: exit"
	assert_match "none exists" "$OUT" "says none exists"
	# The machine's own sources name a mirror (this tier's build needs one).
	OUT=$("$MIRROR" 2>&1)
	assert_match $'^[a-z]+://[^\t]+\t' "$OUT" "this machine's mirror"
}
