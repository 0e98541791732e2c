#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# oci-archive.sh ROOTFS OUT.tar NAME ENTRYPOINT-JSON [CMD-JSON]
#
# An OCI image archive (image-layout in a tar) of one uncompressed layer made
# from the directory ROOTFS, built offline: no base image, no registry, no
# builder daemon. Byte-for-byte reproducible (sorted entries, fixed times and
# owners). NAME is the full reference ("docker.io/library/ibcni:0.1.0"), put
# where `ctr images import` (io.containerd.image.name) and `podman load`
# (org.opencontainers.image.ref.name) read it.
set -eu
rootfs=$1 out=$2 name=$3 entrypoint=$4 cmd=${5:-[]}
epoch=${SOURCE_DATE_EPOCH:-0}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
blobs=$work/layout/blobs/sha256
mkdir -p "$blobs"

reproducible_tar() { # DIR OUT
	tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
		--format=gnu -C "$1" -cf "$2" .
}

blob() { # FILE -> prints its digest, moves it into blobs/
	local d
	d=$(sha256sum "$1" | cut -d' ' -f1)
	mv "$1" "$blobs/$d"
	echo "$d"
}

reproducible_tar "$rootfs" "$work/layer.tar"
layer_size=$(stat -c %s "$work/layer.tar")
layer=$(blob "$work/layer.tar")

jq -n --arg created "$created" --arg diff "sha256:$layer" --arg name "$name" \
	--argjson ep "$entrypoint" --argjson cmd "$cmd" '{
	created: $created, architecture: "amd64", os: "linux",
	config: {Entrypoint: $ep, Cmd: $cmd, Env: ["PATH=/bin:/ibcni/bin"],
		 Labels: {"org.opencontainers.image.title": $name}},
	rootfs: {type: "layers", diff_ids: [$diff]},
	history: [{created: $created, created_by: "scripts/image/oci-archive.sh"}]
}' >"$work/config.json"
config_size=$(stat -c %s "$work/config.json")
config=$(blob "$work/config.json")

jq -n --arg c "sha256:$config" --argjson cs "$config_size" \
	--arg l "sha256:$layer" --argjson ls "$layer_size" '{
	schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
	config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
	layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]
}' >"$work/manifest.json"
manifest_size=$(stat -c %s "$work/manifest.json")
manifest=$(blob "$work/manifest.json")

jq -n --arg m "sha256:$manifest" --argjson ms "$manifest_size" --arg name "$name" '{
	schemaVersion: 2,
	manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m,
		     size: $ms, platform: {architecture: "amd64", os: "linux"},
		     annotations: {"io.containerd.image.name": $name,
				   "org.opencontainers.image.ref.name": $name}}]
}' >"$work/layout/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$work/layout/oci-layout"

mkdir -p "$(dirname "$out")"
reproducible_tar "$work/layout" "$out.tmp"
mv "$out.tmp" "$out"
