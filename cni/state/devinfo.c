// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "state/devinfo.h"
#include "state/state.h"

/* The file name path names when it is directly in dir/, else NULL. */
static const char *in_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strncmp(path, dir, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/* Is name "<something>-<id>_<ifname>", this attachment's as Multus spells it
 * (it always overrides the runtimeConfig value with that)? A NAD may carry a
 * runtimeConfig of its own: any other name in the directory could be another
 * pod's file, which ADD would replace and DEL or a rollback remove. */
static bool attachment_name(const char *name, const char *id, const char *ifname)
{
	size_t n = strlen(name), i = id ? strlen(id) : 0, f = ifname ? strlen(ifname) : 0;
	const char *tail;

	if (!i || !f || n < i + f + 3)
		return false;
	tail = name + n - (i + f + 2);
	return tail[0] == '-' && !strncmp(tail + 1, id, i) && tail[1 + i] == '_' &&
	       !strcmp(tail + 2 + i, ifname);
}

int cni_devinfo_name(const char *path, const char *network, const char *id, const char *ifname,
		     char *out, size_t len)
{
	const char *base;

	if (path && *path) {
		base = in_dir(path, CNI_DEVINFO_SPEC_DIR);
		if (!base)
			base = in_dir(path, CNI_DEVINFO_DIR);
		/* A single component of the ID charset: no "/", "." or "..". */
		if (!base || !cni_state_name_valid(base) || !attachment_name(base, id, ifname))
			return -EINVAL;
		return check_snprintf(out, len, "%s", base);
	}
	/* The CNI spec's network name charset: Multus would turn a "/" into
	 * "-", but a name with one is invalid before it reaches us. */
	if (!cni_valid_id(network))
		return -EINVAL;
	if (check_snprintf(out, len, "%s-%s_%s", network, id, ifname))
		return -ENAMETOOLONG;
	if (strlen(out) > CNI_STATE_NAME_MAX)
		return -ENAMETOOLONG;
	return cni_state_name_valid(out) ? 0 : -EINVAL;
}

int cni_devinfo_write(const char *dir, const char *name, const char *text)
{
	_cleanup_close_ int fd = -1;

	if (!cni_state_name_valid(name))
		return -EINVAL;
	/* Ours (root, not group- or world-writable) whoever made it: Multus
	 * creates it too (mode 0 from Go's os.ModeDir), which passes. */
	fd = cni_state_opendir(dir, CNI_DIR_CREATE | CNI_DIR_PRIVATE);
	if (fd < 0)
		return fd;
	/* Not durable: /run is memory, and the file describes a live pod. */
	return cni_state_write_at(fd, name, text, strlen(text), false);
}

int cni_devinfo_remove(const char *dir, const char *name)
{
	_cleanup_close_ int fd = -1;
	char tmp[NAME_MAX + 1];

	if (!cni_state_name_valid(name) || check_snprintf(tmp, sizeof(tmp), ".%s.tmp", name))
		return -EINVAL;
	fd = cni_state_opendir(dir, 0);
	/* Nothing of ours behind a link or a file planted for the directory:
	 * the write never went through one. */
	if (fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR)
		return 0;
	if (fd < 0)
		return fd;
	/* No fsync: memory, as the write. A directory at the name was never
	 * ours (the write's rename fails on one): keeping the record for it
	 * would fail every DEL. */
	if (unlinkat(fd, name, 0) < 0 && errno != ENOENT && errno != EISDIR)
		return -errno;
	if (unlinkat(fd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
