# SPDX-License-Identifier: Apache-2.0
# make image's archive itself: an OCI layout whose one layer holds exactly
# the static plugins and the installer, and which the same inputs rebuild
# byte for byte.

test_image_layout_and_contents() {
	mkdir -p "$T/oci"
	tar -xf "$IBCNI_IMAGE" -C "$T/oci" || { fail "not a tar"; return; }
	assert_file "$T/oci/oci-layout" '{"imageLayoutVersion":"1.0.0"}'
	local manifest config layer d
	manifest=$(jq -r '.manifests[0].digest' "$T/oci/index.json" | cut -d: -f2)
	assert_eq "$IBCNI_IMAGE_NAME" \
		"$(jq -r '.manifests[0].annotations["io.containerd.image.name"]' "$T/oci/index.json")" "name"
	# Every blob is named by its digest.
	for d in "$T"/oci/blobs/sha256/*; do
		assert_eq "$(basename "$d")" "$(sha256sum "$d" | cut -d' ' -f1)" "digest of a blob"
	done
	config=$(jq -r '.config.digest' "$T/oci/blobs/sha256/$manifest" | cut -d: -f2)
	layer=$(jq -r '.layers[0].digest' "$T/oci/blobs/sha256/$manifest" | cut -d: -f2)
	assert_eq '["/ibcni-install"]' "$(jq -c .config.Entrypoint "$T/oci/blobs/sha256/$config")" "entrypoint"
	assert_eq "sha256:$layer" "$(jq -r '.rootfs.diff_ids[0]' "$T/oci/blobs/sha256/$config")" "diff_id"
	assert_eq "./ ./ibcni-install ./ibcni/ ./ibcni/bin/ ./ibcni/bin/ib-host-local ./ibcni/bin/ib-sriov ./ibcni/bin/rdma ./ibcni/bin/rdma-ns" \
		"$(tar -tf "$T/oci/blobs/sha256/$layer" | sort | tr '\n' ' ' | sed 's/ $//')" "the layer's files"
	mkdir -p "$T/root"
	tar -xf "$T/oci/blobs/sha256/$layer" -C "$T/root"
	local b
	for b in ib-sriov rdma-ns ib-host-local; do
		cmp -s "$IBCNI_IMAGE_BIN/$b" "$T/root/ibcni/bin/$b" || fail "the image's $b is not make static's"
	done
	assert_eq "$(stat -c %i "$T/root/ibcni/bin/rdma-ns")" "$(stat -c %i "$T/root/ibcni/bin/rdma")" "rdma is a link"
	file "$T/root/ibcni-install" | grep -q 'statically linked' || fail "the installer is not static"
	assert_match "^ibcni-install [0-9.]+ \\($(version_source_re "$IBCNI_FIXTURES/../..")\\)\$" \
		"$("$T/root/ibcni-install" --version)" "installer --version"
}

test_image_reproducible() {
	# The same root twice (and at another time): the same archive.
	local root=$T/r
	mkdir -p "$root/bin"
	cp /bin/busybox "$root/bin/"
	"$(dirname "${BASH_SOURCE[0]}")/../../scripts/image/oci-archive.sh" "$root" "$T/a.tar" x.test/r:1 '["/bin/busybox"]'
	touch "$root/bin/busybox"
	sleep 1
	"$(dirname "${BASH_SOURCE[0]}")/../../scripts/image/oci-archive.sh" "$root" "$T/b.tar" x.test/r:1 '["/bin/busybox"]'
	cmp -s "$T/a.tar" "$T/b.tar" || fail "two builds differ"
	[ -s "$T/a.tar" ] || fail "no archive"
}
