#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# build.sh OUT.tar NAME ARCH:BINDIR:INSTALLER...: the release image (`make
# image`), one platform per argument (linux/amd64 from `make static`,
# linux/arm64 from `make ARCH=arm64`). Each platform's whole filesystem is
# its static plugins and its static installer:
#   /ibcni-install          entrypoint (installer/ibcni-install.c)
#   /ibcni/bin/ib-sriov rdma-ns ib-host-local, rdma (a hard link of rdma-ns
#                           in the layer; the installer writes the host's rdma
#                           as a file of its own)
set -eu
out=$1 name=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What file(1) says of an ELF of each platform; a binary of another, or a
# dynamic one, would be a broken image on every node of that platform.
declare -A machine=([amd64]='x86-64' [arm64]='ARM aarch64')
roots=()
for spec in "$@"; do
	IFS=: read -r arch bindir installer <<<"$spec"
	[ -n "${machine[$arch]:-}" ] || { echo "image: $arch: not a platform of ours" >&2; exit 2; }
	root=$work/$arch
	mkdir -p "$root/ibcni/bin"
	for f in "$bindir/ib-sriov" "$bindir/rdma-ns" "$bindir/ib-host-local" "$installer"; do
		if ! file "$f" | grep -q "${machine[$arch]}.*statically linked"; then
			echo "image: $f is not a static linux/$arch executable: $(file -b "$f")" >&2
			exit 1
		fi
	done
	for b in ib-sriov rdma-ns ib-host-local; do
		install -m 0755 "$bindir/$b" "$root/ibcni/bin/$b"
	done
	ln "$root/ibcni/bin/rdma-ns" "$root/ibcni/bin/rdma"
	install -m 0755 "$installer" "$root/ibcni-install"
	roots+=("$arch=$root")
done
[ ${#roots[@]} -gt 0 ] || { echo "usage: build.sh OUT.tar NAME ARCH:BINDIR:INSTALLER..." >&2; exit 2; }
"$here/oci-archive.sh" "${roots[0]}" "$out" "$name" '["/ibcni-install"]' '[]' "${roots[@]:1}"
echo "image: $out ($name, ${roots[*]%%=*}, $(stat -c %s "$out") bytes)"
