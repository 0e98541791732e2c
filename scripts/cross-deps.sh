#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# cross-deps.sh ARCH: install whichever Debian packages the cross build for
# ARCH (`make ARCH=arm64`) and its qemu-user tier lack (needs root then):
# Debian's cross toolchain, the ARCH multiarch -dev package of every library
# the Makefile links (PKGS, libibverbs with its static providers, and the
# PodResources client's libnghttp2 and libprotobuf-c), protoc-c (it runs on
# the build machine) and qemu-user-static. The foreign architecture is added
# to dpkg only when absent; scripts/deps.sh installs what is missing.
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
# The foreign architecture first: dpkg-query and apt know :ARCH packages
# only once it is added; scripts/deps.sh then installs what is missing.
if ! { dpkg --print-architecture; dpkg --print-foreign-architectures; } | grep -qx "$arch"; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "cross-deps: dpkg lacks $arch; run as root (or with sudo): scripts/cross-deps.sh $arch" >&2
		exit 1
	fi
	echo "cross-deps: dpkg --add-architecture $arch"
	dpkg --add-architecture "$arch"
fi
exec "$(dirname "$0")/deps.sh" "${pkgs[@]}"
