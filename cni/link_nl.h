/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the files of the link module (link.c, link_vf.c, link_addr.c),
 * which together are the only rtnetlink speakers. */
#ifndef CNI_LINK_NL_H
#define CNI_LINK_NL_H

#include "nl.h"

/* An rtnetlink request of type with flags (NLM_F_ACK is added unless it is
 * a dump) and a zeroed fixed header of hdrlen bytes (struct ifinfomsg,
 * ifaddrmsg, rtmsg: each starts with its family byte) set to family; NULL
 * on ENOMEM. */
struct nl_msg *cni_link_req(int type, int flags, int family, size_t hdrlen);

/* A link request (ifinfomsg) for ifindex; NULL on ENOMEM. */
struct nl_msg *cni_link_msg(int type, int flags, int ifindex);

/* One exchange on this namespace's NETLINK_ROUTE socket (honours the
 * IBCNI_LINK_FAILPOINT fault injection for change requests). */
int cni_link_talk(struct nl_msg *msg, cni_nl_parse_fn parse, void *arg);

#endif
