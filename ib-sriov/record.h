/* SPDX-License-Identifier: Apache-2.0 */
/* The attachment record: what ADD found and changed, so that DEL, GC and a
 * failed ADD can put the VF back. Typed, with a has-flag per optional part
 * (as wireguard-tools' struct wgdevice); one key table drives both JSON
 * directions (record.c, through cni/state/record.h). */
#ifndef IBSRIOV_RECORD_H
#define IBSRIOV_RECORD_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel/link.h"
#include "kernel/pci.h"
#include "state/state.h"

/* Overridable so the unit tier can run ADD against a fake kernel. The
 * records live where the Go ib-sriov-cni never looks; IBSRIOV_GO_DIR is
 * its cache directory (and where ibcni 0.x kept its records). */
#ifndef IBSRIOV_STATE_DIR
#define IBSRIOV_STATE_DIR "/var/lib/cni/ibcni/ib-sriov"
#endif
#ifndef IBSRIOV_GO_DIR
#define IBSRIOV_GO_DIR "/var/lib/cni/ib-sriov"
#endif

#define IBSRIOV_RECORD_VERSION 2
/* Room is left under NAME_MAX for the atomic write's temporary name. */
#define IBSRIOV_RECORD_NAME_MAX 200
#define IBSRIOV_RECORD_RDMA_MAX 8

enum ibsriov_kind { IBSRIOV_ETH, IBSRIOV_IB, IBSRIOV_VFIO };

enum {
	IBSRIOV_REC_HAS_NETDEV = 1 << 0,      /* orig_* describe the VF netdev */
	IBSRIOV_REC_HAS_VF_ORIG = 1 << 1,     /* vf_orig holds PF-side originals */
	IBSRIOV_REC_HAS_CHILD = 1 << 2,	      /* the pod got an IPoIB child */
	IBSRIOV_REC_HAS_RDMA = 1 << 3,	      /* rdma[] moved with rdmaIsolation */
	IBSRIOV_REC_COMPLETE = 1 << 4,	      /* ADD finished */
	IBSRIOV_REC_GO_CACHE = 1 << 5,	      /* read from a Go ib-sriov-cni cache */
	IBSRIOV_REC_MAC_UNSET = 1 << 6,	      /* the VF had no admin MAC */
	IBSRIOV_REC_PF_PASSTHROUGH = 1 << 7,  /* deviceID is a PF (vfio-pci) */
	IBSRIOV_REC_HAS_GO_TWIN = 1 << 8,     /* go_twin identifies the twin written */
	IBSRIOV_REC_HAS_ATTRS = 1 << 9,	      /* orig_attrs: the netdev's, before the move */
	IBSRIOV_REC_HAS_RDMA_INDEX = 1 << 10, /* rdma_index[] parallel to rdma[] */
	IBSRIOV_REC_HAS_MAC = 1 << 11,	      /* mac is the pod's (Ethernet) */
	IBSRIOV_REC_HAS_GUID = 1 << 12,	      /* guid is the pod's (InfiniBand) */
	IBSRIOV_REC_HAS_DEVINFO = 1 << 13,    /* devinfo names the device-info file */
	IBSRIOV_REC_HAS_IPAM = 1 << 14,	      /* ipam_conf, cni_path (add/heal.c) */
	IBSRIOV_REC_HAS_RAIL = 1 << 15,	      /* rail_*: the railTable rules ADD adds */
	IBSRIOV_REC_HAS_GEN = 1 << 16,	      /* gen: this ADD's, not an earlier one's */
	IBSRIOV_REC_FROM_GO_DIR = 1 << 17,    /* read from IBSRIOV_GO_DIR (never written) */
	IBSRIOV_REC_HAS_POD = 1 << 18,	      /* pod_ns, pod_name: CNI_ARGS' K8S_POD_* */
	IBSRIOV_REC_HAS_POD_MTU = 1 << 19,    /* pod_mtu: the MTU ADD left on the pod netdev */
	IBSRIOV_REC_HAS_POD_ADDRS = 1 << 20,  /* pod_addrs: the addresses the IPAM gave */
};

/* ADD's generation: when it started, "<seconds>.<nanoseconds>". */
#define IBSRIOV_RECORD_GEN_LEN 32
/* A Kubernetes namespace (63) or pod name (253), and the NUL. */
#define IBSRIOV_POD_NAME_MAX 254

/* railTable: one source rule per address ("10.56.0.3/32", "fd00::3/128"). */
#define IBSRIOV_RAIL_RULES_MAX	8
#define IBSRIOV_RAIL_PREFIX_LEN 48 /* an IPv6 address, "/128" and the NUL */

struct ibsriov_record {
	char name[NAME_MAX + 1]; /* file name under IBSRIOV_STATE_DIR */
	uint32_t flags;		 /* IBSRIOV_REC_* */
	int version;
	char *network, *container_id, *netns; /* owned */
	char ifname[IFNAMSIZ];
	char device[CNI_PCI_ADDR_LEN];
	enum ibsriov_kind kind;
	char pf[IFNAMSIZ];
	int pf_ifindex, vf;
	/* The VF netdev as found (IBSRIOV_REC_HAS_NETDEV). */
	char orig_name[IFNAMSIZ], tmpname[IFNAMSIZ];
	char link_kind[32]; /* IFLA_INFO_KIND at ADD, "" for hardware */
	unsigned int orig_mtu;
	bool orig_up;
	unsigned char orig_mac[CNI_MAC_MAX];
	unsigned int orig_mac_len;
	int orig_ifindex, pod_ifindex; /* identity checks besides the PCI parent */
	int iflink;		       /* IFLA_LINK at ADD (a simulated VF's peer) */
	/* Alias, flags, group, queue length, GSO/GRO limits as the host had
	 * them (IBSRIOV_REC_HAS_ATTRS; a record of an older build has none,
	 * and DEL then leaves them as the pod left them, as that build did). */
	struct cni_link_attrs orig_attrs;
	/* PF-side originals (IBSRIOV_REC_HAS_VF_ORIG); vf_orig.mask says which
	 * settings ADD may have changed, vf_changed which it did change. */
	struct cni_vf vf_orig;
	uint32_t vf_changed;
	char rdma[IBSRIOV_RECORD_RDMA_MAX][CNI_RDMA_NAME_MAX];
	/* Their RDMA device indices (IBSRIOV_REC_HAS_RDMA_INDEX): global, kept
	 * across renames and moves, so a pod's rename cannot hide one. */
	uint32_t rdma_index[IBSRIOV_RECORD_RDMA_MAX];
	unsigned int n_rdma;
	/* The Go-format twin as ADD left it (IBSRIOV_REC_HAS_GO_TWIN), from
	 * cni_state_identity(): DEL removes it unread while it is unchanged. */
	char go_twin[CNI_STATE_ID_MAX];
	/* The address the attachment holds on the node (held.c): one
	 * attachment per MAC and per GUID. Older builds ignore the keys. */
	unsigned char mac[6];
	uint64_t guid;
	/* The Device Information file's name (devinfo.c), known before the
	 * first change; an older build ignores the key (and leaves the file). */
	char devinfo[NAME_MAX + 1];
	/* What the attachment's IPAM DEL needs when no runtime sends one (a
	 * pod gone without DEL, release/gone.c): the network's cniVersion, name, type
	 * and ipam as ADD got them, and ADD's CNI_PATH. Owned; NULL when none
	 * (no IPAM, or an older build's record). Older builds ignore the keys. */
	char *ipam_conf, *cni_path;
	/* railTable (IBSRIOV_REC_HAS_RAIL): the table, the rules' priority and
	 * sources, recorded before the first rule is added; DEL deletes only
	 * these. The table's routes all go through the VF netdev: the kernel
	 * removes them when it leaves the pod. Older builds ignore the keys. */
	uint32_t rail_table, rail_priority;
	char rail_rules[IBSRIOV_RAIL_RULES_MAX][IBSRIOV_RAIL_PREFIX_LEN];
	unsigned int n_rail_rules;
	/* Which ADD wrote the record (IBSRIOV_REC_HAS_GEN): a record re-read
	 * under the VF lock is the one read before it only when the generation
	 * is the same (ibsriov_record_reload). Older builds ignore the key. */
	char gen[IBSRIOV_RECORD_GEN_LEN];
	/* The pod's namespace and name from CNI_ARGS (IBSRIOV_REC_HAS_POD), so
	 * that `ib-sriov doctor --pod` finds its attachments. Older builds
	 * ignore the keys. */
	char pod_ns[IBSRIOV_POD_NAME_MAX], pod_name[IBSRIOV_POD_NAME_MAX];
	/* The MTU ADD left on the pod netdev (IBSRIOV_REC_HAS_POD_MTU): what
	 * the doctor compares the netdev's with. */
	unsigned int pod_mtu;
	/* The addresses the IPAM gave the pod netdev (IBSRIOV_REC_HAS_POD_ADDRS,
	 * the first IBSRIOV_RAIL_RULES_MAX): the doctor names one removed since. */
	char pod_addrs[IBSRIOV_RAIL_RULES_MAX][IBSRIOV_RAIL_PREFIX_LEN];
	unsigned int n_pod_addrs;
};

/* The record's file name for an attachment, "<containerID>:<ifname>" (no
 * valid container ID or interface name holds ':'). -ENAMETOOLONG past
 * IBSRIOV_RECORD_NAME_MAX, -EINVAL when not a single safe path component. */
int ibsriov_record_name(const char *id, const char *ifname, char *buf, size_t len);

/* Fill r for a new attachment: name and tuple. 0, -ENOMEM or -EINVAL. */
int ibsriov_record_init(struct ibsriov_record *r, const char *network, const char *id,
			const char *ifname, const char *netns);

/* Free what r owns (not r itself); r is left empty. */
void ibsriov_record_clear(struct ibsriov_record *r);

/* Decode (GUIDs as "xx:..:xx" strings; integers written by 0.x records
 * are still read): -EBADMSG on a missing or mistyped key, -ENOMEM. The
 * encoding is ibsriov_record_text(). */
int ibsriov_record_from_json(struct json_object *o, struct ibsriov_record *r);

/* Write atomically (0600) under IBSRIOV_STATE_DIR. 0 or -errno. */
int ibsriov_record_save(const struct ibsriov_record *r);

/* Read the record of (id, ifname): ours first, then a 0.x record or a Go
 * ib-sriov-cni cache under IBSRIOV_GO_DIR (taken over: netns is the
 * caller's). -ENOENT when there is none; -ESTALE when the stored tuple is
 * another attachment's; -EBADMSG when unparseable; other -errno transient. */
int ibsriov_record_find(const char *id, const char *ifname, const char *netns,
			struct ibsriov_record *r);

/* Whether a read error is for good (not JSON, not a regular file, too big,
 * a link): such a record is never undone, and never blocks DEL or GC. */
bool ibsriov_record_unreadable(int ret);

/* Read a record of ours by file name (GC). Same returns. */
int ibsriov_record_load(const char *name, struct ibsriov_record *r);

/* Read seen's record again (by its name, or its Go cache's), into now:
 * 0 when it is still the attachment seen (container ID, ifname, netns,
 * device, ADD's generation); -ENOENT when it is gone or another
 * attachment's since; -EBADMSG when unparseable; other -errno transient. */
int ibsriov_record_reload(const struct ibsriov_record *seen, struct ibsriov_record *now);

/* The record as compact JSON text, in cni_json_dump()'s form (GUIDs as
 * "xx:..:xx" strings); caller frees; NULL with errno ENOMEM. */
char *ibsriov_record_text(const struct ibsriov_record *r);

/* Remove the record and any Go-format cache of the same attachment. */
int ibsriov_record_remove(const struct ibsriov_record *r);

/* The Go ib-sriov-cni cache for this attachment, so that a downgrade's
 * DEL finds the VF (written when ADD completes, removed with the record);
 * its identity into r->go_twin. */
int ibsriov_gocache_save(struct ibsriov_record *r, const char *cni_version, const char *ipam_type);

/* A Go ib-sriov-cni cache (or a 0.x record) as a record; netns from DEL. */
int ibsriov_gocache_parse(struct json_object *o, const char *file, const char *netns,
			  struct ibsriov_record *r);

/* A 0.x record or a Go cache at IBSRIOV_GO_DIR/<id>-<ifname> as a record
 * (r cleared first, whatever the outcome): -ENOENT when there is none,
 * -ESTALE when it is another attachment's, else as cni_state_read(). */
int ibsriov_gocache_find(const char *id, const char *ifname, const char *netns,
			 struct ibsriov_record *r);

#endif
