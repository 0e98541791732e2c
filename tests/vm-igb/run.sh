#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The vm-igb tier: Debian's backports kernel under qemu's emulated Intel 82576
# (igb, SR-IOV) so that ib-sriov runs against a real VF driver. qemu >= 8
# comes from <codename>-backports through scripts/backports-apt.sh (our own
# apt configuration; the system's sources are never edited), the kernel is
# downloaded and unpacked under build/ only (tests/vm-lib.sh, the plumbing
# the qemu tiers share).
#
# Usage: run.sh [INIT]   INIT defaults to tests/vm-igb/init.sh
set -u
VM_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM_W=${IBCNI_VM_IGB_DIR:-$VM_ROOT/build/vm-igb}
VM_TAG=vm-igb
init=${1:-$VM_ROOT/tests/vm-igb/init.sh}
. "$VM_ROOT/tests/vm-lib.sh"
mkdir -p "$VM_W"

vm_host_tools
VM_APT=$("$VM_ROOT/scripts/backports-apt.sh" "$VM_ROOT/build/apt") || vm_die "no apt configuration"
if [ ! -x /usr/lib/cni/host-local ]; then
	vm_log "installing containernetworking-plugins"
	DEBIAN_FRONTEND=noninteractive apt-get -c "$VM_APT" install -y -qq --no-install-recommends \
		containernetworking-plugins >/dev/null || vm_die "cannot install containernetworking-plugins"
fi
vm_kernel "$(. /etc/os-release && echo "$VERSION_CODENAME")-backports"

make -C "$VM_ROOT" --no-print-directory STATIC=1 all build/static/build/vm-igb/igbhelper >"$VM_W/build.log" 2>&1 ||
	{ cat "$VM_W/build.log"; vm_die "make static failed"; }
cnitool=$VM_ROOT/build/cnitool
[ -x "$cnitool" ] || "$VM_ROOT/tests/netns/build-cnitool.sh" "$cnitool" >/dev/null 2>&1 ||
	vm_log "cnitool could not be built; its test will fail"

# The initramfs: busybox, ibcni, the hw tier's script, and dynamically linked
# tools with their libraries.
vm_root
R=$VM_R
mkdir -p "$R"/{usr/sbin,usr/lib/cni}
cp "$VM_ROOT"/build/static/bin/{ib-sriov,rdma-ns,ib-host-local} "$R/opt/cni/bin/"
install -m 0755 "$init" "$R/init"
install -m 0755 "$VM_ROOT/tests/hw/run.sh" "$R/bin/hw-run.sh"
install -m 0644 "$VM_ROOT"/tests/vm-igb/test-*.sh "$R/bin/"
install -m 0755 "$VM_ROOT/build/static/build/vm-igb/igbhelper" "$R/usr/sbin/"
copy_dyn() { # SRC DEST
	cp "$1" "$R$2"
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
}
for tool in ip rdma bridge; do
	path=$(command -v $tool) || vm_die "iproute2's $tool is missing"
	copy_dyn "$path" /usr/sbin/$tool
done
copy_dyn /usr/lib/cni/host-local /opt/cni/bin/host-local
[ -x "$cnitool" ] && copy_dyn "$cnitool" /usr/sbin/cnitool
# rxe computes its ICRC with the kernel's crc32 (ENOENT without a provider).
vm_modules igb igbvf veth vfio_pci vfio_iommu_type1 crc32_generic rdma_rxe ib_uverbs
vm_cpio "$VM_W/initramfs.cpio"

# No KVM here: software emulation (the timeout only catches a hang: a loaded
# host makes TCG several times slower). The igb PF
# sits behind a PCIe root port (SR-IOV needs PCIe) and the emulated VT-d
# IOMMU (for vfio-pci); its user-mode backend is restricted: no traffic leaves.
# no_timer_check: on a loaded host TCG is too slow for the kernel's check of
# the timer through the interrupt-remapped IO-APIC, which then panics.
# The guest starts paused: the PF's link is set down before it runs (the
# driver then refuses rate limits, as on an unplugged port). The guest asks
# for other monitor commands by printing "vm-igb: monitor: <command>".
vm_log "booting $VM_KPKG under qemu (tcg) with an igb PF"
VM_MONITOR_FIRST='set_link n0 off\ncont\n'
vm_boot 600 "$VM_W/initramfs.cpio" "intel_iommu=on no_timer_check" \
	-machine q35 -m 1024 -smp 1 -S -device intel-iommu \
	-device pcie-root-port,id=rp0,slot=1 -device igb,bus=rp0,netdev=n0 \
	-netdev user,id=n0,restrict=on
vm_results
