/* SPDX-License-Identifier: Apache-2.0 */
/* rdma-ns: moves a VF's RDMA devices into the pod (chained after the
 * netdev plugin) and manages the RDMA subsystem's netns mode. Installed as
 * rdma-ns and as rdma, the name every rdma-cni config uses. */
#ifndef RDMANS_H
#define RDMANS_H

#include <limits.h>
#include <net/if.h>

#include "protocol/cni.h"
#include "kernel/pci.h"
#include "kernel/rdma.h"

/* Ours. rdma-cni reads only its own directory, so a downgrade never takes
 * our records for its cache. */
#define RDMANS_STATE_DIR "/var/lib/cni/rdma-ns"
/* rdma-cni's cache (<network>-<containerID>-<ifname>), read on upgrade. */
#define RDMACNI_STATE_DIR "/var/lib/cni/rdma"
#define RDMANS_MAX_DEVS	  8
/* A record's file name; the state module's temp file adds a dot, a dot and
 * six characters, and the name must stay one path component (NAME_MAX). */
#define RDMANS_NAME_MAX 223
#define RDMANS_DEV_MAX	(NAME_MAX + 1) /* a PCI address or an auxiliary device name */

/* Which fields of a record are present. */
enum {
	RDMANS_REC_HAS_NETWORK = 1U << 0,
	RDMANS_REC_HAS_CONTAINERID = 1U << 1,
	RDMANS_REC_HAS_IFNAME = 1U << 2,
	RDMANS_REC_HAS_NETNS = 1U << 3,
	RDMANS_REC_HAS_DEVICEID = 1U << 4,
	RDMANS_REC_HAS_RDMA = 1U << 5,
	RDMANS_REC_HAS_RDMA_INDEX = 1U << 6, /* rdma_index[] parallel to rdma[] */
};

/* One attachment: what DEL needs to undo it. */
struct rdmans_record {
	unsigned int has; /* RDMANS_REC_HAS_* */
	char network[RDMANS_NAME_MAX + 1];
	char containerid[RDMANS_NAME_MAX + 1];
	char ifname[IFNAMSIZ];
	char netns[PATH_MAX];
	char deviceid[RDMANS_DEV_MAX];
	char rdma[RDMANS_MAX_DEVS][CNI_RDMA_NAME_MAX];
	unsigned int n_rdma;
	/* Their RDMA device indices: global, kept across renames and moves,
	 * so DEL finds a device the pod renamed (absent in older records). */
	uint32_t rdma_index[RDMANS_MAX_DEVS];
	unsigned int n_rdma_index;
};

/* Which fields of an rdma-cni cache entry are present. */
enum {
	RDMACNI_HAS_VERSION = 1U << 0,
	RDMACNI_HAS_DEVICEID = 1U << 1,
	RDMACNI_HAS_SANDBOX_DEV = 1U << 2,
	RDMACNI_HAS_CONTAINER_DEV = 1U << 3,
};

/* rdma-cni's RdmaNetState ({"version":"1.0","deviceID":...,
 * "sandboxRdmaDevName":...,"containerRdmaDevName":...}). */
struct rdmacni_cache {
	unsigned int has; /* RDMACNI_HAS_* */
	char version[16];
	char deviceid[RDMANS_DEV_MAX];
	char sandbox_dev[CNI_RDMA_NAME_MAX];
	char container_dev[CNI_RDMA_NAME_MAX];
};

/* record.c: JSON <-> struct from one key table each. Unknown keys are
 * ignored; a known key of another type, an over-long string or one with an
 * embedded NUL is -EBADMSG. to_json returns -ENOMEM when allocation fails. */
int rdmans_record_to_json(const struct rdmans_record *rec, struct json_object **out);
int rdmans_record_from_json(struct json_object *obj, struct rdmans_record *rec);
int rdmacni_cache_from_json(struct json_object *obj, struct rdmacni_cache *c);
/* (An entry without a device name is -EBADMSG; a missing container name is
 * the sandbox name: rdma-cni never renames.) */

/* The record's file name, "<network>:<containerID>:<ifname>": ':' occurs
 * in none of the three (network and container ID charset, CNI_IFNAME
 * rules), so two tuples never share a name. -ENAMETOOLONG past
 * RDMANS_NAME_MAX. */
int rdmans_record_name(const char *network, const char *containerid, const char *ifname,
		       char buf[RDMANS_NAME_MAX + 1]);

/* The name the previous version (and rdma-cni) used, "<network>-<cid>-<ifname>":
 * ambiguous, so a record found under it is used only when its tuple matches. */
int rdmans_record_old_name(const char *network, const char *containerid, const char *ifname,
			   char buf[NAME_MAX + 1]);

/* True when rec names exactly this attachment. */
bool rdmans_record_is(const struct rdmans_record *rec, const char *network, const char *containerid,
		      const char *ifname);

/* Read RDMANS_STATE_DIR/name into rec: -ENOENT when absent, -EBADMSG when
 * it is not a complete record, other -errno as the read failed. */
int rdmans_record_load(const char *name, struct rdmans_record *rec);

/* Write rec atomically and durably under RDMANS_STATE_DIR. */
int rdmans_record_save(const char *name, const struct rdmans_record *rec);

/* Read RDMACNI_STATE_DIR/name: -ENOENT when absent, -EBADMSG when unusable. */
int rdmacni_cache_load(const char *name, struct rdmacni_cache *c);

/* True for a read error that another try cannot cure (not JSON, not a
 * regular file, too large, a symlink): the file is dead weight. */
bool rdmans_load_error_permanent(int ret);

/* device.c: the function whose RDMA devices move, validated. deviceID,
 * else pciBusID, else the pciID of the prevResult interface in this pod,
 * else the PCI device of the pod netdev with that interface's MAC. It must
 * be a VF (or an auxiliary device of a VF, or a scalable function), one
 * kubelet allocated to the pod (cni_device_check, before any RDMA request)
 * and match the prevResult's pciID when there is one: code 7 otherwise. */
int rdmans_device(struct cni_sys *sys, struct cni_ctx *ctx, int pod, char dev[RDMANS_DEV_MAX]);

/* RDMA device names of a PCI function or auxiliary device (sysfs). */
int rdmans_devices_of(const char *dev, char names[][CNI_RDMA_NAME_MAX], size_t max);

/* deviceID or pciBusID as configured (normalised when a PCI address),
 * "" when neither is set, *key (optional) naming the key used; -EINVAL (err
 * filled, code 7) for a bad value in either key, or two different devices. */
int rdmans_configured_device(const struct cni_conf *conf, char dev[RDMANS_DEV_MAX],
			     const char **key, struct cni_error *err);

/* common.c */

/* Code 104 explaining the kernel rule when the mode is not exclusive;
 * code 50 instead when for_status. */
int rdmans_require_exclusive(struct cni_sys *sys, struct cni_ctx *ctx, bool for_status);

/* args.cni.debug (rdma-cni's key): debug logging. A wrong type is code 7
 * when strict (ADD, CHECK); DEL and GC log it and go on. */
int rdmans_args(struct cni_ctx *ctx, bool strict);

/* This request's record name; code 4 when it would be too long. */
int rdmans_ctx_record_name(struct cni_ctx *ctx, char buf[RDMANS_NAME_MAX + 1]);

/* Open a pod netns for an undo step: 0 with *fd, or 1 when it is
 * definitely gone (absent, or no longer a network namespace), or -errno. */
int rdmans_open_pod(struct cni_sys *sys, const char *path, int *fd);

/* Undo rec (moved back from its netns) and remove the record name. Only a
 * definite answer skips a step; anything else keeps the record, fills err
 * and fails, so the runtime's retry can finish. */
int rdmans_release(struct cni_sys *sys, const char *name, const struct rdmans_record *rec,
		   struct cni_error *err);

/* release.c: DEL's and GC's view of what was attached. */

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

/* `rdma-ns devices`: the RDMA devices visible here, one per line
 * ("index name link-type node-guid ports"). */
int rdmans_devices_main(void);

#endif
