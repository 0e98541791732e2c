// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "ibsriov.h"
#include "ipam.h"
#include "json.h"
#include "rdma.h"

int ibsriov_gc(struct cni_ctx *ctx)
{
	struct cni_error err = { 0 };
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (!ctx->conf->has_attachments) {
		log_info("no cni.dev/valid-attachments list: nothing to release");
	} else if ((d = opendir(IBSRIOV_STATE_DIR))) {
		while ((e = readdir(d))) {
			struct ibsriov_record rec = { 0 };

			if (e->d_name[0] == '.' || ibsriov_record_load(e->d_name, &rec))
				continue;
			/* Other networks' records are theirs to collect. */
			if (!strcmp(ibsriov_rec_str(&rec, "network"), ctx->conf->name) &&
			    !cni_conf_attachment_valid(ctx->conf, ibsriov_rec_str(&rec, "containerID"),
						       ibsriov_rec_str(&rec, "ifname"))) {
				memset(&err, 0, sizeof(err));
				if (ibsriov_release_locked(&rec, &err)) {
					log_warn("GC of %s: %s: %s", e->d_name, err.msg, err.details);
					ret = -EIO;
				} else {
					log_info("released stale attachment %s", e->d_name);
				}
			}
			json_object_put(rec.o);
		}
		closedir(d);
	}
	if (ret)
		cni_errorf(&ctx->err, ret, err.code ? err.code : CNI_ERR_INTERNAL, err.msg, "%s",
			   err.details);
	/* GC goes on past errors and is forwarded to the IPAM in any case. */
	if (ctx->conf->ipam_type) {
		int ipam = cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_GC, &ctx->err);

		ret = ret ?: ipam;
	}
	return ret;
}

int ibsriov_status(struct cni_ctx *ctx)
{
	bool rdma = false;
	int ret = cni_json_bool(ctx->conf->root, "rdmaIsolation", "rdmaIsolation", &rdma, &ctx->err);

	if (ret && ret != -ENOENT)
		return ret;
	if (rdma && (ret = cni_rdma_require_exclusive(&ctx->err, CNI_ERR_NOT_AVAILABLE)))
		return ret;
	if (ctx->conf->ipam_type)
		return cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_STATUS, &ctx->err);
	return 0;
}
