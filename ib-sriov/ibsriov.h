/* SPDX-License-Identifier: Apache-2.0 */
/* ib-sriov: the SR-IOV VF plugin for InfiniBand and RoCE. */
#ifndef IBSRIOV_H
#define IBSRIOV_H

#include <json-c/json.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "cni.h"
#include "link.h"
#include "pci.h"

/* Overridable so the unit tier can run ADD against a fake kernel. */
#ifndef IBSRIOV_STATE_DIR
#define IBSRIOV_STATE_DIR "/var/lib/cni/ib-sriov"
#endif
#ifndef IBSRIOV_LOCK_DIR
#define IBSRIOV_LOCK_DIR "/run/ibcni/ib-sriov"
#endif
#define IBSRIOV_NETDEV_WAIT_MS 10000
#define IBSRIOV_PKEY_WAIT_MS 10000
#define IBSRIOV_LOCK_WAIT_MS 30000

struct ibsriov_conf {
	char device[CNI_PCI_ADDR_LEN];
	bool has_guid;
	uint64_t guid;
	const char *guid_from;		/* which key gave the GUID */
	bool has_pkey;
	uint16_t pkey;
	bool ib_kubernetes, rdma_isolation, vfio;
	struct cni_vf vf;		/* PF-side settings asked for (mask) */
	bool has_mac;			/* vf.mac is also the netdev's MAC */
	unsigned int mtu;		/* 0: leave it */
	unsigned int netdev_wait_ms, pkey_wait_ms;
};

/* Parse and validate every key (code 7 naming the key and the accepted
 * values) before anything is touched. lenient (DEL, GC) tolerates a
 * missing or bad deviceID. */
int ibsriov_conf_load(struct cni_ctx *ctx, struct ibsriov_conf *c, bool lenient);

/* The attachment record: written before the first change, updated as
 * steps complete, removed last by DEL. Owned json, free with json_object_put. */
struct ibsriov_record {
	struct json_object *o;
	char name[NAME_MAX + 1];	/* <containerID>-<ifname> */
};

/* The record's file name for an attachment; -EINVAL when unsafe. */
int ibsriov_record_name(const char *id, const char *ifname, char *buf, size_t len);

/* Write (atomically, 0600), read (-ENOENT when absent) or remove a record
 * under IBSRIOV_STATE_DIR. */
int ibsriov_record_save(struct ibsriov_record *r);
int ibsriov_record_load(const char *name, struct ibsriov_record *r);
int ibsriov_record_remove(struct ibsriov_record *r);

/* Record fields: "" / dflt when absent; setters replace. */
const char *ibsriov_rec_str(const struct ibsriov_record *r, const char *key);
int64_t ibsriov_rec_int(const struct ibsriov_record *r, const char *key, int64_t dflt);
void ibsriov_rec_set_str(struct ibsriov_record *r, const char *key, const char *v);
void ibsriov_rec_set_int(struct ibsriov_record *r, const char *key, int64_t v);

/* Put the VF's PF-side settings recorded under "vf_orig" back (only the
 * fields recorded as changed). 0 or -errno. */
int ibsriov_vf_restore(const struct ibsriov_record *r);

/* Bring the VF netdev back from the pod (or find it on the host), give it
 * its original name, MTU and MAC. Missing is success. */
int ibsriov_netdev_release(const struct ibsriov_record *r, struct cni_error *err);

/* Undo an attachment by its record: netdev back, PF settings restored,
 * record removed (ADD's rollback, under the VF lock it already holds). */
int ibsriov_release(struct ibsriov_record *r, struct cni_error *err);

/* The same under the VF's lock, for DEL and GC. */
int ibsriov_release_locked(struct ibsriov_record *r, struct cni_error *err);

/* Take IBSRIOV_LOCK_DIR/<kind>-<pci>.lock ("vf" per VF, "pf" around a
 * rebind) with a bounded wait; the locked fd, or -errno with err filled. */
int ibsriov_lock(const char *kind, const char *pci, struct cni_error *err);

/* The CNI commands (README, "ib-sriov"): ADD undoes every completed step on
 * failure; DEL succeeds for anything already gone; CHECK compares the pod
 * with prevResult; GC releases this network's stale records; STATUS asks
 * for exclusive RDMA mode when rdmaIsolation is set. All forward to the IPAM. */
int ibsriov_add(struct cni_ctx *ctx);
int ibsriov_del(struct cni_ctx *ctx);
int ibsriov_check(struct cni_ctx *ctx);
int ibsriov_gc(struct cni_ctx *ctx);
int ibsriov_status(struct cni_ctx *ctx);

#endif
