/* SPDX-License-Identifier: Apache-2.0 */
/* Raw bytes as one received netlink message, as libnl hands it to a parse
 * callback: the header's length is the datagram's (the kernel's and
 * nl_recv's guarantee), everything else is as sent. */
#ifndef IBCNI_FUZZ_NL_H
#define IBCNI_FUZZ_NL_H

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdlib.h>
#include <string.h>

/* NULL when data cannot hold a header. Free with nlmsg_free(). */
static inline struct nl_msg *fuzz_nl_msg(const uint8_t *data, size_t size)
{
	struct nlmsghdr *h;
	struct nl_msg *msg;

	if (size < NLMSG_HDRLEN || size > 65536)
		return NULL;
	h = malloc(NLMSG_ALIGN(size));
	if (!h)
		abort();
	memset(h, 0, NLMSG_ALIGN(size));
	memcpy(h, data, size);
	h->nlmsg_len = (uint32_t)size;
	msg = nlmsg_convert(h);
	free(h);
	if (!msg)
		abort();
	return msg;
}

#endif
