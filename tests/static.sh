#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make static` must give self-contained binaries that still answer VERSION;
# the documentation's links resolve and `make help` names every target.
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
make --no-print-directory static >/dev/null 2>&1 || { echo "make static failed"; fail=1; }
for b in ib-sriov rdma-ns ib-host-local; do
	f=build/static/bin/$b
	if file "$f" 2>/dev/null | grep -q 'statically linked' &&
	   ! ldd "$f" >/dev/null 2>&1 &&
	   [ "$(CNI_COMMAND=VERSION "$f" | jq -c .supportedVersions 2>/dev/null)" = \
	     '["0.1.0","0.2.0","0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]' ]; then
		pass=$((pass + 1)); echo "  PASS  static $b"
	else
		fail=$((fail + 1)); echo "  FAIL  static $b: $(file "$f" 2>&1)"
	fi
done
# The image's entrypoint too (installer/README.md), answering --version.
f=build/static/bin/ibcni-install
if file "$f" 2>/dev/null | grep -q 'statically linked' && ! ldd "$f" >/dev/null 2>&1 &&
   "$f" --version 2>/dev/null | grep -qx "ibcni-install $(sed -n 's/^VERSION := //p' Makefile) (.*)"; then
	pass=$((pass + 1)); echo "  PASS  static ibcni-install"
else
	fail=$((fail + 1)); echo "  FAIL  static ibcni-install: $(file "$f" 2>&1)"
fi
# libibverbs' neigh.o is left out (Makefile: verbs-noneigh), and with it
# libnl-route: no rtnl_ symbol in the plugins that link verbs.
for b in ib-sriov rdma-ns; do
	f=build/static/bin/$b
	n=$(nm "$f" 2>/dev/null | grep -c ' [TtDd] rtnl_')
	if nm "$f" >/dev/null 2>&1 && [ "$n" -eq 0 ]; then
		pass=$((pass + 1)); echo "  PASS  static $b carries no libnl-route"
	else
		fail=$((fail + 1)); echo "  FAIL  static $b: $n libnl-route symbols (or no nm)"
	fi
done
# A release tarball (the tree without .git) builds, and --version says what
# it is instead of a commit; here from `git archive` of this checkout, or the
# tree itself when it is one.
rel=$(mktemp -d)
if git -c safe.directory="$PWD" rev-parse --show-toplevel 2>/dev/null | grep -qx "$PWD"; then
	git -c safe.directory="$PWD" archive HEAD | tar -x -C "$rel"
	src=$rel
else
	src=$PWD
fi
if make -C "$src" --no-print-directory -j2 bin/ib-host-local >"$rel.log" 2>&1 &&
   [ "$("$src/bin/ib-host-local" --version | head -n 1)" = "ib-host-local $(sed -n 's/^VERSION := //p' Makefile) (not built from a git checkout)" ]; then
	pass=$((pass + 1)); echo "  PASS  a tree without .git builds; --version says so"
else
	fail=$((fail + 1)); echo "  FAIL  tree without .git: $("$src/bin/ib-host-local" --version 2>&1 | head -n 1; tail -3 "$rel.log")"
fi
rm -rf "$rel" "$rel.log"
# The documentation's links and `make help` (tests/docs.sh).
docs=$(tests/docs.sh)
echo "$docs" | grep -v '^docs: '
read -r p f < <(sed -nE 's/^docs: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' <<<"$docs")
pass=$((pass + ${p:-0})) fail=$((fail + ${f:-1}))
# The code's shape (tests/shape/shape.py): sizes, parameters, no GNU ?: or
# __thread, no call cycle or upward call among the objects `make static`
# just built.
if shape=$(python3 tests/shape/shape.py build/static/build/obj 2>&1); then
	pass=$((pass + 1)); echo "  PASS  ${shape##*$'\n'}"
else
	fail=$((fail + 1)); echo "  FAIL  code shape:"; echo "$shape"
fi
# The rooms' object rule itself: a DEL object that calls one of ADD's steps
# (a symbol of ib-sriov/add/) is refused.
plant=$(mktemp -d)
mkdir -p "$plant/build" && cp -a build/static/build/obj "$plant/build/"
if echo 'int ibsriov_resolve_device(void *a); int ibsriov_del(void *c);
int ibsriov_del(void *c) { return ibsriov_resolve_device(c); }' |
	cc -c -x c - -o "$plant/build/obj/ib-sriov/del.o" &&
   python3 tests/shape/shape.py "$plant/build/obj" 2>&1 |
	grep -q "ib-sriov/del.o calls into ib-sriov/add/resolve.o"; then
	pass=$((pass + 1)); echo "  PASS  shape refuses a call into ib-sriov/add/ from outside it"
else
	fail=$((fail + 1)); echo "  FAIL  shape let del.o call into ib-sriov/add/"
fi
rm -rf "$plant"
# The installer's object rule (installer/README.md): one of its objects that
# takes a state lock and runs ib-host-local's ADD is refused twice.
plant=$(mktemp -d)
mkdir -p "$plant/build" && cp -a build/static/build/obj "$plant/build/"
planted=
if echo 'int cni_lock_acquire(void *p, unsigned t, void *e); int ipam_add(void *c);
int install_plugins(void *o);
int install_plugins(void *o) { return cni_lock_acquire(o, 0, o) + ipam_add(o); }' |
	cc -c -x c - -o "$plant/build/obj/installer/files.o"; then
	planted=$(python3 tests/shape/shape.py "$plant/build/obj" 2>&1)
fi
if grep -q "installer/files.o calls into cni/state/lock.o: installer/README.md" <<<"$planted" &&
   grep -q "installer/files.o calls into ipam/add.o: installer/README.md" <<<"$planted"; then
	pass=$((pass + 1)); echo "  PASS  shape refuses the installer a call its README does not allow"
else
	fail=$((fail + 1)); echo "  FAIL  shape let installer/ call into state/ or ipam's ADD"
fi
rm -rf "$plant"
echo "static: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
