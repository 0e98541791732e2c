#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The vm-rdma tier: the kernel trixie-backports' linux-image-amd64 depends on
# (Linux 7) under qemu with the emulated igb PF and its VFs, trixie's RDMA
# userland, and ibcni's static plugins; real RDMA traffic between pods.
# Everything comes through tests/vm-lib.sh: a private download-only apt
# configuration, packages unpacked under build/vm-rdma, nothing from trixie
# installed into the host. The initramfs is built once per tree state.
#
# Usage: run.sh            every case file (tests/vm-rdma/test-*.sh)
#        VM_RDMA_FILTER=S  only the case files whose name contains S
set -u
VM_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM_W=${IBCNI_VM_RDMA_DIR:-$VM_ROOT/build/vm-rdma}
VM_TAG=vm-rdma
. "$VM_ROOT/tests/vm-lib.sh"
mkdir -p "$VM_W"

vm_host_tools
vm_apt trixie
vm_kernel trixie-backports
# rdma-core's verbs and rxe provider, rping, ibv_*, perftest, iproute2's rdma;
# glibc dlopens libgcc_s at thread exit (rping aborts without it).
vm_userland ibverbs-providers libibverbs1 librdmacm1t64 rdmacm-utils ibverbs-utils perftest \
	iproute2 libgcc-s1

make -C "$VM_ROOT" --no-print-directory STATIC=1 all build/static/build/vm-igb/igbhelper \
	>"$VM_W/build.log" 2>&1 || { cat "$VM_W/build.log"; vm_die "make static failed"; }

# The initramfs, rebuilt only when one of its inputs changed.
S=$VM_ROOT/build/static
key=$( (echo "$VM_KPKG $VM_USR"
	cat "$VM_ROOT"/tests/vm-lib.sh "$VM_ROOT"/tests/vm-rdma/*.sh \
		"$S"/bin/{ib-sriov,rdma-ns,ib-host-local} "$S/build/vm-igb/igbhelper") | md5sum | cut -c1-16)
initrd=$VM_W/initramfs.cpio
if [ "$(cat "$initrd.key" 2>/dev/null)" != "$key" ] || [ ! -f "$initrd" ]; then
	vm_root
	cp "$S"/bin/{ib-sriov,rdma-ns,ib-host-local} "$VM_R/opt/cni/bin/"
	install -m 0755 "$VM_ROOT/tests/vm-rdma/init.sh" "$VM_R/init"
	mkdir -p "$VM_R/bin/vm-rdma"
	for f in "$VM_ROOT"/tests/vm-rdma/*.sh; do
		case ${f##*/} in run.sh | init.sh) ;; *) install -m 0644 "$f" "$VM_R/bin/vm-rdma/" ;; esac
	done
	install -m 0755 "$S/build/vm-igb/igbhelper" "$VM_R/usr/sbin/"
	vm_modules igb igbvf veth rdma_rxe ib_uverbs rdma_ucm
	vm_cpio "$initrd"
	echo "$key" >"$initrd.key"
fi

# The igb PF sits behind a PCIe root port (SR-IOV needs PCIe); its user-mode
# backend is restricted: no traffic leaves the guest, VF to VF goes through
# the PF's switch. The PF's link stays up (VFs have carrier only then).
# no_timer_check: a loaded host makes TCG too slow for the kernel's timer check.
vm_log "booting $VM_KPKG under qemu (tcg) with an igb PF; the guest's lines follow"
vm_boot 900 "$initrd" "no_timer_check vm_rdma_filter=${VM_RDMA_FILTER:-}" \
	-machine q35 -m 1536 -smp 1 \
	-device pcie-root-port,id=rp0,slot=1 -device igb,bus=rp0,netdev=n0 \
	-netdev user,id=n0,restrict=on
vm_results
