// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "ibsriov.h"
#include "json.h"
#include "state.h"
#include "util.h"

int ibsriov_record_name(const char *id, const char *ifname, char *buf, size_t len)
{
	/* Container IDs and interface names are validated by cni/env.c; the
	 * name must still be a single safe path component. */
	if (check_snprintf(buf, len, "%s-%s", id, ifname) || strchr(buf, '/') ||
	    buf[0] == '.')
		return -EINVAL;
	return 0;
}

int ibsriov_record_save(struct ibsriov_record *r)
{
	int ret = cni_state_mkdir(IBSRIOV_STATE_DIR);

	return ret ? ret : cni_state_write(IBSRIOV_STATE_DIR, r->name, r->o);
}

int ibsriov_record_load(const char *name, struct ibsriov_record *r)
{
	r->o = NULL;
	if (copy_str(r->name, sizeof(r->name), name))
		return -ENAMETOOLONG;
	return cni_state_read(IBSRIOV_STATE_DIR, name, &r->o);
}

int ibsriov_record_remove(struct ibsriov_record *r)
{
	return cni_state_remove(IBSRIOV_STATE_DIR, r->name);
}

const char *ibsriov_rec_str(const struct ibsriov_record *r, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(r->o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

int64_t ibsriov_rec_int(const struct ibsriov_record *r, const char *key, int64_t dflt)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(r->o, key, &v) || !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_int64(v);
}

void ibsriov_rec_set_str(struct ibsriov_record *r, const char *key, const char *v)
{
	json_object_object_add(r->o, key, json_object_new_string(v));
}

void ibsriov_rec_set_int(struct ibsriov_record *r, const char *key, int64_t v)
{
	json_object_object_add(r->o, key, json_object_new_int64(v));
}
