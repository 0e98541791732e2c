#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The vm tier: boot Debian's own kernel (it has rdma_rxe) under qemu with
# software emulation and run tests/vm/init.sh against its RDMA subsystem.
# The kernel package is downloaded and unpacked, never installed
# (tests/vm-lib.sh, the plumbing the qemu tiers share).
set -u
VM_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM_W=${IBCNI_VM_DIR:-$VM_ROOT/build/vm}
VM_TAG=vm
. "$VM_ROOT/tests/vm-lib.sh"
mkdir -p "$VM_W"

vm_host_tools
# The system's sources (its security updates included) and backports at
# apt's low priority: the candidate is the system's own kernel.
VM_APT=$("$VM_ROOT/scripts/backports-apt.sh" "$VM_ROOT/build/apt") || vm_die "no apt configuration"
vm_kernel

# (glibc warns that libnl's unused name lookups need NSS at run time: harmless.)
make -C "$VM_ROOT" --no-print-directory STATIC=1 all >"$VM_W/build.log" 2>&1 ||
	{ cat "$VM_W/build.log"; vm_die "make static failed"; }

# The initramfs: busybox, ibcni, the host's ip and rdma with their libraries, modules.
vm_root
R=$VM_R
cp "$VM_ROOT"/build/static/bin/{ib-sriov,rdma-ns,ib-host-local} "$R/bin/"
ln "$R/bin/rdma-ns" "$R/bin/rdma" # rdma-cni's name, as make install adds it
cp "$VM_ROOT/tests/vm/init.sh" "$R/init"
cp "$VM_ROOT/tests/vm/verbs.sh" "$R/verbs.sh"
cp "$VM_ROOT/tests/vm/portwait.sh" "$R/portwait.sh"
mkdir -p "$R/usr/sbin"
for tool in ip rdma; do
	path=$(command -v $tool) || vm_die "iproute2's $tool is missing"
	cp "$path" "$R/usr/sbin/$tool"
	for lib in $(ldd "$path" | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
done
vm_modules crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe veth e1000
vm_cpio "$VM_W/initramfs.cpio"

# KVM is here but nested KVM hangs at boot: software emulation it is.
vm_log "booting $VM_KPKG under qemu (tcg)"
vm_boot 300 "$VM_W/initramfs.cpio" "" -m 768 -smp 1
vm_results
