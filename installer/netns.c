// SPDX-License-Identifier: Apache-2.0
/* --netns-mode: the RDMA netns mode for the next boot (a modprobe.d file)
 * and, as a bonus, now. Under the SR-IOV Network Operator its
 * SriovNetworkPoolConfig.spec.rdmaMode owns the setting (it writes
 * sriov_network_operator_modules_config.conf, then drains and reboots):
 * a second file would fight it, so a file of anyone else's that sets
 * ib_core netns_mode wins and ours is never written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "install.h"

#define MODPROBE_FILE "ibcni-rdma.conf"
#define MODPROBE_MAX  (64 * 1024)
#define SNO_FILE      "sriov_network_operator_modules_config.conf"

struct owner {
	char file[256];
	char value[16];
};

/* The value of "netns_mode=" on a line "options ib_core ..." (modprobe
 * treats - and _ in a module name alike), or NULL. */
static const char *netns_option(char *line)
{
	char *save = NULL, *tok = strtok_r(line, " \t", &save);

	if (!tok || strcmp(tok, "options"))
		return NULL;
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || (strcmp(tok, "ib_core") && strcmp(tok, "ib-core")))
		return NULL;
	while ((tok = strtok_r(NULL, " \t", &save)))
		if (!strncmp(tok, "netns_mode=", 11))
			return tok + 11;
	return NULL;
}

/* Does dfd/name set ib_core netns_mode? Fills o->value when it does. */
static bool sets_netns_mode(int dfd, const char *name, struct owner *o)
{
	_cleanup_free_ char *text = NULL;
	char *save = NULL, *line;
	const char *v;
	size_t len;

	if (read_fileat(dfd, name, MODPROBE_MAX, &text, &len))
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		v = netns_option(line);
		if (v && !check_snprintf(o->value, sizeof(o->value), "%s", v) &&
		    !check_snprintf(o->file, sizeof(o->file), "%s", name))
			return true;
	}
	return false;
}

/* The first *.conf (what modprobe reads) other than ours that sets it. */
static bool find_owner(int dfd, struct owner *o)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	bool found = false;
	size_t n;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (e = readdir(d))) {
		n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".conf") ||
		    !strcmp(e->d_name, MODPROBE_FILE))
			continue;
		found = sets_netns_mode(dfd, e->d_name, o);
	}
	closedir(d);
	return found;
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
		sigset_t none;

		/* The parent blocks SIGTERM for its wait; the child must not. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl(path, "rdma-ns", "netns-mode", mode, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128;
}

/* Another file owns the mode: say which and what it sets; ours, left by an
 * install before that owner came, goes (two files would disagree). */
static void defer_to(const struct opts *o, int dfd, const struct owner *w)
{
	const char *want = "1";
	bool same;

	if (!strcmp(o->netns_mode, "exclusive"))
		want = "0";
	same = !strcmp(w->value, want) ||
	       (!strcmp(want, "0") && (!strcmp(w->value, "N") || !strcmp(w->value, "n"))) ||
	       (!strcmp(want, "1") && (!strcmp(w->value, "Y") || !strcmp(w->value, "y")));
	printf("ibcni-install: %s/%s sets ib_core netns_mode=%s%s: it owns the RDMA netns mode, "
	       "%s is not written\n",
	       o->modprobe_dir, w->file, w->value,
	       strcmp(w->file, SNO_FILE) ? "" : " (SNO's SriovNetworkPoolConfig rdmaMode)",
	       MODPROBE_FILE);
	if (!same)
		printf("ibcni-install: warning: --netns-mode %s asked for netns_mode=%s, the node "
		       "boots with %s; set the mode where %s comes from (SNO: "
		       "SriovNetworkPoolConfig spec.rdmaMode)\n",
		       o->netns_mode, want, w->value, w->file);
	if (!unlinkat(dfd, MODPROBE_FILE, 0))
		printf("ibcni-install: removed %s/%s, an earlier install's\n", o->modprobe_dir,
		       MODPROBE_FILE);
}

/* The boot-time setting is what counts (the kernel refuses a switch once a
 * second network namespace exists, as on any running node): the modprobe.d
 * file is the result, the switch now is a bonus and never an error. */
int set_netns_mode(const struct opts *o)
{
	_cleanup_close_ int dfd = -1;
	struct owner w = {0};
	char line[64];
	int ret;

	ret = check_snprintf(line, sizeof(line),
			     "# written by ibcni-install\noptions ib_core netns_mode=%d\n",
			     strcmp(o->netns_mode, "exclusive") ? 1 : 0);
	if (ret)
		return ret;
	dfd = open(o->modprobe_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && find_owner(dfd, &w)) {
		defer_to(o, dfd, &w);
		return 0;
	}
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
