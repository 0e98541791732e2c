// SPDX-License-Identifier: Apache-2.0
/* The rail keys (rail.h): parsed and checked before anything changes. */
#include <errno.h>
#include <string.h>

#include "base/json.h"
#include "rail.h"

#define bad(err, ...)                                                                              \
	cni_errorf((err), -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration", __VA_ARGS__)

int ibsriov_rail_table_parse(const struct cni_conf_load *l, const struct cni_conf_field *f)
{
	struct ibsriov_rail_conf *rc = f->at;
	int64_t n;

	if (!f->v)
		return 0;
	if (json_object_is_type(f->v, json_type_string) &&
	    !strcmp(json_object_get_string(f->v), "auto")) {
		rc->on = rc->automatic = true;
		return 0;
	}
	errno = 0;
	n = json_object_is_type(f->v, json_type_int) ? json_object_get_int64(f->v) : -1;
	if (errno || n < 1 || n > UINT32_MAX || (n >= 253 && n <= 255))
		return bad(l->err,
			   "\"%s\" is %s; it must be a routing table number from 1 to 4294967295 "
			   "other than 253-255 (default, main, local), or \"auto\" for one "
			   "derived from the pod interface",
			   f->where, json_object_to_json_string(f->v));
	rc->on = true;
	rc->table = (uint32_t)n;
	return 0;
}

int ibsriov_rail_conf_check(const struct ibsriov_conf *c, struct cni_error *err)
{
	if (c->rail.keep_main && !c->rail.on)
		return bad(err, "\"railKeepMain\" is set without \"railTable\"; set \"railTable\" "
				"(a number or \"auto\") or drop \"railKeepMain\"");
	if (c->vfio && (c->rail.on || c->rail.sysctls))
		return bad(err,
			   "\"%s\" is set with \"vfioPciMode\", which leaves the pod no netdev "
			   "to route; drop one of them",
			   c->rail.on ? "railTable" : "railSysctls");
	return 0;
}

uint32_t ibsriov_rail_auto_table(int ifindex)
{
	return IBSRIOV_RAIL_AUTO_BASE + (uint32_t)ifindex;
}

bool ibsriov_rail_owns_routes(const struct ibsriov_conf *c)
{
	return c->rail.on && !c->rail.keep_main;
}
