// SPDX-License-Identifier: Apache-2.0
/* ipam.resolvConf: the DNS of the result, read from the host's resolv.conf. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "state/confine.h"
#include "conf.h"
#include "base/json.h"
#include "state/state.h"
#include "base/util.h"

#define RESOLV_MAX (64 << 10)

/* Where ipam.resolvConf may point: the host's own configuration trees. */
static char resolv_etc[] = "/etc", resolv_run[] = "/run";
static char *const resolv_roots[] = {resolv_etc, resolv_run};

static int resolv_refused(struct cni_error *err, int ret, const char *path, const char *why)
{
	return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
			  "ipam.resolvConf %s is %s; name a regular file under /etc or /run "
			  "that only root can write",
			  path, why);
}

/* The file ipam.resolvConf names, opened: under /etc or /run, reached
 * without following a link anywhere on the path, never blocking. */
static int resolv_open(const char *path, struct cni_error *err)
{
	char norm[PATH_MAX];
	_cleanup_close_ int dir = -1;
	char *slash;
	int fd;

	if (cni_path_normalise(path, norm, sizeof(norm)) ||
	    !cni_path_under(norm, resolv_roots, ARRAY_SIZE(resolv_roots)) ||
	    !strcmp(norm, "/etc") || !strcmp(norm, "/run"))
		return resolv_refused(err, -EPERM, path, "outside /etc and /run");
	slash = strrchr(norm, '/');
	*slash = '\0';
	dir = cni_state_opendir(norm, 0);
	*slash = '/';
	fd = dir < 0 ? dir : openat(dir, slash + 1, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		fd = -errno;
	if (fd < 0)
		return cni_errorf(err, fd, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s: %s", path,
				  fd == -ELOOP ? "a symbolic link on the path; name the file itself"
					       : strerror(-fd));
	return fd;
}

/* ipam.resolvConf is chosen by whoever writes the config and read as root:
 * only a regular file (never a link, FIFO or device) under /etc or /run,
 * on an ordinary filesystem (not proc, sysfs, ...: reading some of their
 * files has effects), that root owns and nobody else may write. *buf is
 * NUL-terminated, caller frees. */
static int resolv_read(const char *path, char **buf, struct cni_error *err)
{
	_cleanup_close_ int fd = resolv_open(path, err);
	const char *why = NULL, *fs = NULL;
	char fsbuf[32];
	struct stat st;
	int ret;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return cni_errorf(err, -errno, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_uid != 0 && st.st_uid != cni_euid())
		why = "not owned by root";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "writable by group or others";
	else if (cni_fs_ordinary(fd, &fs, fsbuf, sizeof(fsbuf)))
		why = fs ? fs : "on a filesystem that cannot be checked";
	if (why && fs)
		return cni_errorf(err, -EPERM, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s is on a %s filesystem; name a regular file "
				  "under /etc or /run that only root can write",
				  path, fs);
	if (why)
		return resolv_refused(err, -EPERM, path, why);
	ret = read_fd(fd, RESOLV_MAX, buf, NULL);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "cannot read resolvConf",
				  "ipam.resolvConf %s: %s", path,
				  ret == -EFBIG ? "larger than 64 KiB" : strerror(-ret));
	return 0;
}

/* resolv.conf into result DNS, with host-local's reading rules. */
int ipam_resolv_conf(const char *path, struct cni_dns *dns, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	char *lsave = NULL;
	int ret = resolv_read(path, &buf, err);

	if (ret)
		return ret;
	for (char *line = strtok_r(buf, "\n", &lsave); line; line = strtok_r(NULL, "\n", &lsave)) {
		char *save = NULL, *key, *word;

		if (line[0] == '#' || line[0] == ';')
			continue;
		key = strtok_r(line, " \t\r", &save);
		word = key ? strtok_r(NULL, " \t\r", &save) : NULL;
		if (!word)
			continue;
		if (!strcmp(key, "nameserver")) {
			if (cni_strv_add(&dns->nameservers, &dns->n_nameservers, word))
				return -ENOMEM;
		} else if (!strcmp(key, "domain")) {
			free(dns->domain);
			if (!(dns->domain = strdup(word)))
				return -ENOMEM;
		} else if (!strcmp(key, "search") || !strcmp(key, "options")) {
			bool search = !strcmp(key, "search");

			for (; word; word = strtok_r(NULL, " \t\r", &save))
				if (cni_strv_add(search ? &dns->search : &dns->options,
						 search ? &dns->n_search : &dns->n_options, word))
					return -ENOMEM;
		}
	}
	return 0;
}
