// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "netns.h"
#include "rdmans.h"
#include "state.h"
#include "util.h"

int rdmans_device(struct cni_ctx *ctx, char *dev, size_t len)
{
	const char *v = NULL;
	const struct cni_result *prev = ctx->conf->prev_result;

	if (cni_json_string(ctx->conf->root, "deviceID", "deviceID", &v, &ctx->err) == -EINVAL ||
	    (!v && cni_json_string(ctx->conf->root, "pciBusID", "pciBusID", &v, &ctx->err) == -EINVAL))
		return -EINVAL;
	if ((!v || !*v) && prev)
		for (size_t i = 0; i < prev->n_ifaces && (!v || !*v); i++)
			v = prev->ifaces[i].pci_id;
	if (!v || !*v)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "deviceID is required",
				  "rdma-ns takes the device from \"deviceID\" (Multus sets it), \"pciBusID\", "
				  "or the pciID of the previous plugin's interface; none is set");
	/* A PCI address, or an auxiliary device name (one path component). */
	if (!cni_pci_addr_parse(v, dev) &&
	    (strchr(v, '/') || v[0] == '.' || copy_str(dev, len, v)))
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"deviceID\" is \"%s\"; it must be a PCI address (0000:3b:00.2) or an "
				  "auxiliary device name (mlx5_core.sf.4)", v);
	return 0;
}

int rdmans_devices_of(const char *dev, char names[][CNI_RDMA_NAME_MAX], size_t max)
{
	char pci[CNI_PCI_ADDR_LEN];

	if (cni_pci_addr_parse(dev, pci))
		return cni_pci_rdma_devs(CNI_PCI_ROOT, pci, names, max);
	return cni_pci_rdma_devs(CNI_AUX_ROOT, dev, names, max);
}

int rdmans_require_exclusive(struct cni_ctx *ctx, bool for_status)
{
	return cni_rdma_require_exclusive(&ctx->err, for_status ? CNI_ERR_NOT_AVAILABLE :
								   CNI_ERR_RDMA_MODE);
}

int rdmans_record_name(const struct cni_ctx *ctx, char *buf, size_t len)
{
	if (check_snprintf(buf, len, "%s-%s-%s", ctx->conf->name, ctx->env.containerid,
			   ctx->env.ifname) || !cni_state_name_valid(buf))
		return -EINVAL;
	return 0;
}

void rdmans_args(struct cni_ctx *ctx)
{
	bool debug = false;

	/* rdma-cni's args.cni.debug: debug logging, wherever the log goes. */
	if (!cni_json_bool(ctx->conf->args_cni, "debug", "args.cni.debug", &debug, &ctx->err) &&
	    debug)
		cni_log_setup("debug", ctx->conf->log_file);
	memset(&ctx->err, 0, sizeof(ctx->err));
}

int rdmans_release(const char *record, struct cni_error *err)
{
	_cleanup_json_ struct json_object *rec = NULL;
	_cleanup_close_ int pod = -1;
	struct cni_error ignored = { 0 };
	struct json_object *devs = NULL;
	const char *names[RDMANS_MAX_DEVS], *failed;
	size_t n = 0;
	int ret;

	ret = cni_state_read(RDMANS_STATE_DIR, record, &rec);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		goto remove;	/* unreadable: nothing to act on */
	pod = cni_netns_open(json_object_get_string(cni_json_get(rec, "netns")), &ignored);
	/* No pod netns: the kernel returned the devices to the host with it. */
	if (pod < 0 || !json_object_object_get_ex(rec, "rdma", &devs))
		goto remove;
	for (size_t i = 0; i < json_object_array_length(devs) && n < RDMANS_MAX_DEVS; i++)
		names[n++] = json_object_get_string(json_object_array_get_idx(devs, i));
	ret = cni_rdma_return(pod, names, n, &failed);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "cannot move the RDMA device back to the host",
				  "%s: %s %s", failed ? failed : "(entering the pod)",
				  cni_rdma_strerror(ret), cni_rdma_ext_ack());
remove:
	ret = cni_state_remove(RDMANS_STATE_DIR, record);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot remove the record", "%s/%s: %s",
				  RDMANS_STATE_DIR, record, strerror(-ret));
	return 0;
}
