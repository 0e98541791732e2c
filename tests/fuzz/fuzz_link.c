// SPDX-License-Identifier: Apache-2.0
/* rtnetlink replies (RTM_NEWLINK, RTM_NEWADDR, RTM_NEWROUTE) as a forged
 * reply or an unexpected driver may lay them out. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "fuzz_nl.h"
#include "kernel/link.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

static void check_prefix(const struct cni_prefix *p)
{
	/* A decoded prefix is one family's, with a length it can hold. */
	if ((p->family == AF_INET && p->len > 32) || (p->family == AF_INET6 && p->len > 128) ||
	    (p->family && p->family != AF_INET && p->family != AF_INET6))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nl_msg *msg = fuzz_nl_msg(data, size);
	struct cni_link_route route;
	struct cni_link_addr addr;
	struct cni_link link;

	if (!msg)
		return 0;
	if (!cni_link_parse(msg, &link) &&
	    (strnlen(link.name, sizeof(link.name)) == sizeof(link.name) ||
	     strnlen(link.kind, sizeof(link.kind)) == sizeof(link.kind) ||
	     link.mac_len > sizeof(link.mac)))
		abort();
	if (!cni_link_addr_parse(msg, &addr))
		check_prefix(&addr.addr);
	if (!cni_link_route_parse(msg, &route))
		check_prefix(&route.dst);
	nlmsg_free(msg);
	return 0;
}
