// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "release/release.h"
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
	if (ret < 0)
		log_warn("GC of %s:%s: %s: %s", r->container_id, r->ifname, err->msg, err->details);
	else if (!ret)
		log_info("released stale attachment %s:%s", r->container_id, r->ifname);
	return ret < 0 ? ret : 0;
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

struct gc_pass {
	struct cni_sys *sys;
	struct cni_ctx *ctx;
	const char *dir;
	struct cni_error *err;
	int ret;
};

/* One record of the pass's directory; a failure is kept and the pass goes on. */
static int gc_one(int dirfd, const char *name, void *arg)
{
	struct gc_pass *p = arg;
	struct ibsriov_record r;
	struct cni_error one = {0};
	int got;

	(void)dirfd;
	if (strcmp(p->dir, IBSRIOV_STATE_DIR))
		got = load_go(name, &r);
	else
		got = ibsriov_record_load(name, &r);
	/* Only a definite answer skips a record (gone, a twin of ours,
	 * never readable); a transient error fails GC, which is retried. */
	if (got == -ENOENT || got == -EEXIST || got == -ESTALE || ibsriov_record_unreadable(got))
		return 0;
	if (got) {
		cni_errorf(p->err, got, CNI_ERR_IO, "cannot read an attachment record", "%s/%s: %s",
			   p->dir, name, strerror(-got));
		p->ret = got;
		return 0;
	}
	if (collect(p->sys, p->ctx, &r, &one)) {
		cni_error_adopt(p->err, &one, 0);
		p->ret = -EIO;
	}
	ibsriov_record_clear(&r);
	return 0;
}

static int gc_dir(struct cni_sys *sys, struct cni_ctx *ctx, const char *dir, struct cni_error *err)
{
	struct gc_pass p = {.sys = sys, .ctx = ctx, .dir = dir, .err = err};
	int ret = cni_state_each(dir, IBSRIOV_RECORDS_MAX, gc_one, &p);

	/* A link in place of the directory is never followed: every record
	 * under it would be unreadable, and unreadable ones are skipped. */
	if (ret && ret != -ELOOP)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot list the attachment records",
				  "%s: %s", dir, strerror(-ret));
	return p.ret;
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

		ret = ours;
		if (!ret)
			ret = go;
	}
	if (ret)
		cni_error_adopt(&ctx->err, &err, ret);
	/* GC goes on past errors and is forwarded to the IPAM in any case. */
	if (ctx->conf->ipam_type && *ctx->conf->ipam_type) {
		int ipam = cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_GC, &ctx->err);

		if (!ret)
			ret = ipam;
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
