#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `sudo make demo-rdma`: two pods exchange RDMA through ibcni on Linux 7. It
# boots the vm-rdma tier's guest (tests/vm-rdma: Debian's trixie-backports
# kernel under qemu with an emulated igb SR-IOV PF, trixie's rdma-core and
# perftest) and runs its shared-mode case: ib-sriov + ib-host-local attach a
# VF to each pod, rxe in each pod stands in for the VF's own RDMA device, and
# rping, ibv_rc_pingpong and perftest move data between the pods. The plain
# lines say what happened; the checks behind them are counted at the end.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "demo-rdma: needs root (qemu, apt); run: sudo make demo-rdma" >&2
	exit 1
fi
echo "demo-rdma: two pods exchanging RDMA through ibcni, in a qemu guest running Linux 7"
echo "demo-rdma: (about 2 minutes; the first run downloads the kernel and userland, sizes below)"
VM_RDMA_FILTER=shared "$root/tests/vm-rdma/run.sh" | while IFS= read -r line; do
	case $line in
	"  PASS"*) ;;
	"vm-rdma: == "*) ;;
	*) echo "$line" ;;
	esac
done
exit "${PIPESTATUS[0]}"
