/* SPDX-License-Identifier: Apache-2.0 */
/* rdma-ns's attachment record and rdma-cni's cache entry, in the state
 * layer so that rdma-ns and ib-sriov's doctor read them through one table
 * (a plugin never includes another plugin). */
#ifndef CNI_STATE_RECORD_RDMANS_H
#define CNI_STATE_RECORD_RDMANS_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

/* Ours. rdma-cni reads only its own directory, so a downgrade never takes
 * our records for its cache. */
#ifndef RDMANS_STATE_DIR /* the unit tier's fake_paths.h moves it */
#define RDMANS_STATE_DIR "/var/lib/cni/rdma-ns"
#endif
/* rdma-cni's cache (<network>-<containerID>-<ifname>), read on upgrade. */
#define RDMACNI_STATE_DIR "/var/lib/cni/rdma"
#define RDMANS_MAX_DEVS	  8
/* A record's file name; the state module's temp file adds a dot, a dot and
 * six characters, and the name must stay one path component (NAME_MAX). */
#define RDMANS_NAME_MAX 223
#define RDMANS_DEV_MAX	(NAME_MAX + 1) /* a PCI address or an auxiliary device name */
/* An RDMA device name (kernel/rdma.h's CNI_RDMA_NAME_MAX; rdmans.h checks). */
#define RDMANS_RDMA_NAME_MAX 64
/* "netnsId": up to four decimal 64-bit numbers and three ':'. */
#define RDMANS_NETNS_ID_MAX 96
/* A Kubernetes namespace or pod name (at most 253) and the NUL. */
#define RDMANS_POD_NAME_MAX 254
/* An IPv6 address as text and its NUL. */
#define RDMANS_ADDR_MAX 48

/* Which fields of a record are present. */
enum {
	RDMANS_REC_HAS_NETWORK = 1U << 0,
	RDMANS_REC_HAS_CONTAINERID = 1U << 1,
	RDMANS_REC_HAS_IFNAME = 1U << 2,
	RDMANS_REC_HAS_NETNS = 1U << 3,
	RDMANS_REC_HAS_DEVICEID = 1U << 4,
	RDMANS_REC_HAS_RDMA = 1U << 5,
	RDMANS_REC_HAS_RDMA_INDEX = 1U << 6, /* rdma_index[] parallel to rdma[] */
	RDMANS_REC_HAS_NETNS_ID = 1U << 7,
	RDMANS_REC_HAS_POD = 1U << 8,	     /* pod_ns, pod_name (CNI_ARGS' K8S_POD_*) */
	RDMANS_REC_HAS_POD_MTU = 1U << 9,    /* pod_mtu */
	RDMANS_REC_HAS_POD_ADDRS = 1U << 10, /* pod_addrs */
};

/* The identity of the namespace ADD moved the devices into (the kernel's
 * cni_netns_id): nsfs device and inode, the kernel's namespace ID and the
 * namespace's cookie (each 0 when the kernel has none). A netns path can
 * come to name another namespace (a recycled /proc/<pid>/ns/net, even one
 * with the same reused inode), so DEL enters the path only while it is
 * still this one. */
struct rdmans_netns_id {
	uint64_t dev, ino, nsid, cookie;
};

/* One attachment: what DEL needs to undo it. */
struct rdmans_record {
	unsigned int has; /* RDMANS_REC_HAS_* */
	char network[RDMANS_NAME_MAX + 1];
	char containerid[RDMANS_NAME_MAX + 1];
	char ifname[IFNAMSIZ];
	char netns[PATH_MAX];
	char deviceid[RDMANS_DEV_MAX];
	char rdma[RDMANS_MAX_DEVS][RDMANS_RDMA_NAME_MAX];
	unsigned int n_rdma;
	/* Their RDMA device indices: global, kept across renames and moves,
	 * so DEL finds a device the pod renamed (absent in older records). */
	uint32_t rdma_index[RDMANS_MAX_DEVS];
	unsigned int n_rdma_index;
	/* "netnsId", "<dev>:<ino>", "<dev>:<ino>:<nsid>" or
	 * "<dev>:<ino>:<nsid>:<cookie>" (nsid 0 when the kernel has none) in
	 * decimal (absent in older records): read and set through the two
	 * functions below. */
	char netns_id[RDMANS_NETNS_ID_MAX];
	/* The pod's namespace and name from CNI_ARGS, for `ib-sriov doctor
	 * --pod` (absent in older records; older builds ignore the keys). */
	char pod_ns[RDMANS_POD_NAME_MAX], pod_name[RDMANS_POD_NAME_MAX];
	/* CNI_IFNAME's MTU in the pod at ADD, as the previous plugin left it
	 * (absent when the pod had no such netdev, and in older records). */
	unsigned int pod_mtu;
	/* CNI_IFNAME's addresses in the previous result at ADD (the first
	 * RDMANS_MAX_DEVS): the doctor names one removed since. */
	char pod_addrs[RDMANS_MAX_DEVS][RDMANS_ADDR_MAX];
	unsigned int n_pod_addrs;
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
	char sandbox_dev[RDMANS_RDMA_NAME_MAX];
	char container_dev[RDMANS_RDMA_NAME_MAX];
};

/* JSON <-> struct from one key table each. Unknown keys are
 * ignored; a known key of another type, an over-long string or one with an
 * embedded NUL, a netnsId that is not "dev:ino[:nsid[:cookie]]", is -EBADMSG.
 * to_json returns -ENOMEM when allocation fails. */
int rdmans_record_to_json(const struct rdmans_record *rec, struct json_object **out);
/* The record as compact JSON text (what save writes); caller frees; NULL
 * with errno ENOMEM. */
char *rdmans_record_text(const struct rdmans_record *rec);
int rdmans_record_from_json(struct json_object *obj, struct rdmans_record *rec);
int rdmacni_cache_from_json(struct json_object *obj, struct rdmacni_cache *c);
/* (An entry without a device name is -EBADMSG; a missing container name is
 * the sandbox name: rdma-cni never renames.) */

/* Set rec's netnsId to id. */
void rdmans_record_set_netns_id(struct rdmans_record *rec, const struct rdmans_netns_id *id);

/* rec's netnsId into id: 0, -ENOENT when the record has none (an older
 * build's), -EBADMSG when it is not one. */
int rdmans_record_netns_id(const struct rdmans_record *rec, struct rdmans_netns_id *id);

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

#endif
