#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# As IBCNI_WRAP (tests/netns/lib.sh's cni_exec): `qemu-wrap.sh PROGRAM
# ARGS...` runs PROGRAM under qemu-aarch64-static when it is an aarch64 ELF
# file (e_machine 183 at offset 18), else as is (Debian's Go plugins, the
# fixture scripts): no binfmt_misc registration is needed, or used.
machine=$(od -An -tu2 -j18 -N2 "$1" 2>/dev/null | tr -d ' ')
[ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] && [ "$machine" = 183 ] &&
	exec qemu-aarch64-static "$@"
exec "$@"
