// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "rdmans.h"
#include "state/state.h"

#define MAX_ENTRIES 65536 /* a bounded listing, whatever was planted */

struct gc_pass {
	struct cni_sys *sys;
	struct cni_ctx *ctx;
	int ret; /* the first failure's, adopted into ctx->err */
};

/* One rdma-ns record: released when it is this network's and of no listed
 * attachment. Other networks' records are theirs to collect; unreadable
 * ones are left for their own DEL. A failure is kept in *ret. */
static int gc_one(int dirfd, const char *name, void *arg)
{
	struct gc_pass *p = arg;
	struct cni_error err = {0};
	struct rdmans_record rec;
	int ret;

	(void)dirfd;
	if (rdmans_record_load(name, &rec) || strcmp(rec.network, p->ctx->conf->name) ||
	    cni_conf_attachment_valid(p->ctx->conf, rec.containerid, rec.ifname))
		return 0;
	if (rdmans_release(p->sys, name, &rec, &err)) {
		log_warn("GC of %s: %s: %s", name, err.msg, err.details);
		ret = p->ret;
		if (!ret)
			ret = -EIO;
		p->ret = cni_error_adopt(&p->ctx->err, &err, ret);
	} else {
		log_info("released stale attachment %s", name);
	}
	return 0;
}

int rdmans_gc(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct gc_pass p = {.sys = &sys, .ctx = ctx};

	rdmans_args(ctx, false);
	/* What kills left of older builds' writes (see cni_state_sweep()). */
	cni_state_sweep(RDMANS_STATE_DIR);
	cni_state_sweep(RDMACNI_STATE_DIR);
	if (!ctx->conf->has_attachments) {
		log_info("no cni.dev/valid-attachments list: nothing to release");
		return 0;
	}
	/* A directory that cannot be listed has nothing to release. */
	cni_state_each(RDMANS_STATE_DIR, MAX_ENTRIES, gc_one, &p);
	rdmans_gc_rdmacni(&sys, ctx);
	return p.ret;
}

int rdmans_status(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	return rdmans_require_exclusive(&sys, ctx, true);
}
