# SPDX-License-Identifier: Apache-2.0
# The VM plumbing of the qemu tiers, written once: host tools, a Debian
# kernel found and unpacked (Linux 7.x's split packages included), a Debian
# userland's dependency closure unpacked, modules resolved from their own
# modinfo, the initramfs, qemu with a console and a deadline, results read
# back. Sourced by a tier's run.sh (bash) after it sets:
#   VM_TAG   the prefix of every line and of the totals ("vm-rdma")
#   VM_W     its work directory under build/
#   VM_ROOT  the source tree
# Nothing is installed into the host but qemu and the tools Debian 12 has
# (qemu from the host's own backports when its qemu lacks igb); the guest's
# packages come through a private download-only apt configuration
# (scripts/release-apt.sh) and are unpacked under VM_W only.

vm_log() { echo "$VM_TAG: $*"; }
vm_die() { # MESSAGE: the tier fails with one failed test
	vm_log "$*"
	echo "$VM_TAG: 0 passed, 1 failed"
	exit 1
}

# Root, and qemu with the emulated igb, static busybox, xz and zstd on the host.
vm_host_tools() {
	local conf bpo missing=()
	[ "$(id -u)" -eq 0 ] || vm_die "needs root (apt-get); run: sudo make check-$VM_TAG"
	conf=$("$VM_ROOT/scripts/backports-apt.sh" "$VM_ROOT/build/apt") ||
		vm_die "no backports apt configuration"
	bpo=$(. /etc/os-release && echo "$VERSION_CODENAME-backports")
	if ! qemu-system-x86_64 -device help 2>/dev/null | grep -q '^name "igb"'; then
		vm_log "installing qemu-system-x86 from $bpo (the igb device needs qemu >= 8)"
		DEBIAN_FRONTEND=noninteractive apt-get -c "$conf" install -y -qq -t "$bpo" \
			--no-install-recommends qemu-system-x86 >/dev/null ||
			vm_die "cannot install qemu-system-x86 from $bpo"
		qemu-system-x86_64 -device help 2>/dev/null | grep -q '^name "igb"' ||
			vm_die "qemu-system-x86_64 still has no igb device"
	fi
	[ -x /usr/bin/busybox ] && file -L /usr/bin/busybox | grep -q 'statically linked' ||
		missing+=(busybox-static)
	command -v xz >/dev/null || missing+=(xz-utils)
	command -v zstd >/dev/null || missing+=(zstd)
	if [ ${#missing[@]} -gt 0 ]; then
		vm_log "installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get -c "$conf" install -y -qq --no-install-recommends \
			"${missing[@]}" >/dev/null || vm_die "cannot install ${missing[*]}"
	fi
}

# VM_APT: a download-only apt configuration for RELEASE and its backports.
vm_apt() { # RELEASE
	VM_APT=$("$VM_ROOT/scripts/release-apt.sh" "$VM_ROOT/build/apt-$1" "$1") ||
		vm_die "no apt configuration for $1"
}
vm_apt_get() { apt-get -c "$VM_APT" -q "$@"; }

# The .deb files of PACKAGE... and their dependency closure, as apt resolves
# it with nothing installed: "name version" lines.
vm_closure() { # PACKAGE...
	vm_apt_get -s install "$@" 2>/dev/null | awk '/^Inst / { gsub(/[()]/, "", $3); print $2, $3 }'
}
# Megabytes apt would download for PACKAGE... (already cached ones count 0).
vm_download_mb() { # PACKAGE...
	vm_apt_get --print-uris -y install "$@" 2>/dev/null |
		awk -F"'" '$1 == "" && NF >= 3 { split($3, f, " "); s += f[2] } END { printf "%d", (s + 524288) / 1048576 }'
}

# The kernel that SUITE's linux-image-amd64 depends on, unpacked once under
# VM_W: VM_KPKG (its package), VM_KVER, VM_VMLINUZ, VM_KMODS (its modules
# directory). From 7.x on linux-image-<ver> is a shell that depends on
# linux-binary-<ver> (usr/lib/modules/<ver>/vmlinuz; its unsigned variant
# vmlinuz.unsigned) and linux-modules-<ver>; 6.x has boot/vmlinuz-<ver> and
# the modules in the one package. Both layouts are read.
vm_kernel() { # SUITE
	local dir pkgs mb f
	VM_KPKG=$(apt-cache -c "$VM_APT" depends "linux-image-amd64/$1" 2>/dev/null |
		awk '/Depends: linux-image-/ { print $2; exit }')
	[ -n "$VM_KPKG" ] || vm_die "cannot tell which kernel linux-image-amd64/$1 depends on"
	dir=$VM_W/kernel-$VM_KPKG
	if [ ! -d "$dir" ]; then
		pkgs="$VM_KPKG $(apt-cache -c "$VM_APT" depends "$VM_KPKG" 2>/dev/null |
			awk '/^  Depends: linux-(binary|modules)-/ { print $2 }' | tr '\n' ' ')"
		mb=$(apt-cache -c "$VM_APT" show --no-all-versions $pkgs 2>/dev/null |
			awk '/^Size:/ { s += $2 } END { printf "%d", (s + 524288) / 1048576 }')
		vm_log "first run: downloading $pkgs($mb MB) from $1, unpacked under build/ once"
		mkdir -p "$VM_W/dl"
		rm -f "$VM_W"/dl/*.deb
		# shellcheck disable=SC2086 # a list of package names
		(cd "$VM_W/dl" && vm_apt_get download $pkgs >/dev/null 2>&1) || vm_die "cannot download $pkgs"
		rm -rf "$dir.tmp"
		for f in "$VM_W"/dl/*.deb; do
			dpkg-deb -x "$f" "$dir.tmp" || vm_die "cannot unpack $f"
		done
		mv "$dir.tmp" "$dir" && rm -f "$VM_W"/dl/*.deb
	fi
	VM_KMODS=$(ls -d "$dir"/usr/lib/modules/*/ "$dir"/lib/modules/*/ 2>/dev/null | head -1)
	VM_KMODS=${VM_KMODS%/}
	VM_KVER=$(basename "$VM_KMODS")
	VM_VMLINUZ=$(ls "$VM_KMODS"/vmlinuz "$VM_KMODS"/vmlinuz.unsigned "$dir"/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$VM_KVER" ] && [ -f "$VM_VMLINUZ" ] || vm_die "no kernel image or modules in $dir"
}

# PACKAGE... and their closure unpacked once into VM_USR (a directory named
# after the resolved versions): usr-merged like Debian 13, documentation off.
vm_userland() { # PACKAGE...
	local list key n mb deb name ver
	list=$(vm_closure "$@")
	[ -n "$list" ] || vm_die "apt cannot resolve $* in $VM_APT"
	key=$(printf '%s\n' "$list" | md5sum | cut -c1-12)
	VM_USR=$VM_W/userland-$key
	[ -d "$VM_USR" ] && return 0
	n=$(printf '%s\n' "$list" | wc -l)
	mb=$(vm_download_mb "$@")
	[ "$mb" -gt 0 ] && vm_log "first run: downloading $n packages ($mb MB) for the guest's userland"
	vm_apt_get -y -qq --download-only install "$@" >/dev/null 2>&1 ||
		vm_die "cannot download $*"
	rm -rf "$VM_USR.tmp"
	mkdir -p "$VM_USR.tmp"
	while read -r name ver; do
		deb=$(ls "${VM_APT%/*}/cache/archives/${name}_${ver//:/%3a}_"*.deb 2>/dev/null | head -1)
		[ -n "$deb" ] || vm_die "$name $ver was not downloaded"
		dpkg-deb -x "$deb" "$VM_USR.tmp" || vm_die "cannot unpack $deb"
	done <<<"$list"
	rm -rf "$VM_USR.tmp"/usr/share/{doc,man,info,locale,lintian,bug}
	mv "$VM_USR.tmp" "$VM_USR"
}

# VM_R: a fresh initramfs tree: busybox in /bin, the userland (when
# vm_userland ran) under /usr with lib and lib64 pointing into it.
vm_root() {
	VM_R=$VM_W/root
	rm -rf "$VM_R"
	mkdir -p "$VM_R"/{bin,proc,sys,dev,run,tmp,etc,var/lib,usr/lib/modules,opt/cni/bin}
	[ -n "${VM_USR:-}" ] && cp -a "$VM_USR"/. "$VM_R"/
	ln -sfn usr/lib "$VM_R/lib"
	ln -sfn usr/lib64 "$VM_R/lib64"
	cp /usr/bin/busybox "$VM_R/bin/"
	ln -sf busybox "$VM_R/bin/sh"
}

# MODULE... and their dependencies (each module's own modinfo depends=),
# uncompressed into VM_R/lib/modules, load order in VM_R/lib/modules/order.
declare -A vm_seen=()
vm_order=()
vm_module() { # NAME
	local name=${1//-/_} f dep out
	[ -n "${vm_seen[$name]:-}" ] && return 0
	vm_seen[$name]=1
	f=$(find "$VM_KMODS" \( -name "$name.ko*" -o -name "${name//_/-}.ko*" \) | head -1)
	[ -n "$f" ] || vm_die "module $1 not in $VM_KPKG"
	out=$VM_R/lib/modules/$name.ko
	case $f in
	*.xz) xz -dc "$f" >"$out" ;;
	*.zst) zstd -qdc "$f" >"$out" ;;
	*) cp "$f" "$out" ;;
	esac || vm_die "cannot unpack module $f"
	for dep in $(tr '\0' '\n' <"$out" | sed -n 's/^depends=//p' | tr ',' ' '); do
		vm_module "$dep"
	done
	vm_order+=("$name")
}
vm_modules() { # MODULE...
	local m
	vm_seen=()
	vm_order=()
	for m in "$@"; do vm_module "$m"; done
	printf '%s\n' "${vm_order[@]}" >"$VM_R/lib/modules/order"
}

# VM_R as an uncompressed cpio (unpacking costs TCG less than decompressing).
vm_cpio() { # OUT
	(cd "$VM_R" && find . | busybox cpio -o -H newc 2>/dev/null) >"$1.tmp" && mv "$1.tmp" "$1" ||
		vm_die "cannot write $1"
}

# Boot VM_VMLINUZ with INITRD under TCG (no KVM here), serial console into
# VM_W/console.log, killed after DEADLINE seconds (a hang only: a loaded host
# makes TCG several times slower). The guest's lines are shown as they come;
# "<tag>: monitor: <cmd>" lines go to qemu's monitor instead. QEMU-ARGS are
# the machine and its devices.
vm_boot() { # DEADLINE INITRD APPEND QEMU-ARG...
	local deadline=$1 initrd=$2 append=$3 qemu watcher drain
	shift 3
	rm -f "$VM_W"/mon.in "$VM_W"/mon.out
	mkfifo "$VM_W/mon.in" "$VM_W/mon.out"
	: >"$VM_W/console.log"
	VM_START=$(date +%s)
	timeout "$deadline" qemu-system-x86_64 -accel tcg -nographic -no-reboot \
		-monitor pipe:"$VM_W/mon" -serial file:"$VM_W/console.log" "$@" \
		-kernel "$VM_VMLINUZ" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet loglevel=3 $append" >"$VM_W/qemu.log" 2>&1 &
	qemu=$!
	cat "$VM_W/mon.out" >/dev/null &
	drain=$!
	exec 3<>"$VM_W/mon.in" # read-write: never blocks, even if qemu failed
	tail --pid=$qemu -n +1 -F "$VM_W/console.log" 2>/dev/null | vm_console &
	watcher=$!
	vm_ticker $qemu &
	wait $qemu
	VM_RC=$?
	wait $watcher 2>/dev/null
	kill $drain 2>/dev/null
	exec 3>&-
}
vm_ticker() { # QEMU-PID: a line every 5 s until the guest's first line
	local t=0
	while sleep 5 && kill -0 "$1" 2>/dev/null; do
		t=$((t + 5))
		grep -q "^$VM_TAG: " "$VM_W/console.log" 2>/dev/null && return 0
		vm_log "the guest is booting ($t s)"
	done
}
vm_console() { # console lines on stdin: shown, or sent to the monitor
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"$VM_TAG: monitor: "*) echo "${line#"$VM_TAG: monitor: "}" >&3 ;;
		"$VM_TAG: "[0-9]*" passed, "*) ;;
		"$VM_TAG: "* | "  PASS"* | "  FAIL"* | "  SKIP"*) echo "$line" ;;
		esac
	done
}

# The time, and the guest's totals line; the tier's exit status.
vm_results() {
	local totals
	vm_log "booted and ran in $(($(date +%s) - VM_START)) s (qemu exit $VM_RC)"
	totals=$(tr -d '\r' <"$VM_W/console.log" | grep -E "^$VM_TAG: [0-9]+ passed, [0-9]+ failed" | tail -1)
	if [ -z "$totals" ]; then
		vm_log "no result from the VM; the console's last lines:"
		tail -20 "$VM_W/console.log"
		echo "$VM_TAG: 0 passed, 1 failed"
		return 1
	fi
	echo "$totals"
	[[ $totals == *", 0 failed" ]]
}
