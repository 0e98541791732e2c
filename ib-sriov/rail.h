/* SPDX-License-Identifier: Apache-2.0 */
/* Per-rail source routing (rail.c): "railTable", "railKeepMain" and
 * "railSysctls" (README, docs/architecture.md "Rails"). */
#ifndef IBSRIOV_RAIL_H
#define IBSRIOV_RAIL_H

#include <stdint.h>

#include "ibsriov.h"
#include "protocol/conf_table.h"

/* The rules' priority: before main (32766) and default (32767), after
 * the kernel's local (0) and whatever an admin or a CNI puts lower. */
#define IBSRIOV_RAIL_PRIORITY 32700
/* "auto": this base plus the pod interface's index, unique in the pod
 * while the interface is there (past 255, so never 253-255 or 0). */
#define IBSRIOV_RAIL_AUTO_BASE 10000u

/* The "railTable" key (f->at is a struct ibsriov_rail_conf): a number
 * 1-4294967295 but 253-255, or "auto"; code 7 naming the key otherwise. */
int ibsriov_rail_table_parse(const struct cni_conf_load *l, const struct cni_conf_field *f);

/* The rail keys checked together (railKeepMain needs railTable; neither
 * with vfioPciMode, which leaves no netdev): 0 or code 7 in err. */
int ibsriov_rail_conf_check(const struct ibsriov_conf *c, struct cni_error *err);

/* The table "auto" gives the pod interface of index ifindex (>0). */
uint32_t ibsriov_rail_auto_table(int ifindex);

/* Whether the rail table takes the interface's routes away from main:
 * configure_ip then adds its addresses without a connected route there
 * (IFA_F_NOPREFIXROUTE) and no IPAM route to main. */
bool ibsriov_rail_owns_routes(const struct ibsriov_conf *c);

/* After IPAM and configure_ip: the table's routes, one rule per address
 * (recorded first), then the ARP sysctls, in the pod. Nothing without the
 * keys. A failure leaves in the record only the rules added, for the one
 * undo path (ibsriov_release). */
int ibsriov_rail_apply(const struct ibsriov_pod *pod, const struct ibsriov_conf *conf,
		       struct ibsriov_record *rec, const struct cni_result *ipam);

/* CHECK, in the pod's netns: the record's rules, the table's routes for
 * prev's addresses and routes, the sysctls; code 101 naming the key and
 * what differs. */
int ibsriov_rail_check(struct cni_sys *sys, struct cni_ctx *ctx, const struct ibsriov_conf *c,
		       const struct ibsriov_record *r);

/* DEL and ADD's rollback, before the netdev leaves: the recorded rules out
 * of the pod whose netns pod_fd is (one already gone is fine). */
int ibsriov_rail_undo(struct cni_sys *sys, const struct ibsriov_record *r, int pod_fd,
		      struct cni_error *err);

#endif
