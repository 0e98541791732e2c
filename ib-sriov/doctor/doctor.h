/* SPDX-License-Identifier: Apache-2.0 */
/* `ib-sriov doctor`, private to its room (README.md): doctor.c (the
 * command, the text form), state.c (the attachments our records and the Go
 * and rdma-ns records name), vf.c (the PFs and VFs, their ports), rdma.c
 * (the RDMA netns mode and devices), portwait.c (the waitPortActiveMs hint),
 * report.c (the JSON helpers and findings they all use); pod.c and
 * pod_rdma.c (`--pod`, `--netns`: one pod's attachments). The report is
 * one JSON tree. */
#ifndef IBSRIOV_DOCTOR_H
#define IBSRIOV_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include <limits.h>
#include <net/if.h>

#include "kernel/rdma.h"
#include "kernel/sys.h"
#include "kernel/verbs_diag.h"

#ifndef DOCTOR_MODPROBE_DIR
#define DOCTOR_MODPROBE_DIR "/etc/modprobe.d"
#endif
#ifndef DOCTOR_UNIT_DIR
#define DOCTOR_UNIT_DIR "/etc/systemd/system"
#endif
#ifndef DOCTOR_CHECKPOINT
#define DOCTOR_CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#endif
#define DOCTOR_USAGE                                                                               \
	"usage: ib-sriov doctor [--json]\n"                                                        \
	"       ib-sriov doctor --pod NAMESPACE/NAME [--json]\n"                                   \
	"       ib-sriov doctor --netns PATH [--json]\n"
#define DOCTOR_PFS_MAX 64
#define DOCTOR_VFS_MAX 256
#define DOCTOR_UNIT    "rdma-ns-netns-mode.service"
#define DOCTOR_BOOT_FIX                                                                            \
	"set the mode at boot: install conf-examples/ib_core.conf as "                             \
	"/etc/modprobe.d/ib_core.conf "                                                            \
	"(options ib_core netns_mode=0), update-initramfs -u and reboot; or enable "               \
	"conf-examples/" DOCTOR_UNIT " (it runs `rdma-ns netns-mode exclusive` before the "        \
	"container runtime). At run time the kernel refuses the switch while any other network "   \
	"namespace exists"

struct doctor {
	struct json_object *root, *findings;
	unsigned int errors, warnings;
	bool rdma, exclusive, boot_known, boot_exclusive, shared_plugin;
	struct json_object *held; /* deviceID -> the attachment holding it */
	struct cni_sys *sys;	  /* the kernel context of the report */
	/* VF RDMA ports as sysfs shows them (vf.c), for the
	 * waitPortActiveMs hint (portwait.c). */
	unsigned int ports_seen, ports_active, ports_pending, ports_down;
	bool ports_ib;
	/* The "check" id the next findings carry (the pod report's), NULL for
	 * none (the node report's findings have no id). */
	const char *check;
};

/* One ibcni attachment of a pod, from ib-sriov's or rdma-ns's record. */
struct doctor_att {
	const char *plugin; /* "ib-sriov" or "rdma-ns" */
	char id[256], ifname[IFNAMSIZ], network[256], netns[PATH_MAX];
	char device[CNI_RDMA_NAME_MAX]; /* the VF's PCI address ("" for rdma-ns) */
	char rdma[CNI_RDMA_NAME_MAX];	/* the recorded RDMA device, "" when shared */
	uint32_t rdma_index;
	bool has_index, exclusive, ib, vfio, has_guid;
	uint64_t guid;		   /* the port GUID ADD set (has_guid) */
	struct cni_roce_want want; /* the MTU (0 unknown) and addresses ADD left */
};

/* report.c. Add v under key (v NULL: JSON null); o owns v. */
void doctor_put(struct json_object *o, const char *key, struct json_object *v);

/* A JSON string, or NULL (JSON null) for NULL. */
struct json_object *doctor_str(const char *s);

/* A GUID as "xx:..:xx". */
struct json_object *doctor_guid_json(uint64_t g);

/* The report's end: findings and summary into d->root, then the JSON or
 * text(d) on stdout; 1 when a finding is an error, else 0. */
int doctor_emit(struct doctor *d, bool json, void (*text)(struct doctor *d));

/* Add a finding: severity "error", "warning" or "info", what it is about,
 * how to fix it, and what is wrong (printf format). */
__attribute__((format(printf, 5, 6))) void doctor_finding(struct doctor *d, const char *severity,
							  const char *subject, const char *fix,
							  const char *fmt, ...);

/* The attachments of ib-sriov, ib-sriov-cni and rdma-ns into arr, each
 * device held into d->held; a leftover one is a finding. */
void doctor_records(struct doctor *d, struct json_object *arr);

/* d->root's "rdma": the netns mode, how boot sets it, the RDMA shared
 * device plugin; the findings of their conflicts. */
void doctor_section_mode(struct doctor *d);

/* d->root's "pfs": every SR-IOV PF and its VFs, with their findings. */
void doctor_section_pfs(struct doctor *d);

/* d->root's "waitPortActiveMs": the value to give networks on this node,
 * why, and a finding naming the knob when VF ports were seen. */
void doctor_section_portwait(struct doctor *d);

/* `ib-sriov doctor --pod NS/NAME | --netns PATH [--json]` (pod.c). */
int doctor_pod_main(int argc, char **argv);

/* Check one attachment from inside its pod (netns_fd) into o, its
 * findings into d (pod_rdma.c). */
void doctor_pod_check(struct doctor *d, const struct doctor_att *a, int netns_fd,
		      struct json_object *o);

/* d->root's "rdmaDevices": each RDMA device as verbs sees it from here. */
void doctor_section_rdma(struct doctor *d);

#endif
