/* SPDX-License-Identifier: Apache-2.0 */
/* ipIndex: the same host part on every rail (ADD only). */
#ifndef IPAM_IPINDEX_H
#define IPAM_IPINDEX_H

#include "conf.h"
#include "store.h"

/* The address c->index places after the first address of each set's first
 * range into at[c->n_sets]: 0, or code 7 naming ipIndex and the range when
 * it lies past the range's end or is its gateway. */
int ipam_index_addrs(struct cni_ctx *ctx, const struct ipam_conf *c, struct cni_addr *at);

/* Before anything is leased: code 111 when at[s] of a set not held[s] by
 * this attachment already is leased (to whom is not said: another pod's). */
int ipam_index_free(struct cni_ctx *ctx, struct ipam_store *st, const struct ipam_conf *c,
		    const struct cni_addr *at, const bool *held);

#endif
