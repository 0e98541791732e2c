#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The vm tier: boot Debian's own kernel (it has rdma_rxe) under qemu with
# software emulation and run tests/vm/init.sh against its RDMA subsystem.
# The kernel package is downloaded and unpacked, never installed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
W=${IBCNI_VM_DIR:-$root/build/vm}
log() { echo "vm: $*"; }
die() { log "$*"; echo "vm: 0 passed, 1 failed"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (apt-get); run: sudo make check-vm"
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
command -v xz >/dev/null || missing+=(xz-utils)	# modules may be .ko.xz or .ko.zst
command -v zstd >/dev/null || missing+=(zstd)
[ -x /usr/bin/busybox ] && file -L /usr/bin/busybox | grep -q 'statically linked' ||
	missing+=(busybox-static)
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
		>/dev/null || die "cannot install ${missing[*]}"
fi

# The kernel linux-image-amd64 points at, unpacked once.
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
if [ -z "$pkg" ]; then
	apt-get update -qq >/dev/null
	pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ { print $2; exit }')
fi
[ -n "$pkg" ] || die "cannot tell which kernel linux-image-amd64 depends on"
mkdir -p "$W/dl"
: >"$W/build.log"
if [ ! -d "$W/kernel-$pkg" ]; then
	(cd "$W/dl" && apt-get download "$pkg" >/dev/null 2>&1) || die "cannot download $pkg"
	dpkg-deb -x "$W"/dl/"$pkg"_*.deb "$W/kernel-$pkg.tmp" && mv "$W/kernel-$pkg.tmp" "$W/kernel-$pkg" ||
		die "cannot unpack $pkg"
fi
K=$W/kernel-$pkg
kver=$(ls "$K/lib/modules")
vmlinuz=$(ls "$K"/boot/vmlinuz-*)

# (glibc warns that libnl's unused name lookups need NSS at run time: harmless.)
make -C "$root" --no-print-directory STATIC=1 all >"$W/build.log" 2>&1 ||
	{ cat "$W/build.log"; die "make static failed"; }

# The initramfs: busybox, ibcni, ip and rdma with their libraries, modules.
R=$W/root
rm -rf "$R"
mkdir -p "$R"/{bin,lib/modules,proc,sys,dev,run,tmp,etc}
cp /usr/bin/busybox "$R/bin/"
ln -s busybox "$R/bin/sh"
cp "$root"/build/static/bin/{ib-sriov,rdma-ns,ib-host-local} "$R/bin/"
ln "$R/bin/rdma-ns" "$R/bin/rdma"	# rdma-cni's name, as make install adds it
cp "$root/tests/vm/init.sh" "$R/init"
cp "$root/tests/vm/verbs.sh" "$R/verbs.sh"
cp "$root/tests/vm/portwait.sh" "$R/portwait.sh"
for tool in ip rdma; do
	path=$(command -v $tool) || die "iproute2's $tool is missing"
	mkdir -p "$R/usr/sbin"
	cp "$path" "$R/usr/sbin/$tool"
	for lib in $(ldd "$path" | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
done
for m in crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe veth e1000; do
	f=$(find "$K/lib/modules/$kver" -name "$m.ko*" | head -1)
	[ -n "$f" ] || die "module $m not in $pkg"
	case $f in
	*.xz) xz -dc "$f" >"$R/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$f" >"$R/lib/modules/$m.ko" ;;
	*) cp "$f" "$R/lib/modules/$m.ko" ;;
	esac || die "cannot unpack module $f"
done
(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$W/initramfs.gz"

# KVM is here but nested KVM hangs at boot: software emulation it is.
log "booting $pkg under qemu (tcg)"
start=$(date +%s)
timeout 300 qemu-system-x86_64 -accel tcg -m 768 -smp 1 -nographic -no-reboot \
	-kernel "$vmlinuz" -initrd "$W/initramfs.gz" \
	-append "console=ttyS0 panic=-1 quiet loglevel=3" >"$W/console.log" 2>&1
rc=$?
tr -d '\r' <"$W/console.log" | grep -E '^(vm: |  PASS|  FAIL)' | grep -v '^vm: [0-9]* passed'
log "booted and ran in $(($(date +%s) - start)) s (qemu exit $rc)"
totals=$(tr -d '\r' <"$W/console.log" | grep -E '^vm: [0-9]+ passed, [0-9]+ failed' | tail -1)
if [ -z "$totals" ]; then
	log "no result from the VM; the console's last lines:"
	tail -20 "$W/console.log"
	echo "vm: 0 passed, 1 failed"
	exit 1
fi
echo "$totals"
[[ $totals == *", 0 failed" ]]
