// SPDX-License-Identifier: Apache-2.0
/* The node configuration (/etc/ibcni/ibcni.conf) from the installer's
 * options, in the plugins' own format, and this node's "ranges" from a
 * ConfigMap entry keyed by the node name (ib-host-local's "ranges": "node"
 * reads them). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "install.h"
#include "../ipam/ipam.h"

/* The whole ibcni.conf must stay under what the plugins read. */
#define RANGES_MAX_SIZE (CNI_NODECONF_MAX_SIZE / 2)

bool node_conf_given(const struct opts *o)
{
	return o->n_dirs || o->device_check || o->max_wait_ms >= 0 || o->ranges_dir;
}

/* Parse and check the entry; fills o->ranges with its compact form. */
static int take_ranges(struct opts *o, const char *path, const char *text, size_t len)
{
	_cleanup_json_ struct json_object *root = NULL;
	const char *why = NULL;
	struct cni_error err = {0};

	root = cni_json_parse(text, len, &why);
	if (!root) {
		fprintf(stderr,
			"ibcni-install: %s: %s (want {\"<network>\": [[{\"subnet\": "
			"\"10.56.0.0/24\", ...}], ...]}); nothing installed\n",
			path, why);
		return -EINVAL;
	}
	/* What the plugins would refuse (shape, bounds, each set by ipam's own
	 * parser), refused here: a drop-in they refuse fails every command on
	 * the node, every pod's DEL included. */
	cni_nodeconf_ranges_checker(ipam_node_ranges_check);
	if (cni_nodeconf_ranges_check(root, path, &err)) {
		fprintf(stderr, "ibcni-install: %s; nothing installed\n", err.details);
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
		printf("ibcni-install: %s: no entry for node %s; no \"ranges\" on this node\n",
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
}

static bool old_keys_given(const struct opts *o)
{
	return o->n_dirs || o->device_check || o->max_wait_ms >= 0;
}

/* ibcni.conf's text (NULL when this run leaves the file alone) and
 * ranges.conf's (NULL when there is none to write). 0 or -ENOMEM. */
static int make_texts(const struct opts *o, char **conf, char **ranges)
{
	struct cni_json_buf b = {0};

	if (old_keys_given(o)) {
		cni_json_put_raw(&b, "{");
		put_keys(o, &b);
		cni_json_put_raw(&b, "}\n");
		if (!(*conf = cni_json_buf_take(&b)))
			return -ENOMEM;
	}
	if (o->ranges) {
		cni_json_put_raw(&b, "{");
		cni_json_put_key(&b, "ranges", true);
		cni_json_put_raw(&b, o->ranges);
		cni_json_put_raw(&b, "}\n");
		if (!(*ranges = cni_json_buf_take(&b)))
			return -ENOMEM;
	}
	return 0;
}

/* ibcni.conf, kept as a hidden hard link (the loader reads no dot file)
 * while ranges.conf is written after it: two renames are not one, and when
 * the second fails (no space, an I/O error) the first is put back, so the
 * node keeps the configuration it had rather than half of this run's. */
struct saved {
	int dfd;
	bool had;
};

#define SAVED_NAME ".ibcni.conf.ibcni-old"

static int save(int dfd, struct saved *s)
{
	/* A kill may have left one: the file at ibcni.conf is the one to keep. */
	if (unlinkat(dfd, SAVED_NAME, 0) < 0 && errno != ENOENT)
		return -errno;
	if (linkat(dfd, "ibcni.conf", dfd, SAVED_NAME, 0) == 0)
		s->had = true;
	else if (errno != ENOENT)
		return -errno;
	s->dfd = dfd;
	return 0;
}

static void restore(const struct opts *o, const struct saved *s, bool undo)
{
	if (s->dfd < 0)
		return;
	if (undo && s->had)
		renameat(s->dfd, SAVED_NAME, s->dfd, "ibcni.conf");
	else if (undo)
		unlinkat(s->dfd, "ibcni.conf", 0);
	else if (s->had)
		unlinkat(s->dfd, SAVED_NAME, 0);
	fsync(s->dfd);
	if (undo)
		fprintf(stderr, "ibcni-install: %s/ibcni.conf %s\n", o->node_dir,
			s->had ? "put back as it was" : "removed (there was none)");
}

/* "ranges" goes into the drop-in ibcni.conf.d/ranges.conf, never into
 * ibcni.conf: a previous release refuses a key it does not know there (every
 * DEL included) and never reads the drop-ins, so a downgrade strands no pod.
 * No entry for this node (text NULL) removes an earlier drop-in: its ranges
 * are stale. */
static int write_ranges(const struct opts *o, int ddfd, const char *text)
{
	int ret;

	if (!text) {
		if (unlinkat(ddfd, "ranges.conf", 0) < 0)
			return errno == ENOENT ? 0 : -errno;
		printf("ibcni-install: %s/ibcni.conf.d/ranges.conf removed\n", o->node_dir);
		return fsync(ddfd) < 0 ? -errno : 0;
	}
	ret = write_atomic(ddfd, "ranges.conf", text, strlen(text), 0644);
	if (!ret && fsync(ddfd) < 0)
		ret = -errno;
	if (!ret)
		printf("ibcni-install: %s/ibcni.conf.d/ranges.conf: %s", o->node_dir, text);
	return ret;
}

/* Written atomically: a temp name in the directory, fsync, rename. */
static int write_main(const struct opts *o, int dfd, const char *text)
{
	int ret = write_atomic(dfd, "ibcni.conf", text, strlen(text), 0644);

	if (!ret && fsync(dfd) < 0)
		ret = -errno;
	if (!ret)
		printf("ibcni-install: %s/ibcni.conf: %s", o->node_dir, text);
	return ret;
}

/* The node directory's files as they would be, loaded first (ibcni.conf and
 * every drop-in, the admin's own too: what the loader refuses would fail
 * every ADD on the node), then each written whole (or ranges.conf removed). */
static int write_files(const struct opts *o, int dfd)
{
	_cleanup_free_ char *conf = NULL, *ranges = NULL;
	struct saved saved = {.dfd = -1};
	_cleanup_close_ int ddfd = -1;
	int ret = make_texts(o, &conf, &ranges);

	if (!ret)
		ret = check_node_conf(o, dfd, conf, ranges);
	if (ret)
		return ret;
	if (o->ranges_dir) {
		if (mkdirat(dfd, "ibcni.conf.d", 0755) < 0 && errno != EEXIST)
			return -errno;
		ddfd = openat(dfd, "ibcni.conf.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (ddfd < 0)
			return -errno;
	}
	if (conf && o->ranges_dir)
		ret = save(dfd, &saved);
	if (!ret && conf)
		ret = write_main(o, dfd, conf);
	if (!ret && o->ranges_dir)
		ret = write_ranges(o, ddfd, ranges);
	restore(o, &saved, ret != 0);
	return ret;
}

int write_node_conf(const struct opts *o)
{
	_cleanup_close_ int dfd = -1;
	int ret = 0;

	/* The host's /etc/ibcni, which nothing else creates. */
	if (mkdir(o->node_dir, 0755) < 0 && errno != EEXIST)
		ret = -errno;
	if (!ret) {
		dfd = open(o->node_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			ret = -errno;
	}
	if (!ret)
		ret = write_files(o, dfd);
	if (ret && ret != -EINVAL)
		fprintf(stderr, "ibcni-install: cannot write the node configuration in %s: %s\n",
			o->node_dir, strerror(-ret));
	return ret;
}
