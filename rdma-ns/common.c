// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "kernel/netns.h"
#include "protocol/conf_table.h"
#include "rdmans.h"
#include "state/state.h"
#include "base/util.h"

int rdmans_require_exclusive(struct cni_sys *sys, struct cni_ctx *ctx, bool for_status)
{
	return cni_rdma_require_exclusive(sys, &ctx->err,
					  for_status ? CNI_ERR_NOT_AVAILABLE : CNI_ERR_RDMA_MODE);
}

/* rdma-cni's args.cni.debug: debug logging, wherever the log goes. */
static const struct cni_conf_key args_keys[] = {
    CNI_CONF_BOOL("debug", 0),
};

int rdmans_args(struct cni_ctx *ctx, bool strict)
{
	struct cni_error bad = {0};
	bool debug = false;
	struct cni_conf_load l = {
	    .obj = ctx->conf->args_cni, .prefix = "args.cni", .dst = &debug, .err = &bad};
	int ret = cni_conf_load(&l, args_keys, ARRAY_SIZE(args_keys));

	if (!ret && debug)
		cni_log_set_level(CNI_LOG_DEBUG);
	if (ret != -EINVAL)
		return 0;
	if (strict)
		return cni_error_adopt(&ctx->err, &bad, ret);
	/* Cleanup must not depend on a config edit. */
	log_warn("ignored: %s: %s", bad.msg, bad.details);
	return 0;
}

/* rdmaName: a name, or "auto" for the pod interface's. */
static int rdma_name_key(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	const struct cni_ctx *ctx = l->arg;
	char *out = l->dst;
	const char *v = NULL;

	if (cni_conf_string(l->obj, l->prefix, f->k->key, &v, l->err) == -EINVAL)
		return -EINVAL;
	if (!v)
		return 0;
	if (!strcmp(v, "auto"))
		v = ctx->env.ifname;
	if (!cni_rdma_name_valid(v) || copy_str(out, CNI_RDMA_NAME_MAX, v))
		return cni_errorf(l->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"%s\" is \"%s\"%s; an RDMA device name is 1 to %d letters, "
				  "digits, '_', '-', '.' or ':' starting with a letter or digit, "
				  "or \"auto\" for the pod interface's name",
				  f->where, v, v == ctx->env.ifname ? " (auto)" : "",
				  CNI_RDMA_NAME_MAX - 1);
	return 0;
}

/* rdma-ns's own keys beside deviceID and pciBusID (device.c). */
static const struct cni_conf_key rdmans_keys[] = {
    CNI_CONF_PARSE("rdmaName", 0, rdma_name_key),
};

int rdmans_rdma_name(struct cni_ctx *ctx, char name[CNI_RDMA_NAME_MAX])
{
	struct cni_conf_load l = {
	    .obj = ctx->conf->root, .dst = name, .arg = ctx, .err = &ctx->err};

	name[0] = '\0';
	return cni_conf_load(&l, rdmans_keys, ARRAY_SIZE(rdmans_keys));
}

int rdmans_ctx_record_name(struct cni_ctx *ctx, char buf[RDMANS_NAME_MAX + 1])
{
	if (rdmans_record_name(ctx->conf->name, ctx->env.containerid, ctx->env.ifname, buf))
		return cni_errorf(&ctx->err, -ENAMETOOLONG, CNI_ERR_INVALID_ENV,
				  "container ID, network name and interface name are too long",
				  "rdma-ns names its record <network>:<containerID>:<ifname>, at "
				  "most %d bytes; here %zu + %zu + %zu",
				  RDMANS_NAME_MAX, strlen(ctx->conf->name),
				  strlen(ctx->env.containerid), strlen(ctx->env.ifname));
	return 0;
}

int rdmans_open_pod(struct cni_sys *sys, const char *path, int *fd)
{
	struct cni_error ignored = {0};
	int ret;

	*fd = -1;
	if (!path || !*path)
		return 1;
	ret = cni_netns_open(sys, path, &ignored);
	if (ret >= 0) {
		*fd = ret;
		return 0;
	}
	/* Gone: nothing there, or what the runtime leaves when it unmounts a
	 * netns bind mount (a plain file). The kernel returned the devices. */
	if (ret == -ENOENT || ret == -ENOTDIR || ret == -EINVAL)
		return 1;
	return ret;
}

/* The record's devices for cni_rdma_return: by index when it has them. */
static int return_devs(struct cni_sys *sys, int pod, const struct rdmans_record *rec,
		       const char **failed)
{
	struct cni_rdma_ref refs[RDMANS_MAX_DEVS];
	bool by_index = rec->has & RDMANS_REC_HAS_RDMA_INDEX;
	unsigned int n = rec->n_rdma < RDMANS_MAX_DEVS ? rec->n_rdma : RDMANS_MAX_DEVS;

	for (unsigned int i = 0; i < n; i++)
		refs[i] = (struct cni_rdma_ref){
		    .name = rec->rdma[i], .index = rec->rdma_index[i], .has_index = by_index};
	return cni_rdma_return(sys, pod, refs, n, failed);
}

/* The recorded identity as the kernel layer's; false for a record of an
 * older build (or a malformed one, which the loader refuses). */
static bool recorded_id(const struct rdmans_record *rec, struct cni_netns_id *id)
{
	struct rdmans_netns_id r;

	if (rdmans_record_netns_id(rec, &r))
		return false;
	*id = (struct cni_netns_id){.dev = r.dev, .ino = r.ino, .nsid = r.nsid, .cookie = r.cookie};
	return true;
}

int rdmans_netns_id_text(const struct cni_netns_id *id, char buf[RDMANS_NETNS_ID_MAX])
{
	struct rdmans_record tmp = {0};

	rdmans_record_set_netns_id(
	    &tmp, &(struct rdmans_netns_id){
		      .dev = id->dev, .ino = id->ino, .nsid = id->nsid, .cookie = id->cookie});
	return copy_str(buf, RDMANS_NETNS_ID_MAX, tmp.netns_id);
}

int rdmans_netns_is_recorded(struct cni_sys *sys, const struct rdmans_record *rec, int fd,
			     struct cni_netns_id *found)
{
	struct cni_netns_id want;
	int ret = cni_netns_id(fd, found);

	if (ret)
		return ret;
	if (!recorded_id(rec, &want))
		return 1;
	/* Device and inode (and the ID, where both have one) agree: the
	 * inode may be a freed one reused, which only the cookie tells. */
	if (!want.cookie || !cni_netns_id_same(&want, found))
		return cni_netns_id_same(&want, found);
	ret = cni_netns_cookie(sys, fd, &found->cookie);
	if (ret)
		return ret;
	return cni_netns_id_same(&want, found);
}

int rdmans_open_recorded(struct cni_sys *sys, const struct rdmans_record *rec, int *fd,
			 struct cni_netns_id *found)
{
	int ret = rdmans_open_pod(sys, rec->netns, fd);

	if (ret)
		return ret;
	ret = rdmans_netns_is_recorded(sys, rec, *fd, found);
	if (ret == 1)
		return 0;
	close(*fd);
	*fd = -1;
	return ret < 0 ? ret : RDMANS_NETNS_REPLACED;
}

/* The path names another namespace: the pod's is gone (its devices went
 * home with it), and whatever is there now is not ours to touch. */
static void log_replaced(const struct rdmans_record *rec, const struct cni_netns_id *found)
{
	char now[RDMANS_NETNS_ID_MAX];

	if (rdmans_netns_id_text(found, now))
		copy_str(now, sizeof(now), "?");
	log_info("%s is now another network namespace (recorded %s, found %s): the pod's is "
		 "gone and the kernel returned its RDMA devices; nothing is undone there",
		 rec->netns, rec->netns_id, now);
}

int rdmans_release(struct cni_sys *sys, const char *name, const struct rdmans_record *rec,
		   struct cni_error *err)
{
	_cleanup_close_ int pod = -1;
	struct cni_netns_id found;
	const char *failed = NULL;
	int ret;

	ret = rdmans_open_recorded(sys, rec, &pod, &found);
	if (ret < 0)
		return cni_errorf(err, ret, CNI_ERR_TRY_AGAIN,
				  "cannot open the pod's network namespace",
				  "%s: %s; the record %s/%s is kept for the next DEL", rec->netns,
				  strerror(-ret), RDMANS_STATE_DIR, name);
	if (ret == 1)
		log_info("%s is gone: the kernel returned its RDMA devices", rec->netns);
	else if (ret == RDMANS_NETNS_REPLACED)
		log_replaced(rec, &found);
	else
		ret = return_devs(sys, pod, rec, &failed);
	if (ret < 0)
		return cni_errorf(err, ret, CNI_ERR_DEVICE,
				  "cannot move the RDMA device back to the host", "%s: %s %s",
				  failed ? failed : "(entering the pod)", cni_rdma_strerror(ret),
				  cni_sys_ext_ack(sys));
	ret = cni_state_remove(RDMANS_STATE_DIR, name);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot remove the record", "%s/%s: %s",
				  RDMANS_STATE_DIR, name, strerror(-ret));
	return 0;
}
