/* SPDX-License-Identifier: Apache-2.0 */
/* Whether the device a request names is one kubelet allocated to the pod
 * (issue 21, T4): a NAD may name any device, kubelet knows which one the
 * pod was given. ADD only; DEL, CHECK and GC never ask. */
#ifndef CNI_DEVCHECK_H
#define CNI_DEVCHECK_H

#include <stddef.h>

#include "protocol/cni.h"

/* When ctx->node's deviceCheck is "kubelet" and kubelet's PodResources
 * socket exists, ask it (bounded by min(2 s, maxWaitMs)) for the pod that
 * CNI_ARGS' K8S_POD_NAMESPACE/K8S_POD_NAME name: 0 when one of devs[n]
 * (PCI addresses compared normalised) is among its device IDs, or there is
 * no socket (one debug line). Else ctx->err: code 7 naming deviceID, src
 * (where devs[0] came from) and the pod; 4 without the pod's name in
 * CNI_ARGS; 11 when kubelet does not answer. */
int cni_device_check(struct cni_ctx *ctx, const char *src, const char *const *devs, size_t n);

#endif
