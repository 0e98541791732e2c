// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/cleanup.h"
#include "guid.h"
#include "ibsriov.h"
#include "base/json.h"
#include "base/util.h"
#include "protocol/conf_table.h"
#include "rail.h"

/* Code 7 with details naming the key and the fix (checked as printf). */
#define bad(ctx, ...)                                                                              \
	cni_errorf(&(ctx)->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",          \
		   __VA_ARGS__)

/* What the table fills: the configuration, and the raw values of the keys
 * that are checked together. */
struct load {
	struct ibsriov_conf c;
	struct cni_ctx *ctx;
	bool lenient;
	const char *dev, *bus, *proto, *app;
	int64_t vlan, qos, min, max, mtu;
};

#define AT(field) offsetof(struct load, field)

static struct load *loaded(const struct cni_conf_load *l)
{
	return l->dst;
}

static int device(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct cni_ctx *ctx = ld->ctx;
	struct ibsriov_conf *c = &ld->c;
	const char *dev = ld->dev, *bus = ld->bus;

	if (!dev || !*dev)
		dev = bus;
	if (ld->lenient && (!dev || !cni_pci_addr_parse(dev, c->device))) {
		c->device[0] = '\0';
		return CNI_CONF_DONE;
	}
	if (!dev || !*dev)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "deviceID is required",
				  "Multus sets \"deviceID\" to the VF the device plugin allocated; "
				  "check the network's resourceName annotation");
	if (!cni_pci_addr_parse(dev, c->device))
		return bad(
		    ctx, "\"deviceID\" is \"%s\"; it must be a PCI address like 0000:3b:00.2", dev);
	if (bus && *bus && dev != bus) {
		char other[CNI_PCI_ADDR_LEN];

		if (!cni_pci_addr_parse(bus, other) || strcmp(other, c->device))
			return bad(ctx,
				   "\"pciBusID\" (%s) and \"deviceID\" (%s) name different devices",
				   bus, dev);
	}
	/* DEL and GC read the device only. */
	if (ld->lenient)
		return CNI_CONF_DONE;
	return 0;
}

/* runtimeConfig.infinibandGUID, else args.cni.guid, else a top-level guid. */
static int guid(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	static const char *const from[] = {"runtimeConfig.infinibandGUID", "args.cni.guid", "guid"};
	static const char *const keys[] = {"infinibandGUID", "guid", "guid"};
	struct load *ld = loaded(l);
	struct cni_ctx *ctx = ld->ctx;
	struct ibsriov_conf *c = &ld->c;
	struct json_object *obj[] = {ctx->conf->runtime_config, ctx->conf->args_cni,
				     ctx->conf->root};
	const char *v = NULL;
	int ret;

	for (size_t i = 0; i < 3 && !v; i++) {
		ret = cni_json_string(obj[i], keys[i], from[i], &v, &ctx->err);
		if (ret == -ENOENT)
			v = NULL;
		else if (ret)
			return ret;
		if (v && !*v)
			v = NULL;
		c->guid_from = from[i];
	}
	if (!v)
		return 0;
	if (!cni_guid_parse(v, &c->guid) || c->guid == 0)
		return bad(ctx,
			   "%s is \"%s\"; a GUID is 8 hex bytes like 02:00:00:00:00:00:00:01, "
			   "not all zeros",
			   c->guid_from, v);
	/* ib-sriov-cni accepts it; the driver takes it as "no GUID". */
	if (ibsriov_guid_unset(c->guid))
		log_warn("%s is all ones: the VF's GUID is cleared, not assigned", c->guid_from);
	c->has_guid = true;
	return 0;
}

static int pkey(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct ibsriov_conf *c = &loaded(l)->c;
	const char *v;
	int ret = cni_conf_string(l->obj, l->prefix, f->k->key, &v, l->err);

	if (ret || !v || !*v)
		return ret;
	/* As in ib-sriov-cni, the key is for ib-kubernetes (which programs the
	 * subnet manager); only pkeyEnforce makes the plugin act on it. A key
	 * that can never be valid is refused either way: ib-kubernetes would
	 * fail on it later, far from the NAD that holds it. */
	if (!ibsriov_pkey_parse(v, &c->pkey))
		return bad(loaded(l)->ctx,
			   "\"pkey\" is \"%s\"; it must be a partition key like \"0x8001\" "
			   "(hex or decimal, 15-bit key plus the membership bit, not 0)",
			   v);
	c->has_pkey = true;
	return 0;
}

static int link_state(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	static const char *const names[] = {"auto", "enable", "disable"};
	static const uint32_t states[] = {IFLA_VF_LINK_STATE_AUTO, IFLA_VF_LINK_STATE_ENABLE,
					  IFLA_VF_LINK_STATE_DISABLE};
	struct ibsriov_conf *c = &loaded(l)->c;
	const char *v;
	int ret = cni_conf_string(l->obj, l->prefix, f->k->key, &v, l->err);

	if (ret || !v)
		return ret;
	ret = cni_conf_spelling(f->where, v, names, ARRAY_SIZE(names), l->err);
	if (ret < 0)
		return ret;
	c->vf.link_state = states[ret];
	c->vf.mask |= CNI_VF_LINK_STATE;
	return 0;
}

/* MAC: runtimeConfig.mac, else CNI_ARGS MAC=, else "mac". */
static int mac(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct cni_ctx *ctx = ld->ctx;
	struct ibsriov_conf *c = &ld->c;
	const char *v = NULL;
	int ret;

	c->mac_from = "runtimeConfig.mac";
	ret = cni_conf_string(ctx->conf->runtime_config, "runtimeConfig", "mac", &v, &ctx->err);
	if (!ret && !v && (v = cni_args_get(&ctx->args, "MAC")))
		c->mac_from = "CNI_ARGS MAC";
	if (!ret && !v) {
		c->mac_from = "mac";
		ret = cni_conf_string(ctx->conf->root, NULL, c->mac_from, &v, &ctx->err);
	}
	if (ret || !v || !*v)
		return ret;
	if (!cni_mac_parse(v, c->vf.mac))
		return bad(ctx,
			   "\"mac\" is \"%s\"; it must be a unicast MAC like 02:00:00:00:00:01", v);
	c->vf.mask |= CNI_VF_MAC;
	c->has_mac = true;
	return 0;
}

static int vlan(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct cni_vf *vf = &ld->c.vf;
	const char *proto = ld->proto;

	if ((ld->qos >= 0 || proto) && ld->vlan < 0)
		return bad(ld->ctx, "\"vlanQoS\" and \"vlanProto\" need \"vlan\"");
	if (ld->vlan < 0)
		return 0;
	vf->mask |= CNI_VF_VLAN;
	vf->vlan = (uint32_t)ld->vlan;
	vf->qos = 0;
	if (ld->qos > 0)
		vf->qos = (uint32_t)ld->qos;
	vf->vlan_proto = ETH_P_8021Q;
	if (proto && !strcasecmp(proto, "802.1ad"))
		vf->vlan_proto = ETH_P_8021AD;
	else if (proto && strcasecmp(proto, "802.1q"))
		return bad(ld->ctx, "\"vlanProto\" is \"%s\"; it must be \"802.1q\" or \"802.1ad\"",
			   proto);
	if (ld->vlan == 0 && (ld->qos > 0 || vf->vlan_proto != ETH_P_8021Q))
		return bad(ld->ctx, "\"vlan\" 0 takes no \"vlanQoS\" or \"vlanProto\"");
	return 0;
}

static int on_off(const struct cni_conf_load *l, const struct cni_conf_field *f, uint32_t bit)
{
	static const char *const names[] = {"on", "off"};
	struct cni_vf *vf = &loaded(l)->c.vf;
	const char *v;
	int ret = cni_conf_string(l->obj, l->prefix, f->k->key, &v, l->err);

	if (ret || !v)
		return ret;
	/* sriov-cni takes anything but "on" as off: a typo would turn spoof
	 * checking off. The operators render "on" and "off" only (the SR-IOV
	 * Network Operator's enum); "" is left as the VF has it. */
	if (!*v) {
		log_info("\"%s\" is empty: the VF's setting is left as it is", f->where);
		return 0;
	}
	ret = cni_conf_spelling(f->where, v, names, ARRAY_SIZE(names), l->err);
	if (ret < 0)
		return ret;
	*(uint32_t *)f->at = ret == 0;
	vf->mask |= bit;
	return 0;
}

static int spoofchk(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return on_off(l, f, CNI_VF_SPOOFCHK);
}

static int trust(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return on_off(l, f, CNI_VF_TRUST);
}

static int rate(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct cni_vf *vf = &ld->c.vf;
	struct json_object *root = l->obj;

	if (ld->min < 0 && ld->max < 0)
		return 0;
	if (ld->min > 0 && ld->max > 0 && ld->min > ld->max)
		return bad(ld->ctx, "\"min_tx_rate\" (%s) is above \"max_tx_rate\" (%s)",
			   json_object_get_string(cni_json_get(root, "min_tx_rate")),
			   json_object_get_string(cni_json_get(root, "max_tx_rate")));
	vf->mask |= CNI_VF_RATE;
	vf->min_tx_rate = 0;
	if (ld->min > 0)
		vf->min_tx_rate = (uint32_t)ld->min;
	vf->max_tx_rate = 0;
	if (ld->max > 0)
		vf->max_tx_rate = (uint32_t)ld->max;
	return 0;
}

/* One wait key: at most the node's maxWaitMs (a NAD never widens it; the
 * default is lowered to it), else code 7 naming the key and the cap. */
static int wait_key(const struct cni_conf_load *l, const struct cni_conf_field *f, unsigned int def)
{
	struct cni_ctx *ctx = loaded(l)->ctx;
	const struct cni_nodeconf *node = ctx->node;
	unsigned int *out = f->at;
	int64_t v;
	int ret;

	if (!node)
		node = cni_nodeconf_defaults();
	ret = cni_json_int(l->obj, f->k->key, f->where, (struct cni_int_range){0, 600000}, &v,
			   l->err);
	*out = def;
	if (node->max_wait_ms < def)
		*out = node->max_wait_ms;
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	if (v > node->max_wait_ms)
		return cni_errorf(&ctx->err, -ERANGE, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration",
				  "\"%s\" is %" PRId64 "; this node allows waits of at most %u ms "
				  "(\"maxWaitMs\" in %s)",
				  f->where, v, node->max_wait_ms, CNI_NODECONF_PATH);
	*out = (unsigned int)v;
	return 0;
}

static int netdev_wait(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return wait_key(l, f, IBSRIOV_NETDEV_WAIT_MS);
}

static int pkey_wait(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return wait_key(l, f, IBSRIOV_PKEY_WAIT_MS);
}

/* No default wait: 0 keeps ADD as it was (add/portwait.c). */
static int port_wait(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return wait_key(l, f, 0);
}

static int dns(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);

	/* Set here: the keys after the MTU are the waits and checks. */
	ld->c.mtu = (unsigned int)ld->mtu;
	return ibsriov_conf_dns(ld->ctx, NULL);
}

static int ipam_type(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct cni_ctx *ctx = loaded(l)->ctx;

	if (ctx->conf->ipam_type && strchr(ctx->conf->ipam_type, '/'))
		return bad(ctx,
			   "\"ipam.type\" is \"%s\"; it must be a plugin name found on CNI_PATH",
			   ctx->conf->ipam_type);
	return 0;
}

static int ib_kubernetes(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);
	struct cni_ctx *ctx = ld->ctx;
	const char *app = NULL;
	int ret;

	if (!ld->c.ib_kubernetes)
		return 0;
	ret = cni_conf_string(ctx->conf->args_cni, "args.cni", "mellanox.infiniband.app", &app,
			      &ctx->err);
	if (ret)
		return ret;
	if (!app || strcmp(app, "configured"))
		return cni_errorf(
		    &ctx->err, -EAGAIN, CNI_ERR_TRY_AGAIN,
		    "InfiniBand status \"mellanox.infiniband.app\" is not \"configured\"",
		    "ibKubernetesEnabled is set: ib-kubernetes must add the pod's GUID to "
		    "the "
		    "partition first; check that ib-kubernetes is running");
	if (!ld->c.has_guid)
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
		    "GUID must be provided by ib-kubernetes",
		    "ibKubernetesEnabled is set but neither runtimeConfig.infinibandGUID "
		    "nor args.cni.guid carries a GUID");
	return 0;
}

/* rdmaName names the device rdmaIsolation moves (its value checked by its
 * key kind: "auto" is CNI_IFNAME). DEL and GC stop before it (device):
 * the release restores the recorded host name. */
static int rdma_name(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct load *ld = loaded(l);

	if (*ld->c.rdma_name && (!ld->c.rdma_isolation || ld->c.vfio))
		return bad(ld->ctx, "\"rdmaName\" names the RDMA device that rdmaIsolation moves "
				    "into the pod: set \"rdmaIsolation\": true (not with "
				    "vfioPciMode), or use rdma-ns");
	return 0;
}

static int rail(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	return ibsriov_rail_conf_check(&loaded(l)->c, l->err);
}

/* ib-sriov's keys, in the order they are checked (the first failure is the
 * one reported). Unknown keys and CNI_ARGS are ignored, as ib-sriov-cni
 * ignores them. */
static const struct cni_conf_key keys[] = {
    CNI_CONF_STR("deviceID", AT(dev)),
    CNI_CONF_STR("pciBusID", AT(bus)),
    CNI_CONF_STEP(device),
    CNI_CONF_STEP(guid),
    CNI_CONF_BOOL("guidFallback", AT(c.guid_fallback)),
    CNI_CONF_BOOL("ibKubernetesEnabled", AT(c.ib_kubernetes)),
    CNI_CONF_BOOL("rdmaIsolation", AT(c.rdma_isolation)),
    CNI_CONF_BOOL("vfioPciMode", AT(c.vfio)),
    CNI_CONF_RDMA_NAME("rdmaName", AT(c.rdma_name)),
    CNI_CONF_STEP(rdma_name),
    CNI_CONF_BOOL("pkeyEnforce", AT(c.pkey_enforce)),
    CNI_CONF_PARSE("pkey", AT(c.pkey), pkey),
    CNI_CONF_PARSE("link_state", AT(c.vf.link_state), link_state),
    CNI_CONF_STEP(mac),
    CNI_CONF_INT("vlan", AT(vlan), 0, 4094),
    CNI_CONF_INT("vlanQoS", AT(qos), 0, 7),
    CNI_CONF_STR("vlanProto", AT(proto)),
    CNI_CONF_STEP(vlan),
    CNI_CONF_PARSE("spoofchk", AT(c.vf.spoofchk), spoofchk),
    CNI_CONF_PARSE("trust", AT(c.vf.trust), trust),
    CNI_CONF_INT("min_tx_rate", AT(min), 0, UINT32_MAX),
    CNI_CONF_INT("max_tx_rate", AT(max), 0, UINT32_MAX),
    CNI_CONF_STEP(rate),
    CNI_CONF_INT("mtu", AT(mtu), 68, 65535),
    CNI_CONF_PARSE("netdevWaitMs", AT(c.netdev_wait_ms), netdev_wait),
    CNI_CONF_PARSE("pkeyWaitMs", AT(c.pkey_wait_ms), pkey_wait),
    CNI_CONF_PARSE("waitPortActiveMs", AT(c.port_wait_ms), port_wait),
    CNI_CONF_STEP(dns),
    CNI_CONF_STEP(ipam_type),
    CNI_CONF_STEP(ib_kubernetes),
    CNI_CONF_PARSE("railTable", AT(c.rail), ibsriov_rail_table_parse),
    CNI_CONF_BOOL("railKeepMain", AT(c.rail.keep_main)),
    CNI_CONF_BOOL("railSysctls", AT(c.rail.sysctls)),
    CNI_CONF_STEP(rail),
};

int ibsriov_conf_dns(struct cni_ctx *ctx, struct cni_result **out)
{
	_cleanup_json_ struct json_object *wrap = NULL;
	struct json_object *dns = cni_json_get(ctx->conf->root, "dns");
	struct cni_result *r = NULL;
	int ret;

	if (out)
		*out = NULL;
	if (!dns)
		return 0;
	/* Decoded as a result's "dns", so it is checked exactly as one. */
	wrap = json_object_new_object();
	if (!wrap || json_object_object_add(wrap, "cniVersion", json_object_new_string("1.0.0")) ||
	    json_object_object_add(wrap, "dns", json_object_get(dns)))
		return -ENOMEM;
	ret = cni_result_from_json(wrap, CNI_V100, &r, &ctx->err);
	if (ret) {
		cni_error_recode(&ctx->err, CNI_ERR_INVALID_CONFIG);
		cni_error_prefix(&ctx->err, "\"dns\"");
		return ret;
	}
	if (out)
		*out = r;
	else
		cni_result_free(r);
	return 0;
}

int ibsriov_conf_load(struct cni_ctx *ctx, struct ibsriov_conf *c, bool lenient)
{
	struct load ld = {
	    .ctx = ctx, .lenient = lenient, .vlan = -1, .qos = -1, .min = -1, .max = -1};
	struct cni_conf_load l = {
	    .obj = ctx->conf->root, .dst = &ld, .err = &ctx->err, .ifname = ctx->env.ifname};
	int ret = cni_conf_load(&l, keys, ARRAY_SIZE(keys));

	*c = ld.c;
	return ret;
}
