/* SPDX-License-Identifier: Apache-2.0 */
/* The attachment's Device Information file (docs/architecture.md, "Device
 * information"): named before any change, written as ADD's last step,
 * removed with the record by every release. */
#ifndef IBSRIOV_DEVINFO_H
#define IBSRIOV_DEVINFO_H

#include <stdint.h>

#include "ibsriov.h"
#include "state/devinfo.h"

#ifndef IBSRIOV_DEVINFO_DIR
#define IBSRIOV_DEVINFO_DIR CNI_DEVINFO_DIR
#endif

/* The file name into name (runtimeConfig.CNIDeviceInfoFile, else Multus'
 * name for ctx's attachment): code 7 naming the key when it is not a safe
 * name in the spec's directory. Before any side effect. */
int ibsriov_devinfo_name(struct cni_ctx *ctx, char *name, size_t len);

/* One address of a RoCE attachment and the RoCE v2 GID index carrying it. */
struct ibsriov_devinfo_gid {
	char address[48];
	uint32_t index;
};

/* What the file tells beside the record: the PF's PCI address, the RDMA
 * device as the pod sees it ("" none), the link layer, and for RoCE the
 * GID index of each address (n_gids of gids; addresses without one are
 * left out). */
struct ibsriov_devinfo {
	const char *pf_pci;
	const char *rdma_dev;
	bool ib;
	const struct ibsriov_devinfo_gid *gids;
	unsigned int n_gids;
};

/* Write the file r names for r's attachment, as r records it (code 5 in
 * err on failure: ADD rolls back, and the release removes the file). */
int ibsriov_devinfo_write(const struct ibsriov_record *r, const struct ibsriov_devinfo *d,
			  struct cni_error *err);

/* Remove the file r names (IBSRIOV_REC_HAS_DEVINFO; nothing otherwise):
 * for every release (ADD's rollback, DEL, GC, a dead pod's release). 0,
 * or -errno with err filled (code 5; the record stays for a retry). */
int ibsriov_devinfo_remove(const struct ibsriov_record *r, struct cni_error *err);

#endif
