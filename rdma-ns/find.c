// SPDX-License-Identifier: Apache-2.0
/* What DEL, CHECK and GC find to undo: our record under either name
 * format, or, after an upgrade from rdma-cni, rdma-cni's cache entry. */
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "kernel/netns.h"
#include "rdmans.h"
#include "state/state.h"
#include "base/util.h"

/* A directory listing is bounded: a planted flood must not stall a DEL. */
#define MAX_ENTRIES 65536

/* A record that can never be read again is removed, so DEL can finish. */
static int drop_dead(struct cni_ctx *ctx, const char *name, int why)
{
	int ret;

	log_err("record %s/%s is unusable (%s): removed; its pod's devices return to the "
		"host when the pod's netns goes",
		RDMANS_STATE_DIR, name, strerror(-why));
	ret = cni_state_remove(RDMANS_STATE_DIR, name);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot remove the record",
				  "%s/%s: %s", RDMANS_STATE_DIR, name, strerror(-ret));
	return -ENOENT;
}

static int unreadable(struct cni_ctx *ctx, const char *dir, const char *name, int ret)
{
	/* Transient (EIO, ENOMEM, ...): keep it; the runtime retries DEL. */
	return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot read the record",
			  "%s/%s: %s; it is kept for the next try", dir, name, strerror(-ret));
}

int rdmans_find_record(struct cni_ctx *ctx, struct rdmans_record *rec, char name[NAME_MAX + 1])
{
	const char *net = ctx->conf->name, *id = ctx->env.containerid, *ifn = ctx->env.ifname;
	int ret;

	/* An over-long name was refused by ADD: no such record can exist. */
	if (!rdmans_record_name(net, id, ifn, name)) {
		ret = rdmans_record_load(name, rec);
		if (!ret && !rdmans_record_is(rec, net, id, ifn))
			ret = -EBADMSG; /* this name is this tuple's alone */
		if (!ret)
			return 0;
		if (rdmans_load_error_permanent(ret))
			return drop_dead(ctx, name, ret);
		if (ret != -ENOENT)
			return unreadable(ctx, RDMANS_STATE_DIR, name, ret);
	}
	/* The previous version's name: ambiguous, so only with our tuple inside;
	 * anything else there may be another attachment's and is left alone. */
	if (rdmans_record_old_name(net, id, ifn, name))
		return -ENOENT;
	ret = rdmans_record_load(name, rec);
	if (!ret && rdmans_record_is(rec, net, id, ifn))
		return 0;
	if (ret && ret != -ENOENT && !rdmans_load_error_permanent(ret))
		return unreadable(ctx, RDMANS_STATE_DIR, name, ret);
	return -ENOENT;
}

/* rdma-cni's entry for this attachment: 0, -ENOENT (none, or another
 * attachment's), or -errno with err filled. */
static int find_rdmacni(struct cni_ctx *ctx, struct rdmacni_cache *c, char name[NAME_MAX + 1])
{
	struct cni_error ignored = {0};
	char dev[RDMANS_DEV_MAX], cached[CNI_PCI_ADDR_LEN];
	int ret;

	if (rdmans_record_old_name(ctx->conf->name, ctx->env.containerid, ctx->env.ifname, name))
		return -ENOENT; /* rdma-cni could not have written it either */
	ret = rdmacni_cache_load(name, c);
	if (ret == -ENOENT)
		return ret;
	if (ret && rdmans_load_error_permanent(ret)) {
		log_warn("rdma-cni cache %s/%s is unusable (%s): left as it is", RDMACNI_STATE_DIR,
			 name, strerror(-ret));
		return -ENOENT;
	}
	if (ret)
		return unreadable(ctx, RDMACNI_STATE_DIR, name, ret);
	/* Its name is ambiguous too: with a deviceID (Multus sends it on DEL as
	 * on ADD), the entry must be for that device. */
	if (rdmans_configured_device(ctx->conf, dev, NULL, &ignored) || !*dev ||
	    !(c->has & RDMACNI_HAS_DEVICEID))
		return 0;
	if (!strcmp(c->deviceid, dev) ||
	    (cni_pci_addr_parse(c->deviceid, cached) && !strcmp(cached, dev)))
		return 0;
	log_warn("rdma-cni cache %s/%s is for device %s, not %s: left as it is", RDMACNI_STATE_DIR,
		 name, c->deviceid, dev);
	return -ENOENT;
}

int rdmans_release_rdmacni(struct cni_sys *sys, struct cni_ctx *ctx)
{
	_cleanup_close_ int pod = -1;
	const char *failed = NULL;
	struct rdmacni_cache c;
	char name[NAME_MAX + 1];
	int ret = find_rdmacni(ctx, &c, name);

	if (ret)
		return ret == -ENOENT ? 0 : ret;
	log_info("releasing %s, attached by rdma-cni (%s/%s)", c.container_dev, RDMACNI_STATE_DIR,
		 name);
	/* rdma-cni kept no netns: DEL's is the pod's. */
	ret = rdmans_open_pod(sys, ctx->env.netns, &pod);
	if (ret < 0)
		return cni_errorf(&ctx->err, ret, CNI_ERR_TRY_AGAIN,
				  "cannot open the pod's network namespace",
				  "%s: %s; rdma-cni's cache %s/%s is kept for the next DEL",
				  ctx->env.netns, strerror(-ret), RDMACNI_STATE_DIR, name);
	if (ret == 0)
		ret = cni_rdma_return(sys, pod, &(struct cni_rdma_ref){.name = c.container_dev}, 1,
				      &failed);
	if (ret < 0)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
				  "cannot move the RDMA device back to the host", "%s: %s %s",
				  failed ? failed : "(entering the pod)", cni_rdma_strerror(ret),
				  cni_sys_ext_ack(sys));
	ret = cni_state_remove(RDMACNI_STATE_DIR, name);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot remove rdma-cni's cache",
				  "%s/%s: %s", RDMACNI_STATE_DIR, name, strerror(-ret));
	return 0;
}

int rdmans_check_rdmacni(struct cni_sys *sys, struct cni_ctx *ctx, int pod)
{
	struct rdmacni_cache c;
	struct cni_rdma_dev d;
	char name[NAME_MAX + 1];
	int saved = -1, ret = find_rdmacni(ctx, &c, name);

	if (ret)
		return ret;
	ret = cni_netns_enter(sys, pod, &saved);
	if (!ret) {
		ret = cni_rdma_dev_get(sys, c.container_dev, 0, &d);
		cni_netns_restore(sys, &saved);
	}
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "CHECK failed",
				  "RDMA device %s (attached by rdma-cni) is not in the pod: %s",
				  c.container_dev, cni_rdma_strerror(ret));
	return 0;
}

/* "<containerID>-<ifname>" of a listed attachment. */
static bool listed(const struct cni_conf *conf, const char *rest)
{
	for (size_t i = 0; i < conf->n_attachments; i++) {
		const struct cni_attachment *a = &conf->attachments[i];
		size_t n = strlen(a->containerid);

		if (!strncmp(rest, a->containerid, n) && rest[n] == '-' &&
		    !strcmp(rest + n + 1, a->ifname))
			return true;
	}
	return false;
}

/* One rdma-cni cache entry: removed when it is this network's, of no
 * listed attachment, and its device is back on the host. */
struct gc_rdmacni {
	struct cni_sys *sys;
	struct cni_ctx *ctx;
};

static int gc_rdmacni_one(int dirfd, const char *name, void *arg)
{
	const struct gc_rdmacni *g = arg;
	struct cni_ctx *ctx = g->ctx;
	size_t plen = strlen(ctx->conf->name);
	struct rdmacni_cache c;
	struct cni_rdma_dev dev;
	int ret;

	(void)dirfd;
	if (strncmp(name, ctx->conf->name, plen) || name[plen] != '-' ||
	    listed(ctx->conf, name + plen + 1) || rdmacni_cache_load(name, &c))
		return 0;
	/* rdma-cni kept no netns, so only a device back on the host (no pod
	 * holds it) makes the entry certainly stale, whoever wrote it. */
	ret = cni_rdma_dev_get(g->sys, c.container_dev, 0, &dev);
	if (ret) {
		log_info("rdma-cni cache %s: %s is not on the host (%s); kept for its DEL", name,
			 c.container_dev, cni_rdma_strerror(ret));
		return 0;
	}
	if (cni_state_remove(RDMACNI_STATE_DIR, name))
		log_warn("cannot remove rdma-cni cache %s/%s", RDMACNI_STATE_DIR, name);
	else
		log_info("released stale rdma-cni cache %s", name);
	return 0;
}

void rdmans_gc_rdmacni(struct cni_sys *sys, struct cni_ctx *ctx)
{
	struct gc_rdmacni g = {.sys = sys, .ctx = ctx};

	/* A directory that cannot be listed has nothing this GC can release. */
	cni_state_each(RDMACNI_STATE_DIR, MAX_ENTRIES, gc_rdmacni_one, &g);
}
