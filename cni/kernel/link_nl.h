/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the files of the link module (link.c, link_vf.c, link_addr.c,
 * link_route.c, link_restore.c), which together are the only rtnetlink speakers. */
#ifndef CNI_LINK_NL_H
#define CNI_LINK_NL_H

#include <linux/if_link.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/sys.h"
#include "kernel/nl.h"

/* Newer than Debian 12's uapi headers (6.1): the kernel's numbers (6.3). */
#define CNI_IFLA_GSO_IPV4_MAX_SIZE 63
#define CNI_IFLA_GRO_IPV4_MAX_SIZE 64
#define CNI_IFLA_MAX		   (IFLA_MAX > 64 ? IFLA_MAX : 64)

/* An rtnetlink request of type with flags (NLM_F_ACK is added unless it is
 * a dump) and a zeroed fixed header of hdrlen bytes (struct ifinfomsg,
 * ifaddrmsg, rtmsg: each starts with its family byte) set to family; NULL
 * on ENOMEM. */
struct nl_msg *cni_link_req(int type, int flags, int family, size_t hdrlen);

/* A link request (ifinfomsg) for ifindex; NULL on ENOMEM. */
struct nl_msg *cni_link_msg(int type, int flags, int ifindex);

/* One exchange on this namespace's NETLINK_ROUTE socket (honours the
 * IBCNI_LINK_FAILPOINT fault injection for change requests). */
int cni_link_talk(struct cni_sys *sys, struct nl_msg *msg, cni_nl_parse_fn parse, void *arg);

struct cni_link;

/* What an RTM_GETLINK reply fills: link, then more (optional) with the same
 * message, for what link.c does not parse (link_vf.c's VF list). */
struct cni_link_reply {
	struct cni_link *link;
	uint32_t ext_mask; /* IFLA_EXT_MASK: RTEXT_FILTER_* */
	int (*more)(struct nl_msg *msg, struct cni_link_reply *r);
	void *more_arg;
};

/* Ask for the link ifindex (0: by name) and parse the reply into r;
 * -ENODEV when none answers. 0 or -errno. */
int cni_link_query(struct cni_sys *sys, const char *name, int ifindex, struct cni_link_reply *r);

/* One RTM_NEWLINK for ifindex: the flags in change set to flags. 0 or -errno. */
int cni_link_change_flags(struct cni_sys *sys, int ifindex, unsigned int flags,
			  unsigned int change);

/* One RTM_NEWLINK for ifindex setting attr to len bytes of data. 0 or -errno. */
int cni_link_change_attr(struct cni_sys *sys, int ifindex, int attr, const void *data, size_t len);

/* The IFLA_* attribute of a u32 CNI_LINK_A_* bit and its offset in
 * struct cni_link_attrs; -EINVAL for alias, flags or an unknown bit. */
int cni_link_u32_attr(uint32_t bit, int *attr, size_t *off);

#endif
