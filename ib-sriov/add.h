/* SPDX-License-Identifier: Apache-2.0 */
/* ADD's state, shared by add.c (the flow) and pod.c (the pod's side). */
#ifndef IBSRIOV_ADD_H
#define IBSRIOV_ADD_H

#include "ibsriov.h"

/* Everything ADD learns before it changes anything. */
struct add {
	struct cni_ctx *ctx;
	struct ibsriov_conf conf;
	struct cni_pci_vf pci;
	struct cni_link pf, vf;
	bool ib, vfio, pf_passthrough;
	int netns_fd;
	struct ibsriov_record rec;
	struct cni_result *ipam;
};

/* Fill the CNI error for a failed step (kernel errno and extended ack in
 * the details) and return ret: always used as `return fail(...)` or
 * `ret = fail(...)`. */
static inline int fail(struct add *a, int ret, int code, const char *msg, const char *what)
{
	return cni_errorf(&a->ctx->err, ret, code, msg, "%s: %s%s%s", what, strerror(-ret),
			  *cni_link_ext_ack() ? ": " : "", cni_link_ext_ack());
}

/* The VF's RDMA devices into the pod (rdmaIsolation), before its netdev. */
int ibsriov_rdma_in(struct add *a);

/* Down, temporary name, into the pod, CNI_IFNAME, MTU, MAC, up. */
int ibsriov_move_in(struct add *a);

/* The IPAM result's addresses and routes on the pod interface, IPv6 DAD,
 * then gratuitous ARP / unsolicited NA. */
int ibsriov_configure_ip(struct add *a);

/* ctx->result: our interface, the IPAM's ips (interface 0), routes, dns. */
int ibsriov_build_result(struct add *a);

#endif
