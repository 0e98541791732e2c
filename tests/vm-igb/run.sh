#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The vm-igb tier: Debian's backports kernel under qemu's emulated Intel 82576
# (igb, SR-IOV) so that ib-sriov runs against a real VF driver. qemu >= 8 and
# the kernel come from <codename>-backports through scripts/backports-apt.sh
# (our own apt configuration; the system's sources are never edited). qemu is
# installed, the kernel package downloaded and unpacked under build/ only.
#
# Usage: run.sh [INIT]   INIT defaults to tests/vm-igb/init.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
W=${IBCNI_VM_IGB_DIR:-$root/build/vm-igb}
init=${1:-$root/tests/vm-igb/init.sh}
log() { echo "vm-igb: $*"; }
die() { log "$*"; echo "vm-igb: 0 passed, 1 failed"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (apt-get); run: sudo make check-vm-igb"
conf=$("$root/scripts/backports-apt.sh" "$root/build/apt") || die "no backports apt configuration"
. /etc/os-release
bpo=$VERSION_CODENAME-backports
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -c "$conf" "$@"; }

# qemu with the igb device (qemu >= 8: bookworm's own 7.2 has none).
if ! qemu-system-x86_64 -device help 2>/dev/null | grep -q '^name "igb"'; then
	log "installing qemu-system-x86 from $bpo"
	apt_get install -y -qq -t "$bpo" --no-install-recommends qemu-system-x86 >/dev/null ||
		die "cannot install qemu-system-x86 from $bpo"
	qemu-system-x86_64 -device help 2>/dev/null | grep -q '^name "igb"' ||
		die "qemu-system-x86_64 still has no igb device"
fi
missing=()
[ -x /usr/bin/busybox ] && file -L /usr/bin/busybox | grep -q 'statically linked' ||
	missing+=(busybox-static)
[ -x /usr/lib/cni/host-local ] || missing+=(containernetworking-plugins)
command -v xz >/dev/null || missing+=(xz-utils)	# Linux 6.12's modules are .ko.xz
command -v zstd >/dev/null || missing+=(zstd)
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "cannot install ${missing[*]}"
fi

# The kernel the backports linux-image-amd64 points at, unpacked once.
pkg=$(apt-cache -c "$conf" depends "linux-image-amd64/$bpo" 2>/dev/null |
	awk '/Depends: linux-image-/ { print $2; exit }')
[ -n "$pkg" ] || die "cannot tell which kernel linux-image-amd64/$bpo depends on"
mkdir -p "$W/dl"
K=$W/kernel-$pkg
if [ ! -d "$K" ]; then
	(cd "$W/dl" && apt_get download "$pkg" >/dev/null 2>&1) || die "cannot download $pkg"
	rm -rf "$K.tmp"
	dpkg-deb -x "$W"/dl/"$pkg"_*.deb "$K.tmp" && mv "$K.tmp" "$K" || die "cannot unpack $pkg"
	rm -f "$W"/dl/"$pkg"_*.deb
fi
kver=$(ls "$K/lib/modules")
vmlinuz=$(ls "$K"/boot/vmlinuz-*)

make -C "$root" --no-print-directory STATIC=1 all build/static/build/vm-igb/igbhelper >"$W/build.log" 2>&1 ||
	{ cat "$W/build.log"; die "make static failed"; }
cnitool=$root/build/cnitool
[ -x "$cnitool" ] || "$root/tests/netns/build-cnitool.sh" "$cnitool" >/dev/null 2>&1 ||
	log "cnitool could not be built; its test will fail"

# The initramfs: busybox, ibcni, the hw tier's script, and dynamically linked
# tools with their libraries.
R=$W/root
rm -rf "$R"
mkdir -p "$R"/{bin,lib/modules,proc,sys,dev,run,tmp,etc,usr/sbin,usr/lib/cni,opt/cni/bin}
cp /usr/bin/busybox "$R/bin/"
ln -s busybox "$R/bin/sh"
cp "$root"/build/static/bin/{ib-sriov,rdma-ns,ib-host-local} "$R/opt/cni/bin/"
install -m 0755 "$init" "$R/init"
install -m 0755 "$root/tests/hw/run.sh" "$R/bin/hw-run.sh"
install -m 0644 "$root"/tests/vm-igb/test-*.sh "$R/bin/"
install -m 0755 "$root/build/static/build/vm-igb/igbhelper" "$R/usr/sbin/"
copy_dyn() { # SRC DEST
	cp "$1" "$R$2"
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
}
for tool in ip rdma bridge; do
	path=$(command -v $tool) || die "iproute2's $tool is missing"
	copy_dyn "$path" /usr/sbin/$tool
done
copy_dyn /usr/lib/cni/host-local /opt/cni/bin/host-local
[ -x "$cnitool" ] && copy_dyn "$cnitool" /usr/sbin/cnitool

# Modules and their dependencies (from each module's own modinfo), in load order.
declare -A seen=()
order=()
add_module() { # NAME
	local name=${1//-/_} f dep
	[ -n "${seen[$name]:-}" ] && return 0
	seen[$name]=1
	f=$(find "$K/lib/modules/$kver" \( -name "$name.ko*" -o -name "${name//_/-}.ko*" \) | head -1)
	[ -n "$f" ] || die "module $1 not in $pkg"
	case $f in
	*.xz) xz -dc "$f" >"$R/lib/modules/$name.ko" ;;
	*.zst) zstd -qdc "$f" >"$R/lib/modules/$name.ko" ;;
	*) cp "$f" "$R/lib/modules/$name.ko" ;;
	esac || die "cannot unpack module $f"
	for dep in $(tr '\0' '\n' <"$R/lib/modules/$name.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add_module "$dep"
	done
	order+=("$name")
}
# rxe computes its ICRC with the kernel's crc32 (ENOENT without a provider).
for m in igb igbvf veth vfio_pci vfio_iommu_type1 crc32_generic rdma_rxe ib_uverbs; do
	add_module "$m"
done
printf '%s\n' "${order[@]}" >"$R/lib/modules/order"
# Uncompressed: unpacking costs the guest less than decompressing under TCG.
(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null) >"$W/initramfs.cpio"

# No KVM here: software emulation (the timeout only catches a hang: a loaded
# host makes TCG several times slower). The igb PF
# sits behind a PCIe root port (SR-IOV needs PCIe) and the emulated VT-d
# IOMMU (for vfio-pci); its user-mode backend is restricted: no traffic leaves.
# no_timer_check: on a loaded host TCG is too slow for the kernel's check of
# the timer through the interrupt-remapped IO-APIC, which then panics.
# The guest starts paused: the PF's link is set down before it runs (the
# driver then refuses rate limits, as on an unplugged port). The guest asks
# for other monitor commands by printing "vm-igb: monitor: <command>".
rm -f "$W"/mon.in "$W"/mon.out
mkfifo "$W/mon.in" "$W/mon.out"
: >"$W/console.log"
log "booting $pkg under qemu (tcg) with an igb PF"
start=$(date +%s)
timeout 600 qemu-system-x86_64 -accel tcg -machine q35 -m 1024 -smp 1 -nographic -no-reboot -S \
	-monitor pipe:"$W/mon" -serial file:"$W/console.log" \
	-device intel-iommu \
	-device pcie-root-port,id=rp0,slot=1 -device igb,bus=rp0,netdev=n0 \
	-netdev user,id=n0,restrict=on \
	-kernel "$vmlinuz" -initrd "$W/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 quiet loglevel=3 intel_iommu=on no_timer_check" \
	>"$W/qemu.log" 2>&1 &
qemu=$!
cat "$W/mon.out" >/dev/null &
drain=$!
exec 3<>"$W/mon.in"	# read-write: never blocks, even if qemu failed
printf 'set_link n0 off\ncont\n' >&3
tail --pid=$qemu -n +1 -F "$W/console.log" 2>/dev/null |
	sed -un 's/\r$//; s/^vm-igb: monitor: //p' >&3 &
watcher=$!
wait $qemu
rc=$?
kill $watcher $drain 2>/dev/null
exec 3>&-
tr -d '\r' <"$W/console.log" | grep -E '^(vm-igb: |  PASS|  FAIL|  SKIP)' | grep -v '^vm-igb: [0-9]* passed'
log "booted and ran in $(($(date +%s) - start)) s (qemu exit $rc)"
totals=$(tr -d '\r' <"$W/console.log" | grep -E '^vm-igb: [0-9]+ passed, [0-9]+ failed' | tail -1)
if [ -z "$totals" ]; then
	log "no result from the VM; the console's last lines:"
	tail -20 "$W/console.log"
	echo "vm-igb: 0 passed, 1 failed"
	exit 1
fi
echo "$totals"
[[ $totals == *", 0 failed" ]]
