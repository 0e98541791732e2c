# SPDX-License-Identifier: Apache-2.0

# make image's archive itself: an OCI layout whose index.json names one image
# index of two platforms, linux/amd64 and linux/arm64, each a manifest with
# its own config (architecture) and one layer holding exactly that
# platform's static plugins and installer; the same inputs rebuild it byte
# for byte.

blob() { # DIGEST -> the blob's path
	echo "$T/oci/blobs/sha256/${1#sha256:}"
}

test_image_layout_and_contents() {
	mkdir -p "$T/oci"
	tar -xf "$IBCNI_IMAGE" -C "$T/oci" || { fail "not a tar"; return; }
	assert_file "$T/oci/oci-layout" '{"imageLayoutVersion":"1.0.0"}'
	local index d
	assert_eq '["application/vnd.oci.image.index.v1+json"]' \
		"$(jq -c '[.manifests[].mediaType]' "$T/oci/index.json")" "index.json: one image index"
	assert_eq "$IBCNI_IMAGE_NAME $IBCNI_IMAGE_NAME" \
		"$(jq -r '.manifests[0].annotations | "\(.["io.containerd.image.name"]) \(.["org.opencontainers.image.ref.name"])"' "$T/oci/index.json")" "name"
	# Every blob is named by its digest.
	for d in "$T"/oci/blobs/sha256/*; do
		assert_eq "$(basename "$d")" "$(sha256sum "$d" | cut -d' ' -f1)" "digest of a blob"
	done
	index=$(blob "$(jq -r '.manifests[0].digest' "$T/oci/index.json")")
	assert_eq "$(jq -r '.manifests[0].size' "$T/oci/index.json")" "$(stat -c %s "$index")" "the index's size"
	assert_eq '[["application/vnd.oci.image.manifest.v1+json",{"architecture":"amd64","os":"linux"}],["application/vnd.oci.image.manifest.v1+json",{"architecture":"arm64","os":"linux"}]]' \
		"$(jq -c '[.manifests[] | [.mediaType, .platform]]' "$index")" "the platforms"
	image_platform "$index" amd64 x86-64 "$IBCNI_IMAGE_BIN" ""
	image_platform "$index" arm64 'ARM aarch64' "$IBCNI_IMAGE_ARM64_BIN" qemu-aarch64-static
}

# image_platform INDEX ARCH FILE-MACHINE BINDIR RUNNER: the platform's
# manifest, config and layer; its binaries are BINDIR's, static, of that
# machine; its installer answers --version (through RUNNER).
image_platform() {
	local index=$1 arch=$2 machine=$3 bindir=$4 runner=$5 manifest config layer b
	manifest=$(blob "$(jq -r --arg a "$arch" '.manifests[] | select(.platform.architecture == $a) | .digest' "$index")")
	config=$(blob "$(jq -r '.config.digest' "$manifest")")
	layer=$(blob "$(jq -r '.layers[0].digest' "$manifest")")
	assert_eq "$arch linux" "$(jq -r '"\(.architecture) \(.os)"' "$config")" "$arch: the config's platform"
	assert_eq '["/ibcni-install"]' "$(jq -c .config.Entrypoint "$config")" "$arch: entrypoint"
	assert_eq "sha256:$(basename "$layer")" "$(jq -r '.rootfs.diff_ids[0]' "$config")" "$arch: diff_id"
	assert_eq "./ ./ibcni-install ./ibcni/ ./ibcni/bin/ ./ibcni/bin/ib-host-local ./ibcni/bin/ib-sriov ./ibcni/bin/rdma ./ibcni/bin/rdma-ns" \
		"$(tar -tf "$layer" | sort | tr '\n' ' ' | sed 's/ $//')" "$arch: the layer's files"
	mkdir -p "$T/root-$arch"
	tar -xf "$layer" -C "$T/root-$arch"
	for b in ib-sriov rdma-ns ib-host-local; do
		cmp -s "$bindir/$b" "$T/root-$arch/ibcni/bin/$b" || fail "$arch: the image's $b is not $bindir/$b"
	done
	for b in ibcni/bin/ib-sriov ibcni/bin/rdma-ns ibcni/bin/ib-host-local ibcni-install; do
		assert_match "ELF 64-bit LSB executable, $machine, .*statically linked" \
			"$(file -b "$T/root-$arch/$b")" "$arch: /$b"
	done
	assert_eq "$(stat -c %i "$T/root-$arch/ibcni/bin/rdma-ns")" "$(stat -c %i "$T/root-$arch/ibcni/bin/rdma")" "$arch: rdma is a link"
	assert_match "^ibcni-install [0-9.]+ \\($(version_source_re "$IBCNI_FIXTURES/../..")\\)\$" \
		"$($runner "$T/root-$arch/ibcni-install" --version)" "$arch: installer --version"
}

test_image_reproducible() {
	# make image's build twice from the same binaries (and at another
	# time, the files touched): the same archive, byte for byte.
	local build=$(dirname "${BASH_SOURCE[0]}")/../../scripts/image/build.sh r b
	local platforms=("amd64:$T/amd64:$T/amd64/ibcni-install" "arm64:$T/arm64:$T/arm64/ibcni-install")
	for r in amd64 arm64; do
		mkdir -p "$T/$r"
		b=$IBCNI_IMAGE_BIN
		[ $r = arm64 ] && b=$IBCNI_IMAGE_ARM64_BIN
		cp "$b/ib-sriov" "$b/rdma-ns" "$b/ib-host-local" "$T/$r/"
	done
	cp "$IBCNI_INSTALLER" "$T/amd64/ibcni-install"
	cp "$IBCNI_IMAGE_ARM64_INSTALLER" "$T/arm64/ibcni-install"
	"$build" "$T/a.tar" x.test/r:1 "${platforms[@]}" >/dev/null || fail "first build"
	touch "$T"/amd64/* "$T"/arm64/*
	sleep 1
	"$build" "$T/b.tar" x.test/r:1 "${platforms[@]}" >/dev/null || fail "second build"
	[ -s "$T/a.tar" ] || fail "no archive"
	cmp -s "$T/a.tar" "$T/b.tar" || fail "two builds differ"
	cmp -s "$T/a.tar" "$IBCNI_IMAGE" && fail "another name, yet make image's archive"
	# A binary of the other platform is refused, naming it.
	OUT=$("$build" "$T/c.tar" x.test/r:1 "arm64:$T/amd64:$T/arm64/ibcni-install" 2>&1)
	assert_eq 1 "$?" "amd64 binaries as arm64's"
	assert_match "image: $T/amd64/ib-sriov is not a static linux/arm64 executable" "$OUT" "the message"
	[ -e "$T/c.tar" ] && fail "an archive was written"
}
