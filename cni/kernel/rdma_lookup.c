// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "kernel/ethtool.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "kernel/pci.h"
#include "kernel/rdma_lookup.h"

/* protocol/nodeconf.h's CNI_NODECONF_PATH, which this layer may not include. */
#define CNI_RDMA_NODECONF "/etc/ibcni/ibcni.conf"

/* Append to f->tried; a cut text is still a message. */
static void tried(struct cni_rdma_found *f, const char *fmt, ...)
{
	size_t len = strlen(f->tried);
	va_list ap;

	if (len + 1 >= sizeof(f->tried))
		return;
	va_start(ap, fmt);
	vsnprintf(f->tried + len, sizeof(f->tried) - len, fmt, ap);
	va_end(ap);
}

const char *cni_rdma_how_name(enum cni_rdma_how how)
{
	switch (how) {
	case CNI_RDMA_BY_PCI:
		return "PCI child";
	case CNI_RDMA_BY_AUX:
		return "auxiliary child";
	case CNI_RDMA_BY_NETDEV:
		return "netdev";
	default:
		return "none";
	}
}

static int from_sysfs(const char *root, const char *id, struct cni_rdma_found *f,
		      enum cni_rdma_how how)
{
	int n = cni_pci_rdma_devs(root, id, f->names, CNI_RDMA_FOUND_MAX);

	if (n > 0) {
		f->n = (size_t)n;
		f->how = how;
	}
	return n < 0 ? n : 0;
}

/* The auxiliary devices under a PCI function (mlx5_core.rdma.N). */
static int aux_children(const char *pci, const char *aux, const char *addr,
			struct cni_rdma_found *f)
{
	int n = cni_pci_aux_rdma_devs(pci, aux, addr, f->names, CNI_RDMA_FOUND_MAX);

	if (n > 0) {
		f->n = (size_t)n;
		f->how = CNI_RDMA_BY_AUX;
	}
	return n < 0 ? n : 0;
}

static int by_sysfs(const struct cni_rdma_query *q, struct cni_rdma_found *f)
{
	const char *pci = q->pci_root ? q->pci_root : CNI_PCI_ROOT;
	const char *aux = q->aux_root ? q->aux_root : CNI_AUX_ROOT;
	char addr[CNI_PCI_ADDR_LEN];
	bool is_pci;
	int ret;

	if (!q->device || !*q->device)
		return 0;
	is_pci = cni_pci_addr_parse(q->device, addr);
	ret = is_pci ? from_sysfs(pci, q->device, f, CNI_RDMA_BY_PCI) : 0;
	tried(f, "PCI child (%s/devices/%s/infiniband/: %s)", pci, q->device,
	      is_pci ? "none" : "not a PCI address");
	if (ret || f->n)
		return ret;
	ret = is_pci ? aux_children(pci, aux, q->device, f)
		     : from_sysfs(aux, q->device, f, CNI_RDMA_BY_AUX);
	tried(f, ", auxiliary child (%s: none)",
	      is_pci ? "the function's auxiliary devices" : q->device);
	return ret;
}

static bool have(const struct cni_rdma_found *f, uint32_t index)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->index[i] == index)
			return true;
	return false;
}

/* A candidate; past the first, the error names them all. */
static void candidate(struct cni_rdma_found *f, const char *name, uint32_t index)
{
	if (have(f, index))
		return;
	tried(f, "%s%s (index %u)", f->n ? " and " : "", name, index);
	if (f->n < CNI_RDMA_FOUND_MAX) {
		copy_str(f->names[f->n], CNI_RDMA_NAME_MAX, name);
		f->index[f->n] = index;
	}
	f->n++;
}

static bool bound_here(const struct cni_rdma_view *v, uint32_t dev_index)
{
	for (size_t i = 0; i < v->n_ports; i++)
		if (v->ports[i].dev_index == dev_index && v->ports[i].ndev_index)
			return true;
	return false;
}

static int matched(struct cni_rdma_found *f, const char *prefix)
{
	size_t n = f->n;

	if (!n)
		return -ENODEV;
	if (n > 1) {
		/* The error text is the candidates alone. */
		char list[CNI_RDMA_TRIED_MAX];

		copy_str(list, sizeof(list), f->tried);
		check_snprintf(f->tried, sizeof(f->tried), "%s: %s", prefix,
			       list); /* cut: still a message */
		f->n = n < CNI_RDMA_FOUND_MAX ? n : CNI_RDMA_FOUND_MAX;
		return -ENOTUNIQ;
	}
	f->how = CNI_RDMA_BY_NETDEV;
	f->indexed = true;
	return 0;
}

/* The kernel reports a port's netdev only to a socket in the netdev's
 * namespace: an index match there is proof. */
static void bound_there(const struct cni_rdma_view *there, int ifindex, struct cni_rdma_found *f)
{
	for (size_t i = 0; i < there->n_ports; i++)
		if (ifindex > 0 && there->ports[i].ndev_index == (uint32_t)ifindex)
			candidate(f, there->ports[i].dev_name, there->ports[i].dev_index);
}

/* The host's soft devices (by the driver ID the kernel reported) with guid
 * and no port bound to a host netdev. */
static void by_guid(const struct cni_rdma_view *here, uint64_t guid, struct cni_rdma_found *f)
{
	for (size_t i = 0; guid && i < here->n_devs; i++)
		if (here->devs[i].node_guid == guid && cni_rdma_driver_soft(here->devs[i].driver) &&
		    !bound_here(here, here->devs[i].index))
			candidate(f, here->devs[i].name, here->devs[i].index);
}

bool cni_rdma_match_needs_scan(const struct cni_rdma_view *there, const struct cni_rdma_view *here,
			       const struct cni_rdma_netdev *nd)
{
	struct cni_rdma_found f = {0};

	bound_there(there, nd->ifindex, &f);
	if (f.n || !here || !nd->by_mac)
		return false;
	by_guid(here, cni_rdma_guid_of_mac(nd->mac, nd->mac_len), &f);
	return f.n == 1;
}

static void mac_text(const struct cni_rdma_netdev *nd, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (unsigned int i = 0; i < nd->mac_len && at + 4 <= len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%02x", i ? ":" : "", nd->mac[i]);
}

/* The one host candidate by MAC, taken only when the netdev is the
 * device's own and no other netdev of the node has the MAC (a MAC is the
 * pod's to set, and another pod's device carries the GUID of its own). */
static int proven(const struct cni_rdma_netdev *nd, struct cni_rdma_found *f)
{
	char mac[3 * CNI_MAC_MAX];
	const struct cni_netns_mac_scan *s = nd->scan;

	mac_text(nd, mac, sizeof(mac));
	if (!nd->of_device) {
		check_snprintf(f->tried, sizeof(f->tried),
			       "the host's %s has the node GUID of its MAC, but the netdev is not "
			       "deviceID's own (its device: %s)",
			       f->names[0], nd->parent && *nd->parent ? nd->parent : "none");
		f->n = 0;
		return -ENODEV;
	}
	if (nd->scan_ret || !s)
		check_snprintf(f->tried, sizeof(f->tried),
			       "%s has the node GUID of %s, but whether another interface on the "
			       "node carries that MAC cannot be told (%s: %s)",
			       f->names[0], mac, s ? s->failed : "no scan",
			       strerror(s ? -nd->scan_ret : EINVAL));
	else if (s->carriers != 1)
		check_snprintf(f->tried, sizeof(f->tried),
			       "%s has the node GUID of %s, but %u interface(s) on the node carry "
			       "that MAC (%u namespaces looked into): another interface has it, "
			       "so the device may be another pod's",
			       f->names[0], mac, s->carriers, s->spaces);
	else
		return 0;
	f->n = 0;
	return -EADDRINUSE;
}

int cni_rdma_match_netdev(const struct cni_rdma_view *there, const struct cni_rdma_view *here,
			  const struct cni_rdma_netdev *nd, struct cni_rdma_found *f)
{
	int ret;

	f->n = 0;
	f->how = CNI_RDMA_BY_NONE;
	f->indexed = false;
	f->tried[0] = '\0';
	bound_there(there, nd->ifindex, f);
	f->in_netns = f->n && here;
	if (f->n || !here) {
		ret = matched(f, "each has a port bound to it");
		if (ret == -ENODEV)
			tried(f, "no device has a port bound to it");
		return ret;
	}
	/* Exclusive mode: a device created over the pod's netdev from inside
	 * the pod is registered in init_net, so the pod's socket does not list
	 * it and the host's lists it without the netdev (elsewhere). Nothing
	 * the kernel shows ties it to this netdev: the GUID is the MAC's, and
	 * a MAC is the pod's to set. So only where the admin allows it, only
	 * soft devices, and only with a proof no pod forges. */
	if (!nd->by_mac) {
		tried(f, "no device has a port bound to it there; the host's devices were not "
			 "searched: \"softRdmaByMac\" is off in " CNI_RDMA_NODECONF
			 " (true takes an rxe or siw the pod created over it, by its MAC)");
		return -ENODEV;
	}
	by_guid(here, cni_rdma_guid_of_mac(nd->mac, nd->mac_len), f);
	ret = matched(f, "each has the node GUID of its MAC and no netdev on the host");
	if (ret == -ENODEV)
		tried(f, "no device has a port bound to it there, no soft RDMA device (rxe or "
			 "siw by the driver ID ib_uverbs reports) on the host has the node GUID of "
			 "its MAC");
	return ret ? ret : proven(nd, f);
}

/* The dumps of one socket (the caller's namespace). */
struct view_mem {
	struct cni_rdma_port *ports;
	struct cni_rdma_dev *devs;
};

static int view_load(struct cni_sys *sys, struct cni_rdma_view *v, struct view_mem *m)
{
	int ret = cni_rdma_devs(sys, &m->devs, &v->n_devs);

	if (!ret)
		ret = cni_rdma_ports(sys, m->devs, v->n_devs, &m->ports, &v->n_ports);
	v->ports = m->ports;
	v->devs = m->devs;
	return ret;
}

/* The driver IDs of the devices with guid, which alone the host branch
 * may take: one request each, not one per device of the node. A device
 * whose driver cannot be told keeps 0, not proven soft. */
static void drivers_of(struct cni_sys *sys, struct view_mem *m, size_t n, uint64_t guid)
{
	for (size_t i = 0; guid && i < n; i++)
		if (m->devs[i].node_guid == guid &&
		    cni_rdma_driver(sys, m->devs[i].index, &m->devs[i].driver))
			m->devs[i].driver = 0;
}

static void view_free(struct view_mem *m)
{
	free(m->ports);
	free(m->devs);
}

/* The netdev, its parent device and the dumps from its namespace. */
struct there {
	struct cni_link l;
	char parent[CNI_ETHTOOL_STR_MAX + 64];
	struct cni_rdma_view v;
	struct view_mem m;
};

/* The device behind the netdev: the kernel's parent (5.16+), else what
 * its driver tells ethtool (a PCI address for every PCI NIC driver). */
static void parent_of(const struct cni_rdma_query *q, struct there *t)
{
	struct cni_ethtool_drvinfo info;

	if (*t->l.parent_dev)
		copy_str(t->parent, sizeof(t->parent), t->l.parent_dev);
	else if (q->soft_by_mac && !cni_ethtool_drvinfo(t->l.name, &info))
		copy_str(t->parent, sizeof(t->parent), info.bus_info);
}

static int there_load(struct cni_sys *sys, const struct cni_rdma_query *q, struct there *t)
{
	int saved = -1, ret = 0;

	if (q->netns_fd >= 0)
		ret = cni_netns_enter(sys, q->netns_fd, &saved);
	if (ret)
		return ret;
	ret = cni_link_get(sys, q->ifname, 0, &t->l);
	if (!ret) {
		parent_of(q, t);
		ret = view_load(sys, &t->v, &t->m);
	}
	if (q->netns_fd >= 0 && cni_netns_restore(sys, &saved) && !ret)
		ret = -EIO;
	return ret;
}

/* Step 3 on the dumps, with the node-wide MAC scan when it decides. */
static int match(struct cni_sys *sys, const struct cni_rdma_query *q, struct there *t,
		 const struct cni_rdma_view *here, struct cni_rdma_found *f)
{
	struct cni_netns_mac_scan scan = {
	    .mac = t->l.mac, .len = t->l.mac_len, .pod_fd = q->netns_fd};
	struct cni_rdma_netdev nd = {
	    .ifindex = t->l.ifindex,
	    .mac = t->l.mac,
	    .mac_len = t->l.mac_len,
	    .by_mac = q->soft_by_mac,
	    .of_device = q->device && *t->parent && !strcmp(t->parent, q->device),
	    .parent = t->parent,
	};

	if (cni_rdma_match_needs_scan(&t->v, here, &nd)) {
		nd.scan_ret = cni_netns_count_mac(sys, &scan);
		nd.scan = &scan;
	}
	return cni_rdma_match_netdev(&t->v, here, &nd, f);
}

static int by_netdev(struct cni_sys *sys, const struct cni_rdma_query *q, struct cni_rdma_found *f)
{
	struct cni_rdma_view here = {0};
	struct view_mem m_here = {0};
	const char *where = q->netns ? q->netns : "this namespace";
	char before[CNI_RDMA_TRIED_MAX], why[CNI_RDMA_TRIED_MAX];
	_cleanup_free_ struct there *t = calloc(1, sizeof(*t));
	int ret = t ? there_load(sys, q, t) : -ENOMEM;

	copy_str(before, sizeof(before), f->tried);
	/* The host's devices only where they may be taken: a pod grows that
	 * list at will in exclusive mode, and each device costs a port dump. */
	if (!ret && q->netns_fd >= 0 && q->soft_by_mac)
		ret = view_load(sys, &here, &m_here);
	if (!ret && q->netns_fd >= 0 && q->soft_by_mac)
		drivers_of(sys, &m_here, here.n_devs, cni_rdma_guid_of_mac(t->l.mac, t->l.mac_len));
	if (!ret)
		ret = match(sys, q, t, q->netns_fd >= 0 ? &here : NULL, f);
	if (t)
		view_free(&t->m);
	view_free(&m_here);
	if (ret == -ENOTUNIQ || ret == -EADDRINUSE)
		return ret;
	copy_str(why, sizeof(why), f->tried);
	copy_str(f->tried, sizeof(f->tried), before);
	if (ret == -ENODEV && !t->l.ifindex)
		tried(f, ", netdev %s in %s (no such netdev)", q->ifname, where);
	else if (ret == -ENODEV)
		tried(f, ", netdev %s in %s (%s)", q->ifname, where, why);
	else if (ret == -EPROTONOSUPPORT)
		tried(f, ", netdev %s in %s (%s)", q->ifname, where, cni_rdma_strerror(ret));
	else if (ret)
		tried(f, ", netdev %s in %s (%s)", q->ifname, where, strerror(-ret));
	/* Without an RDMA subsystem nothing is bound to it. */
	return ret == -EPROTONOSUPPORT ? -ENODEV : ret;
}

int cni_rdma_lookup(struct cni_sys *sys, const struct cni_rdma_query *q, struct cni_rdma_found *f)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = by_sysfs(q, f);
	if (ret || f->n)
		return ret;
	if (!q->ifname || !*q->ifname) {
		tried(f, ", netdev (none given)");
		return -ENODEV;
	}
	return by_netdev(sys, q, f);
}
