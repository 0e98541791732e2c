// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "conf.h"
#include "ipam.h"
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

/* host-local refuses a second lease for one attachment in the same set. */
static int check_duplicate(struct cni_ctx *ctx, struct ipam_store *st, const struct ipam_conf *c)
{
	char ip[INET6_ADDRSTRLEN], msg[sizeof(ctx->err.msg)];
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
			snprintf(msg, sizeof(msg),
				 "failed to allocate for range %zu: %s has been allocated to %s, "
				 "duplicate allocation is not allowed",
				 s, cni_addr_str(&owned[i], ip, sizeof(ip)), ctx->env.containerid);
			ret = cni_errorf(&ctx->err, -EEXIST, CNI_ERR_ADDRESS_TAKEN, msg,
					 "DEL the attachment before adding it again");
			break;
		}
	}
	free(owned);
	return ret;
}

int ipam_add(struct cni_ctx *ctx)
{
	struct ipam_conf c;
	struct ipam_store st;
	const struct cni_addr **want = NULL;
	struct cni_ip *got = NULL;
	size_t leased = 0;
	int ret;

	ipam_store_init(&st);
	ret = ipam_conf_load(ctx, false, &c);
	if (ret)
		goto out;
	want = calloc(c.n_sets, sizeof(*want));
	got = calloc(c.n_sets, sizeof(*got));
	if (!want || !got) {
		ret = -ENOMEM;
		goto out;
	}
	ret = match_requested(ctx, &c, want);
	if (!ret)
		ret = ipam_store_open(&st, c.data_root, c.data_dir, c.name, true, &ctx->err);
	if (!ret)
		ret = check_duplicate(ctx, &st, &c);
	if (ret)
		goto out;
	for (; leased < c.n_sets; leased++) {
		const struct ipam_request req = {.set = &c.sets[leased],
						 .idx = leased,
						 .id = ctx->env.containerid,
						 .ifname = ctx->env.ifname,
						 .want = want[leased]};

		ret = ipam_alloc(&st, &req, &got[leased], &ctx->err);
		if (ret) {
			/* host-local's prefix, on the message the allocator wrote. */
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "failed to allocate for range %zu",
				 leased);
			cni_error_prefix(&ctx->err, prefix);
			goto rollback;
		}
	}
	ctx->result = cni_result_dup(c.tmpl);
	if (!ctx->result) {
		ret = -ENOMEM;
		goto rollback;
	}
	for (size_t i = 0; i < c.n_sets; i++) {
		struct cni_ip *ip = cni_result_add_ip(ctx->result);

		if (!ip) {
			ret = -ENOMEM;
			goto rollback;
		}
		*ip = got[i];
	}
	goto out;

rollback:
	/* Only what this call leased: the attachment's older leases stay. */
	while (leased-- > 0) {
		struct cni_addr ip = {.family = got[leased].address.family};

		memcpy(ip.a, got[leased].address.a, sizeof(ip.a));
		ipam_store_release(&st, &ip);
	}
out:
	ipam_store_close(&st);
	ipam_conf_free(&c);
	free(want);
	free(got);
	return ret;
}
