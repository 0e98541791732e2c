// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"
#include "netns.h"
#include "rdmans.h"
#include "state.h"

int rdmans_check(struct cni_ctx *ctx)
{
	_cleanup_json_ struct json_object *rec = NULL;
	_cleanup_close_ int pod = -1;
	struct json_object *devs = NULL;
	char record[NAME_MAX + 1];
	int saved = -1, ret;

	rdmans_args(ctx);

	ret = rdmans_record_name(ctx, record, sizeof(record));
	if (!ret)
		ret = cni_state_read(RDMANS_STATE_DIR, record, &rec);
	if (ret || !json_object_object_get_ex(rec, "rdma", &devs))
		return cni_errorf(&ctx->err, ret ? ret : -EBADMSG, CNI_ERR_UNKNOWN_CONTAINER,
				  "CHECK failed", "no usable record %s/%s", RDMANS_STATE_DIR, record);
	pod = cni_netns_open(ctx->env.netns, &ctx->err);
	if (pod < 0)
		return pod;
	ret = cni_netns_enter(pod, &saved);
	for (size_t i = 0; !ret && i < json_object_array_length(devs); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(devs, i));
		struct cni_rdma_dev d;

		ret = cni_rdma_dev_get(name, 0, &d);
		if (ret)
			cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "CHECK failed",
				   "RDMA device %s is not in the pod: %s", name, cni_rdma_strerror(ret));
	}
	cni_netns_restore(&saved);
	return ret;
}
