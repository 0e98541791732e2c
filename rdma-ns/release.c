// SPDX-License-Identifier: Apache-2.0
/* The undo of an attachment by its record: the pod's namespace opened only
 * while it is still the recorded one, the devices moved home
 * (cni_rdma_return), the record removed. ADD's rollback, DEL, GC and the
 * node agent share it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "kernel/netns.h"
#include "rdmans.h"
#include "state/state.h"
#include "base/util.h"

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
