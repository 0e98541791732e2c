// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "conf.h"
#include "ipam.h"
#include "ipindex.h"
#include "store.h"

/* Give each requested address its range set, before anything is leased: a
 * request no set can take fails the ADD with nothing changed. */
static int match_requested(struct cni_ctx *ctx, const struct ipam_conf *c,
			   const struct cni_addr **want)
{
	char list[512] = "", ip[INET6_ADDRSTRLEN], msg[sizeof(ctx->err.msg)];
	size_t used = 0;

	for (size_t i = 0; i < c->n_requested; i++) {
		bool placed = false;

		for (size_t s = 0; s < c->n_sets && !placed; s++) {
			if (want[s] || ipam_rangeset_find(&c->sets[s], &c->requested[i]) < 0)
				continue;
			want[s] = &c->requested[i];
			placed = true;
		}
		if (!placed) {
			snprintf(list + used, sizeof(list) - used, "%s%s", used ? " " : "",
				 cni_addr_str(&c->requested[i], ip, sizeof(ip)));
			used = strlen(list);
		}
	}
	if (!used)
		return 0;
	snprintf(msg, sizeof(msg), "failed to allocate all requested IPs: %s", list);
	return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg,
			  "each requested address must fall inside a different range set");
}

static int duplicate(struct cni_ctx *ctx, size_t set, const struct cni_addr *ip)
{
	char buf[INET6_ADDRSTRLEN], msg[sizeof(ctx->err.msg)];

	snprintf(msg, sizeof(msg),
		 "failed to allocate for range %zu: %s has been allocated to %s, "
		 "duplicate allocation is not allowed",
		 set, cni_addr_str(ip, buf, sizeof(buf)), ctx->env.containerid);
	return cni_errorf(&ctx->err, -EEXIST, CNI_ERR_ADDRESS_TAKEN, msg,
			  "DEL the attachment before adding it again");
}

/* A repeated ADD of one attachment (a runtime's retry, dranet's webhook
 * retried by kubelet) answers the lease it already holds in a set (held,
 * at[s] is that lease) where host-local fails: the retry must not lease
 * more nor fail. It still fails when the attachment holds another address
 * than the one asked for (requested, ipIndex), two in one set, or only a
 * legacy bare-ID lease (whose interface is unknown). */
static int find_held(struct cni_ctx *ctx, struct ipam_store *st, const struct ipam_conf *c,
		     const struct cni_addr **want, struct cni_addr *at, bool *held)
{
	struct cni_addr *owned;
	size_t n;
	bool legacy;
	int ret = ipam_store_owned(st, ctx->env.containerid, ctx->env.ifname, &owned, &n, &legacy);

	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot read leases", "%s", st->dir);
	for (size_t i = 0; i < n && !ret; i++) {
		for (size_t s = 0; s < c->n_sets; s++) {
			if (ipam_rangeset_find(&c->sets[s], &owned[i]) < 0)
				continue;
			if (legacy || held[s] || (want[s] && ipam_addr_cmp(&owned[i], want[s]))) {
				ret = duplicate(ctx, s, &owned[i]);
				break;
			}
			held[s] = true;
			at[s] = owned[i];
			want[s] = &at[s];
			break;
		}
	}
	free(owned);
	return ret;
}

/* What one ADD works with, one entry per range set. */
struct add {
	struct ipam_conf c;
	struct ipam_store st;
	const struct cni_addr **want;
	struct cni_addr *at; /* ipIndex's addresses, or the one held */
	bool *held;	     /* already this attachment's (ADD repeated) */
	struct cni_ip *got;
};

/* Everything checked before the first lease: a failure changes nothing. */
static int prepare(struct cni_ctx *ctx, struct add *a)
{
	struct ipam_conf *c = &a->c;
	int ret = ipam_conf_load(ctx, false, c);

	if (!ret)
		ret = ipam_index_load(ctx, c);
	if (ret)
		return ret;
	a->want = calloc(c->n_sets, sizeof(*a->want));
	a->at = calloc(c->n_sets, sizeof(*a->at));
	a->held = calloc(c->n_sets, sizeof(*a->held));
	a->got = calloc(c->n_sets, sizeof(*a->got));
	if (!a->want || !a->at || !a->held || !a->got)
		return -ENOMEM;
	if (c->has_index) {
		ret = ipam_index_addrs(ctx, c, a->at);
		for (size_t s = 0; s < c->n_sets; s++)
			a->want[s] = &a->at[s];
	} else {
		ret = match_requested(ctx, c, a->want);
	}
	if (!ret)
		ret = ipam_store_open(&a->st, c->data_root, c->data_dir, c->name, true, &ctx->err);
	if (!ret)
		ret = find_held(ctx, &a->st, c, a->want, a->at, a->held);
	if (!ret && c->has_index)
		ret = ipam_index_free(ctx, &a->st, c, a->at, a->held);
	return ret;
}

int ipam_add(struct cni_ctx *ctx)
{
	struct add a = {0};
	struct ipam_conf *c = &a.c;
	size_t leased = 0;
	int ret;

	ipam_store_init(&a.st);
	ret = prepare(ctx, &a);
	if (ret)
		goto out;
	for (; leased < c->n_sets; leased++) {
		const struct ipam_request req = {.set = &c->sets[leased],
						 .idx = leased,
						 .id = ctx->env.containerid,
						 .ifname = ctx->env.ifname,
						 .want = a.want[leased],
						 .held = a.held[leased]};

		ret = ipam_alloc(&a.st, &req, &a.got[leased], &ctx->err);
		if (ret) {
			/* host-local's prefix, on the message the allocator wrote. */
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "failed to allocate for range %zu",
				 leased);
			cni_error_prefix(&ctx->err, prefix);
			goto rollback;
		}
	}
	ctx->result = cni_result_dup(c->tmpl);
	if (!ctx->result) {
		ret = -ENOMEM;
		goto rollback;
	}
	for (size_t i = 0; i < c->n_sets; i++) {
		struct cni_ip *ip = cni_result_add_ip(ctx->result);

		if (!ip) {
			ret = -ENOMEM;
			goto rollback;
		}
		*ip = a.got[i];
	}
	goto out;

rollback:
	/* Only what this call leased: the attachment's older leases stay. */
	while (leased-- > 0) {
		struct cni_addr ip = {.family = a.got[leased].address.family};

		if (a.held[leased])
			continue;
		memcpy(ip.a, a.got[leased].address.a, sizeof(ip.a));
		ipam_store_release(&a.st, &ip);
	}
out:
	ipam_store_close(&a.st);
	ipam_conf_free(c);
	free(a.want);
	free(a.at);
	free(a.held);
	free(a.got);
	return ret;
}
