// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/path.h"
#include "base/json.h"
#include "protocol/nodeconf.h"
#include "base/util.h"

static char default_data_dir[] = CNI_NODECONF_DEFAULT_DATA_DIR;
static const struct cni_nodeconf defaults = {
    .allowed_data_dirs = {default_data_dir},
    .n_allowed_data_dirs = 1,
    .device_check = CNI_DEVICE_CHECK_KUBELET,
    .max_wait_ms = CNI_NODECONF_DEFAULT_WAIT_MS,
};

const struct cni_nodeconf *cni_nodeconf_defaults(void)
{
	return &defaults;
}

static void free_dirs(struct cni_nodeconf *nc)
{
	for (size_t i = 0; i < nc->n_allowed_data_dirs; i++) {
		free(nc->allowed_data_dirs[i]);
		nc->allowed_data_dirs[i] = NULL;
	}
	nc->n_allowed_data_dirs = 0;
}

void cni_nodeconf_free(struct cni_nodeconf *nc)
{
	if (!nc)
		return;
	free_dirs(nc);
	memset(nc, 0, sizeof(*nc));
}

/* Code 7 with the file named first: every problem of the file is the
 * admin's to fix there, whatever the request said. */
static int bad(struct cni_error *err, int ret, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(struct cni_error *err, int ret, const char *path, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "invalid node configuration", "%s: %s",
			  path, why);
}

/* The file's bytes, when it is one only root could have written: opened
 * without following a link or blocking on a FIFO, checked on the fd. */
static int read_conf(const char *path, char **raw, size_t *len, struct cni_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	int ret;

	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0 && errno == ELOOP)
		return bad(err, -ELOOP, path, "is a symbolic link; write the file itself there");
	if (fd < 0 || fstat(fd, &st) < 0)
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot read the node configuration",
				  "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(err, -EINVAL, path, "is not a regular file");
	/* root in production; the unit tests run it as their own user. */
	if (st.st_uid != cni_euid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return bad(err, -EPERM, path,
			   "must be owned by uid %u and not group- or other-writable "
			   "(owner %u, mode %04o); chown root and chmod 0644 it",
			   (unsigned int)cni_euid(), (unsigned int)st.st_uid,
			   (unsigned int)(st.st_mode & 07777));
	ret = read_fd(fd, CNI_NODECONF_MAX_SIZE, raw, len);
	if (ret == -EFBIG)
		return bad(err, ret, path, "is larger than %d bytes", CNI_NODECONF_MAX_SIZE);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot read the node configuration",
				  "%s: %s", path, strerror(-ret));
	return 0;
}

/* in normalised (cni_path_normalise) into *out (malloc'd); -EINVAL when it
 * cannot be, or is "/", which would allow every directory of the node. */
static int normalise_dir(const char *in, char **out)
{
	char buf[PATH_MAX];

	if (cni_path_normalise(in, buf, sizeof(buf)) || !strcmp(buf, "/"))
		return -EINVAL;
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

static int parse_dirs(struct cni_nodeconf *nc, struct json_object *v, const char *path,
		      struct cni_error *err)
{
	size_t n;

	if (!json_object_is_type(v, json_type_array) || !(n = json_object_array_length(v)) ||
	    n > CNI_NODECONF_MAX_DIRS)
		return bad(err, -EINVAL, path,
			   "\"allowedDataDirs\" must be a list of 1 to %d absolute directories",
			   CNI_NODECONF_MAX_DIRS);
	/* The list replaces the default (name it again to keep it). */
	free_dirs(nc);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		int ret;

		if (!json_object_is_type(e, json_type_string))
			return bad(err, -EINVAL, path, "\"allowedDataDirs\"[%zu] must be a string",
				   i);
		ret = normalise_dir(json_object_get_string(e), &nc->allowed_data_dirs[i]);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return bad(err, ret, path,
				   "\"allowedDataDirs\"[%zu] is \"%s\"; it must be an absolute "
				   "directory other than / without \".\" or \"..\" components",
				   i, json_object_get_string(e));
		nc->n_allowed_data_dirs++;
	}
	return 0;
}

static int parse_key(struct cni_nodeconf *nc, const char *key, struct json_object *v,
		     const char *path, struct cni_error *err)
{
	if (!strcmp(key, "allowedDataDirs"))
		return parse_dirs(nc, v, path, err);
	if (!strcmp(key, "deviceCheck")) {
		const char *s =
		    json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if (!strcmp(s, "kubelet"))
			nc->device_check = CNI_DEVICE_CHECK_KUBELET;
		else if (!strcmp(s, "off"))
			nc->device_check = CNI_DEVICE_CHECK_OFF;
		else
			return bad(err, -EINVAL, path,
				   "\"deviceCheck\" is %s; it must be \"kubelet\" or \"off\"",
				   json_object_to_json_string(v));
		return 0;
	}
	if (!strcmp(key, "maxWaitMs")) {
		int64_t n;

		errno = 0;
		n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
		if (errno || n < 0 || n > CNI_NODECONF_MAX_WAIT_MS)
			return bad(err, -EINVAL, path,
				   "\"maxWaitMs\" is %s; it must be an integer from 0 to %d",
				   json_object_to_json_string(v), CNI_NODECONF_MAX_WAIT_MS);
		nc->max_wait_ms = (unsigned int)n;
		return 0;
	}
	if (!strcmp(key, "reclaimLeases")) {
		if (!json_object_is_type(v, json_type_boolean))
			return bad(err, -EINVAL, path,
				   "\"reclaimLeases\" is %s; it must be true (ib-sriov reconcile "
				   "frees ib-host-local leases whose owner is gone) or false",
				   json_object_to_json_string(v));
		nc->reclaim_leases = json_object_get_boolean(v);
		return 0;
	}
	return bad(err, -EINVAL, path,
		   "unknown key \"%s\"; the keys are allowedDataDirs, deviceCheck, maxWaitMs and "
		   "reclaimLeases",
		   key);
}

static int set_defaults(struct cni_nodeconf *nc)
{
	memset(nc, 0, sizeof(*nc));
	nc->device_check = defaults.device_check;
	nc->max_wait_ms = defaults.max_wait_ms;
	nc->allowed_data_dirs[0] = strdup(CNI_NODECONF_DEFAULT_DATA_DIR);
	if (!nc->allowed_data_dirs[0])
		return -ENOMEM;
	nc->n_allowed_data_dirs = 1;
	return 0;
}

int cni_nodeconf_load(struct cni_nodeconf *nc, const char *path, struct cni_error *err)
{
	_cleanup_json_ struct json_object *root = NULL;
	_cleanup_free_ char *raw = NULL;
	struct cni_error input = {0};
	const char *why = NULL;
	size_t len = 0;
	int ret;

	path = path ? path : CNI_NODECONF_PATH;
	ret = set_defaults(nc);
	if (!ret)
		ret = read_conf(path, &raw, &len, err);
	if (ret == -ENOENT)
		return 0;
	if (!ret && !(root = cni_json_parse(raw, len, &why)))
		ret = bad(err, -EINVAL, path, "not JSON: %s", why);
	if (!ret && !json_object_is_type(root, json_type_object))
		ret = bad(err, -EINVAL, path, "must be a JSON object");
	if (!ret && cni_json_check_input(root, raw, len, &input)) {
		ret = bad(err, -EINVAL, path, "%s", input.details);
	}
	if (!ret) {
		json_object_object_foreach (root, key, v) {
			ret = parse_key(nc, key, v, path, err);
			if (ret)
				break;
		}
	}
	if (ret)
		cni_nodeconf_free(nc);
	return ret;
}
