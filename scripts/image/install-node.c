// SPDX-License-Identifier: Apache-2.0
/* The node configuration (/etc/ibcni/ibcni.conf) from the installer's
 * options, in the plugins' own format, and this node's "ranges" from a
 * ConfigMap entry keyed by the node name (ib-host-local's "ranges": "node"
 * reads them). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "install.h"

/* The whole ibcni.conf must stay under what the plugins read. */
#define RANGES_MAX_SIZE (CNI_NODECONF_MAX_SIZE / 2)

bool node_conf_given(const struct opts *o)
{
	return o->n_dirs || o->device_check || o->max_wait_ms >= 0 || o->ranges_dir;
}

/* NULL when v is an array of arrays of objects of strings (host-local's
 * range sets), else what is wrong. The plugins check the values. */
static const char *range_sets_shape(struct json_object *v)
{
	size_t n, m;

	if (!json_object_is_type(v, json_type_array) || !(n = json_object_array_length(v)))
		return "not a non-empty list of range sets";
	for (size_t i = 0; i < n; i++) {
		struct json_object *set = json_object_array_get_idx(v, i);

		if (!json_object_is_type(set, json_type_array) ||
		    !(m = json_object_array_length(set)))
			return "a range set is not a non-empty list of ranges";
		for (size_t j = 0; j < m; j++) {
			struct json_object *r = json_object_array_get_idx(set, j);

			if (!json_object_is_type(r, json_type_object))
				return "a range is not an object";
			json_object_object_foreach (r, key, val) {
				(void)key;
				if (!json_object_is_type(val, json_type_string))
					return "a range's value is not a string";
			}
		}
	}
	return NULL;
}

/* Parse and check the entry; fills o->ranges with its compact form. */
static int take_ranges(struct opts *o, const char *path, const char *text, size_t len)
{
	_cleanup_json_ struct json_object *root = NULL;
	const char *why = NULL, *net = "";

	root = cni_json_parse(text, len, &why);
	if (root && !json_object_is_type(root, json_type_object))
		why = "not a JSON object of network name -> list of range sets";
	if (root && !why) {
		json_object_object_foreach (root, key, val) {
			why = range_sets_shape(val);
			net = key;
			if (why)
				break;
		}
	}
	if (why) {
		fprintf(stderr,
			"ibcni-install: %s: %s%s%s%s (want {\"<network>\": [[{\"subnet\": "
			"\"10.56.0.0/24\", ...}], ...]}); nothing installed\n",
			path, *net ? "network " : "", net, *net ? ": " : "", why);
		return -EINVAL;
	}
	o->ranges = cni_json_dump(root, false);
	if (!o->ranges)
		return -ENOMEM;
	return 0;
}

int load_node_ranges(struct opts *o)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX];
	size_t len;
	int ret;

	if (!o->ranges_dir)
		return 0;
	ret = check_snprintf(path, sizeof(path), "%s/%s", o->ranges_dir, o->node_name);
	if (ret)
		return ret;
	/* A ConfigMap volume's entry is a link into its ..data directory:
	 * followed (the admin's mount, not a pod's). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		printf("ibcni-install: %s: no entry for node %s; \"ranges\" left out of "
		       "ibcni.conf\n",
		       path, o->node_name);
		return 0;
	}
	ret = fd < 0 ? -errno : read_fd(fd, RANGES_MAX_SIZE, &text, &len);
	if (ret) {
		fprintf(stderr, "ibcni-install: %s: %s (at most %d bytes)\n", path, strerror(-ret),
			RANGES_MAX_SIZE);
		return -EINVAL;
	}
	return take_ranges(o, path, text, len);
}

/* The options' keys, in the plugins' format (they refuse unknown keys). */
static void put_keys(const struct opts *o, struct cni_json_buf *b)
{
	char num[CNI_NUM_MAX];
	bool first = true;

	if (o->n_dirs) {
		cni_json_put_key(b, "allowedDataDirs", first);
		first = false;
		cni_json_put_raw(b, "[");
		for (size_t i = 0; i < o->n_dirs; i++) {
			if (i)
				cni_json_put_raw(b, ",");
			cni_json_put_str(b, o->dirs[i]);
		}
		cni_json_put_raw(b, "]");
	}
	if (o->device_check) {
		cni_json_put_key(b, "deviceCheck", first);
		first = false;
		cni_json_put_str(b, o->device_check);
	}
	if (o->max_wait_ms >= 0) {
		cni_json_put_key(b, "maxWaitMs", first);
		first = false;
		cni_json_put_raw(b, cni_i64_str(o->max_wait_ms, num));
	}
	if (o->ranges) {
		cni_json_put_key(b, "ranges", first);
		cni_json_put_raw(b, o->ranges);
	}
}

/* Written atomically: a temp name in the directory, fsync, rename. */
int write_node_conf(const struct opts *o)
{
	struct cni_json_buf b = {0};
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int dfd = -1;
	int ret;

	cni_json_put_raw(&b, "{");
	put_keys(o, &b);
	cni_json_put_raw(&b, "}\n");
	text = cni_json_buf_take(&b);
	if (!text)
		return -ENOMEM;
	/* The host's /etc/ibcni, which nothing else creates. */
	if (mkdir(o->node_dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	dfd = open(o->node_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = dfd < 0 ? -errno : write_atomic(dfd, "ibcni.conf", text, strlen(text), 0644);
	if (!ret && fsync(dfd) < 0)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "ibcni-install: cannot write %s/ibcni.conf: %s\n", o->node_dir,
			strerror(-ret));
		return ret;
	}
	printf("ibcni-install: %s/ibcni.conf: %s", o->node_dir, text);
	return 0;
}
