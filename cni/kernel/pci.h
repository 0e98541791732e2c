/* SPDX-License-Identifier: Apache-2.0 */
/* SR-IOV topology under <root>/devices and <root>/drivers (root is
 * /sys/bus/pci in production, a temporary tree in tests). The only module
 * that touches sysfs. */
#ifndef CNI_PCI_H
#define CNI_PCI_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/addr.h"
#include "kernel/rdma.h" /* CNI_RDMA_NAME_MAX */

#ifndef CNI_PCI_ROOT
#define CNI_PCI_ROOT "/sys/bus/pci"
#endif
#define CNI_AUX_ROOT "/sys/bus/auxiliary" /* sub-functions: same devices/<id>/ layout */

struct cni_pci_vf {
	char addr[CNI_PCI_ADDR_LEN];
	char pf_addr[CNI_PCI_ADDR_LEN];
	int vf_index;			  /* N of the PF's virtfnN link */
	char pf_netdev[IFNAMSIZ];	  /* "" when the PF has none */
	char netdev[IFNAMSIZ];		  /* "" when the VF has none (vfio) */
	char driver[64];		  /* "" when unbound */
	char rdma_dev[CNI_RDMA_NAME_MAX]; /* first RDMA device, or "" */
};

/* Resolve a VF: its PF (physfn), its index among the PF's virtfnN, netdevs,
 * driver and RDMA device. -ENODEV when addr is absent, -ENOTTY when it is
 * not a VF. */
int cni_pci_vf_get(const char *root, const char *addr, struct cni_pci_vf *vf);

/* The index of VF vf on PF pf from the PF's SR-IOV offset and stride
 * (sriov_offset, sriov_stride), checked against its virtfn<n> link: one
 * lookup whatever the VF count. -ENOENT when they are absent or disagree
 * (cni_pci_vf_get then lists the virtfn links). */
int cni_pci_vf_index_rid(const char *root, const char *pf, const char *vf);

/* The first netdev under devices/<addr>/net/; -ENODEV when there is none. */
int cni_pci_netdev(const char *root, const char *addr, char name[IFNAMSIZ]);

/* Poll (bounded by timeout_ms) until addr has a netdev again. */
int cni_pci_wait_netdev(const char *root, const char *addr, unsigned int timeout_ms,
			char name[IFNAMSIZ]);

/* RDMA devices under <root>/devices/<addr>/infiniband/, sorted; returns how
 * many were found (at most max) or -errno. With CNI_AUX_ROOT, addr is an
 * auxiliary device name (mlx5_core.sf.4). */
int cni_pci_rdma_devs(const char *root, const char *addr, char names[][CNI_RDMA_NAME_MAX],
		      size_t max);

/* RDMA devices of the auxiliary devices under PCI function addr (entries
 * of <root>/devices/<addr>/ that <aux_root>/devices/ lists, such as
 * mlx5_core.rdma.N): the first one's, as cni_pci_rdma_devs. */
int cni_pci_aux_rdma_devs(const char *root, const char *aux_root, const char *addr,
			  char names[][CNI_RDMA_NAME_MAX], size_t max);

/* The PCI function an auxiliary device (<aux_root>/devices/<id>) hangs off
 * in the device tree, and whether it is a scalable function (it has an
 * sfnum). -ENODEV when id is absent, -ENOTTY when its parent is not a PCI
 * function. */
int cni_pci_aux_parent(const char *aux_root, const char *id, char parent[CNI_PCI_ADDR_LEN],
		       bool *sf);

/* The bound driver's name; -ENOENT when unbound. */
int cni_pci_driver(const char *root, const char *addr, char *drv, size_t len);

/* Unbind addr from its driver and bind it again, so the driver re-reads
 * settings made on the PF (an IB GUID). */
int cni_pci_rebind(const char *root, const char *addr);

/* The pkey table of an RDMA port: non-zero entries of ports/<port>/pkeys/N,
 * full-membership bit included. Returns how many (at most max) or -errno. */
int cni_pci_pkeys(const char *root, const char *addr, const char *rdma_dev, unsigned int port,
		  uint16_t *pkeys, size_t max);

/* The number of an RDMA port attribute as sysfs prints it, "N: NAME"
 * ("4: ACTIVE", "5: LinkUp"; a bare "N" too), at most max: 0 with *out, or
 * -EINVAL. */
int cni_pci_port_attr_parse(const char *text, unsigned int max, unsigned int *out);

/* The logical state (ports/<port>/state: 1 DOWN ... 4 ACTIVE, numbered as
 * CNI_VERBS_PORT_*) and, when sysfs has it (else 0), the physical state
 * (phys_state: 2 Polling, 3 Disabled, 5 LinkUp ...) of an RDMA port of addr:
 * 0, -ENOENT when the device or port is not in this sysfs (another network
 * namespace has it), -EINVAL when unreadable. */
int cni_pci_port_state(const char *root, const char *addr, const char *rdma_dev, unsigned int port,
		       unsigned int *state, unsigned int *phys);

/* SR-IOV PFs under <root>/devices (a virtfn0 link or an sriov_totalvfs
 * file), sorted; how many (at most max) or -errno. */
int cni_pci_sriov_pfs(const char *root, char pfs[][CNI_PCI_ADDR_LEN], size_t max);

/* The address of VF n of pf (its virtfn<n> link); -ENOENT past the last. */
int cni_pci_vf_addr(const char *root, const char *pf, unsigned int n, char vf[CNI_PCI_ADDR_LEN]);

/* sriov_numvfs and sriov_totalvfs of pf; -ENOENT when it has none. */
int cni_pci_sriov_counts(const char *root, const char *pf, unsigned int *num, unsigned int *total);

#endif
