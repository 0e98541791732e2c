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
#define FAKE_VFS       2

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
	struct cni_vf vfs[FAKE_VFS];
	int ns, pod_fd;
	bool rdma_in_pod, rdma_renamed;
	int changes, fail_at;	    /* the change numbered fail_at fails with EIO */
	uint32_t refuse;	    /* CNI_VF_* bits the PF always refuses (EOPNOTSUPP), as igb
				     * refuses link state: a request holding one changes nothing */
	bool spoil;		    /* a hostile pod: what enters it gets every attribute changed
				     * and altnames, at once */
	struct cni_netns_id pod_id; /* the identity of the namespace at "/pod" */
	int rdma_returns;	    /* cni_rdma_return calls */
	int cookie_reads;	    /* cni_netns_cookie calls (each an entry) */
};

extern struct fake_kernel fk;

#endif
