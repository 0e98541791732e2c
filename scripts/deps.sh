#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Install whichever of ibcni's Debian packages are missing (needs root then):
# the build's and tests' list, or the packages named as arguments (a tier's
# own: fuzz, valgrind, cri).
set -eu
pkgs=(gcc make pkg-config libc6-dev libnl-3-dev libjson-c-dev
      libcap-dev libibverbs-dev ibverbs-providers libcriterion-dev iproute2 jq file util-linux procps strace
      containernetworking-plugins clang-format python3 python3-yaml
      libnghttp2-dev libprotobuf-c-dev protobuf-c-compiler
      python3-grpcio python3-protobuf protobuf-compiler)
[ $# -gt 0 ] && pkgs=("$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root (or with sudo) to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another build on the machine may hold dpkg's lock for a while: wait for it.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
