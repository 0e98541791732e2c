/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libibverbs for the unit tier: the ABI functions cni/kernel/verbs.c calls
 * (device list, open, close, device/port/GID/pkey queries), answering from
 * the table fv, with libibverbs' own error conventions (NULL or -1 with
 * errno, positive errno returns). Linked instead of libibverbs. */
#ifndef TESTS_FAKE_VERBS_H
#define TESTS_FAKE_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_VERBS_DEVS	 4
#define FAKE_VERBS_PORTS 2

struct fake_verbs_port {
	int state, phys_state; /* IBV_PORT_*, 5 LinkUp, 3 Disabled */
	int link_layer;	       /* IBV_LINK_LAYER_* (0 unspecified, 1 IB, 2 Ethernet) */
	int width, speed;
	uint64_t subnet_prefix, guid; /* GID 0, host order */
	int gid_tbl_len;
	unsigned int n_pkeys;
	uint16_t pkeys[8]; /* host order */
	int query_ret;	   /* query_port returns it (a positive errno) */
	int gid_fail;	   /* query_gid returns -1 (errno left alone) */
	int pkey_errno;	   /* query_pkey returns -1 with this errno */
	int active_mtu;	   /* enum ibv_mtu; 0 reads as IBV_MTU_1024 */
};

/* One valid GID entry as ibv_query_gid_table returns it. */
struct fake_verbs_gid {
	uint8_t raw[16];
	uint32_t index, port, type, ifindex;
};

struct fake_verbs_dev {
	char name[64];
	uint64_t node_guid;
	int open_errno;		    /* ibv_open_device fails with it */
	unsigned int open_sleep_ms; /* ... after sleeping this long */
	bool chatty;		    /* writes to stdout and stderr when opened */
	bool
	    audit; /* open fails with EMFILE unless fd 3 up is one fd, EACCES with any capability */
	unsigned int n_ports;
	struct fake_verbs_port ports[FAKE_VERBS_PORTS];
	unsigned int n_gids;
	struct fake_verbs_gid gids[8];
	int gid_table_ret; /* _ibv_query_gid_table returns it when negative */
};

struct fake_verbs {
	int list_errno; /* ibv_get_device_list fails with it */
	unsigned int n;
	struct fake_verbs_dev devs[FAKE_VERBS_DEVS];
	/* What the code did (in this process). */
	unsigned int lists, frees, opens, closes;
};

extern struct fake_verbs fv;

/* Reset fv to no devices (libibverbs' view of a node without RDMA: ENOSYS). */
void fake_verbs_reset(void);

/* Add an active one-port device: InfiniBand (4X EDR, GUIDs set, pkeys
 * 0xffff and 0x8001) or Ethernet (RoCE, no pkeys beyond 0xffff). */
struct fake_verbs_dev *fake_verbs_add(const char *name, bool ib);

#endif
