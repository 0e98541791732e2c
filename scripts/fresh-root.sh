#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The README's two commands on a fresh Debian, as a newcomer runs them: a
# minimal root (`debootstrap --variant=minbase`) from this machine's own
# mirror, `apt-get install git make` and nothing else, a clone of COMMIT,
# then `make demo` and `make check` as root (no sudo) in private mount
# namespace with /proc, /sys, /dev and tmpfs /run and /tmp mounted. Every
# package the project needs is then installed by the project itself.
#
# The bare root (git and make only, before any of the project's packages) is
# kept as a tarball in $IBCNI_FRESH_CACHE, remade weekly or when the mirror
# changes; downloaded .debs are kept there too (apt checks each against the
# index). Neither pre-installs anything the project's scripts install.
#
# Usage: fresh-root.sh [COMMIT]   (default HEAD; root; about 40 min)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse "${1:-HEAD}")
cache=${IBCNI_FRESH_CACHE:-/var/cache/ibcni-fresh-root}
W=${IBCNI_FRESH_DIR:-/var/tmp/ibcni-fresh-root}
R=$W/root
log() { echo "fresh-root: $*"; }
die() { log "$*"; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"

. /etc/os-release
codename=${VERSION_CODENAME:?/etc/os-release has no VERSION_CODENAME}
mirror=$("$top/scripts/apt-mirror.sh" "$codename") || die "cannot tell this machine's Debian mirror"
uri=${mirror%%	*}
key=${mirror#*	}
for p in debootstrap; do
	command -v $p >/dev/null || {
		log "installing $p"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $p >/dev/null
	} || die "cannot install $p"
done

# Processes still running inside the root (a runtime a tier started) are
# killed before its mounts go; the mount namespace goes with the last one.
reap() {
	local p pids
	for _ in 1 2 3; do
		pids=()
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && pids+=("${p#/proc/}")
		done
		[ ${#pids[@]} -eq 0 ] && return 0
		kill -9 "${pids[@]}" 2>/dev/null || true
		sleep 1
	done
}
trap reap EXIT

mkdir -p "$cache/debs" "$W"
stamp="$codename $uri minbase git make"
base=$cache/base-$codename.tar
if [ ! -f "$base" ] || [ "$(cat "$base.id" 2>/dev/null)" != "$stamp" ] ||
	[ -n "$(find "$base" -mtime +7)" ]; then
	log "debootstrap --variant=minbase $codename from $uri"
	rm -rf "$W/base"
	debootstrap --variant=minbase ${key:+--keyring="$key"} --cache-dir="$cache/debs" \
		"$codename" "$W/base" "$uri" >"$W/debootstrap.log" 2>&1 ||
		{ tail -20 "$W/debootstrap.log"; die "debootstrap failed"; }
	# What the newcomer types first (README): a minimal Debian has neither.
	chroot "$W/base" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends git make' \
		>"$W/base-apt.log" 2>&1 || { tail -20 "$W/base-apt.log"; die "apt-get install git make failed"; }
	chroot "$W/base" apt-get clean
	tar -C "$W/base" -cf "$base.tmp" . && mv "$base.tmp" "$base" && echo "$stamp" >"$base.id"
	rm -rf "$W/base"
fi
reap
rm -rf "$R"
mkdir -p "$R"
tar -C "$R" -xf "$base"
log "root: $(chroot "$R" dpkg-query -W -f='${binary:Package}\n' | wc -l) packages" \
	"($(chroot "$R" sh -c 'for c in git make; do command -v $c; done' | tr '\n' ' '))"

git clone -q --no-hardlinks "$top" "$R/root/ibcni"
git -C "$R/root/ibcni" checkout -q "$commit"
log "clone of $(git -C "$R/root/ibcni" log -1 --format='%h %s' | cut -c1-72)"

# The run: a private mount namespace, the root's own apt (its sources are the
# one-line file debootstrap writes), only the environment a root login has.
unshare --mount --propagation private -- bash -euc '
	R=$1 debs=$2
	mount --bind "$R" "$R"	# its / a mount point, as a machine'"'"'s is (unshare -m needs one)
	mount -t proc proc "$R/proc"
	mount --rbind /sys "$R/sys"
	mount --rbind /dev "$R/dev"
	mount -t tmpfs tmpfs "$R/run"
	mount -t tmpfs tmpfs "$R/tmp"
	mkdir -p "$debs/partial"
	mount --bind "$debs" "$R/var/cache/apt/archives"
	exec chroot "$R" env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd /root/ibcni && set -o pipefail &&
			{ echo \"== make demo\"; make demo; } && { echo \"== make check\"; make check; }"
' fresh-root "$R" "$cache/debs"
log "make demo and make check passed in a fresh $codename root"
reap
rm -rf "$R"	# gigabytes of packages; the base tarball and the .debs stay cached
