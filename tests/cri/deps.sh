#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cri tier's Debian packages, installed on first use (root): the runtimes
# (containerd with runc, podman), the client's gRPC and protobuf, busybox for
# the test image, PyYAML to read the DaemonSet.
exec "$(dirname "$0")/../../scripts/deps.sh" containerd runc podman python3-grpcio \
	python3-protobuf protobuf-compiler busybox-static python3-yaml containernetworking-plugins jq
