// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "protocol/devcheck.h"
#include "base/addr.h"
#include "protocol/podres.h"
#include "base/util.h"

/* A PCI address in its normal form, any other device ID as it is. */
static bool same_device(const char *id, const char *dev)
{
	char a[CNI_PCI_ADDR_LEN], b[CNI_PCI_ADDR_LEN];

	if (cni_pci_addr_parse(id, a) && cni_pci_addr_parse(dev, b))
		return !strcmp(a, b);
	return !strcmp(id, dev);
}

/* A pod's name or namespace as Kubernetes writes them (DNS labels and
 * subdomains; upper case tolerated): anything else did not come from kubelet. */
static bool pod_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > CNI_PODRES_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-",
			    s[i]))
			return false;
	return true;
}

/* What the pod holds, for the error: "it holds a, b, c" into out[size]
 * (cut with "..."). */
static void held(const struct cni_podres_devices *d, char *out, size_t size)
{
	size_t o = strlen("it holds ");

	if (!d->known || !d->n) {
		copy_str(out, size, d->known ? "it holds no device" : "kubelet does not list it");
		return;
	}
	memcpy(out, "it holds ", o + 1);
	for (size_t i = 0; i < d->n; i++) {
		size_t len = strlen(d->ids[i]);

		if (o + len + 6 >= size) {
			memcpy(out + o, "...", 4);
			return;
		}
		memcpy(out + o, d->ids[i], len + 1);
		o += len;
		if (i + 1 < d->n) {
			memcpy(out + o, ", ", 3);
			o += 2;
		}
	}
}

static int refuse(struct cni_ctx *ctx, const char *src, const char *dev, const char *ns,
		  const char *name, const struct cni_podres_devices *d)
{
	char list[320];

	held(d, list, sizeof(list));
	return cni_errorf(
	    &ctx->err, -EPERM, CNI_ERR_INVALID_CONFIG, "deviceID is not allocated to this pod",
	    "%s %s is not among the devices kubelet allocated to pod %s/%s (%s); "
	    "the network must name the device the pod was given: request the device "
	    "plugin's resource in the pod and set the network's "
	    "k8s.v1.cni.cncf.io/resourceName annotation, so Multus passes that deviceID",
	    src, dev, ns, name, list);
}

int cni_device_check(struct cni_ctx *ctx, const char *src, const char *const *devs, size_t n)
{
	const char *sock = cni_podres_socket;
	const char *ns = cni_args_get(&ctx->args, "K8S_POD_NAMESPACE");
	const char *name = cni_args_get(&ctx->args, "K8S_POD_NAME");
	unsigned int ms = CNI_PODRES_TIMEOUT_MS;
	struct cni_podres_devices d;
	struct stat st;
	int ret;

	if (ctx->node && ctx->node->device_check == CNI_DEVICE_CHECK_OFF)
		return 0;
	if (lstat(sock, &st) && errno == ENOENT) {
		log_debug("no kubelet PodResources socket at %s: %s %s not checked", sock, src,
			  devs[0]);
		return 0;
	}
	if (!pod_name_ok(ns) || !pod_name_ok(name))
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_ENV, "CNI_ARGS does not name the pod",
		    "kubelet's PodResources socket %s exists, so %s %s is checked against the "
		    "devices kubelet allocated to the pod, but CNI_ARGS has no valid "
		    "K8S_POD_NAMESPACE and K8S_POD_NAME (the container runtime sets them for "
		    "kubelet's pods); set \"deviceCheck\": \"off\" in %s where no kubelet "
		    "allocates the devices",
		    sock, src, devs[0], CNI_NODECONF_PATH);
	if (ctx->node && ctx->node->max_wait_ms < ms)
		ms = ctx->node->max_wait_ms;
	ret = cni_podres_pod_devices(sock, ns, name, ms, &d, &ctx->err);
	if (ret == -ENOENT && !ctx->err.code) {
		log_debug("kubelet's PodResources socket %s is gone: %s %s not checked", sock, src,
			  devs[0]);
		return 0;
	}
	if (ret)
		return ret;
	for (size_t i = 0; i < d.n; i++)
		for (size_t j = 0; j < n; j++)
			if (same_device(d.ids[i], devs[j])) {
				log_debug("%s %s is allocated to pod %s/%s", src, devs[j], ns,
					  name);
				cni_podres_devices_free(&d);
				return 0;
			}
	ret = refuse(ctx, src, devs[0], ns, name, &d);
	cni_podres_devices_free(&d);
	return ret;
}
