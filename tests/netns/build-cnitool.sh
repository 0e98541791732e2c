#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Build cnitool, the CNI project's reference client, from Debian's packages:
# Go (golang-go), libcni (golang-github-appc-cni-dev) and cnitool.go from the
# Debian source package of the same version. Usage: build-cnitool.sh OUT
set -eu
out=${1:?usage: build-cnitool.sh OUTPUT_PATH}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
if [ -x "$out" ]; then
	echo "$out"
	exit 0
fi
missing=""
command -v go >/dev/null 2>&1 || missing="$missing golang-go"
[ -d /usr/share/gocode/src/github.com/containernetworking/cni/libcni ] ||
	missing="$missing golang-github-appc-cni-dev"
if [ -n "$missing" ]; then
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A deb-src list of our own, from the machine's Debian sources.
sources=/etc/apt/sources.list.d/debian.sources
sed -n '1,/^$/p' "$sources" | sed -e 's/^Types: deb$/Types: deb-src/' \
	-e 's/^Suites: .*/Suites: bookworm/' >"$tmp/src.sources"
mkdir -p "$tmp/lists/partial" "$tmp/src"
opts="-o Dir::Etc::sourcelist=$tmp/src.sources -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists=$tmp/lists"
apt-get $opts update -qq >/dev/null 2>&1
(cd "$tmp/src" && apt-get $opts source --download-only golang-github-appc-cni >/dev/null 2>&1)
dir=$tmp/gopath/src/github.com/containernetworking/cni/cnitool
mkdir -p "$dir"
tar -xaf "$(ls "$tmp"/src/golang-github-appc-cni_*.orig.tar.* | head -n 1)" -C "$tmp" \
	--wildcards '*/cnitool/cnitool.go'
cp "$tmp"/golang-github-appc-cni-*/cnitool/cnitool.go "$dir/"
mkdir -p "$(dirname "$out")"
GOPATH="$tmp/gopath:/usr/share/gocode" GO111MODULE=off GOPROXY=off GOFLAGS= \
	GOCACHE="$tmp/cache" go build -o "$out" github.com/containernetworking/cni/cnitool
echo "$out"
