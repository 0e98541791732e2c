// SPDX-License-Identifier: Apache-2.0
/* What a pod may have done to a netdev it held, undone: its alternative
 * names, alias, flags, group, queue length and GSO/GRO limits; and the
 * move out of a namespace with the name checked in the target only. */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"
#include "base/util.h"

#define CNI_ALTIFNAMSIZ 128 /* the kernel's ALTIFNAMSIZ, with its NUL */

int cni_link_move_named(struct cni_sys *sys, int ifindex, int netns_fd, const char *name)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_NEWLINK, 0, ifindex);

	if (!msg)
		return -ENOMEM;
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	if (nla_put_u32(msg, IFLA_NET_NS_FD, (uint32_t)netns_fd) < 0 ||
	    nla_put_string(msg, IFLA_IFNAME, name) < 0)
		return -ENOMEM;
	return cni_link_talk(sys, msg, NULL, NULL);
}

/* --- alternative names --- */

static const struct nla_policy prop_policy[CNI_IFLA_MAX + 1] = {
    [IFLA_PROP_LIST] = {.type = NLA_NESTED},
};

struct prop_list {
	struct nlattr *copy; /* the reply's IFLA_PROP_LIST, malloc'd */
};

static int prop_parse(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CNI_IFLA_MAX + 1];
	struct prop_list *p = arg;
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWLINK)
		return -EPROTO;
	ret = cni_nl_parse(msg, sizeof(struct ifinfomsg), tb, CNI_IFLA_MAX, prop_policy);
	if (ret || !tb[IFLA_PROP_LIST])
		return ret;
	free(p->copy);
	p->copy = malloc((size_t)nla_total_size(nla_len(tb[IFLA_PROP_LIST])));
	if (!p->copy)
		return -ENOMEM;
	memcpy(p->copy, tb[IFLA_PROP_LIST], (size_t)nla_total_size(nla_len(tb[IFLA_PROP_LIST])));
	return 0;
}

/* One RTM_DELLINKPROP for as many names from *pos as fit in a message;
 * *pos and *rem advance past them. */
static int del_batch(struct cni_sys *sys, int ifindex, struct nlattr **pos, int *rem)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_DELLINKPROP, 0, ifindex);
	struct nlattr *list;
	unsigned int n = 0;

	if (!msg || !(list = nla_nest_start(msg, IFLA_PROP_LIST)))
		return -ENOMEM;
	for (; nla_ok(*pos, *rem); *pos = nla_next(*pos, rem)) {
		char name[CNI_ALTIFNAMSIZ];

		if (nla_type(*pos) != IFLA_ALT_IFNAME)
			continue;
		nla_strlcpy(name, *pos, sizeof(name));
		/* A full message is sent, the rest goes in the next one. */
		if (nla_put_string(msg, IFLA_ALT_IFNAME, name) < 0) {
			if (!n)
				return -ENOMEM;
			break;
		}
		n++;
	}
	nla_nest_end(msg, list);
	return n ? cni_link_talk(sys, msg, NULL, NULL) : 0;
}

int cni_link_altnames_clear(struct cni_sys *sys, int ifindex)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_GETLINK, 0, ifindex);
	struct prop_list p = {0};
	struct nlattr *pos;
	int rem, ret;

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, IFLA_EXT_MASK, 0) < 0)
		return -ENOMEM;
	ret = cni_link_talk(sys, msg, prop_parse, &p);
	if (ret || !p.copy) {
		free(p.copy);
		return ret;
	}
	pos = nla_data(p.copy);
	rem = nla_len(p.copy);
	while (!ret && nla_ok(pos, rem))
		ret = del_batch(sys, ifindex, &pos, &rem);
	free(p.copy);
	return ret;
}

/* --- attributes --- */

static const char *const attr_names[] = {
    "alias",
    "flags",
    "group",
    "txqueuelen",
    "gso_max_size",
    "gso_max_segs",
    "gro_max_size",
    "gso_ipv4_max_size",
    "gro_ipv4_max_size",
};

const char *cni_link_attr_name(uint32_t bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(attr_names); i++)
		if (bit == 1U << i)
			return attr_names[i];
	return "?";
}

int cni_link_attrs_set(struct cni_sys *sys, int ifindex, const struct cni_link_attrs *want,
		       const struct cni_link_attrs *cur, const char **what)
{
	uint32_t both = want->mask & cur->mask;
	unsigned int diff = (want->flags ^ cur->flags) & CNI_LINK_RESTORED_FLAGS;
	int ret = 0;

	*what = NULL;
	/* The empty alias is an attribute of length 0 (the kernel drops it). */
	if ((both & CNI_LINK_A_ALIAS) && strcmp(want->alias, cur->alias))
		ret = cni_link_change_attr(sys, ifindex, IFLA_IFALIAS, want->alias,
					   strlen(want->alias));
	if (ret) {
		*what = cni_link_attr_name(CNI_LINK_A_ALIAS);
		return ret;
	}
	if ((both & CNI_LINK_A_FLAGS) && diff)
		ret = cni_link_change_flags(sys, ifindex, want->flags & diff, diff);
	if (ret) {
		*what = cni_link_attr_name(CNI_LINK_A_FLAGS);
		return ret;
	}
	for (uint32_t bit = CNI_LINK_A_GROUP; bit <= CNI_LINK_A_GRO_IPV4_MAX_SIZE; bit <<= 1) {
		uint32_t w, c;
		size_t off;
		int attr;

		if (!(both & bit) || cni_link_u32_attr(bit, &attr, &off))
			continue;
		memcpy(&w, (const char *)want + off, sizeof(w));
		memcpy(&c, (const char *)cur + off, sizeof(c));
		if (w == c)
			continue;
		ret = cni_link_change_attr(sys, ifindex, attr, &w, sizeof(w));
		if (ret) {
			*what = cni_link_attr_name(bit);
			return ret;
		}
	}
	return 0;
}
