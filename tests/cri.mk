# SPDX-License-Identifier: Apache-2.0
# The release image and the cri tier; included from the top-level Makefile.

IMAGE_NAME := docker.io/library/ibcni:$(VERSION)
IMAGE := build/image/ibcni.tar

# An OCI archive built offline from the static binaries, one image index
# with linux/amd64 (this machine's build, `make static`) and linux/arm64
# (`make ARCH=arm64`, its packages installed first): `podman load -i`,
# `ctr -n k8s.io images import`.
IMAGE_PLATFORMS := $(HOST_ARCH):build/static/bin:build/static/bin/ibcni-install \
	arm64:build/arm64/bin:build/arm64/bin/ibcni-install
image:
	@$(MAKE) --no-print-directory ARCH= SAN= DYNAMIC= STATIC=1 all
	@scripts/cross-deps.sh arm64
	@$(MAKE) --no-print-directory ARCH=arm64 SAN= DYNAMIC= STATIC= all
	@scripts/image/build.sh $(IMAGE) $(IMAGE_NAME) $(IMAGE_PLATFORMS)

# containerd's CRI (driven by tests/cri/cri.py) and podman's CNI backend on a
# simulated SR-IOV node, and the image's installer through both (root).
check-cri: all image
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_INSTALLER=$(abspath build/static/bin/ibcni-install) IBCNI_IMAGE_BIN=$(abspath build/static/bin) IBCNI_IMAGE_ARM64_BIN=$(abspath build/arm64/bin) IBCNI_IMAGE_ARM64_INSTALLER=$(abspath build/arm64/bin/ibcni-install) IBCNI_IMAGE=$(abspath $(IMAGE)) IBCNI_IMAGE_NAME=$(IMAGE_NAME) \
		tests/cri/run.sh

.PHONY: image check-cri
