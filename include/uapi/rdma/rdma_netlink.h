/* SPDX-License-Identifier: Apache-2.0 */
/* The part of the kernel's RDMA netlink ABI (include/uapi/rdma/rdma_netlink.h)
 * that ibcni speaks. Values are the kernel's; they never change once
 * released. Newer kernels send more attributes: parse tables skip unknown
 * ones, so IBCNI_RDMA_ATTR_MAX only bounds what we read. */
#ifndef IBCNI_UAPI_RDMA_NETLINK_H
#define IBCNI_UAPI_RDMA_NETLINK_H

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

#define RDMA_NL_NLDEV 5
#define RDMA_NL_GET_TYPE(client, op) (((client) << 10) + (op))
#define RDMA_NL_GET_CLIENT(type) (((type) >> 10) & 0x3f)
#define RDMA_NL_GET_OP(type) ((type) & 0x3ff)

enum {
	RDMA_NLDEV_CMD_GET = 1,
	RDMA_NLDEV_CMD_SET = 2,
	RDMA_NLDEV_CMD_SYS_GET = 6,
	RDMA_NLDEV_CMD_SYS_SET = 7,
};

enum {
	RDMA_NLDEV_ATTR_DEV_INDEX = 1,		/* u32 */
	RDMA_NLDEV_ATTR_DEV_NAME = 2,		/* string */
	RDMA_NLDEV_ATTR_PORT_INDEX = 3,		/* u32: number of ports in a dump */
	RDMA_NLDEV_ATTR_NODE_GUID = 6,		/* u64 */
	RDMA_NLDEV_ATTR_NDEV_NAME = 51,		/* string */
	RDMA_NLDEV_ATTR_LINK_TYPE = 65,		/* string, "rxe" / "siw" */
	RDMA_NLDEV_SYS_ATTR_NETNS_MODE = 66,	/* u8: 0 exclusive, 1 shared */
	RDMA_NLDEV_NET_NS_FD = 68,		/* u32 */
	IBCNI_RDMA_ATTR_MAX = 68,
};

#endif
