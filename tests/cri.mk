# SPDX-License-Identifier: Apache-2.0
# The release image and the cri tier; included from the top-level Makefile.

IMAGE_NAME := docker.io/library/ibcni:$(VERSION)
IMAGE := build/image/ibcni.tar

# The image's entrypoint: static whatever the build (it runs on the host's
# files from a container with nothing else in it).
INSTALLER := $(OUT)/build/image/ibcni-install
# ib-host-local's range-set parser: the installer refuses the node ranges
# the plugins would (scripts/image/install-node.c).
INSTALLER_SRC := $(wildcard scripts/image/*.c) ipam/noderanges.c ipam/conf_sets.c ipam/range.c
$(INSTALLER): $(INSTALLER_SRC) scripts/image/install.h $(LIB) $(OBJ)/version.stamp
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -DIBCNI_VERSION='"$(VERSION)"' -DIBCNI_SOURCE='"$(SOURCE)"' \
		-Iscripts/image -Iipam $(LDFLAGS) -static -o $@ $(INSTALLER_SRC) $(LIB) $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null)

# An OCI archive built offline from the static binaries, one image index
# with linux/amd64 (this machine's build, `make static`) and linux/arm64
# (`make ARCH=arm64`, its packages installed first): `podman load -i`,
# `ctr -n k8s.io images import`.
IMAGE_PLATFORMS := $(HOST_ARCH):build/static/bin:build/static/build/image/ibcni-install \
	arm64:build/arm64/bin:build/arm64/build/image/ibcni-install
image:
	@$(MAKE) --no-print-directory ARCH= SAN= DYNAMIC= STATIC=1 all build/static/build/image/ibcni-install
	@scripts/cross-deps.sh arm64
	@$(MAKE) --no-print-directory ARCH=arm64 SAN= DYNAMIC= STATIC= all build/arm64/build/image/ibcni-install
	@scripts/image/build.sh $(IMAGE) $(IMAGE_NAME) $(IMAGE_PLATFORMS)

# containerd's CRI (driven by tests/cri/cri.py) and podman's CNI backend on a
# simulated SR-IOV node, and the image's installer through both (root).
check-cri: all image
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_INSTALLER=$(abspath build/static/build/image/ibcni-install) IBCNI_IMAGE_BIN=$(abspath build/static/bin) IBCNI_IMAGE_ARM64_BIN=$(abspath build/arm64/bin) IBCNI_IMAGE_ARM64_INSTALLER=$(abspath build/arm64/build/image/ibcni-install) IBCNI_IMAGE=$(abspath $(IMAGE)) IBCNI_IMAGE_NAME=$(IMAGE_NAME) \
		tests/cri/run.sh

.PHONY: image check-cri
