// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "release/release.h"
#include "ibsriov.h"
#include "protocol/delegate.h"
#include "state/state.h"

/* An ADD killed while writing its first record leaves only the temp file
 * of the record's name, and changed nothing yet: this attachment's own
 * temp name goes with its DEL (GC, which lists the directory, may never
 * come under Multus). */
static void drop_killed_tmp(struct cni_ctx *ctx)
{
	char name[NAME_MAX + 1];
	int ret;

	if (ibsriov_record_name(ctx->env.containerid, ctx->env.ifname, name, sizeof(name)))
		return;
	ret = cni_state_remove_tmp(IBSRIOV_STATE_DIR, name);
	if (ret > 0)
		log_info("removed %s/.%s.tmp, left by a killed ADD", IBSRIOV_STATE_DIR, name);
	else if (ret < 0)
		log_warn("cannot remove %s/.%s.tmp: %s", IBSRIOV_STATE_DIR, name, strerror(-ret));
}

int ibsriov_del(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct ibsriov_record rec;
	int ret, ipam_ret = 0;

	/* DEL must work with whatever it is given: only the attachment's
	 * tuple is needed to find the record, so ib-sriov's own keys are not
	 * read. IPAM DEL always runs, netns or record or not. */
	if (ctx->conf->ipam_type && *ctx->conf->ipam_type)
		ipam_ret = cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_DEL, &ctx->err);
	ret = ibsriov_record_find(ctx->env.containerid, ctx->env.ifname, ctx->env.netns, &rec);
	if (ret == -ENOENT || ret == -ESTALE) {
		log_info("no record for %s:%s: nothing to undo", ctx->env.containerid,
			 ctx->env.ifname);
		drop_killed_tmp(ctx);
		return ipam_ret;
	}
	if (ibsriov_record_unreadable(ret)) {
		/* It will never be read (not JSON, not a regular file, too big,
		 * a link): keeping it would fail every DEL for ever. */
		log_err("record %s/%s:%s cannot be read (%s); removed, nothing undone",
			IBSRIOV_STATE_DIR, ctx->env.containerid, ctx->env.ifname, strerror(-ret));
		if (!ibsriov_record_init(&rec, ctx->conf->name, ctx->env.containerid,
					 ctx->env.ifname, ctx->env.netns))
			cni_state_remove(IBSRIOV_STATE_DIR, rec.name);
		ibsriov_record_clear(&rec);
		return ipam_ret;
	}
	if (ret) /* transient: the runtime retries, the record stays */
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot read the attachment record",
				  "%s:%s: %s; nothing was undone, retry the DEL",
				  ctx->env.containerid, ctx->env.ifname, strerror(-ret));
	ret = ibsriov_release_locked(&sys, &rec, &ctx->err);
	ibsriov_record_clear(&rec);
	return ret < 0 ? ret : ipam_ret;
}
