// SPDX-License-Identifier: Apache-2.0
/*
 * ibcni-install: the release image's entrypoint. Copies the plugins from the
 * image into the host's CNI directory (a hostPath the DaemonSet mounts) so
 * that a pod start never sees a half-written binary: each file is written
 * under a temporary name, fsync'ed and renamed over the old one, whose inode
 * (possibly running) is never truncated. Optionally records the RDMA netns
 * mode for the next boot and tries to set it now, and writes the node
 * configuration (/etc/ibcni/ibcni.conf) from its options. Static: runs on
 * any node.
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

#include "base/cleanup.h"
#include "state/confine.h"
#include "base/json.h"
#include "protocol/nodeconf.h"
#include "base/util.h"

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
	/* The node configuration: written only when one of these is given. */
	const char *node_dir;
	char dirs[CNI_NODECONF_MAX_DIRS][PATH_MAX];
	size_t n_dirs;
	const char *device_check;
	long max_wait_ms; /* -1: not given */
};

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: ibcni-install [--src DIR] [--cni-bin-dir DIR]\n"
	       "                     [--netns-mode exclusive|shared [--modprobe-dir DIR]]\n"
	       "                     [--allowed-data-dir DIR]... [--device-check kubelet|off]\n"
	       "                     [--max-wait-ms N] [--node-conf-dir DIR] [--wait]\n"
	       "  --src DIR           the plugins to install (default /ibcni/bin)\n"
	       "  --cni-bin-dir DIR   the host's CNI directory as mounted (default "
	       "/host/opt/cni/bin)\n"
	       "  --netns-mode MODE   record the RDMA netns mode for the next boot in\n"
	       "                      DIR/" MODPROBE_FILE
	       " and try to set it now (rdma-ns netns-mode)\n"
	       "  --modprobe-dir DIR  the host's /etc/modprobe.d as mounted (default "
	       "/host/etc/modprobe.d)\n"
	       "  --allowed-data-dir DIR  (repeatable) an ipam.dataDir NADs may use, with what is\n"
	       "                      below it; --device-check kubelet|off; --max-wait-ms N:\n"
	       "                      any of them writes the node config " CNI_NODECONF_PATH "\n"
	       "                      (unset keys get their defaults); none leaves it alone\n"
	       "  --node-conf-dir DIR the host's /etc/ibcni as mounted (default /host/etc/ibcni)\n"
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

/* The node configuration from the options, in the plugins' own format
 * (they refuse anything they do not know), written atomically: a temp name
 * in the directory, fsync, rename. */
static int write_node_conf(const struct opts *o)
{
	struct cni_json_buf b = {0};
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int dfd = -1;
	char num[CNI_NUM_MAX];
	bool first = true;
	int ret;

	cni_json_put_raw(&b, "{");
	if (o->n_dirs) {
		cni_json_put_key(&b, "allowedDataDirs", first);
		first = false;
		cni_json_put_raw(&b, "[");
		for (size_t i = 0; i < o->n_dirs; i++) {
			if (i)
				cni_json_put_raw(&b, ",");
			cni_json_put_str(&b, o->dirs[i]);
		}
		cni_json_put_raw(&b, "]");
	}
	if (o->device_check) {
		cni_json_put_key(&b, "deviceCheck", first);
		first = false;
		cni_json_put_str(&b, o->device_check);
	}
	if (o->max_wait_ms >= 0) {
		cni_json_put_key(&b, "maxWaitMs", first);
		cni_json_put_raw(&b, cni_i64_str(o->max_wait_ms, num));
	}
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

static bool node_conf_given(const struct opts *o)
{
	return o->n_dirs || o->device_check || o->max_wait_ms >= 0;
}

/* One --allowed-data-dir, normalised as the plugins read it. */
static int add_dir(struct opts *o, const char *dir)
{
	char *out = o->dirs[o->n_dirs];

	if (o->n_dirs >= CNI_NODECONF_MAX_DIRS ||
	    cni_path_normalise(dir, out, sizeof(o->dirs[0])) || !strcmp(out, "/")) {
		fprintf(stderr,
			"ibcni-install: --allowed-data-dir %s: at most %d absolute directories "
			"other than /, without \".\" or \"..\"\n",
			dir, CNI_NODECONF_MAX_DIRS);
		return -EINVAL;
	}
	o->n_dirs++;
	return 0;
}

static int set_max_wait(struct opts *o, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, 10, CNI_NODECONF_MAX_WAIT_MS, &v)) {
		fprintf(stderr, "ibcni-install: --max-wait-ms %s: an integer from 0 to %d\n", arg,
			CNI_NODECONF_MAX_WAIT_MS);
		return -EINVAL;
	}
	o->max_wait_ms = (long)v;
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
	    {"allowed-data-dir", required_argument, NULL, 'a'},
	    {"device-check", required_argument, NULL, 'c'},
	    {"max-wait-ms", required_argument, NULL, 't'},
	    {"node-conf-dir", required_argument, NULL, 'e'},
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
		case 'a':
			if (add_dir(o, optarg))
				return -EINVAL;
			break;
		case 'c':
			o->device_check = optarg;
			break;
		case 't':
			if (set_max_wait(o, optarg))
				return -EINVAL;
			break;
		case 'e':
			o->node_dir = optarg;
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
	if (optind != argc ||
	    (o->netns_mode && strcmp(o->netns_mode, "exclusive") &&
	     strcmp(o->netns_mode, "shared")) ||
	    (o->device_check && strcmp(o->device_check, "kubelet") &&
	     strcmp(o->device_check, "off"))) {
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* Static: the directory list is large for a stack. */
	static struct opts o = {
	    .src = "/ibcni/bin",
	    .dst = "/host/opt/cni/bin",
	    .modprobe_dir = "/host/etc/modprobe.d",
	    .node_dir = "/host/etc/ibcni",
	    .max_wait_ms = -1,
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
	if (node_conf_given(&o) && write_node_conf(&o))
		return 1;
	return o.wait ? wait_for_stop() : 0;
}
