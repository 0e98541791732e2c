#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `sudo make demo-rdma`: two pods exchange RDMA through ibcni on Linux 7. It
# boots the vm-rdma tier's guest (tests/vm-rdma: Debian's trixie-backports
# kernel under qemu with an emulated igb SR-IOV PF, trixie's rdma-core and
# perftest) and runs its shared-mode case: ib-sriov + ib-host-local attach a
# VF to each pod, rxe in each pod stands in for the VF's own RDMA device, and
# rping, ibv_rc_pingpong and perftest move data between the pods;
# it ends with `ib-sriov doctor --pod` on two pods of the exclusive-mode
# case tests/vm-rdma/test-doctor.sh: a healthy one, and one whose net1 was
# set down by hand; of that case only the two reports (its "doctor|" lines)
# and any failed check are shown. The plain lines say what happened; the
# checks behind them are counted at the end.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "demo-rdma: needs root (qemu, apt); run: sudo make demo-rdma" >&2
	exit 1
fi
echo "demo-rdma: two pods exchanging RDMA through ibcni, in a qemu guest running Linux 7"
echo "demo-rdma: (about 4 minutes; the first run downloads the kernel and userland, sizes below)"
# The doctor's case runs first (name order): its reports are kept for the end.
doctor= report=
VM_RDMA_FILTER=shared,doctor "$root/tests/vm-rdma/run.sh" | while IFS= read -r line; do
	case $line in
	"vm-rdma: == test-doctor.sh"*) doctor=1 ;;
	"vm-rdma: == "*) doctor= ;;
	"vm-rdma: -- done"*)
		echo "demo-rdma: ib-sriov doctor --pod on a healthy pod (podb), then on poda after" \
			"'ip link set net1 down' in it:"
		printf '%s' "$report"
		;;
	"  PASS"*) ;;
	"vm-rdma: doctor| Pod "*) report="$report"$'\n'"    ${line#vm-rdma: doctor| }"$'\n' ;;
	"vm-rdma: doctor| ") report="$report"$'\n' ;;
	"vm-rdma: doctor| "*) report="$report    ${line#vm-rdma: doctor| }"$'\n' ;;
	"  FAIL"*) echo "$line" ;;
	*) [ -n "$doctor" ] || echo "$line" ;;
	esac
done
exit "${PIPESTATUS[0]}"
