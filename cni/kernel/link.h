/* SPDX-License-Identifier: Apache-2.0 */
/* rtnetlink through libnl-3's core (messages built with nla_put, replies
 * split by nla_parse against a policy per reply type); link.c, link_vf.c,
 * link_addr.c, link_route.c (kernel/link_route.h) and link_restore.c are the
 * only files that speak it. Every call acts in the
 * calling thread's network namespace, on sys's socket for it (kernel/sys.h;
 * the extended-ack text of a failure is cni_sys_ext_ack(sys)), and returns 0
 * or a negative errno exactly as the kernel reported it. */
#ifndef CNI_LINK_H
#define CNI_LINK_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/sys.h"
#include "base/addr.h"

struct nl_msg;

#define CNI_MAC_MAX  32	 /* IPoIB hardware addresses are 20 bytes */
#define CNI_IFALIASZ 256 /* the kernel's IFALIASZ (linux/if.h), with its NUL */

/* Netdev attributes a pod may change in its own netns and DEL puts back;
 * CNI_LINK_A_* say which a reply carried (alias and flags always: an
 * absent IFLA_IFALIAS is the empty alias). */
enum {
	CNI_LINK_A_ALIAS = 1 << 0,
	CNI_LINK_A_FLAGS = 1 << 1,
	CNI_LINK_A_GROUP = 1 << 2,
	CNI_LINK_A_TXQLEN = 1 << 3,
	CNI_LINK_A_GSO_MAX_SIZE = 1 << 4,
	CNI_LINK_A_GSO_MAX_SEGS = 1 << 5,
	CNI_LINK_A_GRO_MAX_SIZE = 1 << 6,
	CNI_LINK_A_GSO_IPV4_MAX_SIZE = 1 << 7, /* 6.3+ */
	CNI_LINK_A_GRO_IPV4_MAX_SIZE = 1 << 8, /* 6.3+ */
};

/* The interface flags that are restored (the rest are state, or UP). */
#define CNI_LINK_RESTORED_FLAGS (IFF_NOARP | IFF_MULTICAST | IFF_PROMISC | IFF_ALLMULTI)

struct cni_link_attrs {
	uint32_t mask;		  /* CNI_LINK_A_* */
	char alias[CNI_IFALIASZ]; /* IFLA_IFALIAS, "" when none */
	unsigned int flags;	  /* IFF_* of CNI_LINK_RESTORED_FLAGS */
	uint32_t group, txqlen;
	uint32_t gso_max_size, gso_max_segs, gro_max_size;
	uint32_t gso_ipv4_max_size, gro_ipv4_max_size;
};

struct cni_link {
	int ifindex;
	char name[IFNAMSIZ];
	char kind[32];	    /* IFLA_INFO_KIND, "" for hardware */
	unsigned int type;  /* ARPHRD_* */
	unsigned int flags; /* IFF_* */
	unsigned int mtu;
	unsigned char mac[CNI_MAC_MAX];
	unsigned int mac_len;
	int num_vf;		 /* IFLA_NUM_VF, -1 when not reported */
	bool ipoib;		 /* kind "ipoib": pkey and mode below are valid */
	uint16_t pkey;		 /* IFLA_IPOIB_PKEY */
	uint16_t ipoib_mode;	 /* IFLA_IPOIB_MODE: 0 datagram, 1 connected */
	char parent_bus[16];	 /* IFLA_PARENT_DEV_BUS_NAME ("pci"), "" when none */
	char parent_dev[64];	 /* IFLA_PARENT_DEV_NAME (the PCI address) */
	int iflink;		 /* IFLA_LINK (a veth's peer), 0 when not reported */
	bool iflink_elsewhere;	 /* IFLA_LINK_NETNSID: that peer is in another netns */
	unsigned int n_altnames; /* IFLA_ALT_IFNAMEs in IFLA_PROP_LIST */
	struct cni_link_attrs attrs;
};

/* Which fields of a cni_vf are meaningful. */
enum {
	CNI_VF_MAC = 1 << 0,
	CNI_VF_VLAN = 1 << 1,
	CNI_VF_RATE = 1 << 2,
	CNI_VF_SPOOFCHK = 1 << 3,
	CNI_VF_TRUST = 1 << 4,
	CNI_VF_LINK_STATE = 1 << 5,
	CNI_VF_NODE_GUID = 1 << 6,
	CNI_VF_PORT_GUID = 1 << 7,
};

/* One VF's PF-side settings, as read from IFLA_VFINFO_LIST or to be written. */
struct cni_vf {
	uint32_t vf;
	uint32_t mask; /* CNI_VF_* */
	unsigned char mac[6];
	uint32_t vlan, qos;
	uint16_t vlan_proto; /* ETH_P_8021Q or ETH_P_8021AD, host order */
	uint32_t min_tx_rate, max_tx_rate;
	uint32_t spoofchk, trust;
	uint32_t link_state; /* IFLA_VF_LINK_STATE_AUTO/ENABLE/DISABLE */
	uint64_t node_guid, port_guid;
};

/* One address as the kernel reports it (RTM_NEWADDR). */
struct cni_link_addr {
	int ifindex;
	struct cni_prefix addr;
	uint32_t flags; /* IFA_F_* */
};

/* One route (RTM_NEWROUTE), what CHECK compares. */
struct cni_link_route {
	int oif;	       /* 0 for a multipath route */
	struct cni_prefix dst; /* a missing RTA_DST stays the zero address */
	struct cni_addr gw;    /* family 0 without a gateway */
	uint32_t table;
};

/* Decode a kernel reply: RTM_NEWLINK into link, RTM_NEWADDR into addr,
 * RTM_NEWROUTE into route. -EPROTO for another type or a malformed message,
 * -EAFNOSUPPORT for an address or route that is neither IPv4 nor IPv6. */
int cni_link_parse(struct nl_msg *msg, struct cni_link *link);
int cni_link_addr_parse(struct nl_msg *msg, struct cni_link_addr *addr);
int cni_link_route_parse(struct nl_msg *msg, struct cni_link_route *route);

/* Look a link up by name (ifindex 0) or by index. -ENODEV when absent. */
int cni_link_get(struct cni_sys *sys, const char *name, int ifindex, struct cni_link *link);

/* In the calling thread's namespace, the netdev whose hardware address is
 * mac[len] into name: the one named want (optional) when several have it,
 * else the first found. Looks at most 4096 links. -ENODEV when none. */
int cni_link_find_mac(struct cni_sys *sys, const unsigned char *mac, unsigned int len,
		      const char *want, char name[IFNAMSIZ]);

/* In the calling thread's namespace, how many links (one dump) have the
 * hardware address mac[len] into *n. 0 or -errno. */
int cni_link_count_mac(struct cni_sys *sys, const unsigned char *mac, unsigned int len,
		       unsigned int *n);

/* Administrative state, name, MTU and hardware address of a link. */
int cni_link_set_up(struct cni_sys *sys, int ifindex, bool up);
int cni_link_rename(struct cni_sys *sys, int ifindex, const char *name);
int cni_link_set_mtu(struct cni_sys *sys, int ifindex, unsigned int mtu);
int cni_link_set_mac(struct cni_sys *sys, int ifindex, const unsigned char *mac, size_t len);

/* Build the RTM_NEWLINK that creates an IPoIB child of parent on partition
 * pkey in mode, as `ip link add link PARENT name NAME type ipoib pkey P mode
 * M` does. Caller frees *msg with nlmsg_free(). */
int cni_link_ipoib_msg(int parent, const char *name, uint16_t pkey, uint16_t mode,
		       struct nl_msg **msg);

/* Create that child; -EEXIST when the name is taken. */
int cni_link_ipoib_add(struct cni_sys *sys, int parent, const char *name, uint16_t pkey,
		       uint16_t mode);

/* Re-apply link's own hardware address (as read by cni_link_get()): nothing
 * changes, but the kernel runs its NETDEV_CHANGEADDR handlers, which
 * announce the link's addresses when arp_notify / ndisc_notify are set.
 * Outside IBCNI_LINK_FAILPOINT's count, as it changes nothing. */
int cni_link_notify_peers(struct cni_sys *sys, const struct cni_link *link);

/* Move a link into netns_fd's namespace and name it name there, in one
 * request: the name is checked in the target only (the kernel keeps the
 * current name when it is free there, takes name when not, then renames
 * to name; a "dev%d"-style name lets it pick). -EEXIST leaves the link
 * where it was unless the move was done and only the rename failed. */
int cni_link_move_named(struct cni_sys *sys, int ifindex, int netns_fd, const char *name);

/* Remove every alternative name of a link (RTM_DELLINKPROP), however many
 * the kernel lists. 0 when it has none left. */
int cni_link_altnames_clear(struct cni_sys *sys, int ifindex);

/* Put back the attributes of want that cur (the link as read now)
 * reports differently, one request each, so a refusal names its
 * attribute in *what. The kernel takes each of them on a down link. */
int cni_link_attrs_set(struct cni_sys *sys, int ifindex, const struct cni_link_attrs *want,
		       const struct cni_link_attrs *cur, const char **what);

/* The name of a CNI_LINK_A_* bit, for records and messages. */
const char *cni_link_attr_name(uint32_t bit);

/* Delete a (virtual) link. */
int cni_link_delete(struct cni_sys *sys, int ifindex);

/* Move a link into the network namespace netns_fd refers to. */
int cni_link_move(struct cni_sys *sys, int ifindex, int netns_fd);

/* Add or delete an interface address (prefix as in a CNI result). */
int cni_link_addr_add(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr);

/* Add it with IFA_F_* flags (IFA_F_NOPREFIXROUTE: no connected route in
 * main, the caller places it). */
int cni_link_addr_add_flags(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr,
			    uint32_t flags);
int cni_link_addr_del(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr);

/* Build the RTM_NEWROUTE that adds rt through ifindex, as `ip route add`
 * lays it out (gateway, table, scope, priority, mtu and advmss as given;
 * without a scope, global through a gateway and link without one). NULL on
 * ENOMEM; caller frees with nlmsg_free(). */
struct nl_msg *cni_link_route_msg(int ifindex, const struct cni_route *rt);

/* Add that route. */
int cni_link_route_add(struct cni_sys *sys, int ifindex, const struct cni_route *rt);

/* The IPv4 then IPv6 addresses of ifindex (two dumps), at most max into
 * out: how many, or -errno. */
int cni_link_addrs(struct cni_sys *sys, int ifindex, struct cni_link_addr *out, size_t max);

/* True (1) when ifindex has exactly this address, 0 when not, or -errno. */
int cni_link_has_addr(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr);

/* True (1) when a route to rt->dst (via rt->gw if set) exists on ifindex. */
int cni_link_has_route(struct cni_sys *sys, int ifindex, const struct cni_route *rt);

/* Read the link's sysctl net.ipv4|ipv6.conf.<name>.<key> into buf (len
 * bytes, the trailing newline dropped); as cni_link_conf_set() otherwise. */
int cni_link_conf_get(int family, const char *name, const char *key, char *buf, size_t len);

#define CNI_LINK_CONF_VALUE 32 /* a value read back, with its NUL */

/* Per-link sysctls of the link ifindex known as name: key[i] set to
 * value[i] (NULL: read only), read back into got[i]. */
struct cni_link_conf {
	int family; /* AF_INET or AF_INET6 */
	int ifindex;
	const char *name;
	size_t n;
	const char *const *key, *const *value;
	char (*got)[CNI_LINK_CONF_VALUE];
};

/* Write (where a value is given) and read back each of c's sysctls, with
 * ifindex checked to be named name before the first and after the last
 * (-ESTALE when the pod renamed its links meanwhile); *failed is the index
 * of the one that failed. The caller compares got. */
int cni_link_conf_apply(struct cni_sys *sys, const struct cni_link_conf *c, size_t *failed);

/* Write value to the link's sysctl net.ipv4|ipv6.conf.<name>.<key> (family
 * AF_INET or AF_INET6) in the calling thread's namespace; -EINVAL for a
 * name or key that would leave that directory, -ENOENT when absent. */
int cni_link_conf_set(int family, const char *name, const char *key, const char *value);

/* Enable IPv6 on a link (net.ipv6.conf.<name>.disable_ipv6=0) in the
 * calling thread's namespace; a kernel without IPv6 gives -ENOENT. */
int cni_link_ipv6_enable(const char *name);

/* Wait (bounded) until no IPv6 address of ifindex is tentative. A link
 * without carrier cannot finish DAD, so it is not waited for. 0, or
 * -ETIMEDOUT when addresses are still tentative at the bound. */
int cni_link_wait_dad(struct cni_sys *sys, int ifindex, unsigned int timeout_ms);

/* Read every VF of the PF ifindex in one request (RTEXT_FILTER_VF, without
 * the VFs' counters: RTEXT_FILTER_SKIP_STATS). *vfs is malloc'd
 * (caller frees); *n is 0 for a link without VFs, and less than its
 * IFLA_NUM_VF when the kernel skipped a VF its driver could not read (one
 * resetting): look a VF up by cni_vf.vf. *num_vf (NULL: not wanted) is
 * the PF's IFLA_NUM_VF from the same reply. */
int cni_link_vfs_get(struct cni_sys *sys, int pf_ifindex, struct cni_vf **vfs, size_t *n,
		     int *num_vf);

/* Build the RTM_NEWLINK request that applies vf's masked settings on the PF,
 * laid out as iproute2's `ip link set dev PF vf N ...` lays it out. Caller
 * frees *msg with nlmsg_free(). */
int cni_link_vf_msg(int pf_ifindex, const struct cni_vf *vf, struct nl_msg **msg);

/* Apply vf's masked settings to the PF's VF. */
int cni_link_vf_set(struct cni_sys *sys, int pf_ifindex, const struct cni_vf *vf);

/* Decode an RTM_NEWLINK message's IFLA_VFINFO_LIST (a kernel reply or a
 * request built above) into at most max VFs; returns how many or -errno. */
int cni_link_vfs_parse(struct nl_msg *msg, struct cni_vf *vfs, size_t max);

#endif
