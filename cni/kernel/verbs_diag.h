/* SPDX-License-Identifier: Apache-2.0 */
/* The RoCE checks `ib-sriov doctor --pod` and CHECK (rdma-ns's, and
 * ib-sriov's with rdmaIsolation) share: pure functions over what the kernel
 * reads gave (the verbs view of the device from inside the pod, the pod
 * netdev's MTU, ifindex and addresses), each writing the one "what" text
 * both show. Here, below both plugins, because a plugin never includes
 * another. */
#ifndef CNI_VERBS_DIAG_H
#define CNI_VERBS_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "base/addr.h"
#include "kernel/verbs.h"

/* A check's verdict: what the doctor's finding's severity is; CHECK fails
 * on CNI_DIAG_ERROR only. */
enum cni_diag { CNI_DIAG_INFO, CNI_DIAG_WARNING, CNI_DIAG_ERROR };

/* The RDMA MTU a RoCE port derives from its netdev's MTU (the kernel's
 * iboe_get_mtu: the RoCE v2 headers off, rounded down to an IB MTU), in
 * bytes; 0 below 256. */
unsigned int cni_verbs_roce_mtu(unsigned int netdev_mtu);

/* The RoCE v2 GID of dev's port that carries addr (an IPv4 address as
 * ::ffff:a.b.c.d), on the netdev ifindex when it is not 0: or NULL. */
const struct cni_verbs_gid *cni_verbs_gid_of(const struct cni_verbs_dev *dev, unsigned int port,
					     const struct cni_addr *addr, int ifindex);

/* The GID check of one address of the pod netdev ifname (ifindex as the
 * reader sees it) on dev's port 1: CNI_DIAG_INFO with *index and what
 * naming it for NCCL_IB_GID_INDEX, or CNI_DIAG_ERROR with what naming the
 * likely cause (and *index untouched). */
enum cni_diag cni_verbs_gid_check(const struct cni_verbs_dev *dev, const char *ifname, int ifindex,
				  const struct cni_addr *addr, uint32_t *index, char *what,
				  size_t len);

/* What to do about a GID check's error (static text). */
const char *cni_verbs_gid_fix(const struct cni_verbs_dev *dev, int ifindex);

/* The MTU check of the pod netdev ifname against the MTU ADD set
 * (expected, 0 unknown) and the active MTU of dev's port 1: a netdev MTU
 * below ADD's is an error (on RoCE it lowers the RDMA MTU too), above it a
 * warning, else info; what says the netdev's MTU and the RDMA MTU. */
enum cni_diag cni_verbs_mtu_check(const struct cni_verbs_dev *dev, const char *ifname,
				  unsigned int netdev_mtu, unsigned int expected, char *what,
				  size_t len);

/* What to do about an MTU check's error or warning (static text). */
const char *cni_verbs_mtu_fix(void);

/* A GID as ip6 text ("::ffff:10.56.0.2", "fe80::..."), into buf. */
const char *cni_verbs_gid_str(const struct cni_verbs_gid *g, char *buf, size_t len);

/* "IB", "RoCE v1", "RoCE v2". */
const char *cni_verbs_gid_type_str(uint32_t type);

#endif
