// SPDX-License-Identifier: Apache-2.0
/* A fake kernel for the unit tier: the link, netns, RDMA and announce
 * modules replaced by an in-memory model whose Nth change fails, so ADD's
 * rollback can be checked after a failure at every step. The PF's VF table
 * is read by the real link_vf.c from a real netlink reply (vf_reply). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/announce.h"
#include "fake_kernel.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"
#include "kernel/link_route.h"
#include "kernel/netns.h"
#include "kernel/rdma.h"

struct fake_kernel fk;

static int changed_at(const char *what)
{
	++fk.changes;
	if (getenv("FAKE_TRACE"))
		fprintf(stderr, "change %d: %s%s\n", fk.changes, what,
			fk.changes == fk.fail_at ? " (fails)" : "");
	return fk.changes == fk.fail_at ? -EIO : 0;
}

#define changed() changed_at(__func__)

static struct fake_link *by_index(int ifindex)
{
	for (int i = 0; i < fk.n; i++)
		if (fk.links[i].exists && fk.links[i].ifindex == ifindex && fk.links[i].ns == fk.ns)
			return &fk.links[i];
	return NULL;
}

int cni_link_get(struct cni_sys *sys, const char *name, int ifindex, struct cni_link *out)
{
	for (int i = 0; i < fk.n; i++) {
		struct fake_link *l = &fk.links[i];

		if (!l->exists || l->ns != fk.ns ||
		    (ifindex ? l->ifindex != ifindex : strcmp(l->name, name)))
			continue;
		memset(out, 0, sizeof(*out));
		out->ifindex = l->ifindex;
		memcpy(out->name, l->name, sizeof(out->name));
		out->type = l->type;
		out->flags = l->up ? IFF_UP : 0;
		out->mtu = l->mtu;
		out->mac_len = l->mac_len;
		memcpy(out->mac, l->mac, l->mac_len);
		out->num_vf = -1;
		out->ipoib = l->type == ARPHRD_INFINIBAND;
		/* As the kernel reports them: IPoIB netdevs have rtnl ops. */
		if (out->ipoib)
			memcpy(out->kind, "ipoib", sizeof("ipoib"));
		out->pkey = l->pkey;
		out->attrs = l->attrs;
		out->n_altnames = l->n_altnames;
		return 0;
	}
	return -ENODEV;
}

int cni_link_set_up(struct cni_sys *sys, int ifindex, bool up)
{
	struct fake_link *l = by_index(ifindex);

	if (!l)
		return -ENODEV;
	return changed() ?: (l->up = up, 0);
}

int cni_link_rename(struct cni_sys *sys, int ifindex, const char *name)
{
	struct fake_link *l = by_index(ifindex);
	struct cni_link other;

	if (!l)
		return -ENODEV;
	if (!cni_link_get(sys, name, 0, &other) && other.ifindex != ifindex)
		return -EEXIST;
	return changed() ?: (snprintf(l->name, sizeof(l->name), "%s", name), 0);
}

int cni_link_set_mtu(struct cni_sys *sys, int ifindex, unsigned int mtu)
{
	struct fake_link *l = by_index(ifindex);

	return !l ? -ENODEV : changed() ?: (l->mtu = mtu, 0);
}

int cni_link_set_mac(struct cni_sys *sys, int ifindex, const unsigned char *mac, size_t len)
{
	struct fake_link *l = by_index(ifindex);

	if (!l)
		return -ENODEV;
	return changed() ?: (memcpy(l->mac, mac, len), l->mac_len = (unsigned int)len, 0);
}

int cni_link_move(struct cni_sys *sys, int ifindex, int netns_fd)
{
	struct fake_link *l = by_index(ifindex);

	if (!l)
		return -ENODEV;
	return changed() ?: (l->ns = netns_fd == fk.pod_fd ? 1 : 0, 0);
}

/* What a hostile pod does to a link it gets: every attribute DEL restores. */
static void spoil(struct fake_link *l)
{
	snprintf(l->attrs.alias, sizeof(l->attrs.alias), "\033[31mpod");
	l->attrs.flags = IFF_NOARP | IFF_PROMISC;
	l->attrs.group = 7;
	l->attrs.txqlen = 5;
	l->attrs.gso_max_size = l->attrs.gro_max_size = 1000;
	l->attrs.gso_max_segs = 10;
	l->n_altnames = 300;
}

int cni_link_move_named(struct cni_sys *sys, int ifindex, int netns_fd, const char *name)
{
	struct fake_link *l = by_index(ifindex);
	int target = netns_fd == fk.pod_fd ? 1 : 0, ret;

	if (!l)
		return -ENODEV;
	for (int i = 0; i < fk.n; i++)
		if (fk.links[i].exists && fk.links[i].ns == target && &fk.links[i] != l &&
		    !strcmp(fk.links[i].name, name))
			return -EEXIST;
	ret = changed();
	if (ret)
		return ret;
	l->ns = target;
	snprintf(l->name, sizeof(l->name), "%s", name);
	if (target && fk.spoil)
		spoil(l);
	return 0;
}

int cni_link_altnames_clear(struct cni_sys *sys, int ifindex)
{
	struct fake_link *l = by_index(ifindex);

	if (!l)
		return -ENODEV;
	return !l->n_altnames ? 0 : changed() ?: (l->n_altnames = 0, 0);
}

/* One change per attribute that differs, as the real one sends them. */
int cni_link_attrs_set(struct cni_sys *sys, int ifindex, const struct cni_link_attrs *want,
		       const struct cni_link_attrs *cur, const char **what)
{
	static const size_t u32s[] = {
	    offsetof(struct cni_link_attrs, group),
	    offsetof(struct cni_link_attrs, txqlen),
	    offsetof(struct cni_link_attrs, gso_max_size),
	    offsetof(struct cni_link_attrs, gso_max_segs),
	    offsetof(struct cni_link_attrs, gro_max_size),
	    offsetof(struct cni_link_attrs, gso_ipv4_max_size),
	    offsetof(struct cni_link_attrs, gro_ipv4_max_size),
	};
	struct fake_link *l = by_index(ifindex);
	int ret;

	*what = NULL;
	if (!l)
		return -ENODEV;
	if (strcmp(want->alias, cur->alias)) {
		*what = "alias";
		ret = changed();
		if (ret)
			return ret;
		memcpy(l->attrs.alias, want->alias, sizeof(l->attrs.alias));
	}
	if (want->flags != cur->flags) {
		*what = "flags";
		ret = changed();
		if (ret)
			return ret;
		l->attrs.flags = want->flags;
	}
	for (size_t i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		uint32_t w, c;

		memcpy(&w, (const char *)want + u32s[i], sizeof(w));
		memcpy(&c, (const char *)cur + u32s[i], sizeof(c));
		if (w == c)
			continue;
		*what = "attribute";
		ret = changed();
		if (ret)
			return ret;
		memcpy((char *)&l->attrs + u32s[i], &w, sizeof(w));
	}
	return 0;
}

const char *cni_link_attr_name(uint32_t bit)
{
	return bit == CNI_LINK_A_ALIAS ? "alias" : "attribute";
}

int cni_link_ipoib_add(struct cni_sys *sys, int parent, const char *name, uint16_t pkey,
		       uint16_t mode)
{
	struct fake_link *p = by_index(parent), *c;
	int ret = changed();

	if (ret)
		return ret;
	if (!p || fk.n == FAKE_MAX_LINKS)
		return -ENODEV;
	c = &fk.links[fk.n++];
	*c = *p;
	c->ifindex = 100 + fk.n;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->pkey = pkey;
	c->up = false;
	c->child = true;
	return 0;
}

int cni_link_delete(struct cni_sys *sys, int ifindex)
{
	struct fake_link *l = by_index(ifindex);

	return !l ? -ENODEV : changed() ?: (l->exists = false, 0);
}

int cni_link_addr_add(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr)
{
	return changed();
}

int cni_link_addr_add_flags(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr,
			    uint32_t flags)
{
	return changed();
}

int cni_link_route_add(struct cni_sys *sys, int ifindex, const struct cni_route *rt)
{
	return changed();
}

/* railTable and railSysctls (no test of this tier sets them: the netns
 * tier runs them against a real kernel). */
int cni_route_add(struct cni_sys *sys, int ifindex, const struct cni_route *rt,
		  const struct cni_addr *src)
{
	return changed();
}

int cni_route_in_table(struct cni_sys *sys, int ifindex, const struct cni_route *rt, uint32_t table)
{
	return 1;
}

int cni_rule_add(struct cni_sys *sys, const struct cni_rule *r)
{
	return changed();
}

int cni_rule_del(struct cni_sys *sys, const struct cni_rule *r)
{
	return changed();
}

int cni_rule_each(struct cni_sys *sys, int (*fn)(const struct cni_rule *r, void *arg), void *arg)
{
	return 0;
}

int cni_link_conf_apply(struct cni_sys *sys, const struct cni_link_conf *c, size_t *failed)
{
	return -ENOSYS;
}

int cni_link_addrs(struct cni_sys *sys, int ifindex, struct cni_link_addr *out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < fk.n_addrs && n < max; i++)
		if (fk.addrs[i].ifindex == ifindex)
			out[n++] = fk.addrs[i];
	return (int)n;
}

int cni_link_has_addr(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr)
{
	return 1;
}

int cni_link_has_route(struct cni_sys *sys, int ifindex, const struct cni_route *rt)
{
	return 1;
}

int cni_link_ipv6_enable(const char *name)
{
	return 0;
}

int cni_link_wait_dad(struct cni_sys *sys, int ifindex, unsigned int timeout_ms)
{
	return 0;
}

/* --- the PF's VF table, as the kernel sends it ---
 * link_vf.c is the real one here: it asks through cni_link_query and
 * parses the reply this builds, every attribute Linux 6.x fills for a VF
 * (and its counters, unless the request skips them). */

static int put_vf(struct nl_msg *msg, uint32_t i, uint32_t ext_mask)
{
	const struct cni_vf *v = &fk.vfs[i];
	struct ifla_vf_mac mac = {.vf = i};
	struct ifla_vf_broadcast bc = {{0}};
	struct ifla_vf_vlan vlan = {.vf = i, .vlan = v->vlan, .qos = v->qos};
	struct ifla_vf_vlan_info vi = {
	    .vf = i, .vlan = v->vlan, .qos = v->qos, .vlan_proto = htons(v->vlan_proto)};
	struct ifla_vf_rate rate = {
	    .vf = i, .min_tx_rate = v->min_tx_rate, .max_tx_rate = v->max_tx_rate};
	struct ifla_vf_tx_rate tx = {.vf = i, .rate = v->max_tx_rate};
	struct ifla_vf_spoofchk sc = {.vf = i, .setting = v->spoofchk};
	struct ifla_vf_link_state ls = {.vf = i, .link_state = v->link_state};
	struct ifla_vf_rss_query_en rss = {.vf = i};
	struct ifla_vf_trust tr = {.vf = i, .setting = v->trust};
	struct ifla_vf_guid node = {.vf = i, .guid = v->node_guid};
	struct ifla_vf_guid port = {.vf = i, .guid = v->port_guid};
	struct nlattr *info = nla_nest_start(msg, IFLA_VF_INFO), *list, *stats;
	int ret;

	memcpy(mac.mac, v->mac, 6);
	ret = !info || nla_put(msg, IFLA_VF_MAC, sizeof(mac), &mac) ||
	      nla_put(msg, IFLA_VF_BROADCAST, sizeof(bc), &bc) ||
	      nla_put(msg, IFLA_VF_VLAN, sizeof(vlan), &vlan) ||
	      nla_put(msg, IFLA_VF_RATE, sizeof(rate), &rate) ||
	      nla_put(msg, IFLA_VF_TX_RATE, sizeof(tx), &tx) ||
	      nla_put(msg, IFLA_VF_SPOOFCHK, sizeof(sc), &sc) ||
	      nla_put(msg, IFLA_VF_LINK_STATE, sizeof(ls), &ls) ||
	      nla_put(msg, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss) ||
	      nla_put(msg, IFLA_VF_TRUST, sizeof(tr), &tr) ||
	      nla_put(msg, IFLA_VF_IB_NODE_GUID, sizeof(node), &node) ||
	      nla_put(msg, IFLA_VF_IB_PORT_GUID, sizeof(port), &port);
	list = ret ? NULL : nla_nest_start(msg, IFLA_VF_VLAN_LIST);
	if (!list || nla_put(msg, IFLA_VF_VLAN_INFO, sizeof(vi), &vi))
		return -ENOMEM;
	nla_nest_end(msg, list);
	if (!(ext_mask & RTEXT_FILTER_SKIP_STATS)) {
		stats = nla_nest_start(msg, IFLA_VF_STATS);
		for (int s = IFLA_VF_STATS_RX_PACKETS; stats && s <= IFLA_VF_STATS_TX_DROPPED; s++)
			if (s != IFLA_VF_STATS_PAD && nla_put_u64(msg, s, 1000 + (uint64_t)i))
				return -ENOMEM;
		if (!stats)
			return -ENOMEM;
		nla_nest_end(msg, stats);
	}
	nla_nest_end(msg, info);
	return 0;
}

/* The PF's RTM_NEWLINK with IFLA_NUM_VF and its VF list, as a reply to a
 * request with ext_mask. */
static struct nl_msg *vf_reply(int ifindex, uint32_t ext_mask)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nl_msg *msg = nlmsg_alloc_size(128 * 1024);
	struct nlattr *list;

	if (!msg || nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) ||
	    nla_put_u32(msg, IFLA_NUM_VF, fk.n_vfs) ||
	    !(list = nla_nest_start(msg, IFLA_VFINFO_LIST)))
		goto fail;
	for (uint32_t i = 0; i < fk.n_vfs; i++)
		if (i + 1 != fk.vf_skip && put_vf(msg, i, ext_mask))
			goto fail;
	nla_nest_end(msg, list);
	nlmsg_hdr(msg)->nlmsg_type = RTM_NEWLINK;
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

int cni_link_query(struct cni_sys *sys, const char *name, int ifindex, struct cni_link_reply *r)
{
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	int ret = cni_link_get(sys, name, ifindex, r->link);

	if (ret || !(r->ext_mask & RTEXT_FILTER_VF))
		return ret;
	fk.vf_reads++;
	fk.vf_stats_reads += !(r->ext_mask & RTEXT_FILTER_SKIP_STATS);
	r->link->num_vf = (int)fk.n_vfs;
	msg = vf_reply(r->link->ifindex, r->ext_mask);
	if (!msg)
		return -ENOMEM;
	fk.vf_reply_bytes = nlmsg_hdr(msg)->nlmsg_len;
	return r->more ? r->more(msg, r) : 0;
}

int cni_link_vf_set(struct cni_sys *sys, int pf_ifindex, const struct cni_vf *vf)
{
	struct cni_vf *v = &fk.vfs[vf->vf];
	int ret = changed();

	if (ret)
		return ret;
	if (vf->mask & fk.refuse)
		return -EOPNOTSUPP;
	if (vf->mask & CNI_VF_MAC)
		memcpy(v->mac, vf->mac, 6);
	if (vf->mask & CNI_VF_VLAN)
		v->vlan = vf->vlan, v->qos = vf->qos, v->vlan_proto = vf->vlan_proto;
	if (vf->mask & CNI_VF_RATE)
		v->min_tx_rate = vf->min_tx_rate, v->max_tx_rate = vf->max_tx_rate;
	if (vf->mask & CNI_VF_SPOOFCHK)
		v->spoofchk = vf->spoofchk;
	if (vf->mask & CNI_VF_TRUST)
		v->trust = vf->trust;
	if (vf->mask & CNI_VF_LINK_STATE)
		v->link_state = vf->link_state;
	if (vf->mask & CNI_VF_NODE_GUID)
		v->node_guid = vf->node_guid;
	if (vf->mask & CNI_VF_PORT_GUID)
		v->port_guid = vf->port_guid;
	return 0;
}

int cni_announce(struct cni_sys *sys, const struct cni_link *link)
{
	return 0;
}

int cni_netns_open(struct cni_sys *sys, const char *path, struct cni_error *err)
{
	if (strcmp(path, "/pod"))
		return cni_errorf(err, -ENOENT, CNI_ERR_INVALID_ENV, "cannot open CNI_NETNS", "%s",
				  path);
	fk.pod_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fk.pod_fd;
}

/* The pod's fd is whatever namespace the test put at "/pod"; any other fd
 * the host's. As the kernel's, without the cookie: that takes an entry. */
int cni_netns_id(int fd, struct cni_netns_id *id)
{
	*id = fd == fk.pod_fd ? fk.pod_id : (struct cni_netns_id){.dev = 4, .ino = 1};
	id->cookie = 0;
	return 0;
}

int cni_netns_cookie(struct cni_sys *sys, int fd, uint64_t *cookie)
{
	fk.cookie_reads++;
	*cookie = fd == fk.pod_fd ? fk.pod_id.cookie : 1;
	return 0;
}

/* "/pod" is the one live namespace; any other path is gone. */
int cni_netns_gone(const char *path)
{
	return strcmp(path, "/pod") != 0;
}

const char *cni_netns_unseen_text(int ret)
{
	return strerror(-ret);
}

int cni_netns_enter(struct cni_sys *sys, int fd, int *saved)
{
	*saved = 1000 + fk.ns;
	fk.ns = fd == fk.pod_fd ? 1 : 0;
	return 0;
}

int cni_netns_restore(struct cni_sys *sys, int *saved)
{
	if (*saved >= 1000)
		fk.ns = *saved - 1000;
	*saved = -1;
	return 0;
}

/* The host's namespace as a mover's target: any fd but the pod's. */
int cni_netns_open_current(struct cni_sys *sys)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

const char *cni_rdma_strerror(int ret)
{
	return strerror(-ret);
}

int cni_rdma_require_exclusive(struct cni_sys *sys, struct cni_error *err, int code)
{
	return 0;
}

/* One RDMA device, mlx5_1 at index 5; a hostile pod renames it. */
#define FAKE_RDMA_INDEX 5

int cni_rdma_dev_get(struct cni_sys *sys, const char *name, uint32_t index,
		     struct cni_rdma_dev *dev)
{
	const char *now = fk.rdma_renamed ? "pod0" : "mlx5_1";

	if (fk.rdma_in_pod != (fk.ns == 1) ||
	    (name ? strcmp(name, now) != 0 : index != FAKE_RDMA_INDEX))
		return -ENODEV;
	memset(dev, 0, sizeof(*dev));
	dev->index = FAKE_RDMA_INDEX;
	snprintf(dev->name, sizeof(dev->name), "%s", now);
	return 0;
}

int cni_rdma_move(struct cni_sys *sys, uint32_t index, int netns_fd)
{
	int ret;

	if (index != FAKE_RDMA_INDEX)
		return -ENODEV;
	ret = changed();
	if (ret)
		return ret;
	fk.rdma_in_pod = netns_fd == fk.pod_fd;
	fk.rdma_renamed = fk.rdma_in_pod && fk.spoil;
	return 0;
}

/* The lookup's netlink step (kernel/rdma_lookup.c, real here): the VF's
 * device is a PCI child in this sysfs, so no dump is needed; with
 * rdma_soft it is rxe0, whose port the host's socket shows bound to vf0. */
int cni_rdma_ports(struct cni_sys *sys, const struct cni_rdma_dev *devs, size_t n_devs,
		   struct cni_rdma_port **ports, size_t *n)
{
	struct fake_link *vf = by_index(7);

	*ports = NULL;
	*n = 0;
	if (!fk.rdma_soft || !n_devs)
		return 0;
	*ports = calloc(1, sizeof(**ports));
	if (!*ports)
		return -ENOMEM;
	**ports = (struct cni_rdma_port){
	    .dev_index = FAKE_RDMA_INDEX, .dev_name = "rxe0", .port = 1, .ndev_index = vf ? 7 : 0};
	*n = 1;
	return 0;
}

int cni_rdma_devs(struct cni_sys *sys, struct cni_rdma_dev **devs, size_t *n)
{
	*devs = NULL;
	*n = 0;
	if (!fk.rdma_soft || fk.rdma_in_pod != (fk.ns == 1))
		return 0;
	*devs = calloc(1, sizeof(**devs));
	if (!*devs)
		return -ENOMEM;
	**devs = (struct cni_rdma_dev){.index = FAKE_RDMA_INDEX, .name = "rxe0", .ports = 1};
	*n = 1;
	return 0;
}

/* The driver ID: rxe for rxe0; mlx5_1's is fk.rdma_driver (0: mlx5's; siw
 * takes its netdev's parent, so a PCI child may be soft too). */
int cni_rdma_driver(struct cni_sys *sys, uint32_t index, uint32_t *driver)
{
	if (index != FAKE_RDMA_INDEX || fk.rdma_in_pod != (fk.ns == 1))
		return -ENODEV;
	*driver = fk.rdma_soft	   ? RDMA_DRIVER_RXE
		  : fk.rdma_driver ? fk.rdma_driver
				   : RDMA_DRIVER_MLX5;
	return 0;
}

/* rdma-ns's node-wide MAC scan counts with this; ib-sriov never scans. */
int cni_link_count_mac(struct cni_sys *sys, const unsigned char *mac, unsigned int len,
		       unsigned int *n)
{
	*n = 0;
	for (int i = 0; i < fk.n; i++)
		if (fk.links[i].exists && fk.links[i].ns == fk.ns && fk.links[i].mac_len == len &&
		    !memcmp(fk.links[i].mac, mac, len))
			++*n;
	return 0;
}

/* Linux 7's move with a name: as a move here (CHECK reads the name from
 * the config). */
int cni_rdma_move_named(struct cni_sys *sys, const struct cni_rdma_dev *dev, int netns_fd,
			const char *name)
{
	return cni_rdma_move(sys, dev->index, netns_fd);
}

/* As the real one: found in the pod by index (or name) and moved back; one
 * in neither namespace is gone, which is no failure. */
int cni_rdma_return(struct cni_sys *sys, int pod_fd, const struct cni_rdma_ref *refs, size_t n,
		    const char **failed)
{
	struct cni_rdma_dev d;
	int ret;

	*failed = NULL;
	fk.rdma_returns++;
	for (size_t i = 0; i < n; i++) {
		fk.ns = 1;
		ret = cni_rdma_dev_get(sys, refs[i].has_index ? NULL : refs[i].name, refs[i].index,
				       &d);
		fk.ns = 0;
		if (ret)
			continue;
		ret = changed();
		if (ret) {
			*failed = refs[i].name;
			return ret;
		}
		fk.rdma_in_pod = false;
		fk.rdma_renamed = false;
	}
	return 0;
}
