/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA devices into a pod and back: the one path both plugins take, so that
 * a change in the kernel's rules (names per namespace, Linux 7.3) is made
 * once. Each device is named by its index, global and kept across renames
 * and moves; none of these calls dumps the host, which a pod grows at will
 * in exclusive mode. */
#ifndef CNI_RDMA_MOVE_H
#define CNI_RDMA_MOVE_H

#include "base/error.h"
#include "kernel/rdma.h"
#include "kernel/rdma_lookup.h"

/* f's indices when the lookup gave names only (sysfs): one dump of the
 * caller's namespace, none when f is indexed already. -ENODEV (*failed
 * names it) for a device not visible here; another -errno from the dump
 * (*failed: the first device). */
int cni_rdma_found_indices(struct cni_sys *sys, struct cni_rdma_found *f, const char **failed);

/* Move f's devices (cni_rdma_lookup's, indexed) from the caller's namespace into pod_fd's, in
 * order: plainly, or under name when it is set and not "" (cni_rdma_move_named, which reads the
 * move back). -E2BIG, before any move, when name is set and f holds more than one device; -ENOSYS
 * when the kernel cannot name a device as it moves it (it stays, its name restored); -EOPNOTSUPP
 * when its driver cannot change namespace (rxe, siw); another -errno as the kernel gave it. Devices
 * moved before a failure stay moved. On failure *failed names the device. */
int cni_rdma_send(struct cni_sys *sys, const struct cni_rdma_found *f, int pod_fd, const char *name,
		  const char **failed);

/* err (code 7 for what name asked, else CNI_ERR_DEVICE with the kernel's
 * words) for cni_rdma_send's failure ret, failed and name as given to and
 * by it; returns ret. Its -E2BIG names no function: callers that can check
 * the count before anything is recorded do so in their own words. */
int cni_rdma_send_error(struct cni_sys *sys, struct cni_error *err, int ret, const char *name,
			const char *failed);

/* A device to bring back: by its index, global and kept across renames
 * and moves, when the record has it; by name for records that predate it. */
struct cni_rdma_ref {
	const char *name;
	uint32_t index;
	bool has_index;
};

/* Move every device of refs from the pod netns pod_fd back to the caller's
 * namespace, one at a time, each asked for by index (one GET, no dump; by
 * name for records without one): in the pod it moves under the first
 * cni_rdma_home_name the kernel takes (its EEXIST tries the next; a kernel
 * without per-namespace names moves it plainly and it is renamed on the
 * host the same way), never under its pod-side name; then it is looked for
 * on the host. A device in neither namespace (-ENODEV in both) is gone: a
 * warning names it, and it counts as returned. -ENOTUNIQ when no name
 * could be had; any other error (a transient one) as the kernel gave it.
 * A kernel without RDMA counts as done. On failure *failed names the device. */
int cni_rdma_return(struct cni_sys *sys, int pod_fd, const struct cni_rdma_ref *refs, size_t n,
		    const char **failed);

#endif
