#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make static` must give self-contained binaries that still answer VERSION.
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
echo "static: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
