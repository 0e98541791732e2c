// SPDX-License-Identifier: Apache-2.0
/*
 * ibcni-install: the release image's entrypoint. Copies the plugins from the
 * image into the host's CNI directory (a hostPath the DaemonSet mounts) so
 * that a pod start never sees a half-written binary: each file is written
 * under a temporary name, fsync'ed and renamed over the old one, whose inode
 * (possibly running) is never truncated. Optionally records the RDMA netns
 * mode for the next boot and tries to set it now. Static: runs on any node.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "util.h"

#ifndef IBCNI_VERSION
#define IBCNI_VERSION "unknown"
#endif
#ifndef IBCNI_SOURCE
#define IBCNI_SOURCE "source unknown"
#endif

#define MAX_BINARY    (64u << 20)
#define MODPROBE_FILE "ibcni-rdma.conf"

static const char *const plugins[] = {"ib-sriov", "rdma-ns", "ib-host-local"};

struct opts {
	const char *src;
	const char *dst;
	const char *modprobe_dir;
	const char *netns_mode;
	bool wait;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ibcni-install [--src DIR] [--cni-bin-dir DIR]\n"
	    "                     [--netns-mode exclusive|shared [--modprobe-dir DIR]] [--wait]\n"
	    "  --src DIR           the plugins to install (default /ibcni/bin)\n"
	    "  --cni-bin-dir DIR   the host's CNI directory as mounted (default "
	    "/host/opt/cni/bin)\n"
	    "  --netns-mode MODE   record the RDMA netns mode for the next boot in\n"
	    "                      DIR/" MODPROBE_FILE
	    " and try to set it now (rdma-ns netns-mode)\n"
	    "  --modprobe-dir DIR  the host's /etc/modprobe.d as mounted (default "
	    "/host/etc/modprobe.d)\n"
	    "  --wait              then sleep until SIGTERM (a DaemonSet's container must stay "
	    "up)\n"
	    "  --version           print the version\n");
}

/* Write buf as dfd/name: temp name, fsync, rename. The old file's inode is
 * only unlinked, so a plugin running from it finishes undisturbed. */
static int write_atomic(int dfd, const char *name, const void *buf, size_t len, mode_t mode)
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

/* True when dfd/name is a regular file holding exactly buf (a restarted
 * DaemonSet pod then rewrites nothing). */
static bool same_content(int dfd, const char *name, const char *buf, size_t len)
{
	_cleanup_free_ char *old = NULL;
	size_t old_len;

	if (read_fileat(dfd, name, MAX_BINARY, &old, &old_len))
		return false;
	return old_len == len && !memcmp(old, buf, len);
}

static int install_one(int sfd, int dfd, const char *name)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int ret = read_fileat(sfd, name, MAX_BINARY, &buf, &len);

	if (ret) {
		fprintf(stderr, "ibcni-install: cannot read %s from the image: %s\n", name,
			strerror(-ret));
		return ret;
	}
	if (same_content(dfd, name, buf, len)) {
		printf("ibcni-install: %s unchanged\n", name);
		return 0;
	}
	ret = write_atomic(dfd, name, buf, len, 0755);
	if (ret)
		fprintf(stderr, "ibcni-install: cannot install %s: %s\n", name, strerror(-ret));
	else
		printf("ibcni-install: %s installed (%zu bytes)\n", name, len);
	return ret;
}

/* alias becomes a hard link of target (rdma-cni's "type": "rdma"), replaced
 * by rename like the binaries. */
static int link_alias(int dfd, const char *target, const char *alias)
{
	struct stat a, b;
	char tmp[256];
	int ret = check_snprintf(tmp, sizeof(tmp), ".%s.ibcni-new", alias);

	if (ret)
		return ret;
	if (!fstatat(dfd, target, &a, AT_SYMLINK_NOFOLLOW) &&
	    !fstatat(dfd, alias, &b, AT_SYMLINK_NOFOLLOW) && a.st_ino == b.st_ino &&
	    a.st_dev == b.st_dev) {
		printf("ibcni-install: %s unchanged (link to %s)\n", alias, target);
		return 0;
	}
	if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	if (linkat(dfd, target, dfd, tmp, 0) < 0)
		return -errno;
	if (renameat(dfd, tmp, dfd, alias) < 0) {
		ret = -errno;
		unlinkat(dfd, tmp, 0);
		return ret;
	}
	printf("ibcni-install: %s installed (link to %s)\n", alias, target);
	return 0;
}

static int install_all(const struct opts *o)
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
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
		ret = install_one(sfd, dfd, plugins[i]);
		if (ret)
			return ret;
	}
	ret = link_alias(dfd, "rdma-ns", "rdma");
	if (ret) {
		fprintf(stderr, "ibcni-install: cannot link rdma: %s\n", strerror(-ret));
		return ret;
	}
	/* The renames must survive a power cut before the node runs pods. */
	if (fsync(dfd) < 0)
		return -errno;
	return 0;
}

/* Run `<src>/rdma-ns netns-mode MODE`; its own output says what is in the
 * way when the kernel refuses. Returns its exit status. */
static int run_rdmans(const char *src, const char *mode)
{
	char path[4096];
	int status;
	pid_t pid;

	if (check_snprintf(path, sizeof(path), "%s/rdma-ns", src))
		return -ENAMETOOLONG;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(path, "rdma-ns", "netns-mode", mode, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The boot-time setting is what counts (the kernel refuses a switch once a
 * second network namespace exists, as on any running node): the modprobe.d
 * file is the result, the switch now is a bonus and never an error. */
static int set_netns_mode(const struct opts *o)
{
	char line[64];
	_cleanup_close_ int dfd = -1;
	int ret;

	ret = check_snprintf(line, sizeof(line),
			     "# written by ibcni-install\noptions ib_core netns_mode=%d\n",
			     strcmp(o->netns_mode, "exclusive") ? 1 : 0);
	if (ret)
		return ret;
	dfd = open(o->modprobe_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = dfd < 0 ? -errno : write_atomic(dfd, MODPROBE_FILE, line, strlen(line), 0644);
	if (ret) {
		fprintf(stderr, "ibcni-install: cannot write %s/" MODPROBE_FILE ": %s\n",
			o->modprobe_dir, strerror(-ret));
		return ret;
	}
	fsync(dfd);
	printf("ibcni-install: %s/" MODPROBE_FILE ": RDMA netns mode %s from the next boot "
	       "(rebuild the initramfs when ib_core loads from it)\n",
	       o->modprobe_dir, o->netns_mode);
	ret = run_rdmans(o->src, o->netns_mode);
	if (ret)
		printf("ibcni-install: the mode could not be set now (status %d); it applies at "
		       "the next boot\n",
		       ret);
	return 0;
}

static int wait_for_stop(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ibcni-install: done; waiting for SIGTERM\n");
	fflush(stdout);
	return sigwait(&set, &sig) ? 1 : 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"src", required_argument, NULL, 's'},
	    {"cni-bin-dir", required_argument, NULL, 'd'},
	    {"modprobe-dir", required_argument, NULL, 'm'},
	    {"netns-mode", required_argument, NULL, 'n'},
	    {"wait", no_argument, NULL, 'w'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->src = optarg;
			break;
		case 'd':
			o->dst = optarg;
			break;
		case 'm':
			o->modprobe_dir = optarg;
			break;
		case 'n':
			o->netns_mode = optarg;
			break;
		case 'w':
			o->wait = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("ibcni-install " IBCNI_VERSION " (" IBCNI_SOURCE ")\n");
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind != argc || (o->netns_mode && strcmp(o->netns_mode, "exclusive") &&
			       strcmp(o->netns_mode, "shared"))) {
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
	    .src = "/ibcni/bin",
	    .dst = "/host/opt/cni/bin",
	    .modprobe_dir = "/host/etc/modprobe.d",
	};

	if (parse(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	if (install_all(&o))
		return 1;
	printf("ibcni-install: ibcni " IBCNI_VERSION " in %s\n", o.dst);
	if (o.netns_mode && set_netns_mode(&o))
		return 1;
	return o.wait ? wait_for_stop() : 0;
}
