// SPDX-License-Identifier: Apache-2.0
/* One attachment per MAC and per GUID on the node. A MAC or GUID the
 * config asks for (a NAD, runtimeConfig, CNI_ARGS, cni-args) is refused when
 * another attachment's record holds it: two pods would share an Ethernet
 * identity, or an InfiniBand one with its partition membership. */
#include <errno.h>
#include <string.h>

#include "add.h"
#include "base/cleanup.h"
#include "guid.h"
#include "state/state.h"

bool ibsriov_record_mac(const struct ibsriov_record *r, unsigned char mac[6])
{
	bool asked = (r->flags & IBSRIOV_REC_HAS_VF_ORIG) && (r->vf_orig.mask & CNI_VF_MAC);

	if (r->flags & IBSRIOV_REC_HAS_MAC) {
		memcpy(mac, r->mac, 6);
		return true;
	}
	/* An older build's record: the netdev's MAC as ADD found it, unless
	 * that ADD set one (which it did not note). */
	if (r->kind != IBSRIOV_ETH || !(r->flags & IBSRIOV_REC_HAS_NETDEV) ||
	    r->orig_mac_len != 6 || asked)
		return false;
	memcpy(mac, r->orig_mac, 6);
	return true;
}

bool ibsriov_record_guid(const struct ibsriov_record *r, uint64_t *guid)
{
	uint32_t set = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID;

	if (r->flags & IBSRIOV_REC_HAS_GUID) {
		*guid = r->guid;
		return true;
	}
	/* An older build's record: the GUID in the IPoIB address ADD found. */
	if (r->kind != IBSRIOV_IB || !(r->flags & IBSRIOV_REC_HAS_NETDEV) ||
	    r->orig_mac_len != 20 ||
	    ((r->flags & IBSRIOV_REC_HAS_VF_ORIG) && (r->vf_orig.mask & set)))
		return false;
	*guid = ibsriov_guid_from_hwaddr(r->orig_mac, r->orig_mac_len);
	return !ibsriov_guid_unset(*guid);
}

void ibsriov_held_note(struct add *a)
{
	static const unsigned char zero[6];
	const struct ibsriov_conf *c = &a->conf;
	struct ibsriov_record *r = &a->rec;
	uint64_t g;

	if (a->pf_passthrough)
		return;
	if (a->ib) {
		/* A vfio VF's GUID is on its PF only: known when configured. */
		g = c->has_guid ? c->guid
		    : a->vfio	? 0
				: ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len);
		if (ibsriov_guid_unset(g))
			return;
		r->guid = g;
		r->flags |= IBSRIOV_REC_HAS_GUID;
		return;
	}
	if (c->has_mac)
		memcpy(r->mac, c->vf.mac, 6);
	else if (!a->vfio && a->vf.mac_len == 6 && memcmp(a->vf.mac, zero, 6))
		memcpy(r->mac, a->vf.mac, 6);
	else
		return;
	r->flags |= IBSRIOV_REC_HAS_MAC;
}

/* Which asked-for address record r holds ("MAC" or "GUID"), its text in
 * val; NULL when none. */
static const char *held_by(const struct ibsriov_conf *c, const struct ibsriov_record *r, char *val,
			   size_t len)
{
	unsigned char mac[6];
	uint64_t guid;

	if (c->has_mac && ibsriov_record_mac(r, mac) && !memcmp(mac, c->vf.mac, 6)) {
		cni_hw_str(mac, 6, val, len);
		return "MAC";
	}
	if (c->has_guid && !ibsriov_guid_unset(c->guid) && ibsriov_record_guid(r, &guid) &&
	    guid == c->guid) {
		cni_guid_str(guid, val, len);
		return "GUID";
	}
	return NULL;
}

/* Whether r holds a's device: code 101 naming the holder. */
static bool device_held(struct add *a, const struct ibsriov_record *r)
{
	if (strcmp(r->device, a->conf.device))
		return false;
	cni_errorf(&a->ctx->err, -EBUSY, CNI_ERR_DEVICE, "the device is attached already",
		   "%s is held by %s of container %s (network %s): DEL that attachment, "
		   "or check the device plugin's allocation",
		   a->conf.device, r->ifname, r->container_id, r->network);
	return true;
}

/* Whether r holds the MAC or GUID a's config asks for: code 7 in *addr
 * (scratch: a device held by a later record still takes precedence). */
static bool addr_held(struct add *a, const struct ibsriov_record *r, struct cni_error *addr)
{
	const struct ibsriov_conf *c = &a->conf;
	const char *what;
	char val[32];

	if (addr->code || !(what = held_by(c, r, val, sizeof(val))))
		return false;
	cni_errorf(addr, -EADDRINUSE, CNI_ERR_INVALID_CONFIG,
		   !strcmp(what, "MAC") ? "the MAC is held by another attachment"
					: "the GUID is held by another attachment",
		   "%s is %s, which %s of container %s (network %s, device %s) "
		   "holds: one attachment per %s on the node; give this network "
		   "another, or DEL that attachment",
		   !strcmp(what, "MAC") ? c->mac_from : c->guid_from, val, r->ifname,
		   r->container_id, r->network, r->device, what);
	return true;
}

struct others {
	struct add *a;
	struct cni_error addr; /* the first address held by another */
	int ret;
};

/* One record of another attachment: 1 (stop) when it holds the device. */
static int other_free(int dirfd, const char *name, void *arg)
{
	struct others *o = arg;
	struct ibsriov_record r;
	bool device;

	(void)dirfd;
	if (!strcmp(name, o->a->rec.name) || ibsriov_record_load(name, &r))
		return 0;
	if (ibsriov_heal_take(o->a, &r))
		return 1;
	device = device_held(o->a, &r);
	if (!device && addr_held(o->a, &r, &o->addr))
		o->ret = -EADDRINUSE;
	ibsriov_record_clear(&r);
	return device;
}

int ibsriov_others_free(struct add *a)
{
	struct others o = {.a = a};
	/* One pass over the records for both: each is parsed once per ADD. */
	int ret = cni_state_each(IBSRIOV_STATE_DIR, IBSRIOV_RECORDS_MAX, other_free, &o);

	/* A link in place of the directory is never followed: no record under
	 * it is readable, so it holds nothing (as each record's load says). */
	if (ret < 0 && ret != -ELOOP)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_IO,
				  "cannot read the attachment records", "%s: %s", IBSRIOV_STATE_DIR,
				  strerror(-ret));
	if (ret > 0)
		return a->has_stale ? -ESTALE : -EBUSY;
	if (o.ret)
		return cni_error_adopt(&a->ctx->err, &o.addr, o.ret);
	return 0;
}
