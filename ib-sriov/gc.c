// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "ibsriov.h"
#include "protocol/delegate.h"
#include "base/json.h"
#include "kernel/rdma.h"
#include "state/state.h"

/* Release r when it is this network's and not a valid attachment. */
static int collect(struct cni_sys *sys, struct cni_ctx *ctx, struct ibsriov_record *r,
		   struct cni_error *err)
{
	int ret;

	/* Other networks' records are theirs to collect. */
	if (strcmp(r->network, ctx->conf->name) ||
	    cni_conf_attachment_valid(ctx->conf, r->container_id, r->ifname))
		return 0;
	ret = ibsriov_release_locked(sys, r, err);
	if (ret)
		log_warn("GC of %s:%s: %s: %s", r->container_id, r->ifname, err->msg, err->details);
	else
		log_info("released stale attachment %s:%s", r->container_id, r->ifname);
	return ret;
}

/* A Go ib-sriov-cni cache (or a 0.x record) in IBSRIOV_GO_DIR, unless it
 * is the twin of a record of ours. */
static int load_go(const char *file, struct ibsriov_record *r)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct ibsriov_record ours;
	int ret = cni_state_read(IBSRIOV_GO_DIR, file, &o);

	if (ret)
		return ret;
	if (json_object_object_get_ex(o, "ibcni", NULL))
		return -EEXIST;
	ret = ibsriov_gocache_parse(o, file, "", r);
	if (ret)
		return ret;
	ret = ibsriov_record_name(r->container_id, r->ifname, r->name, sizeof(r->name));
	if (!ret && ibsriov_record_load(r->name, &ours) != -ENOENT) {
		ibsriov_record_clear(&ours);
		ret = -EEXIST;
	}
	if (ret)
		ibsriov_record_clear(r);
	return ret;
}

static int gc_dir(struct cni_sys *sys, struct cni_ctx *ctx, const char *dir, struct cni_error *err)
{
	_cleanup_dir_ DIR *d = opendir(dir);
	unsigned int seen = 0;
	struct dirent *e;
	int ret = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot list the attachment records",
				  "%s: %s", dir, strerror(errno));
	}
	while ((e = readdir(d)) && seen++ < IBSRIOV_RECORDS_MAX) {
		struct ibsriov_record r;
		struct cni_error one = {0};
		int got;

		if (e->d_name[0] == '.')
			continue;
		got = strcmp(dir, IBSRIOV_STATE_DIR) ? load_go(e->d_name, &r)
						     : ibsriov_record_load(e->d_name, &r);
		/* Only a definite answer skips a record (gone, a twin of ours,
		 * never readable); a transient error fails GC, which is retried. */
		if (got == -ENOENT || got == -EEXIST || got == -ESTALE ||
		    ibsriov_record_unreadable(got))
			continue;
		if (got) {
			cni_errorf(err, got, CNI_ERR_IO, "cannot read an attachment record",
				   "%s/%s: %s", dir, e->d_name, strerror(-got));
			ret = got;
			continue;
		}
		if (collect(sys, ctx, &r, &one)) {
			cni_error_adopt(err, &one, 0);
			ret = -EIO;
		}
		ibsriov_record_clear(&r);
	}
	return ret;
}

int ibsriov_gc(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct cni_error err = {0};
	int ret = 0;

	/* What kills left of older builds' writes: a listing, paid here
	 * rather than by every DEL. */
	cni_state_sweep(IBSRIOV_STATE_DIR);
	cni_state_sweep(IBSRIOV_GO_DIR);
	if (!ctx->conf->has_attachments) {
		log_info("no cni.dev/valid-attachments list: nothing to release");
	} else {
		int ours = gc_dir(&sys, ctx, IBSRIOV_STATE_DIR, &err);
		int go = gc_dir(&sys, ctx, IBSRIOV_GO_DIR, &err);

		ret = ours ?: go;
	}
	if (ret)
		cni_error_adopt(&ctx->err, &err, ret);
	/* GC goes on past errors and is forwarded to the IPAM in any case. */
	if (ctx->conf->ipam_type && *ctx->conf->ipam_type) {
		int ipam = cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_GC, &ctx->err);

		ret = ret ?: ipam;
	}
	return ret;
}

int ibsriov_status(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	bool rdma = false;
	int ret = cni_json_bool(ctx->conf->root, "rdmaIsolation", NULL, &rdma, &ctx->err);

	if (ret && ret != -ENOENT)
		return ret;
	if (rdma && (ret = cni_rdma_require_exclusive(&sys, &ctx->err, CNI_ERR_NOT_AVAILABLE)))
		return ret;
	if (ctx->conf->ipam_type && *ctx->conf->ipam_type)
		return cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_STATUS, &ctx->err);
	return 0;
}
