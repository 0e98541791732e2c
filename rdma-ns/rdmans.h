/* SPDX-License-Identifier: Apache-2.0 */
/* rdma-ns: moves a VF's RDMA devices into the pod (chained after the
 * netdev plugin) and manages the RDMA subsystem's netns mode. Installed as
 * rdma-ns and as rdma, the name every rdma-cni config uses. */
#ifndef RDMANS_H
#define RDMANS_H

#include <limits.h>
#include <net/if.h>

#include "protocol/cni.h"
#include "kernel/netns.h"
#include "kernel/pci.h"
#include "kernel/rdma.h"
#include "kernel/rdma_lookup.h"
#include "kernel/rdma_move.h"
#include "kernel/verbs_diag.h"
#include "state/record_rdmans.h"

/* The records (cni/state/record_rdmans.h) hold RDMA device names. */
_Static_assert(RDMANS_RDMA_NAME_MAX == CNI_RDMA_NAME_MAX, "RDMA device name bound");
_Static_assert(CNI_RDMA_FOUND_MAX <= RDMANS_MAX_DEVS, "RDMA devices of a function");

/* device.c: the function whose RDMA devices move, validated. deviceID,
 * else pciBusID, else the pciID of the prevResult interface in this pod,
 * else the PCI device of the pod netdev with that interface's MAC. It must
 * be a VF (or an auxiliary device of a VF, or a scalable function), one
 * kubelet allocated to the pod (cni_device_check, before any RDMA request)
 * and match the prevResult's pciID when there is one: code 7 otherwise. */
int rdmans_device(struct cni_sys *sys, struct cni_ctx *ctx, int pod, char dev[RDMANS_DEV_MAX]);

/* The RDMA devices of dev (PCI child, auxiliary child, or bound to the pod
 * interface: cni_rdma_lookup) into f; err filled (code 101 naming what was
 * tried, or both candidates). */
int rdmans_devices_of(struct cni_sys *sys, struct cni_ctx *ctx, int pod, const char *dev,
		      struct cni_rdma_found *f);

/* deviceID or pciBusID as configured (normalised when a PCI address),
 * "" when neither is set, *key (optional) naming the key used; -EINVAL (err
 * filled, code 7) for a bad value in either key, or two different devices. */
int rdmans_configured_device(const struct cni_conf *conf, char dev[RDMANS_DEV_MAX],
			     const char **key, struct cni_error *err);

/* conf.c: the configuration beside the device keys, and the mode check. */

/* Code 104 explaining the kernel rule when the mode is not exclusive;
 * code 50 instead when for_status. */
int rdmans_require_exclusive(struct cni_sys *sys, struct cni_ctx *ctx, bool for_status);

/* What the previous plugin left on CNI_IFNAME, for the RoCE checks: its MTU
 * and addresses in the previous result, else (rec not NULL) the record's. */
void rdmans_roce_want(const struct cni_ctx *ctx, const struct rdmans_record *rec,
		      struct cni_roce_want *w);

/* args.cni.debug (rdma-cni's key): debug logging. A wrong type is code 7
 * when strict (ADD, CHECK); DEL and GC log it and go on. */
int rdmans_args(struct cni_ctx *ctx, bool strict);

/* rdmaName (CNI_CONF_RDMA_NAME): the name the devices take in the pod
 * ("auto": CNI_IFNAME), "" when unset; code 7 naming the key for a name
 * cni_rdma_name_valid refuses. */
int rdmans_rdma_name(struct cni_ctx *ctx, char name[CNI_RDMA_NAME_MAX]);

/* This request's record name; code 4 when it would be too long. */
int rdmans_ctx_record_name(struct cni_ctx *ctx, char buf[RDMANS_NAME_MAX + 1]);

/* release.c: the undo of an attachment by its record. */

/* Open a pod netns for an undo step: 0 with *fd, or 1 when it is
 * definitely gone (absent, or no longer a network namespace), or -errno. */
int rdmans_open_pod(struct cni_sys *sys, const char *path, int *fd);

/* rdmans_open_recorded's answer when rec's path now names another
 * namespace than the one ADD used. */
#define RDMANS_NETNS_REPLACED 2

/* Open rec's netns as rdmans_open_pod does, and only when it is still the
 * recorded namespace (a record without the identity, an older build's, is
 * taken as it is): 0 with *fd, 1 gone, RDMANS_NETNS_REPLACED (no fd, found
 * is what is there now), or -errno. */
int rdmans_open_recorded(struct cni_sys *sys, const struct rdmans_record *rec, int *fd,
			 struct cni_netns_id *found);

/* Whether the namespace fd is the one rec recorded (1: yes, or rec has no
 * identity; 0: another, found is its), -errno. Enters fd (to read its
 * cookie) only when device and inode match a record that has a cookie. */
int rdmans_netns_is_recorded(struct cni_sys *sys, const struct rdmans_record *rec, int fd,
			     struct cni_netns_id *found);

/* id as a record writes it ("dev:ino[:nsid[:cookie]]"): 0 or -ENAMETOOLONG. */
int rdmans_netns_id_text(const struct cni_netns_id *id, char buf[RDMANS_NETNS_ID_MAX]);

/* Undo rec (moved back from its netns, entered only while the path is still
 * the recorded namespace: another one there is "gone", logged) and remove
 * the record name. Only a definite answer skips a step; anything else keeps
 * the record, fills err and fails, so the runtime's retry can finish. */
int rdmans_release(struct cni_sys *sys, const char *name, const struct rdmans_record *rec,
		   struct cni_error *err);

/* find.c: DEL's and GC's view of what was attached. */

/* Find this attachment's record: ours (both name formats), loaded into rec
 * with its file name. 0 found, -ENOENT none, other -errno with err filled. */
int rdmans_find_record(struct cni_ctx *ctx, struct rdmans_record *rec, char name[NAME_MAX + 1]);

/* The attachment as rdma-cni recorded it: move containerRdmaDevName back
 * from CNI_NETNS, then remove its cache file. None is success. */
int rdmans_release_rdmacni(struct cni_sys *sys, struct cni_ctx *ctx);

/* CHECK for an attachment rdma-cni made: 0 when its device is in the pod,
 * -ENOENT without a cache entry, else err filled. */
int rdmans_check_rdmacni(struct cni_sys *sys, struct cni_ctx *ctx, int pod);

/* GC of rdma-cni cache entries of this network: only those whose device is
 * back on the host (so no pod holds it) and not in the valid list. */
void rdmans_gc_rdmacni(struct cni_sys *sys, struct cni_ctx *ctx);

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

/* `rdma-ns reconcile [--dry-run] [--grace SECONDS]` (reconcile.c): rdma-ns's
 * records of pods gone without DEL released; the counts on stdout. 0, or 2
 * on a usage error. */
int rdmans_reconcile_main(int argc, char **argv);

/* `rdma-ns devices`: the RDMA devices visible here, one per line
 * ("index name soft node-guid ports"; soft is "rxe" or "siw" as the
 * kernel's driver ID says, else "-"). */
int rdmans_devices_main(void);

#endif
