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

/* Append to out[size] at *o; a text cut with "..." once full. */
static void add(char *out, size_t size, size_t *o, const char *a, const char *b, const char *c)
{
	const char *parts[] = {a, b, c};

	for (size_t i = 0; i < 3 && parts[i]; i++) {
		size_t len = strlen(parts[i]);

		if (*o + len + 4 >= size) {
			if (*o + 4 <= size)
				memcpy(out + *o, "...", 4);
			*o = size;
			return;
		}
		memcpy(out + *o, parts[i], len + 1);
		*o += len;
	}
}

/* Whether a DRA driver is one the admin trusts (draDrivers). */
static bool trusted(const struct cni_ctx *ctx, const char *driver)
{
	const struct cni_nodeconf *nc = ctx->node ? ctx->node : cni_nodeconf_defaults();

	for (size_t i = 0; i < nc->n_dra_drivers; i++)
		if (!strcmp(nc->dra_drivers[i], driver))
			return true;
	return false;
}

/* What the pod holds, for the error: "it holds a, b; DRA claim ns/c:
 * driver/pool/device" into out[size] (cut with "..."). */
static void held(const struct cni_ctx *ctx, const struct cni_podres_devices *d, char *out,
		 size_t size)
{
	size_t o = 0;

	out[0] = '\0';
	if (!d->known || (!d->n && !d->n_dra && !d->n_dra_unnamed)) {
		copy_str(out, size, d->known ? "it holds no device" : "kubelet does not list it");
		return;
	}
	add(out, size, &o, "it holds ", d->n ? "" : "no device-plugin device", NULL);
	for (size_t i = 0; i < d->n; i++)
		add(out, size, &o, i ? ", " : "", d->ids[i], NULL);
	for (size_t i = 0; i < d->n_dra; i++) {
		add(out, size, &o, "; DRA claim ", d->dra[i].claim, ": ");
		add(out, size, &o, d->dra[i].driver, "/", d->dra[i].pool);
		add(out, size, &o, "/", d->dra[i].device,
		    trusted(ctx, d->dra[i].driver) ? NULL : " (a driver not in draDrivers)");
	}
	if (d->n_dra_unnamed)
		add(out, size, &o,
		    "; DRA claim devices kubelet does not name (before 1.31 it gives only CDI "
		    "names)",
		    NULL, NULL);
}

static int refuse(struct cni_ctx *ctx, const char *src, const char *dev, const char *ns,
		  const char *name, const struct cni_podres_devices *d)
{
	char list[480];

	held(ctx, d, list, sizeof(list));
	return cni_errorf(
	    &ctx->err, -EPERM, CNI_ERR_INVALID_CONFIG, "deviceID is not allocated to this pod",
	    "%s %s is not among the devices kubelet allocated to pod %s/%s (%s); "
	    "the network must name the device the pod was given: request the device "
	    "plugin's resource in the pod and set the network's "
	    "k8s.v1.cni.cncf.io/resourceName annotation, so Multus passes that deviceID "
	    "(under DRA: a claim a container of the pod names must hold the device, from a "
	    "driver listed in \"draDrivers\" of %s)",
	    src, dev, ns, name, list, CNI_NODECONF_PATH);
}

/* The name a DRA driver gives the device dev in its ResourceSlice:
 * dra-driver-sriov names a VF after its PCI address, every ':' and '.' a
 * '-' (0000:03:01.0 is 0000-03-01-0); any other ID as it is. */
static void dra_name(const char *dev, char out[CNI_PCI_ADDR_LEN])
{
	if (!cni_pci_addr_parse(dev, out)) {
		out[0] = '\0';
		return;
	}
	for (char *p = out; *p; p++)
		if (*p == ':' || *p == '.')
			*p = '-';
}

/* Whether d holds one of devs[n]: a device-plugin ID, or a device of a
 * claim from a trusted DRA driver; logs which. */
static bool holds(const struct cni_ctx *ctx, const struct cni_podres_devices *d, const char *src,
		  const char *const *devs, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		char want[CNI_PCI_ADDR_LEN];

		for (size_t i = 0; i < d->n; i++)
			if (same_device(d->ids[i], devs[j])) {
				log_debug("%s %s is allocated to the pod", src, devs[j]);
				return true;
			}
		dra_name(devs[j], want);
		for (size_t i = 0; i < d->n_dra; i++) {
			const struct cni_podres_dra *e = &d->dra[i];

			if (trusted(ctx, e->driver) &&
			    ((*want && !strcmp(e->device, want)) || !strcmp(e->device, devs[j]))) {
				log_debug("%s %s is device %s/%s/%s of the pod's DRA claim %s", src,
					  devs[j], e->driver, e->pool, e->device, e->claim);
				return true;
			}
		}
	}
	return false;
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
	ret = holds(ctx, &d, src, devs, n) ? 0 : refuse(ctx, src, devs[0], ns, name, &d);
	cni_podres_devices_free(&d);
	return ret;
}
