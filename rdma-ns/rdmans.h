/* SPDX-License-Identifier: Apache-2.0 */
/* rdma-ns: moves a VF's RDMA devices into the pod (chained after the
 * netdev plugin) and manages the RDMA subsystem's netns mode. */
#ifndef RDMANS_H
#define RDMANS_H

#include <limits.h>

#include "cni.h"
#include "pci.h"
#include "rdma.h"

#define RDMANS_STATE_DIR "/var/lib/cni/rdma-ns"
#define RDMANS_MAX_DEVS 8

/* The function whose RDMA devices move: deviceID, else pciBusID, else the
 * pciID of the prevResult interface. Code 7 when none names a device. */
int rdmans_device(struct cni_ctx *ctx, char *dev, size_t len);

/* RDMA device names of a PCI function or auxiliary device (sysfs). */
int rdmans_devices_of(const char *dev, char names[][CNI_RDMA_NAME_MAX], size_t max);

/* Code 104 explaining the kernel rule when the mode is not exclusive;
 * code 50 instead when for_status. */
int rdmans_require_exclusive(struct cni_ctx *ctx, bool for_status);

/* Record: <network>-<containerID>-<ifname> holding the devices moved. */
int rdmans_record_name(const struct cni_ctx *ctx, char *buf, size_t len);

/* Move the recorded devices back to the host from inside the pod netns and
 * remove the record; gone (netns, devices, record) is success. */
int rdmans_release(const char *record, struct cni_error *err);

/* Apply args.cni.debug (debug logging), as rdma-cni does. */
void rdmans_args(struct cni_ctx *ctx);

/* The CNI commands (README, "rdma-ns"): ADD moves every RDMA device of the
 * function into the pod and prints prevResult; DEL moves them back; CHECK
 * finds them in the pod; GC releases stale records; STATUS needs exclusive. */
int rdmans_add(struct cni_ctx *ctx);
int rdmans_del(struct cni_ctx *ctx);
int rdmans_check(struct cni_ctx *ctx);
int rdmans_gc(struct cni_ctx *ctx);
int rdmans_status(struct cni_ctx *ctx);

/* `rdma-ns netns-mode [show|exclusive|shared]`: the admin command. */
int rdmans_mode_main(int argc, char **argv);

/* `rdma-ns devices`: the RDMA devices visible here, one per line
 * ("index name link-type node-guid ports"). */
int rdmans_devices_main(void);

#endif
