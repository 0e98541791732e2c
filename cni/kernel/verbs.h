/* SPDX-License-Identifier: Apache-2.0 */
/* The verbs view of an RDMA device (libibverbs: what ibv_devinfo and ibstat
 * show): whether it is listed and opens, its ports' state, link layer and
 * rate, node and port GUIDs, pkey and GID tables. verbs.c is the only file
 * that includes <infiniband/verbs.h>; every call returns 0 or a negative
 * errno (libibverbs' mix of NULL+errno, -1+errno and positive returns
 * translated). Queries run in a short-lived child process: libibverbs reads
 * its environment and sysfs, and a device may be slow to answer, so the
 * plugin keeps a clean environment, a bound on time and its own state. */
#ifndef CNI_VERBS_H
#define CNI_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "kernel/rdma.h" /* CNI_RDMA_NAME_MAX */

#define CNI_VERBS_PORTS_MAX    4    /* ports read per device (ConnectX functions have 1) */
#define CNI_VERBS_PKEYS_MAX    128  /* pkey table entries read per port */
#define CNI_VERBS_TIMEOUT_MS   5000 /* default bound on one query */
#define CNI_VERBS_KILL_WAIT_MS 1000 /* then on its exit, after the reply or SIGKILL */

/* Port states, numbered as the IB spec (and enum ibv_port_state) number them. */
enum {
	CNI_VERBS_PORT_NOP = 0,
	CNI_VERBS_PORT_DOWN = 1,
	CNI_VERBS_PORT_INIT = 2,
	CNI_VERBS_PORT_ARMED = 3,
	CNI_VERBS_PORT_ACTIVE = 4,
	CNI_VERBS_PORT_ACTIVE_DEFER = 5,
};

enum { CNI_VERBS_LL_UNSPEC, CNI_VERBS_LL_IB, CNI_VERBS_LL_ETH };

/* What to read besides the device and port attributes. */
enum {
	CNI_VERBS_PKEYS = 1 << 0, /* every port's pkey table (sysfs reads in libibverbs) */
	CNI_VERBS_GID0 = 1 << 1,  /* GID index 0: the subnet prefix and port GUID */
	CNI_VERBS_GIDS = 1 << 2,  /* the GID table's valid entries (cni_verbs_dev.gids) */
};

/* GID types, as enum ibv_gid_type numbers them. */
enum { CNI_VERBS_GID_IB = 0, CNI_VERBS_GID_ROCE_V1 = 1, CNI_VERBS_GID_ROCE_V2 = 2 };

#define CNI_VERBS_GIDS_MAX 64 /* valid GID entries kept per device (all ports) */

/* One valid entry of a port's GID table (ibv_query_gid_table). */
struct cni_verbs_gid {
	uint8_t raw[16];       /* network order, as ibv_gid */
	uint32_t index;	       /* the GID index (NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX) */
	uint32_t port;	       /* 1-based */
	uint32_t type;	       /* CNI_VERBS_GID_* */
	uint32_t ndev_ifindex; /* the netdev it belongs to, in the reader's namespace (0: none) */
};

struct cni_verbs_port {
	unsigned int num;	   /* 1-based, as verbs numbers ports */
	int state;		   /* CNI_VERBS_PORT_* */
	unsigned int phys_state;   /* 5 LinkUp, 3 Disabled, 2 Polling, ... */
	int link_layer;		   /* CNI_VERBS_LL_* */
	unsigned int width, speed; /* raw active_width / active_speed */
	unsigned int active_mtu;   /* bytes (256 ... 4096), 0 unknown */
	uint16_t lid, sm_lid;
	int gid_tbl_len;
	unsigned int pkey_tbl_len;
	bool has_gid0;
	uint64_t subnet_prefix, port_guid;   /* GID 0 (IB: the port GUID), host order */
	unsigned int n_pkeys;		     /* entries read, by index (0 entries kept) */
	uint16_t pkeys[CNI_VERBS_PKEYS_MAX]; /* host order, membership bit included */
};

struct cni_verbs_dev {
	char name[CNI_RDMA_NAME_MAX];
	uint64_t node_guid, sys_image_guid; /* host order */
	char fw_ver[64];
	char uverbs[64]; /* its character device's name, "uverbs0" (/dev/infiniband/) */
	uint32_t vendor_id, vendor_part_id;
	unsigned int phys_ports; /* the device's count; at most PORTS_MAX are read */
	unsigned int n_ports;
	struct cni_verbs_port ports[CNI_VERBS_PORTS_MAX];
	/* With CNI_VERBS_GIDS: the valid entries of every port's GID table;
	 * gids_ret is the table's read, 0 or -errno (then n_gids is 0). */
	unsigned int n_gids;
	int gids_ret;
	struct cni_verbs_gid gids[CNI_VERBS_GIDS_MAX];
};

/* Query the named device in the calling process, as it sees the device:
 * -ENODEV when libibverbs does not list it (absent from this network
 * namespace, no uverbs device or no provider), -ENOSYS without kernel verbs
 * support, -EPERM when the kernel refuses the open (the device belongs to
 * another network namespace), other -errno from a query. */
int cni_verbs_query(const char *name, unsigned int flags, struct cni_verbs_dev *dev);

/* The same from a child process: inside the network namespace netns_fd
 * (with its own sysfs mounted, as a pod has it) or, for -1, the caller's;
 * killed after timeout_ms (-ETIMEDOUT). */
int cni_verbs_query_in(int netns_fd, const char *name, unsigned int flags, unsigned int timeout_ms,
		       struct cni_verbs_dev *dev);

/* The non-zero entries of port's pkey table, read through verbs here: how
 * many (at most max) or -errno as above. ib-sriov's pkey check uses it
 * before sysfs. */
int cni_verbs_pkeys(const char *name, unsigned int port, uint16_t *pkeys, size_t max);

/* What CHECK expects of an InfiniBand port besides ACTIVE. */
struct cni_verbs_expect {
	bool has_guid;
	uint64_t port_guid; /* the GUID ADD set (host order, as ifla_vf_guid) */
	bool has_pkey;
	uint16_t pkey; /* must be in the table (membership bit ignored) */
};

/* CHECK's verbs view of a device inside the pod netns_fd: listed, opens,
 * every port ACTIVE, and on InfiniBand ports the expected port GUID and
 * pkey. 0, or -errno with err (code 101, "CHECK failed") naming the device,
 * the port, what was found and what to do. want may be NULL. */
int cni_verbs_check(int netns_fd, const char *name, const struct cni_verbs_expect *want,
		    struct cni_error *err);

/* Names for messages: "ACTIVE", "DOWN" ...; "InfiniBand", "Ethernet";
 * "LinkUp", "Disabled" ...; a rate such as "100 Gb/sec (4X EDR)" into buf. */
const char *cni_verbs_port_state_str(int state);
const char *cni_verbs_link_layer_str(int ll);
const char *cni_verbs_phys_state_str(unsigned int phys);
const char *cni_verbs_rate_str(const struct cni_verbs_port *p, char *buf, size_t len);

/* A sentence for an errno from this module. */
const char *cni_verbs_strerror(int ret);

/* Why a port is not ACTIVE, with what to do, for CHECK and the doctor. */
const char *cni_verbs_port_hint(const struct cni_verbs_port *p);

#endif
