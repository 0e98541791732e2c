# SPDX-License-Identifier: Apache-2.0
# The crash tier (root): kill and fault injection under strace, and a soak.
# FULL=1 injects at every point and soaks 60 s; CRASH_FILTER=<substring>
# runs a subset.

check-crash: all $(NETNS_HELPER)
	@IBCNI_BIN=$(abspath $(BIN)) IBCNI_HELPER=$(abspath $(NETNS_HELPER)) tests/crash/run.sh

.PHONY: check-crash
