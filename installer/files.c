// SPDX-License-Identifier: Apache-2.0
/* The plugins into the host's CNI directory. Each file is written under a
 * temporary name, fsync'ed and renamed over the old one, whose inode
 * (possibly running) is never truncated; whatever sits at the name (a link
 * planted there, a hard link of another plugin) is replaced, never written
 * through. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "install.h"

#define MAX_BINARY (64u << 20)

/* "rdma" is rdma-cni's "type": its own file holding rdma-ns, since
 * rdma-cni's init container (SNO runs it after the IB one) does `cp -f`
 * onto it, which writes through a hard link. */
static const char *const names[INST_N] = {"ib-sriov", "rdma-ns", "ib-host-local", "rdma"};
static const int source_of[INST_N] = {INST_IB_SRIOV, INST_RDMA_NS, INST_IB_HOST_LOCAL,
				      INST_RDMA_NS};

const char *inst_name(int i)
{
	return names[i];
}

int inst_index(const char *name)
{
	for (int i = 0; i < INST_N; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

int write_atomic(int dfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	char tmp[256];
	int ret = check_snprintf(tmp, sizeof(tmp), ".%s.ibcni-new", name);
	_cleanup_close_ int fd = -1;

	if (ret)
		return ret;
	/* A kill may have left the temp file: it is ours to replace. */
	if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (!ret && fchmod(fd, mode) < 0)
		ret = -errno;
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (!ret && renameat(dfd, tmp, dfd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dfd, tmp, 0);
	return ret;
}

/* True when dfd/name is a regular file of its own (no symlink, no second
 * link) holding exactly buf: a restarted pod then rewrites nothing. */
static bool same_content(int dfd, const char *name, const char *buf, size_t len)
{
	_cleanup_free_ char *old = NULL;
	struct stat st;
	size_t old_len;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_nlink != 1 || (st.st_mode & 07777) != 0755)
		return false;
	if (read_fileat(dfd, name, MAX_BINARY, &old, &old_len))
		return false;
	return old_len == len && !memcmp(old, buf, len);
}

/* The bytes to install as i: upstream's --*-bin-file when it names a file
 * in the image, else ours. */
static int read_source(const struct opts *o, int sfd, int i, char **buf, size_t *len)
{
	const char *alt = o->bin_file[i];
	const char *name = names[source_of[i]];
	int ret;

	if (alt) {
		_cleanup_close_ int fd = open(alt, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0) {
			printf("ibcni-install: %s from %s\n", names[i], alt);
			return read_fd(fd, MAX_BINARY, buf, len);
		}
		printf("ibcni-install: %s: not in this image (%s); %s is ibcni's\n", alt,
		       strerror(errno), names[i]);
	}
	ret = read_fileat(sfd, name, MAX_BINARY, buf, len);
	if (ret)
		fprintf(stderr, "ibcni-install: cannot read %s from the image: %s\n", name,
			strerror(-ret));
	return ret;
}

static int install_one(const struct opts *o, int sfd, int dfd, int i)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int ret = read_source(o, sfd, i, &buf, &len);

	if (ret)
		return ret;
	if (same_content(dfd, names[i], buf, len)) {
		printf("ibcni-install: %s unchanged\n", names[i]);
		return 0;
	}
	ret = write_atomic(dfd, names[i], buf, len, 0755);
	if (ret)
		fprintf(stderr, "ibcni-install: cannot install %s: %s\n", names[i], strerror(-ret));
	else
		printf("ibcni-install: %s installed (%zu bytes)\n", names[i], len);
	return ret;
}

int install_all(const struct opts *o)
{
	_cleanup_close_ int sfd = open(o->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int dfd = -1;
	int ret;

	if (sfd < 0) {
		fprintf(stderr, "ibcni-install: %s: %s\n", o->src, strerror(errno));
		return -errno;
	}
	if (mkdir(o->dst, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "ibcni-install: cannot create %s: %s\n", o->dst, strerror(errno));
		return -errno;
	}
	dfd = open(o->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "ibcni-install: %s: %s\n", o->dst, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < INST_N; i++) {
		if (o->only_given && !o->only[i])
			continue;
		ret = install_one(o, sfd, dfd, i);
		if (ret)
			return ret;
	}
	/* The renames must survive a power cut before the node runs pods. */
	if (fsync(dfd) < 0)
		return -errno;
	return 0;
}
