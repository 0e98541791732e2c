// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"
#include "rdmans.h"
#include "state.h"

static bool stale(struct cni_ctx *ctx, const char *name)
{
	_cleanup_json_ struct json_object *rec = NULL;
	const char *net, *id, *ifname;

	if (cni_state_read(RDMANS_STATE_DIR, name, &rec))
		return false;
	net = json_object_get_string(cni_json_get(rec, "network"));
	id = json_object_get_string(cni_json_get(rec, "containerID"));
	ifname = json_object_get_string(cni_json_get(rec, "ifname"));
	/* Other networks' records are theirs to collect. */
	return net && id && ifname && !strcmp(net, ctx->conf->name) &&
	       !cni_conf_attachment_valid(ctx->conf, id, ifname);
}

int rdmans_gc(struct cni_ctx *ctx)
{
	struct dirent *e;
	DIR *d;
	int ret = 0;

	rdmans_args(ctx);

	if (!ctx->conf->has_attachments) {
		log_info("no cni.dev/valid-attachments list: nothing to release");
		return 0;
	}
	d = opendir(RDMANS_STATE_DIR);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct cni_error err = { 0 };

		if (e->d_name[0] == '.' || !stale(ctx, e->d_name))
			continue;
		if (rdmans_release(e->d_name, &err)) {
			log_warn("GC of %s: %s: %s", e->d_name, err.msg, err.details);
			if (!ret)
				ret = cni_errorf(&ctx->err, -EIO, err.code, err.msg, "%s", err.details);
		} else {
			log_info("released stale attachment %s", e->d_name);
		}
	}
	closedir(d);
	return ret;
}

int rdmans_status(struct cni_ctx *ctx)
{
	return rdmans_require_exclusive(ctx, true);
}
