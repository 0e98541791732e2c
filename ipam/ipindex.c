// SPDX-License-Identifier: Apache-2.0
/* ipIndex, as nv-ipam's allocateIPWithIndex: rank N of a job asks for the
 * N-th address of every rail's range and gets the same host part on each. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ipindex.h"
#include "base/json.h"
#include "base/util.h"

#define INDEX_MAX 4294967295ULL
#define ARGS_KEY  "args.cni.ipIndex"
#define ENV_KEY	  "CNI_ARGS IB_IP_INDEX"

static int bad_index(struct cni_error *err, const char *from, const char *got)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
			  "%s is %.64s; it must be an integer from 0 to %llu (the address that "
			  "many places after the range's first one)",
			  from, got, INDEX_MAX);
}

int ipam_index_load(struct cni_ctx *ctx, struct ipam_conf *c)
{
	struct json_object *v = cni_json_get(ctx->conf->args_cni, "ipIndex");
	const char *s = cni_args_get(&ctx->args, "IB_IP_INDEX");
	uint64_t n = 0;

	/* args.cni wins over CNI_ARGS: the runtime's structured args are the
	 * newer and more specific channel, as for args.cni.ips over IP=. */
	if (v) {
		int64_t i = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || i < 0 || (uint64_t)i > INDEX_MAX)
			return bad_index(&ctx->err, ARGS_KEY, json_object_to_json_string(v));
		c->index = (unsigned long long)i;
		c->index_from = ARGS_KEY;
	} else if (s) {
		if (parse_u64(s, 10, INDEX_MAX, &n))
			return bad_index(&ctx->err, ENV_KEY, s);
		c->index = n;
		c->index_from = ENV_KEY;
	} else {
		return 0;
	}
	c->has_index = true;
	if (c->n_requested)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration",
				  "%s and requested ips (IP=, args.cni.ips, runtimeConfig.ips) "
				  "cannot be combined; ask for one or the other",
				  c->index_from);
	return 0;
}

int ipam_index_addrs(struct cni_ctx *ctx, const struct ipam_conf *c, struct cni_addr *at)
{
	char desc[128], msg[sizeof(ctx->err.msg)];

	for (size_t s = 0; s < c->n_sets; s++) {
		const struct ipam_range *r = &c->sets[s].r[0];

		if (ipam_range_at(r, c->index, &at[s])) {
			if (ipam_addr_cmp(&at[s], &r->gateway))
				continue;
			/* Refused here, not by the allocator: nothing is leased yet. */
			snprintf(msg, sizeof(msg), "ipIndex %llu is the gateway of range set %zu",
				 c->index, s);
			return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg,
					  "%s %llu is %s, the range's gateway, which is never "
					  "leased; ask for another index, or set rangeStart past "
					  "the gateway",
					  c->index_from, c->index,
					  cni_addr_str(&at[s], desc, sizeof(desc)));
		}
		snprintf(msg, sizeof(msg), "ipIndex %llu is outside range set %zu", c->index, s);
		return cni_errorf(&ctx->err, -ERANGE, CNI_ERR_INVALID_CONFIG, msg,
				  "%s %llu lies past the end of range %s (%llu addresses from "
				  "its first); ask for a smaller index or widen the range",
				  c->index_from, c->index, ipam_range_str(r, desc, sizeof(desc)),
				  ipam_range_size(r));
	}
	return 0;
}

int ipam_index_free(struct cni_ctx *ctx, struct ipam_store *st, const struct ipam_conf *c,
		    const struct cni_addr *at, const bool *held)
{
	char ip[INET6_ADDRSTRLEN], msg[sizeof(ctx->err.msg)];

	for (size_t s = 0; s < c->n_sets; s++) {
		struct ipam_lease l = {0};
		int ret;

		if (held[s])
			continue;
		ret = ipam_store_lease(st, &at[s], &l);
		ipam_lease_clear(&l);
		if (ret == -ENOENT)
			continue;
		cni_addr_str(&at[s], ip, sizeof(ip));
		if (ret && ret != -EBADMSG)
			return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot read a lease",
					  "%s/%s: %s", st->dir, ip, strerror(-ret));
		snprintf(msg, sizeof(msg), "ipIndex %llu: %s of range set %zu is taken", c->index,
			 ip, s);
		return cni_errorf(&ctx->err, -EEXIST, CNI_ERR_ADDRESS_TAKEN, msg,
				  "another attachment holds that address; ask for another index, "
				  "or DEL the attachment that holds it");
	}
	return 0;
}
