// SPDX-License-Identifier: Apache-2.0
/* Records on disk: saved, found (ours, else a 0.x record or a Go cache
 * under the Go directory), removed with their Go-format twin. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "record.h"
#include "state/state.h"
#include "base/util.h"

int ibsriov_record_save(const struct ibsriov_record *r)
{
	_cleanup_free_ char *text = ibsriov_record_text(r);

	return text ? cni_state_write_text(IBSRIOV_STATE_DIR, r->name, text) : -ENOMEM;
}

static int load_from(const char *dir, const char *name, struct json_object **o)
{
	int ret = cni_state_read(dir, name, o);

	/* A name too long for the directory can hold no record either. */
	return ret == -ENAMETOOLONG ? -ENOENT : ret;
}

bool ibsriov_record_unreadable(int ret)
{
	return ret == -EBADMSG || ret == -EINVAL || ret == -EFBIG || ret == -ELOOP;
}

int ibsriov_record_load(const char *name, struct ibsriov_record *r)
{
	_cleanup_json_ struct json_object *o = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	if (copy_str(r->name, sizeof(r->name), name))
		return -ENOENT;
	ret = load_from(IBSRIOV_STATE_DIR, name, &o);
	if (ret)
		return ret;
	ret = ibsriov_record_from_json(o, r);
	if (ret)
		ibsriov_record_clear(r);
	else if (copy_str(r->name, sizeof(r->name), name))
		ret = -EBADMSG;
	return ret;
}

static bool same_tuple(const struct ibsriov_record *r, const char *id, const char *ifname)
{
	return r->container_id && !strcmp(r->container_id, id) && !strcmp(r->ifname, ifname);
}

int ibsriov_record_find(const char *id, const char *ifname, const char *netns,
			struct ibsriov_record *r)
{
	char name[NAME_MAX + 1];
	int ret = ibsriov_record_name(id, ifname, name, sizeof(name));

	if (ret)
		return -ENOENT; /* a name no ADD could have recorded */
	ret = ibsriov_record_load(name, r);
	if (ret == -ENOENT) {
		ret = ibsriov_gocache_find(id, ifname, netns, r);
		if (ret == 0)
			ret = copy_str(r->name, sizeof(r->name), name) ? -EBADMSG : 0;
	}
	if (ret == 0 && !same_tuple(r, id, ifname)) {
		ibsriov_record_clear(r);
		return -ESTALE;
	}
	return ret;
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The same attachment: its tuple, netns and device, and the same ADD's
 * record when either has a generation (an older build's has none). */
static bool same_attachment(const struct ibsriov_record *a, const struct ibsriov_record *b)
{
	return same_str(a->container_id, b->container_id) && !strcmp(a->ifname, b->ifname) &&
	       same_str(a->netns, b->netns) && !strcmp(a->device, b->device) &&
	       (a->flags & IBSRIOV_REC_HAS_GEN) == (b->flags & IBSRIOV_REC_HAS_GEN) &&
	       !strcmp(a->gen, b->gen);
}

/* A Go cache's (or a 0.x record's) attachment again: only while no record
 * of ours has its name (one would be a later ADD's). */
static int reload_go(const struct ibsriov_record *seen, struct ibsriov_record *now)
{
	int ret = ibsriov_record_load(seen->name, now);

	if (ret != -ENOENT) {
		ibsriov_record_clear(now);
		return ret ? ret : -ENOENT;
	}
	ret = ibsriov_gocache_find(seen->container_id, seen->ifname, seen->netns, now);
	if (ret == -ESTALE)
		return -ENOENT;
	if (!ret && copy_str(now->name, sizeof(now->name), seen->name))
		ret = -EBADMSG;
	if (ret)
		ibsriov_record_clear(now);
	return ret;
}

int ibsriov_record_reload(const struct ibsriov_record *seen, struct ibsriov_record *now)
{
	int ret;

	if (!seen->container_id)
		return -ENOENT;
	if (seen->flags & IBSRIOV_REC_FROM_GO_DIR)
		ret = reload_go(seen, now);
	else
		ret = ibsriov_record_load(seen->name, now);
	if (ret)
		return ret;
	if (same_attachment(seen, now))
		return 0;
	ibsriov_record_clear(now);
	return -ENOENT;
}

/* The Go-format file of the same attachment (our twin or the Go plugin's
 * own cache); one of another attachment whose name collides stays. */
static int remove_go_twin(const struct ibsriov_record *r)
{
	struct ibsriov_record other;
	char file[NAME_MAX + 1], id[CNI_STATE_ID_MAX];
	int ret;

	if (!r->container_id ||
	    check_snprintf(file, sizeof(file), "%s-%s", r->container_id, r->ifname))
		return 0;
	/* Untouched since ADD wrote it: ours, no need to read it. */
	if ((r->flags & IBSRIOV_REC_HAS_GO_TWIN) &&
	    cni_state_identity(IBSRIOV_GO_DIR, file, id, sizeof(id)) == 0 &&
	    !strcmp(id, r->go_twin))
		return cni_state_remove(IBSRIOV_GO_DIR, file);
	ret = ibsriov_gocache_find(r->container_id, r->ifname, r->netns, &other);
	/* Absent: an ADD killed while writing the twin may have left its
	 * temp file, which removing the name clears. */
	if (ret == -ENOENT)
		return cni_state_remove(IBSRIOV_GO_DIR, file);
	if (ret == -ESTALE)
		return 0;
	ibsriov_record_clear(&other);
	/* An unparseable file under our attachment's Go name: ours to drop. */
	if (ret && ret != -EBADMSG)
		return ret;
	return cni_state_remove(IBSRIOV_GO_DIR, file);
}

int ibsriov_record_remove(const struct ibsriov_record *r)
{
	int ret = remove_go_twin(r);

	if (ret)
		return ret;
	return cni_state_remove(IBSRIOV_STATE_DIR, r->name);
}
