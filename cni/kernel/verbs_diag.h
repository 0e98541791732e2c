/* SPDX-License-Identifier: Apache-2.0 */
/* The RoCE checks `ib-sriov doctor --pod` and CHECK (rdma-ns's, and
 * ib-sriov's with rdmaIsolation) share: pure functions over what the kernel
 * reads gave (the verbs view of the device from inside the pod, the pod
 * netdev's MTU, ifindex and addresses), each writing the one "what" text
 * both show. Here, below both plugins, because a plugin never includes
 * another. */
#ifndef CNI_VERBS_DIAG_H
#define CNI_VERBS_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/addr.h"
#include "kernel/link.h"
#include "kernel/sys.h"
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

/* The GID check of one address of the pod netdev (its name and ifindex as
 * the reader sees them) on dev's port 1: CNI_DIAG_INFO with *index and
 * what naming it for NCCL_IB_GID_INDEX, or CNI_DIAG_ERROR with what naming
 * the likely cause (and *index untouched). */
enum cni_diag cni_verbs_gid_check(const struct cni_verbs_dev *dev, const struct cni_link *netdev,
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

/* What the checks read of one attachment, from inside the pod: the RDMA
 * device through verbs (a child in the pod's namespace, bounded) and the
 * pod netdev through rtnetlink (its MTU, ifindex and addresses). */
#define CNI_ROCE_ADDRS_MAX 16
struct cni_roce_view {
	int verbs_ret; /* cni_verbs_query_in's */
	struct cni_verbs_dev dev;
	int link_ret; /* the netdev's lookup, -ENODEV when not in the pod */
	struct cni_link link;
	int n_addrs; /* or -errno when the dump failed */
	struct cni_link_addr addrs[CNI_ROCE_ADDRS_MAX];
};

/* Read v for RDMA device rdma and netdev ifname in the namespace netns_fd
 * (entered and left through sys). Never fails: each part holds its error. */
void cni_roce_read(struct cni_sys *sys, int netns_fd, const char *rdma, const char *ifname,
		   struct cni_roce_view *v);

/* Whether an address of the pod netdev is one a GID is expected for (not
 * IPv6 link-local: every RoCE port has its own fe80 GID). */
bool cni_roce_addr_checked(const struct cni_link_addr *a);

/* What ADD left on the pod netdev, as its record or the previous result
 * says: its MTU (0 unknown) and the addresses the IPAM gave it. */
#define CNI_ROCE_WANT_MAX 8
struct cni_roce_want {
	unsigned int mtu;
	unsigned int n_addrs;
	struct cni_addr addrs[CNI_ROCE_WANT_MAX];
};

/* Add the address text s ("10.56.0.2", or with a "/len") to w; false when
 * it is no address or w is full. */
bool cni_roce_want_add(struct cni_roce_want *w, const char *s);

/* Whether addr, which ADD gave the pod netdev ifname, is still on it (v's
 * addresses): CNI_DIAG_INFO, else CNI_DIAG_ERROR with what naming it (its
 * GID went with it). */
enum cni_diag cni_roce_addr_kept(const struct cni_roce_view *v, const char *ifname,
				 const struct cni_addr *addr, char *what, size_t len);

/* What to do about an address ADD gave that is gone (static text). */
const char *cni_roce_addr_fix(void);

/* CHECK's checks of a view: on a RoCE port each address ADD gave still
 * there, every address's RoCE v2 GID, then (either link layer) the MTU
 * against want's (0 unknown). 0, or -errno with err (code 101, "CHECK
 * failed") holding the doctor's "what" text of the first error. */
int cni_roce_check(const struct cni_roce_view *v, const char *ifname,
		   const struct cni_roce_want *want, struct cni_error *err);

#endif
