// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ipam.h"
#include "store.h"

static int check_one(struct cni_ctx *ctx, struct ipam_store *st, const struct cni_addr *ip)
{
	char text[INET6_ADDRSTRLEN], msg[sizeof(ctx->err.msg)];
	struct ipam_lease l;
	int ret = ipam_store_lease(st, ip, &l);
	bool ours = !ret && l.id && !strcmp(l.id, ctx->env.containerid) &&
		    (!l.ifname || !strcmp(l.ifname, ctx->env.ifname));

	cni_addr_str(ip, text, sizeof(text));
	snprintf(msg, sizeof(msg), "ib-host-local: %s is not leased to %s/%s", text,
		 ctx->env.containerid, ctx->env.ifname);
	if (ret == -ENOENT)
		ret =
		    cni_errorf(&ctx->err, -ENOENT, CNI_ERR_NOT_LEASED, msg, "the address is free");
	else if (ret)
		ret = cni_errorf(&ctx->err, ret, CNI_ERR_NOT_LEASED, msg,
				 "its lease file cannot be read: %s", strerror(-ret));
	else if (!ours)
		ret =
		    cni_errorf(&ctx->err, -EEXIST, CNI_ERR_NOT_LEASED, msg, "it is leased to %s/%s",
			       l.id, l.ifname ? l.ifname : "(legacy lease)");
	ipam_lease_clear(&l);
	return ret;
}

int ipam_check(struct cni_ctx *ctx)
{
	const struct cni_result *prev = ctx->conf->prev_result;
	struct ipam_store st;
	struct cni_addr *ips = NULL;
	struct ipam_conf c;
	size_t n = 0, checked = 0;
	bool legacy;
	int ret;

	ipam_store_init(&st);
	ret = ipam_conf_load(ctx, false, &c);
	if (!ret)
		ret = ipam_store_open(&st, c.data_root, c.data_dir, c.name, false, &ctx->err);
	for (size_t i = 0; !ret && prev && i < prev->n_ips; i++) {
		struct cni_addr ip = {.family = prev->ips[i].address.family};
		bool ours = false;

		memcpy(ip.a, prev->ips[i].address.a, sizeof(ip.a));
		for (size_t s = 0; s < c.n_sets && !ours; s++)
			ours = ipam_rangeset_find(&c.sets[s], &ip) >= 0;
		if (!ours)
			continue; /* another plugin's address */
		ret = check_one(ctx, &st, &ip);
		checked++;
	}
	if (!ret && !checked) {
		/* Nothing to compare with: as host-local, any lease will do. */
		ret =
		    ipam_store_owned(&st, ctx->env.containerid, ctx->env.ifname, &ips, &n, &legacy);
		if (!ret && !n) {
			char msg[sizeof(ctx->err.msg)];

			snprintf(msg, sizeof(msg),
				 "ib-host-local: Failed to find address added by container %s",
				 ctx->env.containerid);
			ret = cni_errorf(&ctx->err, -ENOENT, CNI_ERR_NOT_LEASED, msg, NULL);
		}
	}
	ipam_store_close(&st);
	ipam_conf_free(&c);
	free(ips);
	return ret;
}
