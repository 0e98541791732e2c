// SPDX-License-Identifier: Apache-2.0
/* ADD, the pod's side: RDMA devices, the netdev, addresses, the result. */
#include <errno.h>
#include <linux/if_addr.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "add.h"
#include "kernel/announce.h"
#include "base/cleanup.h"
#include "guid.h"
#include "base/json.h"
#include "kernel/netns.h"
#include "kernel/rdma.h"
#include "kernel/rdma_lookup.h"
#include "kernel/rdma_move.h"
#include "kernel/verbs_diag.h"
#include "base/util.h"
#include "rail.h"

/* A software RDMA device (rxe, siw) is bound to its netdev: the kernel
 * deletes it when the netdev changes namespace, so it cannot follow the VF
 * into the pod. kind: the driver the kernel reports, or NULL for a device
 * found by the VF netdev alone (not the VF's child: bound to the netdev is
 * all that is known, and that is what the move breaks). Refused before
 * anything moves or is recorded. */
static int soft_refused(struct add *a, const struct cni_rdma_found *f, size_t i, const char *kind)
{
	return cni_errorf(&a->ctx->err, -EOPNOTSUPP, CNI_ERR_DEVICE,
			  "a software RDMA device cannot follow the VF into the pod",
			  "rdmaIsolation: %s, the RDMA device of %s (found by %s, %s), is %s%s%s: "
			  "it follows its netdev, and the kernel deletes it when the netdev moves "
			  "into the pod, so it cannot survive the move. Remove \"rdmaIsolation\" "
			  "and create it inside the pod over the pod interface instead, or use "
			  "rdma-ns",
			  f->names[i], a->conf.device, cni_rdma_how_name(f->how), a->vf.name,
			  kind ? "a software RDMA device (the kernel reports its driver as " : "",
			  kind ? kind
			       : "bound to the VF netdev, not a child of the VF (a software "
				 "RDMA device: rxe, siw)",
			  kind ? ")" : "");
}

int ibsriov_rdma_find(struct add *a, struct cni_rdma_found *f)
{
	struct cni_rdma_query q = {.device = a->conf.device,
				   .pci_root = CNI_PCI_ROOT,
				   .aux_root = CNI_AUX_ROOT,
				   .netns_fd = -1,
				   .ifname = a->vf.name};
	int ret = cni_rdma_lookup(a->sys, &q, f);

	if (ret == -ENOTUNIQ)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_DEVICE,
				  "two RDMA devices match the VF netdev",
				  "rdmaIsolation: %s (%s): %s; delete the one that is not the VF's",
				  a->conf.device, a->vf.name, f->tried);
	if (ret == -ENODEV)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_DEVICE, "the VF has no RDMA device",
				  "rdmaIsolation is set but %s has none: tried %s", a->conf.device,
				  f->tried);
	if (ret)
		return fail(a, ret, CNI_ERR_DEVICE, "cannot list the VF's RDMA devices",
			    a->conf.device);
	if (f->n > IBSRIOV_RECORD_RDMA_MAX)
		f->n = IBSRIOV_RECORD_RDMA_MAX;
	/* By netdev is how rxe and siw are found; a device found so is the
	 * netdev's, whatever its driver (security review 5, U3). */
	if (f->how == CNI_RDMA_BY_NETDEV)
		return soft_refused(a, f, 0, NULL);
	return 0;
}

/* The devices found, with their indices, which DEL looks them up by: a pod
 * may rename them. A child the kernel reports as rxe or siw (siw on older
 * kernels takes the netdev's parent, the VF, as its own) is bound to the
 * netdev all the same. */
static int rdma_record(struct add *a, struct cni_rdma_found *f)
{
	struct ibsriov_record *r = &a->rec;
	const char *failed = NULL;
	int ret = cni_rdma_found_indices(a->sys, f, &failed);

	if (ret)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_DEVICE,
				  "cannot find the VF's RDMA device", "%s: %s", failed,
				  cni_rdma_strerror(ret));
	for (size_t i = 0; i < f->n; i++) {
		uint32_t driver = 0;
		/* A driver the kernel does not tell is not proven soft. */
		const char *kind = cni_rdma_driver(a->sys, f->index[i], &driver)
				       ? NULL
				       : cni_rdma_driver_soft(driver);

		if (kind)
			return soft_refused(a, f, i, kind);
		copy_str(r->rdma[i], sizeof(r->rdma[i]), f->names[i]);
		r->rdma_index[i] = f->index[i];
	}
	r->n_rdma = (unsigned int)f->n;
	return 0;
}

/* RDMA isolation: the VF's RDMA devices into the pod before its netdev,
 * because moving them re-creates their ULP netdevs in the old namespace. */
int ibsriov_rdma_in(struct add *a)
{
	struct ibsriov_record *r = &a->rec;
	const char *want = a->conf.rdma_name, *failed = NULL;
	struct cni_rdma_found f;
	int ret;

	if (!a->conf.rdma_isolation || a->vfio)
		return 0;
	ret = ibsriov_rdma_find(a, &f);
	if (!ret)
		ret = rdma_record(a, &f);
	if (ret)
		return ret;
	r->flags |= IBSRIOV_REC_HAS_RDMA | IBSRIOV_REC_HAS_RDMA_INDEX;
	ret = ibsriov_record_save(r);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", r->name);
	ret = cni_rdma_send(a->sys, &f, a->netns_fd, want, &failed);
	if (ret == -E2BIG)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_INVALID_CONFIG,
				  "rdmaName names one RDMA device",
				  "%s has %u RDMA devices (%s, %s); remove \"rdmaName\"",
				  a->conf.device, r->n_rdma, r->rdma[0], r->rdma[1]);
	if (ret)
		return cni_rdma_send_error(a->sys, &a->ctx->err, ret, want, failed);
	if (r->n_rdma)
		a->rdma_dev = *want ? want : r->rdma[0];
	return 0;
}

/* Down, into the pod as CNI_IFNAME (one request: the name is checked in
 * the pod only, no temporary name a pod or a host link could hold), MTU,
 * MAC, up. */
int ibsriov_move_in(struct add *a)
{
	const char *ifname = a->ctx->env.ifname;
	int idx = a->vf.ifindex, saved = -1, ret = 0;

	/* The identity DEL checks in the pod, recorded before the move. */
	if (a->rec.pod_ifindex != idx) {
		a->rec.pod_ifindex = idx;
		ret = ibsriov_record_save(&a->rec);
		if (ret)
			return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record",
				    a->rec.name);
	}
	ret = a->vf.flags & IFF_UP ? cni_link_set_up(a->sys, idx, false) : 0;
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot prepare the VF netdev", a->vf.name);
	ret = cni_link_move_named(a->sys, idx, a->netns_fd, ifname);
	if (ret == -EEXIST)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_INTERNAL,
				  "cannot move the VF netdev into the pod",
				  "%s: its name, %s or one of its alternative names is taken in "
				  "%s %s",
				  a->vf.name, ifname, a->ctx->env.netns, cni_sys_ext_ack(a->sys));
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot move the VF netdev into the pod",
			    a->vf.name);
	ret = cni_netns_enter(a->sys, a->netns_fd, &saved);
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot enter the pod network namespace",
			    a->ctx->env.netns);
	ret = cni_link_get(a->sys, ifname, 0, &a->vf);
	if (!ret && a->vf.ifindex != a->rec.pod_ifindex) {
		/* The index was taken in the pod: the kernel gave another. */
		a->rec.pod_ifindex = a->vf.ifindex;
		ret = ibsriov_record_save(&a->rec);
	}
	if (!ret && a->conf.mtu && a->conf.mtu != a->vf.mtu)
		ret = cni_link_set_mtu(a->sys, a->vf.ifindex, a->conf.mtu);
	if (!ret && a->conf.has_mac && memcmp(a->vf.mac, a->conf.vf.mac, 6))
		ret = cni_link_set_mac(a->sys, a->vf.ifindex, a->conf.vf.mac, 6);
	if (!ret)
		ret = cni_link_set_up(a->sys, a->vf.ifindex, true);
	/* IPoIB in datagram mode may lower the MTU it was given to its
	 * multicast group's: ask. An Ethernet netdev takes what it is given,
	 * or refuses it: no query again. */
	if (!ret && a->ib) {
		ret = cni_link_get(a->sys, NULL, a->vf.ifindex, &a->vf);
	} else if (!ret) {
		copy_str(a->vf.name, sizeof(a->vf.name), a->ctx->env.ifname);
		if (a->conf.mtu)
			a->vf.mtu = a->conf.mtu;
		if (a->conf.has_mac) {
			memcpy(a->vf.mac, a->conf.vf.mac, 6);
			a->vf.mac_len = 6;
		}
		a->vf.flags |= IFF_UP;
	}
	if (ret)
		ret = fail(a, ret, CNI_ERR_INTERNAL, "cannot configure the VF netdev in the pod",
			   a->ctx->env.ifname);
	cni_netns_restore(a->sys, &saved);
	return ret;
}

/* Addresses and routes of the IPAM result on the pod's interface. */
int ibsriov_configure_ip(struct add *a)
{
	struct cni_result *r = a->ipam;
	bool v6 = false;
	uint32_t flags = 0;
	int saved = -1, ret = 0;
	char what[96];

	if (!r)
		return 0;
	for (size_t i = 0; i < r->n_ips; i++)
		v6 |= r->ips[i].address.family == AF_INET6;
	ret = cni_netns_enter(a->sys, a->netns_fd, &saved);
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot enter the pod network namespace",
			    a->ctx->env.netns);
	if (v6 && (ret = cni_link_ipv6_enable(a->ctx->env.ifname)) && ret != -ENOENT)
		ret = fail(a, ret, CNI_ERR_INTERNAL, "cannot enable IPv6", a->ctx->env.ifname);
	else
		ret = 0;
	/* railTable places the connected routes, and the IPAM routes (the loop
	 * below then adds none to main), itself (rail.c). */
	if (ibsriov_rail_owns_routes(&a->conf))
		flags = IFA_F_NOPREFIXROUTE;
	for (size_t i = 0; !ret && i < r->n_ips; i++) {
		ret = cni_link_addr_add_flags(a->sys, a->vf.ifindex, &r->ips[i].address, flags);
		if (ret)
			ret = fail(a, ret, CNI_ERR_INTERNAL, "cannot add an address",
				   cni_prefix_str(&r->ips[i].address, what, sizeof(what)));
	}
	if (!ret && v6 && cni_link_wait_dad(a->sys, a->vf.ifindex, 10000) == -ETIMEDOUT)
		log_warn("IPv6 duplicate address detection still running on %s after 10 s",
			 a->ctx->env.ifname);
	/* Neighbours may still map these addresses to a previous owner. */
	if (!ret && !a->ib && a->vf.mac_len == 6 && r->n_ips) {
		int sent = cni_announce(a->sys, &a->vf);

		if (sent)
			log_warn("cannot announce the addresses of %s: %s", a->ctx->env.ifname,
				 strerror(-sent));
	}
	for (size_t i = 0; !ret && !flags && i < r->n_routes; i++) {
		struct cni_route rt = cni_result_route_via(r, i);

		ret = cni_link_route_add(a->sys, a->vf.ifindex, &rt);
		if (ret)
			ret = fail(a, ret, CNI_ERR_INTERNAL, "cannot add a route",
				   cni_prefix_str(&rt.dst, what, sizeof(what)));
	}
	cni_netns_restore(a->sys, &saved);
	return ret;
}

int ibsriov_build_result(struct add *a)
{
	struct cni_ctx *ctx = a->ctx;
	struct cni_iface *i;
	char mac[64];

	ctx->result = a->ipam ? steal_ptr(a->ipam) : cni_result_new();
	if (!ctx->result)
		return -ENOMEM;
	/* IPAM results name no interfaces; ours is the only one. */
	for (size_t k = 0; k < ctx->result->n_ifaces; k++) {
		free(ctx->result->ifaces[k].name);
		free(ctx->result->ifaces[k].mac);
		free(ctx->result->ifaces[k].sandbox);
		free(ctx->result->ifaces[k].socket_path);
		free(ctx->result->ifaces[k].pci_id);
	}
	ctx->result->n_ifaces = 0;
	i = cni_result_add_iface(ctx->result);
	if (!i)
		return -ENOMEM;
	i->name = strdup(ctx->env.ifname);
	i->sandbox = strdup(ctx->env.netns);
	i->pci_id = strdup(a->conf.device);
	if (!a->vfio) {
		i->mac = strdup(cni_hw_str(a->vf.mac, a->vf.mac_len, mac, sizeof(mac)));
		i->mtu = (int)a->vf.mtu;
	}
	for (size_t k = 0; k < ctx->result->n_ips; k++)
		ctx->result->ips[k].iface = 0;
	/* The network's own "dns" when the IPAM gave none. */
	if (!ctx->result->dns.n_nameservers && !ctx->result->dns.domain &&
	    !ctx->result->dns.n_search) {
		struct cni_result *tmp = NULL;
		int ret = ibsriov_conf_dns(ctx, &tmp); /* validated by conf_load */

		if (ret)
			return ret;
		if (tmp) {
			struct cni_dns swap = ctx->result->dns;

			ctx->result->dns = tmp->dns;
			tmp->dns = swap;
			cni_result_free(tmp);
		}
	}
	return i->name && i->sandbox && i->pci_id ? 0 : -ENOMEM;
}

unsigned int ibsriov_roce_gids(struct add *a, struct ibsriov_devinfo_gid *g, unsigned int max)
{
	/* By finish, ibsriov_build_result has taken the IPAM's result. */
	const struct cni_result *ipam = a->ipam ? a->ipam : a->ctx->result;
	static struct cni_verbs_dev dev;
	unsigned int n = 0;

	if (a->ib || a->vfio || !a->rdma_dev || !*a->rdma_dev || !ipam || !ipam->n_ips)
		return 0;
	/* The kernel adds a GID from its address notifier's work queue, soon
	 * after the address, not with it: a few reads, 20 ms apart. A device
	 * that does not answer is the doctor's to tell, not ADD's to wait for. */
	for (unsigned int tries = 0; tries < 10; tries++) {
		size_t want = 0;

		if (tries)
			usleep(20 * 1000);
		if (cni_verbs_query_in(a->netns_fd, a->rdma_dev, CNI_VERBS_GIDS,
				       CNI_VERBS_TIMEOUT_MS, &dev) ||
		    dev.gids_ret)
			return 0;
		n = 0;
		for (size_t i = 0; i < ipam->n_ips && want < max; i++, want++) {
			struct cni_addr addr = {.family = ipam->ips[i].address.family};
			const struct cni_verbs_gid *e;

			memcpy(addr.a, ipam->ips[i].address.a, sizeof(addr.a));
			e = cni_verbs_gid_of(&dev, 1, &addr, 0);
			if (!e)
				continue;
			cni_addr_str(&addr, g[n].address, sizeof(g[n].address));
			g[n++].index = e->index;
		}
		if (n == want)
			break;
	}
	return n;
}
