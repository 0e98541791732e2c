// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/path.h"
#include "base/json.h"
#include "protocol/nodeconf.h"
#include "protocol/nodeconf_priv.h"
#include "base/util.h"

static char default_data_dir[] = CNI_NODECONF_DEFAULT_DATA_DIR;
static const struct cni_nodeconf defaults = {
    .allowed_data_dirs = {default_data_dir},
    .n_allowed_data_dirs = 1,
    .device_check = CNI_DEVICE_CHECK_KUBELET,
    .dra_drivers = {CNI_NODECONF_DEFAULT_DRA_DRIVER},
    .n_dra_drivers = 1,
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
	json_object_put(nc->ranges);
	memset(nc, 0, sizeof(*nc));
}

/* The file's bytes, when it is one only root could have written: opened
 * without following a link or blocking on a FIFO, checked on the fd. name is
 * below dirfd (AT_FDCWD for the main file); path names it in messages. */
static int read_conf(int dirfd, const char *name, const char *path, char **raw, size_t *len,
		     struct cni_error *err)
{
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	int ret;

	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0 && errno == ELOOP)
		return cni_nodeconf_bad(err, -ELOOP, path,
					"is a symbolic link; write the file itself there");
	/* A socket, or a device without a driver: the admin's file, not an
	 * I/O error, so DEL and GC go on (a code 5 would block them). */
	if (fd < 0 && errno == ENXIO)
		return cni_nodeconf_bad(err, -EINVAL, path, "is not a regular file");
	if (fd < 0 || fstat(fd, &st) < 0)
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot read the node configuration",
				  "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cni_nodeconf_bad(err, -EINVAL, path, "is not a regular file");
	/* root in production; the unit tests run it as their own user. */
	if (!cni_path_private(&st))
		return cni_nodeconf_bad(err, -EPERM, path,
					"must be owned by uid %u and not group- or other-writable "
					"(owner %u, mode %04o); chown root and chmod 0644 it",
					(unsigned int)cni_euid(), (unsigned int)st.st_uid,
					(unsigned int)(st.st_mode & 07777));
	ret = read_fd(fd, CNI_NODECONF_MAX_SIZE, raw, len);
	if (ret == -EFBIG)
		return cni_nodeconf_bad(err, ret, path, "is larger than %d bytes",
					CNI_NODECONF_MAX_SIZE);
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
		return cni_nodeconf_bad(
		    err, -EINVAL, path,
		    "\"allowedDataDirs\" must be a list of 1 to %d absolute directories",
		    CNI_NODECONF_MAX_DIRS);
	/* The list replaces the default (name it again to keep it). */
	free_dirs(nc);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		int ret;

		if (!json_object_is_type(e, json_type_string))
			return cni_nodeconf_bad(err, -EINVAL, path,
						"\"allowedDataDirs\"[%zu] must be a string", i);
		ret = normalise_dir(json_object_get_string(e), &nc->allowed_data_dirs[i]);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return cni_nodeconf_bad(
			    err, ret, path,
			    "\"allowedDataDirs\"[%zu] is \"%s\"; it must be an absolute "
			    "directory other than / without \".\" or \"..\" components",
			    i, json_object_get_string(e));
		nc->n_allowed_data_dirs++;
	}
	return 0;
}

/* Whether s is a DRA driver name: a DNS subdomain (lower-case labels of
 * letters, digits and '-', joined by '.'), at most 63 bytes. */
static bool driver_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= CNI_NODECONF_DRA_DRIVER_MAX || s[0] == '.' || s[n - 1] == '.' ||
	    s[0] == '-' || s[n - 1] == '-' || strstr(s, ".."))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") == n;
}

static int parse_drivers(struct cni_nodeconf *nc, struct json_object *v, const char *path,
			 struct cni_error *err)
{
	size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;

	if (!json_object_is_type(v, json_type_array) || n > CNI_NODECONF_MAX_DRA_DRIVERS)
		return cni_nodeconf_bad(err, -EINVAL, path,
					"\"draDrivers\" must be a list of at most %d DRA driver "
					"names ([] takes no DRA claim device)",
					CNI_NODECONF_MAX_DRA_DRIVERS);
	/* The list replaces the default (name it again to keep it). */
	nc->n_dra_drivers = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		const char *s =
		    json_object_is_type(e, json_type_string) ? json_object_get_string(e) : "";

		if (!driver_name_ok(s))
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"draDrivers\"[%zu] is %s; it must be a DRA driver's name, a DNS "
			    "subdomain of at most %d bytes such as \"%s\"",
			    i, json_object_to_json_string(e), CNI_NODECONF_DRA_DRIVER_MAX - 1,
			    CNI_NODECONF_DEFAULT_DRA_DRIVER);
		copy_str(nc->dra_drivers[nc->n_dra_drivers++], CNI_NODECONF_DRA_DRIVER_MAX, s);
	}
	return 0;
}

static int parse_key(struct cni_nodeconf *nc, const char *key, struct json_object *v,
		     const char *path, struct cni_error *err)
{
	if (!strcmp(key, "allowedDataDirs"))
		return parse_dirs(nc, v, path, err);
	if (!strcmp(key, "draDrivers"))
		return parse_drivers(nc, v, path, err);
	if (!strcmp(key, "deviceCheck")) {
		const char *s =
		    json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if (!strcmp(s, "kubelet"))
			nc->device_check = CNI_DEVICE_CHECK_KUBELET;
		else if (!strcmp(s, "off"))
			nc->device_check = CNI_DEVICE_CHECK_OFF;
		else
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"deviceCheck\" is %s; it must be \"kubelet\" or \"off\"",
			    json_object_to_json_string(v));
		return 0;
	}
	if (!strcmp(key, "ranges")) {
		/* The file only names it in messages: cut, never refused. */
		if (check_snprintf(nc->ranges_file, sizeof(nc->ranges_file), "%s", path))
			memcpy(nc->ranges_file + sizeof(nc->ranges_file) - 4, "...", 4);
		return cni_nodeconf_parse_ranges(nc, v, path, err);
	}
	if (!strcmp(key, "maxWaitMs")) {
		int64_t n;

		errno = 0;
		n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
		if (errno || n < 0 || n > CNI_NODECONF_MAX_WAIT_MS)
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"maxWaitMs\" is %s; it must be an integer from 0 to %d",
			    json_object_to_json_string(v), CNI_NODECONF_MAX_WAIT_MS);
		nc->max_wait_ms = (unsigned int)n;
		return 0;
	}
	if (!strcmp(key, "reclaimLeases")) {
		if (!json_object_is_type(v, json_type_boolean))
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"reclaimLeases\" is %s; it must be true (ib-sriov reconcile "
			    "frees ib-host-local leases whose owner is gone) or false",
			    json_object_to_json_string(v));
		nc->reclaim_leases = json_object_get_boolean(v);
		return 0;
	}
	if (!strcmp(key, "softRdmaByMac")) {
		if (!json_object_is_type(v, json_type_boolean))
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"softRdmaByMac\" is %s; it must be true (rdma-ns may take a host "
			    "rxe or siw device by the pod interface's MAC) or false",
			    json_object_to_json_string(v));
		nc->soft_rdma_by_mac = json_object_get_boolean(v);
		return 0;
	}
	return cni_nodeconf_bad(
	    err, -EINVAL, path,
	    "unknown key \"%s\"; the keys are allowedDataDirs, deviceCheck, draDrivers, maxWaitMs, "
	    "ranges, reclaimLeases and softRdmaByMac",
	    key);
}

static int set_defaults(struct cni_nodeconf *nc)
{
	memset(nc, 0, sizeof(*nc));
	nc->device_check = defaults.device_check;
	nc->max_wait_ms = defaults.max_wait_ms;
	memcpy(nc->dra_drivers, defaults.dra_drivers, sizeof(nc->dra_drivers));
	nc->n_dra_drivers = defaults.n_dra_drivers;
	nc->allowed_data_dirs[0] = strdup(CNI_NODECONF_DEFAULT_DATA_DIR);
	if (!nc->allowed_data_dirs[0])
		return -ENOMEM;
	nc->n_allowed_data_dirs = 1;
	return 0;
}

/* Which file set each key: a key is set once, in ibcni.conf or in one
 * drop-in, so no file silently overrides another. */
struct origins {
	char key[CNI_NODECONF_MAX_KEYS][32];
	char path[CNI_NODECONF_MAX_KEYS][256];
	size_t n;
};

static int note_origin(struct origins *o, const char *key, const char *path, struct cni_error *err)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->key[i], key))
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"%s\" is set in %s already; set each key in one file", key,
			    o->path[i]);
	/* Beyond the bounds (more keys than the known ones, a longer key):
	 * parse_key refuses the unknown. */
	if (o->n == CNI_NODECONF_MAX_KEYS ||
	    check_snprintf(o->key[o->n], sizeof(o->key[0]), "%s", key))
		return 0;
	/* The path is only for the message: a drop-in's name may be NAME_MAX
	 * long, and its key must be noted all the same (cut, not skipped). */
	if (check_snprintf(o->path[o->n], sizeof(o->path[0]), "%s", path))
		memcpy(o->path[o->n] + sizeof(o->path[0]) - 4, "...", 4);
	o->n++;
	return 0;
}

/* One file (dirfd/name, shown as path): -ENOENT when absent, else 0 or an
 * error naming the file and the key. */
static int load_file(struct cni_nodeconf *nc, int dirfd, const char *name, const char *path,
		     struct origins *o, struct cni_error *err)
{
	_cleanup_json_ struct json_object *root = NULL;
	_cleanup_free_ char *raw = NULL;
	struct cni_error input = {0};
	const char *why = NULL;
	size_t len = 0;
	int ret = read_conf(dirfd, name, path, &raw, &len, err);

	if (ret)
		return ret;
	if (!(root = cni_json_parse(raw, len, &why)))
		return cni_nodeconf_bad(err, -EINVAL, path, "not JSON: %s", why);
	if (!json_object_is_type(root, json_type_object))
		return cni_nodeconf_bad(err, -EINVAL, path, "must be a JSON object");
	if (cni_json_check_input(root, raw, len, NULL, &input))
		return cni_nodeconf_bad(err, -EINVAL, path, "%s", input.details);
	json_object_object_foreach (root, key, v) {
		ret = note_origin(o, key, path, err);
		if (!ret)
			ret = parse_key(nc, key, v, path, err);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The drop-in names of dir, "*.conf" without a leading dot, sorted: at most
 * CNI_NODECONF_MAX_DROPINS, more is an error (a directory we did not fill). */
static int dropin_names(int dfd, const char *dir, char (*names)[NAME_MAX + 1], size_t *n,
			struct cni_error *err)
{
	_cleanup_close_ int fd = dup(dfd);
	struct dirent *e;
	DIR *d;

	*n = 0;
	if (fd < 0 || !(d = fdopendir(fd)))
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot read the node configuration",
				  "%s: %s", dir, strerror(errno));
	fd = -1;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".conf"))
			continue;
		if (*n == CNI_NODECONF_MAX_DROPINS) {
			closedir(d);
			return cni_nodeconf_bad(err, -E2BIG, dir, "holds more than %d *.conf files",
						CNI_NODECONF_MAX_DROPINS);
		}
		memcpy(names[(*n)++], e->d_name, len + 1);
	}
	closedir(d);
	qsort(names, *n, sizeof(names[0]), cmp_name);
	return 0;
}

/* The "*.conf" files of path ".d" in name order: the keys a release after the first adds
 * live there, so an older release, which refuses a key it does not know in
 * ibcni.conf and never reads the directory, still runs every DEL. */
static int load_dropins(struct cni_nodeconf *nc, const char *path, struct origins *o,
			struct cni_error *err)
{
	char dir[PATH_MAX], file[PATH_MAX], names[CNI_NODECONF_MAX_DROPINS][NAME_MAX + 1];
	_cleanup_close_ int dfd = -1;
	size_t n = 0;
	int ret = check_snprintf(dir, sizeof(dir), "%s.d", path);

	if (ret)
		return cni_nodeconf_bad(err, ret, path, "the name is too long");
	dfd = cni_path_opendir(dir, CNI_PATH_PRIVATE);
	if (dfd == -ENOENT)
		return 0;
	if (dfd == -EPERM)
		return cni_nodeconf_bad(err, -EPERM, dir,
					"must be a directory owned by uid %u and not group- or "
					"other-writable; chown root and chmod 0755 it",
					(unsigned int)cni_euid());
	if (dfd == -ELOOP || dfd == -ENOTDIR || dfd == -EINVAL)
		return cni_nodeconf_bad(err, dfd, dir, "must be a directory, not a link: %s",
					strerror(-dfd));
	if (dfd < 0)
		return cni_errorf(err, dfd, CNI_ERR_IO, "cannot read the node configuration",
				  "%s: %s", dir, strerror(-dfd));
	ret = dropin_names(dfd, dir, names, &n, err);
	for (size_t i = 0; !ret && i < n; i++) {
		ret = check_snprintf(file, sizeof(file), "%s/%s", dir, names[i]);
		if (!ret)
			ret = load_file(nc, dfd, names[i], file, o, err);
		if (ret == -ENOENT) /* removed since the listing */
			ret = 0;
	}
	return ret;
}

int cni_nodeconf_load(struct cni_nodeconf *nc, const char *path, struct cni_error *err)
{
	struct origins o;
	int ret;

	path = path ? path : CNI_NODECONF_PATH;
	o.n = 0;
	ret = set_defaults(nc);
	if (!ret)
		ret = load_file(nc, AT_FDCWD, path, path, &o, err);
	if (ret == -ENOENT)
		ret = 0;
	if (!ret)
		ret = load_dropins(nc, path, &o, err);
	if (ret)
		cni_nodeconf_free(nc);
	return ret;
}
