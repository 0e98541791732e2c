/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TESTS_FAKE_KERNEL_H
#define TESTS_FAKE_KERNEL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/link.h"
#include "kernel/netns.h"

#define FAKE_MAX_LINKS 8
/* The PF's VFs: as many as a big GPU node's PF has (mlx5's most). */
#define FAKE_VFS_MAX 127

struct fake_link {
	bool exists, up, child;
	int ifindex, ns; /* ns 0 is the host, 1 the pod */
	char name[IFNAMSIZ];
	unsigned int type, mtu, mac_len;
	unsigned char mac[CNI_MAC_MAX];
	uint16_t pkey;
	struct cni_link_attrs attrs;
	unsigned int n_altnames;
};

/* The whole fake kernel; tests set it up and compare snapshots of it. */
struct fake_kernel {
	struct fake_link links[FAKE_MAX_LINKS];
	int n;
	struct cni_vf vfs[FAKE_VFS_MAX]; /* VF i's settings at i */
	unsigned int n_vfs;		 /* the PF's VFs (sriov_numvfs) */
	/* The PF's VF-table reads (RTM_GETLINK with RTEXT_FILTER_VF): all of
	 * them, those that asked for every VF's counters (no
	 * RTEXT_FILTER_SKIP_STATS: a firmware command per VF on mlx5), and the
	 * last reply's size in bytes. */
	unsigned int vf_reads, vf_stats_reads;
	unsigned int vf_skip; /* 1 + a VF the kernel leaves out of the list (its driver
			       * cannot read it: resetting); 0: none */
	size_t vf_reply_bytes;
	int ns, pod_fd;
	bool rdma_in_pod, rdma_renamed;
	bool rdma_soft;		    /* the VF's RDMA device is rxe0 (index 5) over vf0, not a PCI
				     * child: the lookup finds it by netdev, on the host */
	uint32_t rdma_driver;	    /* mlx5_1's driver ID (0: RDMA_DRIVER_MLX5) */
	int changes, fail_at;	    /* the change numbered fail_at fails with EIO */
	uint32_t refuse;	    /* CNI_VF_* bits the PF always refuses (EOPNOTSUPP), as igb
				     * refuses link state: a request holding one changes nothing */
	bool spoil;		    /* a hostile pod: what enters it gets every attribute changed
				     * and altnames, at once */
	struct cni_netns_id pod_id; /* the identity of the namespace at "/pod" */
	int rdma_returns;	    /* cni_rdma_return calls */
	int cookie_reads;	    /* cni_netns_cookie calls (each an entry) */
	/* What cni_link_addrs lists (of every link; it keeps the asked one's). */
	struct cni_link_addr addrs[4];
	int n_addrs;
};

extern struct fake_kernel fk;

#endif
