#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cri tier's Debian packages, installed on first use (root): the runtimes
# (containerd with runc, podman), the client's gRPC and protobuf, busybox for
# the test image, PyYAML to read the DaemonSet.
set -eu
pkgs=(containerd runc podman python3-grpcio python3-protobuf protobuf-compiler
      busybox-static python3-yaml containernetworking-plugins jq)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "cri: missing ${missing[*]}; run as root (or with sudo) to install them" >&2
	exit 1
fi
echo "cri: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
