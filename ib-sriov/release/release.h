/* SPDX-License-Identifier: Apache-2.0 */
/* The undo of an attachment, by its record (release.c, netdev.c, gone.c):
 * ADD's rollback, DEL, GC and the node agent all release through here, so
 * a VF goes back to the host the same way whoever asks. */
#ifndef IBSRIOV_RELEASE_H
#define IBSRIOV_RELEASE_H

#include "ibsriov.h"

/* Put back the PF-side settings ADD changed (vf_changed), one request per
 * setting, skipping those that already read as the original. 0 or -errno;
 * *what names the setting the PF refused. */
int ibsriov_vf_restore(struct cni_sys *sys, const struct ibsriov_record *r, const char **what);

/* The name of a PF-side setting (CNI_VF_* bits) for messages. */
const char *ibsriov_vf_setting_name(uint32_t bits);

/* Whether link l (found in the pod's netns when pod) is the recorded VF:
 * the kernel's PCI parent when it reports one, else the recorded ifindex
 * and link kind. Never true for a link a pod built to look like the VF. */
bool ibsriov_vf_is_ours(const struct ibsriov_record *r, const struct cni_link *l, bool pod);

/* Open the record's pod netns for an undo step: 0 with *fd, 0 with *fd -1
 * when it is gone (ENOENT: the kernel took the VF back), or -errno with
 * err filled. */
int ibsriov_open_pod(struct cni_sys *sys, const struct ibsriov_record *r, int *fd,
		     struct cni_error *err);

/* Release step one (netdev.c): the VF netdev out of the pod, verified,
 * down, altnames dropped, moved and named in one request; nothing restored
 * yet. 0 when it is out (or was never in, or its pod is gone). */
int ibsriov_netdev_leave(struct cni_sys *sys, const struct ibsriov_record *r,
			 struct cni_error *err);

/* Release step two, after the PF side: the VF netdev on the host back to
 * the record (altnames dropped, name, MTU, MAC, recorded attributes,
 * state); an IPoIB child deleted. err names the step that failed. */
int ibsriov_netdev_restore(struct cni_sys *sys, const struct ibsriov_record *r,
			   struct cni_error *err);

/* Undo an attachment by its record: the netdev out of the pod, RDMA devices
 * back, PF settings restored, the netdev's name, MTU, MAC, attributes and
 * state, the record removed (ADD's rollback, under the VF lock it already holds). */
int ibsriov_release(struct cni_sys *sys, struct ibsriov_record *r, struct cni_error *err);

/* The same for DEL and GC, of a record read before the VF lock: under the
 * lock, what ibsriov_record_hold finds (0); 1 when it finds nothing of
 * seen's (released by another meanwhile: nothing to undo); or -errno. */
int ibsriov_release_locked(struct cni_sys *sys, const struct ibsriov_record *seen,
			   struct cni_error *err);

/* Take seen's VF lock (waiting at most wait_ms) and read seen's record
 * again under it: the locked fd with *now filled when it is still seen's
 * attachment; -ENOENT (unlocked) when gone or another's since; -EAGAIN
 * when the lock is held, or -errno, err filled. */
int ibsriov_record_hold(const struct ibsriov_record *seen, unsigned int wait_ms,
			struct ibsriov_record *now, struct cni_error *err);

/* Whether the VF netdev r moved into its pod is back in the host's
 * namespace, as the kernel returns it when the pod's namespace dies (1),
 * or not (0), or -errno; 1 when r moved no netdev into the pod. */
int ibsriov_netdev_back(struct cni_sys *sys, const struct ibsriov_record *r);

/* gone.c: whether r's pod is gone (1): its netns path no longer exists in
 * a directory that shows other namespace mounts (cni_netns_gone), and the
 * VF netdev it held is back on the host (a namespace kept alive elsewhere
 * never passes both); 0 when either cannot be told (logged) or no path was
 * recorded; -CNI_NETNS_NOT_MOUNT or -CNI_NETNS_NO_MOUNTS when this mount
 * view cannot see the runtime's namespace mounts (kept, not logged: the
 * caller says it once). */
int ibsriov_pod_gone(struct cni_sys *sys, const struct ibsriov_record *r);

/* Release the attachment of a pod that is gone, under the VF lock the
 * caller holds: IPAM DEL through the config r recorded (else same, the
 * caller's network when it is r's; CNI_PATH r's, else cni_path), then
 * ibsriov_release without looking at r's netns again. A failed IPAM DEL
 * stops there (the record stays, nothing leaks). 0 or -errno, err filled. */
int ibsriov_release_gone(struct cni_sys *sys, struct ibsriov_record *r, const struct cni_conf *same,
			 const char *cni_path, struct cni_error *err);

/* Take IBSRIOV_LOCK_DIR/<kind>-<pci>.lock ("vf" per VF, "pf" around a
 * rebind) with a bounded wait; the locked fd, or -errno with err filled. */
int ibsriov_lock(const char *kind, const char *pci, struct cni_error *err);

/* ibsriov_lock waiting at most wait_ms (-EAGAIN, code 11, when held). */
int ibsriov_lock_wait(const char *kind, const char *pci, unsigned int wait_ms,
		      struct cni_error *err);

#endif
