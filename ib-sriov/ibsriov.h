/* SPDX-License-Identifier: Apache-2.0 */
/* ib-sriov: the SR-IOV VF plugin for InfiniBand and RoCE. */
#ifndef IBSRIOV_H
#define IBSRIOV_H

#include <json-c/json.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "protocol/cni.h"
#include "kernel/link.h"
#include "kernel/pci.h"
#include "record.h"

#ifndef IBSRIOV_LOCK_DIR
#define IBSRIOV_LOCK_DIR "/run/ibcni/ib-sriov"
#endif
#define IBSRIOV_NETDEV_WAIT_MS 10000
#define IBSRIOV_PKEY_WAIT_MS   10000
#define IBSRIOV_LOCK_WAIT_MS   30000
#define IBSRIOV_RECORDS_MAX    4096 /* directory entries read by a scan */

/* Per-rail source routing (rail.c): "railTable", "railKeepMain",
 * "railSysctls". */
struct ibsriov_rail_conf {
	bool on;	/* railTable given */
	bool automatic; /* railTable "auto": derived from the pod interface */
	uint32_t table; /* the number given */
	bool keep_main, sysctls;
};

struct ibsriov_conf {
	char device[CNI_PCI_ADDR_LEN];
	bool has_guid;
	uint64_t guid;
	const char *guid_from; /* which key gave the GUID */
	bool guid_fallback;    /* derive one for a VF without (guid_fallback.c) */
	bool has_pkey;	       /* "pkey" parsed (ib-kubernetes' key) */
	uint16_t pkey;
	bool ib_kubernetes, rdma_isolation, vfio;
	bool pkey_enforce;    /* pkey table wait and IPoIB child (opt-in) */
	struct cni_vf vf;     /* PF-side settings asked for (mask) */
	bool has_mac;	      /* vf.mac is also the netdev's MAC */
	const char *mac_from; /* which key gave the MAC */
	unsigned int mtu;     /* 0: leave it */
	unsigned int netdev_wait_ms, pkey_wait_ms;
	unsigned int port_wait_ms; /* "waitPortActiveMs" (add/portwait.c); 0: no wait */
	struct ibsriov_rail_conf rail;
	char rdma_name[CNI_RDMA_NAME_MAX]; /* "rdmaName" (with rdmaIsolation); "": keep */
};

/* The pod side of an attachment as ADD leaves it, for the features (rails,
 * device information) that take it instead of ADD's own state. */
struct ibsriov_pod {
	struct cni_sys *sys;
	struct cni_ctx *ctx;
	int netns_fd; /* the pod's network namespace */
	int ifindex;  /* the pod interface; 0: none (vfio-pci, a PF passed through) */
};

/* Parse and validate every key (code 7 naming the key and the accepted
 * values) before anything is touched. lenient (DEL, GC) tolerates a
 * missing or bad deviceID. */
int ibsriov_conf_load(struct cni_ctx *ctx, struct ibsriov_conf *c, bool lenient);

/* The network's own "dns", decoded as a result's (code 7 when malformed);
 * *out (when asked, NULL if absent) is the caller's to free. */
int ibsriov_conf_dns(struct cni_ctx *ctx, struct cni_result **out);

/* The port GUID CHECK expects of an InfiniBand attachment: the configured
 * one, else the one ADD noted when guidFallback is set (derived, or the
 * VF's own), else the VF's recorded original; false when none is known. */
bool ibsriov_check_guid(const struct ibsriov_conf *conf, const struct ibsriov_record *rec,
			uint64_t *guid);

/* The CNI commands (README, "ib-sriov"): ADD undoes every completed step on
 * failure; DEL succeeds for anything already gone; CHECK compares the pod
 * with prevResult; GC releases this network's stale records; STATUS asks
 * for exclusive RDMA mode when rdmaIsolation is set. All forward to the IPAM. */
int ibsriov_add(struct cni_ctx *ctx);
int ibsriov_del(struct cni_ctx *ctx);
int ibsriov_check(struct cni_ctx *ctx);
int ibsriov_gc(struct cni_ctx *ctx);
int ibsriov_status(struct cni_ctx *ctx);

/* `ib-sriov reconcile [--dry-run] [--grace SECONDS] [--every SECONDS]`
 * (reconcile/): the node agent; exit 0 (2 on a usage error). */
int ibsriov_reconcile_main(int argc, char **argv);

/* `ib-sriov doctor [--json]` (doctor.c): the node's readiness report on
 * stdout; 1 when a finding is an error, 2 on a usage error, else 0. */
int ibsriov_doctor_main(int argc, char **argv);

#endif
