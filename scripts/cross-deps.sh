#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# cross-deps.sh ARCH: install whichever Debian packages the cross build for
# ARCH (`make ARCH=arm64`) and its qemu-user tier lack (needs root then):
# Debian's cross toolchain, the ARCH multiarch -dev package of every library
# the Makefile links (PKGS, libibverbs with its static providers, and the
# PodResources client's libnghttp2 and libprotobuf-c), protoc-c (it runs on
# the build machine) and qemu-user-static. The foreign architecture is added
# to dpkg only when absent; the package lists are then updated once.
set -eu
arch=${1:-}
case $arch in
arm64) triplet=aarch64-linux-gnu qemu=qemu-user-static ;;
*)
	echo "usage: cross-deps.sh arm64 (the one cross target of the Makefile's ARCH=)" >&2
	exit 2
	;;
esac
pkgs=(gcc-$triplet libc6-dev-$arch-cross binutils-$triplet pkg-config "pkgconf:$arch" file
      protobuf-c-compiler $qemu)
for p in libnl-3-dev libnl-route-3-dev libjson-c-dev libcap-dev libibverbs-dev \
	libnghttp2-dev libprotobuf-c-dev; do
	pkgs+=("$p:$arch")
done
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "cross-deps: missing ${missing[*]}; run as root (or with sudo): scripts/cross-deps.sh $arch" >&2
	exit 1
fi
if ! { dpkg --print-architecture; dpkg --print-foreign-architectures; } | grep -qx "$arch"; then
	echo "cross-deps: dpkg --add-architecture $arch"
	dpkg --add-architecture "$arch"
fi
echo "cross-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Other builds on the machine may hold dpkg's lock for a while: wait for it.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
