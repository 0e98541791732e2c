// SPDX-License-Identifier: Apache-2.0
/* The reads behind the RoCE checks (verbs_diag.h) and CHECK's use of them:
 * the verbs view in a child inside the pod, the pod netdev by rtnetlink
 * from a thread that enters the pod and comes back. */
#include <errno.h>
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

int cni_roce_check(const struct cni_roce_view *v, const char *ifname, unsigned int expected,
		   struct cni_error *err)
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
	if (cni_verbs_mtu_check(&v->dev, ifname, v->link.mtu, expected, what, sizeof(what)) ==
	    CNI_DIAG_ERROR)
		return cni_errorf(err, -ERANGE, CNI_ERR_DEVICE, "CHECK failed", "%s", what);
	return 0;
}
