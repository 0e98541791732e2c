// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ipam.h"
#include "store.h"

static bool still_valid(const struct cni_conf *conf, const struct ipam_lease *l)
{
	if (l->ifname)
		return cni_conf_attachment_valid(conf, l->id, l->ifname);
	/* A legacy lease names no interface: any attachment of its container. */
	for (size_t i = 0; i < conf->n_attachments; i++)
		if (!strcmp(conf->attachments[i].containerid, l->id))
			return true;
	return false;
}

int ipam_gc(struct cni_ctx *ctx)
{
	struct ipam_store st;
	struct ipam_lease *leases = NULL;
	struct ipam_conf c;
	size_t n = 0, released = 0;
	int ret;

	ipam_store_init(&st);
	ret = ipam_conf_load(ctx, true, &c);
	if (ret)
		goto out;
	if (!ctx->conf->has_attachments) {
		log_info("no cni.dev/valid-attachments list: nothing to release");
		goto out;
	}
	ret = ipam_store_open(&st, c.data_root, c.data_dir, c.name, false, &ctx->err);
	if (!ret)
		ret = ipam_store_list(&st, &leases, &n);
	for (size_t i = 0; !ret && i < n; i++) {
		if (!leases[i].id) {
			log_warn("lease file %s/%s is empty or unreadable; left in place", st.dir,
				 leases[i].name);
			continue;
		}
		if (still_valid(ctx->conf, &leases[i]))
			continue;
		ret = ipam_store_release(&st, &leases[i].ip);
		if (!ret) {
			released++;
			log_info("released %s of %s/%s", leases[i].name, leases[i].id,
				 leases[i].ifname ? leases[i].ifname : "(legacy)");
		}
	}
	if (ret)
		cni_errorf(&ctx->err, ret, CNI_ERR_IO, "garbage collection failed", "%s: %s",
			   st.dir, strerror(-ret));
	else
		log_info("released %zu of %zu leases", released, n);
out:
	ipam_store_close(&st);
	ipam_leases_free(leases, n);
	ipam_conf_free(&c);
	return ret;
}

int ipam_status(struct cni_ctx *ctx)
{
	struct ipam_store st;
	struct ipam_lease *leases = NULL;
	struct ipam_conf c;
	size_t n = 0;
	int ret;

	ipam_store_init(&st);
	ret = ipam_conf_load(ctx, false, &c);
	if (!ret)
		ret = ipam_store_open(&st, c.data_root, c.data_dir, c.name, false, &ctx->err);
	if (!ret)
		ret = ipam_store_list(&st, &leases, &n);
	if (ret)
		goto out;
	for (size_t s = 0; s < c.n_sets; s++) {
		unsigned long long size = 0, used = 0;

		for (size_t i = 0; i < c.sets[s].n; i++) {
			unsigned long long one = ipam_range_size(&c.sets[s].r[i]);

			size = size + one < size ? ~0ULL : size + one;
		}
		for (size_t i = 0; i < n; i++) {
			int ri = ipam_rangeset_find(&c.sets[s], &leases[i].ip);

			if (ri >= 0 && ipam_addr_cmp(&leases[i].ip, &c.sets[s].r[ri].gateway) &&
			    !ipam_range_reserved(&c.sets[s].r[ri], &leases[i].ip))
				used++;
		}
		if (used < size)
			goto out; /* one set with room is enough */
	}
	ret = cni_errorf(&ctx->err, -ENOSPC, CNI_ERR_NOT_AVAILABLE, "no free addresses",
			 "every range set of network %s is exhausted", c.name);
out:
	ipam_store_close(&st);
	ipam_leases_free(leases, n);
	ipam_conf_free(&c);
	return ret;
}
