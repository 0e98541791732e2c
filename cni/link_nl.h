/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the files of the link module (link.c, link_vf.c, link_addr.c),
 * which together are the only rtnetlink speakers. */
#ifndef CNI_LINK_NL_H
#define CNI_LINK_NL_H

#include "nl.h"

/* An rtnetlink link request (ifinfomsg header) for ifindex; NULL on ENOMEM. */
struct nl_msg *cni_link_msg(int type, int flags, int ifindex);

/* One request/reply exchange on a fresh NETLINK_ROUTE socket (honours the
 * IBCNI_LINK_FAILPOINT fault injection for change requests). */
int cni_link_talk(struct nl_msg *msg, cni_nl_parse_fn parse, void *arg);

#endif
