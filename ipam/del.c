// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ipam.h"
#include "store.h"

int ipam_del(struct cni_ctx *ctx)
{
	struct ipam_store st;
	struct ipam_conf c;
	struct cni_addr *ips = NULL;
	char ip[INET6_ADDRSTRLEN];
	size_t n = 0;
	bool legacy;
	int ret;

	ipam_store_init(&st);
	/* Only name and dataDir matter: ranges may have changed since ADD. */
	ret = ipam_conf_load(ctx, true, &c);
	if (!ret)
		ret = ipam_store_open(&st, c.data_root, c.data_dir, c.name, false, &ctx->err);
	if (ret)
		goto out;
	ret = ipam_store_owned(&st, ctx->env.containerid, ctx->env.ifname, &ips, &n, &legacy);
	if (!ret)
		ret = ipam_store_release_owned(&st, ctx->env.containerid,
					       legacy ? NULL : ctx->env.ifname, ips, n);
	for (size_t i = 0; !ret && i < n; i++)
		log_info("released %s%s", cni_addr_str(&ips[i], ip, sizeof(ip)),
			 legacy ? " (legacy lease without ifname)" : "");
	if (ret)
		cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot release leases", "%s: %s", st.dir,
			   strerror(-ret));
out:
	ipam_store_close(&st);
	ipam_conf_free(&c);
	free(ips);
	return ret;
}
