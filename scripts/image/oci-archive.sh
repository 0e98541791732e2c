#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# oci-archive.sh ROOTFS OUT.tar NAME ENTRYPOINT-JSON [CMD-JSON [ROOTFS...]]
#
# An OCI image archive (image-layout in a tar) built offline: no base image,
# no registry, no builder daemon. Each ROOTFS is ARCH=DIR (a bare DIR is
# amd64): one platform, linux/ARCH (OCI's names: amd64, arm64), whose one
# uncompressed layer is made from DIR, with its own config (architecture)
# and manifest. index.json names one image index holding every platform's
# manifest, as a multi-platform image pulled from a registry is: podman
# (containers/image) and containerd pick their platform's from it.
# Byte-for-byte reproducible (sorted entries, fixed times and owners).
# NAME is the full reference ("docker.io/library/ibcni:0.1.0"), put where
# `ctr images import` (io.containerd.image.name) and `podman load`
# (org.opencontainers.image.ref.name) read it.
set -eu
first=$1 out=$2 name=$3 entrypoint=$4 cmd=${5:-[]}
shift 4
[ $# -gt 0 ] && shift
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

# platform ARCH DIR: its layer, config and manifest as blobs; prints the
# manifest's descriptor for the index.
platform() {
	local arch=$1 dir=$2 layer config manifest
	reproducible_tar "$dir" "$work/layer.tar"
	layer=$(blob "$work/layer.tar")
	jq -n --arg created "$created" --arg diff "sha256:$layer" --arg name "$name" \
		--arg arch "$arch" --argjson ep "$entrypoint" --argjson cmd "$cmd" '{
		created: $created, architecture: $arch, os: "linux",
		config: {Entrypoint: $ep, Cmd: $cmd, Env: ["PATH=/bin:/ibcni/bin"],
			 Labels: {"org.opencontainers.image.title": $name}},
		rootfs: {type: "layers", diff_ids: [$diff]},
		history: [{created: $created, created_by: "scripts/image/oci-archive.sh"}]
	}' >"$work/config.json"
	config=$(blob "$work/config.json")
	jq -n --arg c "sha256:$config" --argjson cs "$(stat -c %s "$blobs/$config")" \
		--arg l "sha256:$layer" --argjson ls "$(stat -c %s "$blobs/$layer")" '{
		schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
		layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]
	}' >"$work/manifest.json"
	manifest=$(blob "$work/manifest.json")
	jq -nc --arg m "sha256:$manifest" --argjson ms "$(stat -c %s "$blobs/$manifest")" \
		--arg arch "$arch" '{mediaType: "application/vnd.oci.image.manifest.v1+json",
		digest: $m, size: $ms, platform: {architecture: $arch, os: "linux"}}'
}

: >"$work/descriptors"
seen=" "
for spec in "$first" "$@"; do
	[[ $spec == *=* ]] || spec=amd64=$spec
	arch=${spec%%=*} dir=${spec#*=}
	case $arch in
	amd64 | arm64) ;;
	*) echo "oci-archive: $arch: not a platform of ours (amd64, arm64)" >&2; exit 2 ;;
	esac
	[[ $seen != *" $arch "* ]] || { echo "oci-archive: linux/$arch given twice" >&2; exit 2; }
	[ -d "$dir" ] || { echo "oci-archive: $dir: not a directory" >&2; exit 2; }
	seen+="$arch "
	platform "$arch" "$dir" >>"$work/descriptors"
done

jq -s '{schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
	manifests: .}' "$work/descriptors" >"$work/index.json"
index=$(blob "$work/index.json")
jq -n --arg i "sha256:$index" --argjson is "$(stat -c %s "$blobs/$index")" --arg name "$name" '{
	schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
	manifests: [{mediaType: "application/vnd.oci.image.index.v1+json", digest: $i, size: $is,
		     annotations: {"io.containerd.image.name": $name,
				   "org.opencontainers.image.ref.name": $name}}]
}' >"$work/layout/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$work/layout/oci-layout"

mkdir -p "$(dirname "$out")"
reproducible_tar "$work/layout" "$out.tmp"
mv "$out.tmp" "$out"
