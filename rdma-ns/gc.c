// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "rdmans.h"
#include "state/state.h"

#define MAX_ENTRIES 65536 /* a bounded listing, whatever was planted */

int rdmans_gc(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	_cleanup_dir_ DIR *d = NULL;
	struct dirent *e;
	size_t seen = 0;
	int ret = 0;

	rdmans_args(ctx, false);
	/* What kills left of older builds' writes (see cni_state_sweep()). */
	cni_state_sweep(RDMANS_STATE_DIR);
	cni_state_sweep(RDMACNI_STATE_DIR);
	if (!ctx->conf->has_attachments) {
		log_info("no cni.dev/valid-attachments list: nothing to release");
		return 0;
	}
	d = opendir(RDMANS_STATE_DIR);
	while (d && (e = readdir(d)) && seen++ < MAX_ENTRIES) {
		struct cni_error err = {0};
		struct rdmans_record rec;

		/* Other networks' records are theirs to collect; unreadable ones
		 * are left for their own DEL. */
		if (e->d_name[0] == '.' || rdmans_record_load(e->d_name, &rec) ||
		    strcmp(rec.network, ctx->conf->name) ||
		    cni_conf_attachment_valid(ctx->conf, rec.containerid, rec.ifname))
			continue;
		if (rdmans_release(&sys, e->d_name, &rec, &err)) {
			log_warn("GC of %s: %s: %s", e->d_name, err.msg, err.details);
			ret = cni_error_adopt(&ctx->err, &err, ret ?: -EIO);
		} else {
			log_info("released stale attachment %s", e->d_name);
		}
	}
	rdmans_gc_rdmacni(&sys, ctx);
	return ret;
}

int rdmans_status(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	return rdmans_require_exclusive(&sys, ctx, true);
}
