/* SPDX-License-Identifier: Apache-2.0 */
/* ib-host-local's commands, one file each. */
#ifndef IPAM_IPAM_H
#define IPAM_IPAM_H

#include "cni.h"

/* Lease one address per range set; ctx->result gets ips, routes and dns. */
int ipam_add(struct cni_ctx *ctx);

/* Release every lease of (CNI_CONTAINERID, CNI_IFNAME); gone is success. */
int ipam_del(struct cni_ctx *ctx);

/* Every prevResult address inside our ranges must be leased to us. */
int ipam_check(struct cni_ctx *ctx);

/* Release leases whose owner is not in cni.dev/valid-attachments. */
int ipam_gc(struct cni_ctx *ctx);

/* Code 50 when every range set is exhausted. */
int ipam_status(struct cni_ctx *ctx);

#endif
