// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "kernel/pci.h"
#include "kernel/rdma_lookup.h"

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

static int from_sysfs(const char *root, const char *id, struct cni_rdma_found *f, const char *how)
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
		f->how = "auxiliary child";
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
	ret = is_pci ? from_sysfs(pci, q->device, f, "PCI child") : 0;
	tried(f, "PCI child (%s/devices/%s/infiniband/: %s)", pci, q->device,
	      is_pci ? "none" : "not a PCI address");
	if (ret || f->n)
		return ret;
	ret = is_pci ? aux_children(pci, aux, q->device, f)
		     : from_sysfs(aux, q->device, f, "auxiliary child");
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
	f->how = "netdev";
	return 0;
}

int cni_rdma_match_netdev(const struct cni_rdma_view *there, const struct cni_rdma_view *here,
			  int ifindex, uint64_t guid, struct cni_rdma_found *f)
{
	f->n = 0;
	f->tried[0] = '\0';
	/* The kernel reports a port's netdev only to a socket in the netdev's
	 * namespace: an index match there is proof. */
	for (size_t i = 0; i < there->n_ports; i++)
		if (ifindex > 0 && there->ports[i].ndev_index == (uint32_t)ifindex)
			candidate(f, there->ports[i].dev_name, there->ports[i].dev_index);
	f->in_netns = f->n && here;
	if (f->n || !here)
		return matched(f, "each has a port bound to it");
	/* Exclusive mode: a device created over the pod's netdev from inside
	 * the pod is registered in init_net, so the pod's socket does not list
	 * it and the host's lists it without the netdev (elsewhere). A name
	 * cannot tell it from another pod's ("net1" is everywhere): the node
	 * GUID rxe and siw derive from the netdev's MAC is the second proof,
	 * and a device with a port bound to a host netdev is the host's. A MAC
	 * is the pod's to set: two devices with its GUID are an error naming
	 * both, never a guess; what no socket shows (which pod's netdev a
	 * host-listed port is bound to) cannot be proven stronger. */
	for (size_t i = 0; guid && i < here->n_devs; i++)
		if (here->devs[i].node_guid == guid && !bound_here(here, here->devs[i].index))
			candidate(f, here->devs[i].name, here->devs[i].index);
	return matched(f, "each has the node GUID of its MAC and no netdev on the host");
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

static void view_free(struct view_mem *m)
{
	free(m->ports);
	free(m->devs);
}

/* The netdev and the dumps from its namespace. */
static int there_load(struct cni_sys *sys, const struct cni_rdma_query *q, struct cni_link *l,
		      struct cni_rdma_view *v, struct view_mem *m)
{
	int saved = -1, ret = 0;

	if (q->netns_fd >= 0)
		ret = cni_netns_enter(sys, q->netns_fd, &saved);
	if (ret)
		return ret;
	ret = cni_link_get(sys, q->ifname, 0, l);
	if (!ret)
		ret = view_load(sys, v, m);
	if (q->netns_fd >= 0 && cni_netns_restore(sys, &saved) && !ret)
		ret = -EIO;
	return ret;
}

static int by_netdev(struct cni_sys *sys, const struct cni_rdma_query *q, struct cni_rdma_found *f)
{
	struct cni_rdma_view there = {0}, here = {0};
	struct view_mem m_there = {0}, m_here = {0};
	const char *where = q->netns ? q->netns : "this namespace";
	char before[CNI_RDMA_TRIED_MAX];
	struct cni_link l = {0};
	int ret = there_load(sys, q, &l, &there, &m_there);

	copy_str(before, sizeof(before), f->tried);
	if (!ret && q->netns_fd >= 0)
		ret = view_load(sys, &here, &m_here);
	if (!ret) {
		uint64_t guid = cni_rdma_guid_of_mac(l.mac, l.mac_len);

		ret = cni_rdma_match_netdev(&there, q->netns_fd >= 0 ? &here : NULL, l.ifindex,
					    guid, f);
	}
	view_free(&m_there);
	view_free(&m_here);
	if (ret == -ENOTUNIQ)
		return ret;
	copy_str(f->tried, sizeof(f->tried), before);
	if (ret == -ENODEV && !l.ifindex)
		tried(f, ", netdev %s in %s (no such netdev)", q->ifname, where);
	else if (ret == -ENODEV)
		tried(f, ", netdev %s in %s (no device has a port bound to it%s)", q->ifname, where,
		      q->netns_fd >= 0 ? " there, none on the host has the node GUID of its MAC"
				       : "");
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
