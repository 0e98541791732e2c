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

#include "base/addr.h"
#include "base/error.h"
#include "kernel/sys.h"

struct nl_msg;

/* CNI_RDMA_NAME_MAX and cni_rdma_name_valid: base/addr.h, the value's rules. */

struct cni_rdma_dev {
	uint32_t index;
	char name[CNI_RDMA_NAME_MAX];
	uint64_t node_guid;
	uint32_t ports;
	/* Its driver (enum rdma_driver_id) as cni_rdma_driver tells it; 0
	 * (RDMA_DRIVER_UNKNOWN) until asked: no device dump carries it. */
	uint32_t driver;
};

/* A sentence for an errno from this module (names the missing subsystem, a
 * dump past its bound, a driver that cannot change namespace, a device
 * cni_rdma_return found no home name for). */
const char *cni_rdma_strerror(int ret);

/* 0 when the netns mode is exclusive; otherwise err gets code (the
 * caller's: an ADD and STATUS report it differently) with the kernel rule
 * and the fix. */
int cni_rdma_require_exclusive(struct cni_sys *sys, struct cni_error *err, int code);

/* The RDMA subsystem's network namespace mode. */
int cni_rdma_get_netns_mode(struct cni_sys *sys, bool *exclusive);
int cni_rdma_set_netns_mode(struct cni_sys *sys, bool exclusive);

/* The most a dump may decode, in bytes of entries (about 350,000 devices):
 * a bound no pod reaches by creating devices, unlike a count. */
#define CNI_RDMA_DUMP_MAX_BYTES (32u << 20)

/* Every RDMA device visible here; *devs is malloc'd, caller frees. -E2BIG
 * past CNI_RDMA_DUMP_MAX_BYTES. */
int cni_rdma_devs(struct cni_sys *sys, struct cni_rdma_dev **devs, size_t *n);

/* One device by index (name NULL: one GET of that index, no dump; the
 * kernel's "unknown index here" is -ENODEV) or, for records without an
 * index, by name (a dump of this namespace); -ENODEV when not visible here. */
int cni_rdma_dev_get(struct cni_sys *sys, const char *name, uint32_t index,
		     struct cni_rdma_dev *dev);

/* The driver of the device of index in the caller's namespace, as the
 * kernel's uverbs client reports it to rdma-core (GET_CHARDEV "uverbs":
 * RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, an enum rdma_driver_id the driver sets
 * and no pod can change). -ENODEV for an index not here, -EOPNOTSUPP
 * without ib_uverbs (the kernel autoloads it), -ENODATA when not told. */
int cni_rdma_driver(struct cni_sys *sys, uint32_t index, uint32_t *driver);

/* "rxe" or "siw" for the driver ID of a software RDMA device (one bound to
 * a netdev, which the kernel deletes when the netdev changes namespace);
 * NULL for any other, RDMA_DRIVER_UNKNOWN included: not proven soft. */
const char *cni_rdma_driver_soft(uint32_t driver);

/* Move a device into the netns of netns_fd. The kernel requires the caller
 * to be in the device's current namespace. */
int cni_rdma_move(struct cni_sys *sys, uint32_t index, int netns_fd);

/* One port of a device as RDMA netlink reports it. The kernel names the
 * port's netdev only to a socket in the netdev's own namespace
 * (nldev.c fill_port_info): ndev_index 0 means "none, or elsewhere". */
struct cni_rdma_port {
	uint32_t dev_index;
	char dev_name[CNI_RDMA_NAME_MAX];
	uint32_t port;
	uint32_t ndev_index;
};

/* Every port of devs (as cni_rdma_devs listed them here): one dump per
 * device, which the kernel requires; a device gone meanwhile has none.
 * *ports is malloc'd, caller frees. */
int cni_rdma_ports(struct cni_sys *sys, const struct cni_rdma_dev *devs, size_t n_devs,
		   struct cni_rdma_port **ports, size_t *n);

/* Rename a device (no move). */
int cni_rdma_rename(struct cni_sys *sys, uint32_t index, const char *name);

/* Move dev into netns_fd's namespace under name, then read back that it
 * left: -ENOSYS when the kernel renamed it and stayed (no per-namespace
 * names: Linux < 7), the rename undone. dev as the caller sees it now. */
int cni_rdma_move_named(struct cni_sys *sys, const struct cni_rdma_dev *dev, int netns_fd,
			const char *name);

/* Whether the running kernel (release, from uname, into release) names RDMA
 * devices per network namespace and takes a name with a move: Linux 7.3 on,
 * where it was seen. A hint for the doctor: rdma-ns reads every named move
 * back rather than trusting it. */
bool cni_rdma_names_per_netns(char release[65]);

/* The same rule for a release string ("7.3.4+deb13-amd64"). */
bool cni_rdma_release_names_per_netns(const char *release);

/* The node GUID rxe and siw give a device over a netdev of this Ethernet
 * MAC (the modified EUI-64), as RDMA netlink reports it; 0 for another length. */
uint64_t cni_rdma_guid_of_mac(const unsigned char *mac, unsigned int len);

/* How many names a device coming home may try: its recorded name,
 * "<name>_<index>", then unpredictable ones. */
#define CNI_RDMA_HOME_TRIES 8

/* The attempt-th name (from 0) a device of index comes home under: want
 * (the recorded host name; "rdma" when empty), "<want>_<index>", then
 * "<want>_<index>_<16 hex digits from getrandom>", want cut so that the
 * whole fits CNI_RDMA_NAME_MAX; -ENOTUNIQ past CNI_RDMA_HOME_TRIES. */
int cni_rdma_home_name(const char *want, uint32_t index, unsigned int attempt,
		       char out[CNI_RDMA_NAME_MAX]);

/* The requests, for tests: SYS_GET, SYS_SET, the GET dump and SET netns,
 * laid out as in the kernel's ABI. Caller frees with nlmsg_free(). */
struct nl_msg *cni_rdma_msg_sys_get(void);
struct nl_msg *cni_rdma_msg_sys_set(bool exclusive);
struct nl_msg *cni_rdma_msg_dump(void);
struct nl_msg *cni_rdma_msg_move(uint32_t index, int netns_fd);

/* The same for a PORT_GET dump (one device's ports: the kernel refuses a
 * dump without DEV_INDEX), a rename, and a move carrying the name the
 * device takes in the target namespace (Linux 7; older kernels only rename). */
struct nl_msg *cni_rdma_msg_port_dump(uint32_t index);
struct nl_msg *cni_rdma_msg_rename(uint32_t index, const char *name);
struct nl_msg *cni_rdma_msg_move_named(uint32_t index, int netns_fd, const char *name);

/* A dump's entries as they arrive: items (malloc'd) holds n of size bytes,
 * each decoded by parse. cni_rdma_dump_add, every dump's callback, adds
 * msg's; -E2BIG once CNI_RDMA_DUMP_MAX_BYTES are held (the dump fails). */
struct cni_rdma_dump {
	void *items;
	size_t n, cap, size;
	int (*parse)(struct nl_msg *msg, void *item);
};
int cni_rdma_dump_add(struct nl_msg *msg, void *dump);

/* A GET of one device (no dump); GET_CHARDEV "uverbs" of one. Caller frees
 * with nlmsg_free(). */
struct nl_msg *cni_rdma_msg_get(uint32_t index);
struct nl_msg *cni_rdma_msg_chardev(uint32_t index);

/* Decode a GET_CHARDEV reply's driver ID (u32 as the kernel sends it, or
 * u64 as the uapi comment says); -ENODATA without one. */
int cni_rdma_parse_driver(struct nl_msg *msg, uint32_t *driver);

/* Decode one PORT_GET reply; -EPROTO without device index, name or port. */
int cni_rdma_parse_port(struct nl_msg *msg, struct cni_rdma_port *port);

/* Decode a SYS_GET reply; -EPROTO without a valid mode attribute. */
int cni_rdma_parse_mode(struct nl_msg *msg, bool *exclusive);

/* Decode one GET reply into dev; -EPROTO when a required attribute is missing. */
int cni_rdma_parse_dev(struct nl_msg *msg, struct cni_rdma_dev *dev);

#endif
