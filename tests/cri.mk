# SPDX-License-Identifier: Apache-2.0
# The release image and the cri tier; included from the top-level Makefile.

IMAGE_NAME := docker.io/library/ibcni:$(VERSION)
IMAGE := build/image/ibcni.tar

# The image's entrypoint: static whatever the build (it runs on the host's
# files from a container with nothing else in it).
INSTALLER := $(OUT)/build/image/ibcni-install
$(INSTALLER): scripts/image/ibcni-install.c $(LIB) $(OBJ)/version.stamp
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -DIBCNI_VERSION='"$(VERSION)"' -DIBCNI_SOURCE='"$(SOURCE)"' \
		$(LDFLAGS) -static -o $@ $< $(LIB) $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null)

# An OCI archive built offline from the static binaries: `podman load -i`,
# `ctr -n k8s.io images import`.
image:
	@$(MAKE) --no-print-directory SAN= DYNAMIC= STATIC=1 all build/static/build/image/ibcni-install
	@scripts/image/build.sh build/static/bin build/static/build/image/ibcni-install $(IMAGE) $(IMAGE_NAME)

# containerd's CRI (driven by tests/cri/cri.py) and podman's CNI backend on a
# simulated SR-IOV node, and the image's installer through both (root).
check-cri: all image
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_INSTALLER=$(abspath build/static/build/image/ibcni-install) IBCNI_IMAGE_BIN=$(abspath build/static/bin) IBCNI_IMAGE=$(abspath $(IMAGE)) IBCNI_IMAGE_NAME=$(IMAGE_NAME) \
		tests/cri/run.sh

.PHONY: image check-cri
