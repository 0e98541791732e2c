#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# build.sh BINDIR INSTALLER OUT.tar NAME: the release image (`make image`).
# Its whole filesystem is the static plugins and the static installer:
#   /ibcni-install          entrypoint (scripts/image/ibcni-install.c)
#   /ibcni/bin/ib-sriov rdma-ns ib-host-local, rdma (a hard link of rdma-ns)
set -eu
bindir=$1 installer=$2 out=$3 name=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/ibcni/bin"
for b in ib-sriov rdma-ns ib-host-local; do
	if ! file "$bindir/$b" | grep -q 'statically linked'; then
		echo "image: $bindir/$b is not static" >&2
		exit 1
	fi
	install -m 0755 "$bindir/$b" "$root/ibcni/bin/$b"
done
ln "$root/ibcni/bin/rdma-ns" "$root/ibcni/bin/rdma"
install -m 0755 "$installer" "$root/ibcni-install"
"$here/oci-archive.sh" "$root" "$out" "$name" '["/ibcni-install"]' '[]'
echo "image: $out ($name, $(stat -c %s "$out") bytes)"
