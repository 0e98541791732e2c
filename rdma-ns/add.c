// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "netns.h"
#include "rdmans.h"
#include "state.h"
#include "util.h"

static int write_record(struct cni_ctx *ctx, const char *name, const char *dev,
			char names[][CNI_RDMA_NAME_MAX], int n)
{
	_cleanup_json_ struct json_object *rec = json_object_new_object();
	struct json_object *list = json_object_new_array();
	int ret;

	if (!rec || !list) {
		json_object_put(list);
		return -ENOMEM;
	}
	json_object_object_add(rec, "network", json_object_new_string(ctx->conf->name));
	json_object_object_add(rec, "containerID", json_object_new_string(ctx->env.containerid));
	json_object_object_add(rec, "ifname", json_object_new_string(ctx->env.ifname));
	json_object_object_add(rec, "netns", json_object_new_string(ctx->env.netns));
	json_object_object_add(rec, "deviceID", json_object_new_string(dev));
	for (int i = 0; i < n; i++)
		json_object_array_add(list, json_object_new_string(names[i]));
	json_object_object_add(rec, "rdma", list);
	ret = cni_state_mkdir(RDMANS_STATE_DIR) ?: cni_state_write(RDMANS_STATE_DIR, name, rec);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot write the record", "%s/%s: %s",
				  RDMANS_STATE_DIR, name, strerror(-ret));
	return 0;
}

static int move_all(struct cni_ctx *ctx, int pod, char names[][CNI_RDMA_NAME_MAX], int n)
{
	for (int i = 0; i < n; i++) {
		struct cni_rdma_dev d;
		int ret = cni_rdma_dev_get(names[i], 0, &d) ?: cni_rdma_move(d.index, pod);

		if (ret == -EOPNOTSUPP)
			return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
					  "the RDMA device cannot change network namespace",
					  "%s: its driver does not support moving between network namespaces "
					  "(soft RDMA drivers such as rxe and siw never do) %s", names[i],
					  cni_rdma_ext_ack());
		if (ret)
			return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
					  "cannot move the RDMA device into the pod", "%s: %s %s",
					  names[i], cni_rdma_strerror(ret), cni_rdma_ext_ack());
		log_info("moved RDMA device %s into %s", names[i], ctx->env.netns);
	}
	return 0;
}

int rdmans_add(struct cni_ctx *ctx)
{
	char dev[NAME_MAX + 1], record[NAME_MAX + 1], names[RDMANS_MAX_DEVS][CNI_RDMA_NAME_MAX];
	_cleanup_close_ int pod = -1;
	struct cni_error undo = { 0 };
	int n, ret;

	rdmans_args(ctx);

	if (!ctx->conf->prev_result)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "rdma-ns must be chained after the plugin that creates the interface",
				  "no prevResult: list rdma-ns after ib-sriov (or sriov) in the conflist");
	ret = rdmans_device(ctx, dev, sizeof(dev)) ?: rdmans_record_name(ctx, record, sizeof(record));
	if (ret)
		return ret;
	n = rdmans_devices_of(dev, names, RDMANS_MAX_DEVS);
	if (n <= 0)
		return cni_errorf(&ctx->err, n ? n : -ENODEV, CNI_ERR_DEVICE, "no RDMA device for deviceID",
				  "%s has no RDMA device under its infiniband/ directory in sysfs; "
				  "is its RDMA driver loaded?", dev);
	ret = rdmans_require_exclusive(ctx, false);
	if (ret)
		return ret;
	pod = cni_netns_open(ctx->env.netns, &ctx->err);
	if (pod < 0)
		return pod;
	ret = write_record(ctx, record, dev, names, n);
	if (ret)
		return ret;
	ret = move_all(ctx, pod, names, n);
	if (ret) {
		if (rdmans_release(record, &undo))
			log_err("rollback incomplete: %s: %s", undo.msg, undo.details);
		return ret;
	}
	ctx->result = cni_result_dup(ctx->conf->prev_result);
	return ctx->result ? 0 : -ENOMEM;
}
