/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA netlink (NETLINK_RDMA, the nldev client) through libnl-3; the only
 * module that speaks it. Calls act in the calling thread's network
 * namespace, on sys's socket for it (kernel/sys.h; a failure's extended-ack
 * text is cni_sys_ext_ack(sys)), and return 0 or the kernel's negative errno. A kernel without
 * an RDMA subsystem gives -EPROTONOSUPPORT. */
#ifndef CNI_RDMA_H
#define CNI_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/sys.h"
#include "base/error.h"

struct nl_msg;

/* An RDMA device name with its NUL: the kernel's IB_DEVICE_NAME_MAX (not in
 * the uapi headers). The one bound for RDMA names, sysfs and netlink alike. */
#define CNI_RDMA_NAME_MAX 64

struct cni_rdma_dev {
	uint32_t index;
	char name[CNI_RDMA_NAME_MAX];
	uint64_t node_guid;
	uint32_t ports;
	char link_type[16]; /* "rxe", "siw", or "" for hardware */
};

/* A sentence for an errno from this module (names the missing subsystem). */
const char *cni_rdma_strerror(int ret);

/* 0 when the netns mode is exclusive; otherwise err gets code (the
 * caller's: an ADD and STATUS report it differently) with the kernel rule
 * and the fix. */
int cni_rdma_require_exclusive(struct cni_sys *sys, struct cni_error *err, int code);

/* The RDMA subsystem's network namespace mode. */
int cni_rdma_get_netns_mode(struct cni_sys *sys, bool *exclusive);
int cni_rdma_set_netns_mode(struct cni_sys *sys, bool exclusive);

/* Every RDMA device visible here; *devs is malloc'd, caller frees. */
int cni_rdma_devs(struct cni_sys *sys, struct cni_rdma_dev **devs, size_t *n);

/* One device by name (index 0) or index; -ENODEV when not visible here. */
int cni_rdma_dev_get(struct cni_sys *sys, const char *name, uint32_t index,
		     struct cni_rdma_dev *dev);

/* Move a device into the netns of netns_fd. The kernel requires the caller
 * to be in the device's current namespace. */
int cni_rdma_move(struct cni_sys *sys, uint32_t index, int netns_fd);

/* A device to bring back: by its index, global and kept across renames
 * and moves, when the record has it; by name for records that predate it. */
struct cni_rdma_ref {
	const char *name;
	uint32_t index;
	bool has_index;
};

/* The device ref names in devs (by index when it has one), or NULL. */
const struct cni_rdma_dev *cni_rdma_find(const struct cni_rdma_dev *devs, size_t n,
					 const struct cni_rdma_ref *ref);

/* From inside the pod netns pod_fd (the kernel's rule), move every device
 * of refs still there back to the caller's namespace; then each one known
 * by index must be seen here, or it is -ENXIO (in neither namespace: a pod
 * that hid it elsewhere). A kernel without RDMA counts as done. On failure
 * *failed names the device. */
int cni_rdma_return(struct cni_sys *sys, int pod_fd, const struct cni_rdma_ref *refs, size_t n,
		    const char **failed);

/* The requests, for tests: SYS_GET, SYS_SET, the GET dump and SET netns,
 * laid out as in the kernel's ABI. Caller frees with nlmsg_free(). */
struct nl_msg *cni_rdma_msg_sys_get(void);
struct nl_msg *cni_rdma_msg_sys_set(bool exclusive);
struct nl_msg *cni_rdma_msg_dump(void);
struct nl_msg *cni_rdma_msg_move(uint32_t index, int netns_fd);

/* Decode a SYS_GET reply; -EPROTO without a valid mode attribute. */
int cni_rdma_parse_mode(struct nl_msg *msg, bool *exclusive);

/* Decode one GET reply into dev; -EPROTO when a required attribute is missing. */
int cni_rdma_parse_dev(struct nl_msg *msg, struct cni_rdma_dev *dev);

#endif
