/* SPDX-License-Identifier: Apache-2.0 */
/* The one lookup of a function's RDMA devices, shared by rdma-ns and
 * ib-sriov's rdmaIsolation so that they agree. Three ways, in this order,
 * the first that finds any wins:
 *   1. PCI child: <pci>/devices/<addr>/infiniband/ (a ConnectX VF's own);
 *   2. auxiliary child: <aux>/devices/<id>/infiniband/ of an auxiliary
 *      device ID, or of the auxiliary devices under a PCI function;
 *   3. by netdev: the device whose port is bound to the function's netdev,
 *      through RDMA netlink (rxe, siw, any device not under the function);
 *      from the host's list by the MAC's node GUID only when the node
 *      configuration allows it ("softRdmaByMac"), with the checks below. */
#ifndef CNI_RDMA_LOOKUP_H
#define CNI_RDMA_LOOKUP_H

#include "kernel/netns_scan.h"
#include "kernel/rdma.h"

#define CNI_RDMA_FOUND_MAX 8
#define CNI_RDMA_TRIED_MAX 512

struct cni_rdma_query {
	const char *device;		 /* PCI address or auxiliary device name; NULL: none */
	const char *pci_root, *aux_root; /* NULL: CNI_PCI_ROOT, CNI_AUX_ROOT */
	int netns_fd;			 /* the netdev's namespace; -1: the caller's */
	const char *netns;		 /* its name, for messages */
	const char *ifname;		 /* the netdev there; NULL: no step 3 */
	bool soft_by_mac; /* softRdmaByMac: step 3 may take a host rxe/siw by its GUID */
};

/* Which step found the devices. */
enum cni_rdma_how {
	CNI_RDMA_BY_NONE,
	CNI_RDMA_BY_PCI,    /* 1: the PCI function's child */
	CNI_RDMA_BY_AUX,    /* 2: an auxiliary device's child */
	CNI_RDMA_BY_NETDEV, /* 3: bound to the netdev (rxe and siw are found so) */
};

/* how for messages: "PCI child", "auxiliary child", "netdev" ("none"). */
const char *cni_rdma_how_name(enum cni_rdma_how how);

struct cni_rdma_found {
	char names[CNI_RDMA_FOUND_MAX][CNI_RDMA_NAME_MAX];
	/* Filled when indexed: by step 3, which finds devices through netlink,
	 * or by cni_rdma_found_indices for sysfs's names. */
	uint32_t index[CNI_RDMA_FOUND_MAX];
	bool indexed;
	size_t n;
	enum cni_rdma_how how;
	bool in_netns; /* step 3 found it in the netdev's namespace, not the caller's */
	char
	    tried[CNI_RDMA_TRIED_MAX]; /* what was tried (-ENODEV), or the candidates (-ENOTUNIQ) */
};

/* Run the three steps for q: 0 with f->n >= 1; -ENODEV with f->tried
 * naming each step and what it saw; -ENOTUNIQ when step 3 finds two
 * devices (f->tried names both); -EADDRINUSE when the host's device by MAC
 * is not proven the pod's (f->tried says why); another -errno for a failure. */
int cni_rdma_lookup(struct cni_sys *sys, const struct cni_rdma_query *q, struct cni_rdma_found *f);

/* What one socket's dumps show. */
struct cni_rdma_view {
	const struct cni_rdma_port *ports;
	size_t n_ports;
	const struct cni_rdma_dev *devs;
	size_t n_devs;
};

/* What step 3 knows of the netdev. */
struct cni_rdma_netdev {
	int ifindex;		  /* in there's namespace */
	const unsigned char *mac; /* its hardware address (the GUID rxe/siw derive) */
	unsigned int mac_len;
	bool by_mac;	    /* softRdmaByMac: the host branch may be taken */
	bool of_device;	    /* the netdev's parent device is the query's device */
	const char *parent; /* that parent, for messages ("" when none) */
	/* Netdevs on the node with mac (cni_netns_count_mac) and its answer;
	 * read only when the host branch has its one candidate. */
	const struct cni_netns_mac_scan *scan;
	int scan_ret;
};

/* Step 3 on dumps already made. there: a socket in the netdev's namespace,
 * where a port bound to nd->ifindex is proof. here (NULL when the netdev is
 * in the caller's namespace): the caller's socket, which in exclusive mode
 * lists a device the pod created (rxe registers in init_net) without its
 * port's netdev. Only with nd->by_mac is a device here taken, and only when
 * it is soft (its driver field, which the caller fills with cni_rdma_driver
 * for the devices of the GUID, is rxe's or siw's), has the node GUID of nd->mac and no port bound
 * here, the netdev is the device's own (nd->of_device) and no other netdev
 * of the node has the MAC (nd->scan: -EADDRINUSE otherwise). 0, -ENODEV
 * (f->tried says why), -ENOTUNIQ or -EADDRINUSE, as cni_rdma_lookup. */
int cni_rdma_match_netdev(const struct cni_rdma_view *there, const struct cni_rdma_view *here,
			  const struct cni_rdma_netdev *nd, struct cni_rdma_found *f);

/* Whether step 3 on these dumps reaches the host branch's proof (one
 * candidate by the GUID of nd->mac, nothing bound there): then the caller
 * fills nd->scan before cni_rdma_match_netdev. */
bool cni_rdma_match_needs_scan(const struct cni_rdma_view *there, const struct cni_rdma_view *here,
			       const struct cni_rdma_netdev *nd);

#endif
