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

/* Code 7 with details naming the key and the fix (checked as printf). */
#define bad(ctx, ...)                                                                              \
	cni_errorf(&(ctx)->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",          \
		   __VA_ARGS__)

/* A string key that is absent (NULL), or present and a string. */
static int str(struct cni_ctx *ctx, struct json_object *o, const char *key, const char *where,
	       const char **out)
{
	int ret = cni_json_string(o, key, where, out, &ctx->err);

	if (ret == -ENOENT) {
		*out = NULL;
		return 0;
	}
	return ret;
}

static int on_off(struct cni_ctx *ctx, const char *key, uint32_t *out, uint32_t *mask, uint32_t bit)
{
	const char *v;
	int ret = str(ctx, ctx->conf->root, key, key, &v);

	if (ret || !v)
		return ret;
	/* sriov-cni takes anything but "on" as off: a typo would turn spoof
	 * checking off. The operators render "on" and "off" only (the SR-IOV
	 * Network Operator's enum); "" is left as the VF has it. */
	if (!*v) {
		log_info("\"%s\" is empty: the VF's setting is left as it is", key);
		return 0;
	}
	if (strcmp(v, "on") && strcmp(v, "off"))
		return bad(ctx, "\"%s\" is \"%s\"; it must be \"on\" or \"off\"", key, v);
	*out = !strcmp(v, "on");
	*mask |= bit;
	return 0;
}

static int device(struct cni_ctx *ctx, struct ibsriov_conf *c, bool lenient)
{
	const char *dev, *bus;
	int ret = str(ctx, ctx->conf->root, "deviceID", "deviceID", &dev)
		      ?: str(ctx, ctx->conf->root, "pciBusID", "pciBusID", &bus);

	if (ret)
		return ret;
	if (!dev || !*dev)
		dev = bus;
	if (lenient && (!dev || !cni_pci_addr_parse(dev, c->device))) {
		c->device[0] = '\0';
		return 0;
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
	return 0;
}

/* runtimeConfig.infinibandGUID, else args.cni.guid, else a top-level guid. */
static int guid(struct cni_ctx *ctx, struct ibsriov_conf *c)
{
	static const char *const from[] = {"runtimeConfig.infinibandGUID", "args.cni.guid", "guid"};
	struct json_object *obj[] = {ctx->conf->runtime_config, ctx->conf->args_cni,
				     ctx->conf->root};
	static const char *const keys[] = {"infinibandGUID", "guid", "guid"};
	const char *v = NULL;
	int ret;

	for (size_t i = 0; i < 3 && !v; i++) {
		ret = str(ctx, obj[i], keys[i], from[i], &v);
		if (ret)
			return ret;
		if (v && !*v)
			v = NULL;
		c->guid_from = from[i];
	}
	if (!v)
		return 0;
	if (!ibsriov_guid_parse(v, &c->guid) || c->guid == 0)
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

static int link_state(struct cni_ctx *ctx, struct ibsriov_conf *c)
{
	static const struct {
		const char *name;
		uint32_t state;
	} states[] = {{"auto", IFLA_VF_LINK_STATE_AUTO},
		      {"enable", IFLA_VF_LINK_STATE_ENABLE},
		      {"disable", IFLA_VF_LINK_STATE_DISABLE}};
	const char *v;
	int ret = str(ctx, ctx->conf->root, "link_state", "link_state", &v);

	if (ret || !v)
		return ret;
	for (size_t i = 0; i < ARRAY_SIZE(states); i++) {
		if (!strcmp(v, states[i].name)) {
			c->vf.link_state = states[i].state;
			c->vf.mask |= CNI_VF_LINK_STATE;
			return 0;
		}
	}
	return bad(ctx, "\"link_state\" is \"%s\"; it must be \"auto\", \"enable\" or \"disable\"",
		   v);
}

static int flags(struct cni_ctx *ctx, struct ibsriov_conf *c)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
	    {"ibKubernetesEnabled", offsetof(struct ibsriov_conf, ib_kubernetes)},
	    {"rdmaIsolation", offsetof(struct ibsriov_conf, rdma_isolation)},
	    {"vfioPciMode", offsetof(struct ibsriov_conf, vfio)},
	    {"pkeyEnforce", offsetof(struct ibsriov_conf, pkey_enforce)},
	};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		int ret = cni_json_bool(ctx->conf->root, keys[i].key, keys[i].key,
					(bool *)((char *)c + keys[i].off), &ctx->err);

		if (ret && ret != -ENOENT)
			return ret;
	}
	return 0;
}

static int ethernet(struct cni_ctx *ctx, struct ibsriov_conf *c)
{
	const char *mac = NULL, *proto = NULL;
	struct json_object *root = ctx->conf->root;
	int64_t vlan = -1, qos = -1, min = -1, max = -1, mtu = 0;
	int ret;

	/* MAC: runtimeConfig.mac, else CNI_ARGS MAC=, else "mac". */
	c->mac_from = "runtimeConfig.mac";
	ret = str(ctx, ctx->conf->runtime_config, "mac", "runtimeConfig.mac", &mac);
	if (!ret && !mac && (mac = cni_args_get(&ctx->args, "MAC")))
		c->mac_from = "CNI_ARGS MAC";
	if (!ret && !mac) {
		c->mac_from = "mac";
		ret = str(ctx, root, "mac", "mac", &mac);
	}
	if (ret)
		return ret;
	if (mac && *mac) {
		if (!ibsriov_mac_parse(mac, c->vf.mac))
			return bad(
			    ctx,
			    "\"mac\" is \"%s\"; it must be a unicast MAC like 02:00:00:00:00:01",
			    mac);
		c->vf.mask |= CNI_VF_MAC;
		c->has_mac = true;
	}
	ret = cni_json_int(root, "vlan", "vlan", 0, 4094, &vlan, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	ret = cni_json_int(root, "vlanQoS", "vlanQoS", 0, 7, &qos, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	ret = str(ctx, root, "vlanProto", "vlanProto", &proto);
	if (ret)
		return ret;
	if ((qos >= 0 || proto) && vlan < 0)
		return bad(ctx, "\"vlanQoS\" and \"vlanProto\" need \"vlan\"");
	if (vlan >= 0) {
		c->vf.mask |= CNI_VF_VLAN;
		c->vf.vlan = (uint32_t)vlan;
		c->vf.qos = qos > 0 ? (uint32_t)qos : 0;
		c->vf.vlan_proto = ETH_P_8021Q;
		if (proto && !strcasecmp(proto, "802.1ad"))
			c->vf.vlan_proto = ETH_P_8021AD;
		else if (proto && strcasecmp(proto, "802.1q"))
			return bad(ctx,
				   "\"vlanProto\" is \"%s\"; it must be \"802.1q\" or \"802.1ad\"",
				   proto);
		if (vlan == 0 && (qos > 0 || c->vf.vlan_proto != ETH_P_8021Q))
			return bad(ctx, "\"vlan\" 0 takes no \"vlanQoS\" or \"vlanProto\"");
	}
	ret = on_off(ctx, "spoofchk", &c->vf.spoofchk, &c->vf.mask, CNI_VF_SPOOFCHK)
		  ?: on_off(ctx, "trust", &c->vf.trust, &c->vf.mask, CNI_VF_TRUST);
	if (ret)
		return ret;
	ret = cni_json_int(root, "min_tx_rate", "min_tx_rate", 0, UINT32_MAX, &min, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	ret = cni_json_int(root, "max_tx_rate", "max_tx_rate", 0, UINT32_MAX, &max, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	if (min >= 0 || max >= 0) {
		if (min > 0 && max > 0 && min > max)
			return bad(ctx, "\"min_tx_rate\" (%s) is above \"max_tx_rate\" (%s)",
				   json_object_get_string(cni_json_get(root, "min_tx_rate")),
				   json_object_get_string(cni_json_get(root, "max_tx_rate")));
		c->vf.mask |= CNI_VF_RATE;
		c->vf.min_tx_rate = min > 0 ? (uint32_t)min : 0;
		c->vf.max_tx_rate = max > 0 ? (uint32_t)max : 0;
	}
	ret = cni_json_int(root, "mtu", "mtu", 68, 65535, &mtu, &ctx->err);
	if (ret && ret != -ENOENT)
		return ret;
	c->mtu = (unsigned int)mtu;
	return 0;
}

/* One wait key: at most the node's maxWaitMs (a NAD never widens it; the
 * default is lowered to it), else code 7 naming the key and the cap. */
static int wait_key(struct cni_ctx *ctx, const char *key, unsigned int def, unsigned int *out)
{
	const struct cni_nodeconf *node = ctx->node ? ctx->node : cni_nodeconf_defaults();
	int64_t v;
	int ret = cni_json_int(ctx->conf->root, key, key, 0, 600000, &v, &ctx->err);

	*out = def < node->max_wait_ms ? def : node->max_wait_ms;
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	if (v > node->max_wait_ms)
		return cni_errorf(&ctx->err, -ERANGE, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration",
				  "\"%s\" is %" PRId64 "; this node allows waits of at most %u ms "
				  "(\"maxWaitMs\" in %s)",
				  key, v, node->max_wait_ms, CNI_NODECONF_PATH);
	*out = (unsigned int)v;
	return 0;
}

static int waits(struct cni_ctx *ctx, struct ibsriov_conf *c)
{
	return wait_key(ctx, "netdevWaitMs", IBSRIOV_NETDEV_WAIT_MS, &c->netdev_wait_ms)
		   ?: wait_key(ctx, "pkeyWaitMs", IBSRIOV_PKEY_WAIT_MS, &c->pkey_wait_ms);
}

static int pkey(struct cni_ctx *ctx, struct ibsriov_conf *c)
{
	const char *v;
	int ret = str(ctx, ctx->conf->root, "pkey", "pkey", &v);

	if (ret || !v || !*v)
		return ret;
	/* As in ib-sriov-cni, the key is for ib-kubernetes (which programs the
	 * subnet manager); only pkeyEnforce makes the plugin act on it. A key
	 * that can never be valid is refused either way: ib-kubernetes would
	 * fail on it later, far from the NAD that holds it. */
	if (!ibsriov_pkey_parse(v, &c->pkey))
		return bad(ctx,
			   "\"pkey\" is \"%s\"; it must be a partition key like \"0x8001\" "
			   "(hex or decimal, 15-bit key plus the membership bit, not 0)",
			   v);
	c->has_pkey = true;
	return 0;
}

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
	const char *app = NULL;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = device(ctx, c, lenient);
	if (ret || lenient)
		return ret;
	/* Unknown CNI_ARGS are ignored, as ib-sriov-cni ignores them all. */
	ret = guid(ctx, c) ?: flags(ctx, c) ?: pkey(ctx, c) ?: link_state(ctx, c) ?:
	      ethernet(ctx, c) ?: waits(ctx, c) ?: ibsriov_conf_dns(ctx, NULL);
	if (ret)
		return ret;
	if (ctx->conf->ipam_type && strchr(ctx->conf->ipam_type, '/'))
		return bad(ctx,
			   "\"ipam.type\" is \"%s\"; it must be a plugin name found on CNI_PATH",
			   ctx->conf->ipam_type);
	if (c->ib_kubernetes) {
		ret = str(ctx, ctx->conf->args_cni, "mellanox.infiniband.app",
			  "args.cni.mellanox.infiniband.app", &app);
		if (ret)
			return ret;
		if (!app || strcmp(app, "configured"))
			return cni_errorf(
			    &ctx->err, -EAGAIN, CNI_ERR_TRY_AGAIN,
			    "InfiniBand status \"mellanox.infiniband.app\" is not \"configured\"",
			    "ibKubernetesEnabled is set: ib-kubernetes must add the pod's GUID to "
			    "the "
			    "partition first; check that ib-kubernetes is running");
		if (!c->has_guid)
			return cni_errorf(
			    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
			    "GUID must be provided by ib-kubernetes",
			    "ibKubernetesEnabled is set but neither runtimeConfig.infinibandGUID "
			    "nor args.cni.guid carries a GUID");
	}
	return 0;
}
