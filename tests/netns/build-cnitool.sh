#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build cnitool, the CNI project's reference client, from Debian's packages:
# Go (golang-go), libcni (golang-github-appc-cni-dev) and cnitool.go from the
# Debian source package of the same version, fetched through a deb-src list
# of our own on the mirror this machine's sources name (scripts/apt-mirror.sh
# reads both formats). Usage: build-cnitool.sh OUT   (root: apt-get)
set -eu
out=${1:?usage: build-cnitool.sh OUTPUT_PATH}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "build-cnitool: $*" >&2; exit 1; }
if [ -x "$out" ]; then
	echo "$out"
	exit 0
fi
missing=""
command -v go >/dev/null 2>&1 || missing="$missing golang-go"
[ -d /usr/share/gocode/src/github.com/containernetworking/cni/libcni ] ||
	missing="$missing golang-github-appc-cni-dev"
command -v xz >/dev/null 2>&1 || missing="$missing xz-utils"	# the .orig.tar may be .xz
if [ -n "$missing" ]; then
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "cannot install$missing"
fi
. /etc/os-release
mirror=$("$root/scripts/apt-mirror.sh" "$VERSION_CODENAME") || die "no Debian mirror for deb-src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	echo "Types: deb-src"
	echo "URIs: ${mirror%%	*}"
	echo "Suites: $VERSION_CODENAME"
	echo "Components: main"
	[ -n "${mirror#*	}" ] && echo "Signed-By: ${mirror#*	}"
} >"$tmp/src.sources"
mkdir -p "$tmp/lists/partial" "$tmp/src"
opts=(-o Dir::Etc::sourcelist="$tmp/src.sources" -o Dir::Etc::sourceparts=/dev/null
      -o Dir::State::Lists="$tmp/lists")
apt-get "${opts[@]}" update -qq >"$tmp/apt.log" 2>&1 ||
	die "apt-get update of deb-src ${mirror%%	*} $VERSION_CODENAME failed: $(tail -1 "$tmp/apt.log")"
(cd "$tmp/src" && apt-get "${opts[@]}" source --download-only golang-github-appc-cni) >"$tmp/apt.log" 2>&1 ||
	die "apt-get source golang-github-appc-cni failed: $(tail -1 "$tmp/apt.log")"
orig=$(ls "$tmp"/src/golang-github-appc-cni_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || die "the source package has no .orig tarball"
dir=$tmp/gopath/src/github.com/containernetworking/cni/cnitool
mkdir -p "$dir"
tar -xaf "$orig" -C "$tmp" --wildcards '*/cnitool/cnitool.go' || die "no cnitool/cnitool.go in $(basename "$orig")"
cp "$tmp"/golang-github-appc-cni-*/cnitool/cnitool.go "$dir/"
mkdir -p "$(dirname "$out")"
GOPATH="$tmp/gopath:/usr/share/gocode" GO111MODULE=off GOPROXY=off GOFLAGS= \
	GOCACHE="$tmp/cache" go build -o "$out" github.com/containernetworking/cni/cnitool ||
	die "go build of cnitool failed"
echo "$out"
