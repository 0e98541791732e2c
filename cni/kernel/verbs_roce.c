// SPDX-License-Identifier: Apache-2.0
/* The reads behind the RoCE checks (verbs_diag.h) and CHECK's use of them:
 * the verbs view in a child inside the pod, the pod netdev by rtnetlink
 * from a thread that enters the pod and comes back. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/netns.h"
#include "kernel/verbs_diag.h"

void cni_roce_read(struct cni_sys *sys, int netns_fd, const char *rdma, const char *ifname,
		   struct cni_roce_view *v)
{
	int saved = -1;

	memset(v, 0, sizeof(*v));
	v->verbs_ret =
	    cni_verbs_query_in(netns_fd, rdma, CNI_VERBS_GID0 | CNI_VERBS_PKEYS | CNI_VERBS_GIDS,
			       CNI_VERBS_TIMEOUT_MS, &v->dev);
	v->link_ret = cni_netns_enter(sys, netns_fd, &saved);
	v->n_addrs = v->link_ret;
	if (v->link_ret)
		return;
	v->link_ret = cni_link_get(sys, ifname, 0, &v->link);
	v->n_addrs = v->link_ret
			 ? v->link_ret
			 : cni_link_addrs(sys, v->link.ifindex, v->addrs, CNI_ROCE_ADDRS_MAX);
	cni_netns_restore(sys, &saved);
}

bool cni_roce_addr_checked(const struct cni_link_addr *a)
{
	return !(a->addr.family == AF_INET6 && a->addr.a[0] == 0xfe &&
		 (a->addr.a[1] & 0xc0) == 0x80);
}

bool cni_roce_want_add(struct cni_roce_want *w, const char *s)
{
	struct cni_prefix p;
	struct cni_addr a;

	if (w->n_addrs >= CNI_ROCE_WANT_MAX)
		return false;
	if (cni_prefix_parse(s, &p)) {
		a.family = p.family;
		memcpy(a.a, p.a, sizeof(a.a));
	} else if (!cni_addr_parse(s, &a)) {
		return false;
	}
	w->addrs[w->n_addrs++] = a;
	return true;
}

enum cni_diag cni_roce_addr_kept(const struct cni_roce_view *v, const char *ifname,
				 const struct cni_addr *addr, char *what, size_t len)
{
	size_t n = addr->family == AF_INET ? 4 : 16;
	char a[INET6_ADDRSTRLEN + 8];

	for (int i = 0; i < v->n_addrs && i < CNI_ROCE_ADDRS_MAX; i++)
		if (v->addrs[i].addr.family == addr->family &&
		    !memcmp(v->addrs[i].addr.a, addr->a, n))
			return CNI_DIAG_INFO;
	cni_addr_str(addr, a, sizeof(a));
	snprintf(what, len,
		 "%s, which ADD gave %s, is no longer on it: no RoCE v2 GID of %s port 1 carries "
		 "it, and a peer that reaches the pod at %s fails (rdma_resolve_addr, RTR)",
		 a, ifname, v->dev.name, a);
	return CNI_DIAG_ERROR;
}

const char *cni_roce_addr_fix(void)
{
	return "add the address back to the interface in the pod (ip addr add, with the "
	       "network's prefix length), or recreate the pod; nothing in the pod should remove "
	       "the addresses its network gave";
}

int cni_roce_check(const struct cni_roce_view *v, const char *ifname,
		   const struct cni_roce_want *want, struct cni_error *err)
{
	bool roce = v->dev.n_ports && v->dev.ports[0].link_layer == CNI_VERBS_LL_ETH;
	char what[512];
	uint32_t index;

	/* The device's own failures are cni_verbs_check's to tell. */
	if (v->verbs_ret || !v->dev.n_ports)
		return 0;
	if (v->link_ret)
		return cni_errorf(err, v->link_ret, CNI_ERR_DEVICE, "CHECK failed",
				  "%s is not in the pod (%s)", ifname, strerror(-v->link_ret));
	for (unsigned int i = 0; roce && v->n_addrs >= 0 && i < want->n_addrs; i++)
		if (cni_roce_addr_kept(v, ifname, &want->addrs[i], what, sizeof(what)) ==
		    CNI_DIAG_ERROR)
			return cni_errorf(err, -ENOENT, CNI_ERR_DEVICE, "CHECK failed", "%s", what);
	/* InfiniBand has GIDs of its own (the port GUID), not of addresses. */
	for (int i = 0; roce && i < v->n_addrs && i < CNI_ROCE_ADDRS_MAX; i++) {
		struct cni_addr a = {.family = v->addrs[i].addr.family};

		if (!cni_roce_addr_checked(&v->addrs[i]))
			continue;
		memcpy(a.a, v->addrs[i].addr.a, sizeof(a.a));
		if (cni_verbs_gid_check(&v->dev, &v->link, &a, &index, what, sizeof(what)) ==
		    CNI_DIAG_ERROR)
			return cni_errorf(err, -ENOENT, CNI_ERR_DEVICE, "CHECK failed", "%s", what);
	}
	if (cni_verbs_mtu_check(&v->dev, ifname, v->link.mtu, want->mtu, what, sizeof(what)) ==
	    CNI_DIAG_ERROR)
		return cni_errorf(err, -ERANGE, CNI_ERR_DEVICE, "CHECK failed", "%s", what);
	return 0;
}
