// SPDX-License-Identifier: Apache-2.0
/*
 * ibcni-install: the release image's entrypoint, with the upstream images'
 * contract (ib-sriov-cni's thin_entrypoint, rdma-cni's and sriov-cni's
 * entrypoint.sh), so the image fits the operators' slots: with no
 * arguments it installs and waits for SIGTERM (the Network Operator runs a
 * container that must stay up); --no-sleep installs and exits (SNO's init
 * containers). Copies the plugins from the image into the host's CNI
 * directory (files.c), optionally records the RDMA netns mode (netns.c)
 * and writes the node configuration (node.c) once it loads from a private
 * stage (stage.c). The image's is static: it runs on any node.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/util.h"
#include "install.h"

#ifndef IBCNI_VERSION
#define IBCNI_VERSION "unknown"
#endif
#ifndef IBCNI_SOURCE
#define IBCNI_SOURCE "source unknown"
#endif

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ibcni-install [--src DIR] [--cni-bin-dir DIR] [--only LIST] [--no-sleep]\n"
	    "                     [--netns-mode exclusive|shared [--modprobe-dir DIR]]\n"
	    "                     [--allowed-data-dir DIR]... [--device-check kubelet|off]\n"
	    "                     [--max-wait-ms N] [--node-name NAME --node-ranges-dir DIR]\n"
	    "                     [--node-conf-dir DIR]\n"
	    "  installs, then waits for SIGTERM or SIGINT (exit 0), as the upstream CNI\n"
	    "  images do; --no-sleep: installs and exits 0 (an init container)\n"
	    "  --src DIR           the plugins to install (default /ibcni/bin)\n"
	    "  --cni-bin-dir DIR   the host's CNI directory as mounted (default "
	    "/host/opt/cni/bin)\n"
	    "  --only LIST         a comma-separated subset of "
	    "ib-sriov,rdma,rdma-ns,ib-host-local\n"
	    "                      (rdma: rdma-ns as its own file, rdma-cni's \"type\")\n"
	    "  --ib-sriov-cni-bin-file=F, --rdma-cni-bin-file=F  upstream's: F is installed as\n"
	    "                      ib-sriov / rdma when the image has it, else ours is;\n"
	    "                      --sriov-bin-file=F: accepted, no sriov here\n"
	    "  --netns-mode MODE   record the RDMA netns mode for the next boot in\n"
	    "                      DIR/ibcni-rdma.conf and try to set it now (rdma-ns "
	    "netns-mode);\n"
	    "                      a file there of another's (SNO's rdmaMode) that sets it wins\n"
	    "  --modprobe-dir DIR  the host's /etc/modprobe.d as mounted (default "
	    "/host/etc/modprobe.d)\n"
	    "  --allowed-data-dir DIR  (repeatable) an ipam.dataDir NADs may use, with what is\n"
	    "                      below it; --device-check kubelet|off; --max-wait-ms N;\n"
	    "                      --node-name NAME --node-ranges-dir DIR: \"ranges\" from "
	    "DIR/NAME\n"
	    "                      (a ConfigMap keyed by node name: network -> range sets):\n"
	    "                      any of them writes the node config " CNI_NODECONF_PATH "\n"
	    "                      (unset keys get their defaults); none leaves it alone\n"
	    "  --node-conf-dir DIR the host's /etc/ibcni as mounted (default /host/etc/ibcni)\n"
	    "  --wait              wait for SIGTERM (the default; kept for old manifests)\n"
	    "  --version           print the version\n");
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

/* --only a,b,c: each one of ours, else a usage error naming it. */
static int set_only(struct opts *o, const char *arg)
{
	char list[256], *save = NULL, *tok;
	int i;

	if (check_snprintf(list, sizeof(list), "%s", arg) ||
	    !strspn(arg, "abcdefghijklmnopqrstuvwxyz-")) {
		fprintf(stderr,
			"ibcni-install: --only %s: a comma-separated list of ib-sriov, rdma, "
			"rdma-ns, ib-host-local\n",
			arg);
		return -EINVAL;
	}
	o->only_given = true;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		i = inst_index(tok);
		if (i < 0) {
			fprintf(stderr,
				"ibcni-install: --only: unknown plugin \"%s\" (ib-sriov, rdma, "
				"rdma-ns, ib-host-local)\n",
				tok);
			return -EINVAL;
		}
		o->only[i] = true;
	}
	return 0;
}

/* Upstream's --*-bin-file options: logged; ib-sriov's and rdma's keep
 * their meaning (the file installed under that name). */
static void set_bin_file(struct opts *o, int c, const char *arg)
{
	if (c == 'B')
		o->bin_file[INST_IB_SRIOV] = arg;
	else if (c == 'R')
		o->bin_file[INST_RDMA] = arg;
	if (c == 'S')
		printf("ibcni-install: --sriov-bin-file=%s accepted and ignored (ibcni has no "
		       "sriov plugin)\n",
		       arg);
	else
		printf("ibcni-install: --%s-bin-file=%s: used when the image has it\n",
		       c == 'B' ? "ib-sriov-cni" : "rdma-cni", arg);
}

/* A node name is a DNS subdomain (lower-case letters, digits, '-', '.'):
 * never a path, and an unexpanded "$(NODE_NAME)" is refused by name. */
static bool valid_node_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 253 || s[0] == '.' || strstr(s, ".."))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") == n;
}

/* What the options say together, checked after all are read. */
static int check_opts(const struct opts *o)
{
	if (o->netns_mode && strcmp(o->netns_mode, "exclusive") && strcmp(o->netns_mode, "shared"))
		return -EINVAL;
	if (o->device_check && strcmp(o->device_check, "kubelet") && strcmp(o->device_check, "off"))
		return -EINVAL;
	if (!o->node_name != !o->ranges_dir) {
		fprintf(stderr, "ibcni-install: --node-name and --node-ranges-dir go together\n");
		return -EINVAL;
	}
	if (o->node_name && !valid_node_name(o->node_name)) {
		fprintf(stderr,
			"ibcni-install: --node-name %s: not a node name (lower-case letters, "
			"digits, '-' and '.'; kubelet expands $(NODE_NAME) from the env's "
			"fieldRef spec.nodeName)\n",
			o->node_name);
		return -EINVAL;
	}
	return 0;
}

static int set_wait(struct opts *o, int want)
{
	if (o->wait >= 0 && o->wait != want) {
		fprintf(stderr, "ibcni-install: --wait and --no-sleep contradict\n");
		return -EINVAL;
	}
	o->wait = want;
	return 0;
}

static const struct option longopts[] = {
    {"src", required_argument, NULL, 's'},
    {"cni-bin-dir", required_argument, NULL, 'd'},
    {"modprobe-dir", required_argument, NULL, 'm'},
    {"netns-mode", required_argument, NULL, 'n'},
    {"wait", no_argument, NULL, 'w'},
    {"no-sleep", no_argument, NULL, 'N'},
    {"only", required_argument, NULL, 'o'},
    {"ib-sriov-cni-bin-file", required_argument, NULL, 'B'},
    {"rdma-cni-bin-file", required_argument, NULL, 'R'},
    {"sriov-bin-file", required_argument, NULL, 'S'},
    {"allowed-data-dir", required_argument, NULL, 'a'},
    {"device-check", required_argument, NULL, 'c'},
    {"max-wait-ms", required_argument, NULL, 't'},
    {"node-conf-dir", required_argument, NULL, 'e'},
    {"node-name", required_argument, NULL, 'k'},
    {"node-ranges-dir", required_argument, NULL, 'r'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* One option; -EINVAL for a bad one (main prints usage). */
static int take_opt(struct opts *o, int c)
{
	switch (c) {
	case 's':
		o->src = optarg;
		return 0;
	case 'd':
		o->dst = optarg;
		return 0;
	case 'm':
		o->modprobe_dir = optarg;
		return 0;
	case 'n':
		o->netns_mode = optarg;
		return 0;
	case 'w':
		return set_wait(o, 1);
	case 'N':
		return set_wait(o, 0);
	case 'o':
		return set_only(o, optarg);
	case 'B':
	case 'R':
	case 'S':
		set_bin_file(o, c, optarg);
		return 0;
	case 'a':
		return add_dir(o, optarg);
	case 'c':
		o->device_check = optarg;
		return 0;
	case 't':
		return set_max_wait(o, optarg);
	case 'e':
		o->node_dir = optarg;
		return 0;
	case 'k':
		o->node_name = optarg;
		return 0;
	case 'r':
		o->ranges_dir = optarg;
		return 0;
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("ibcni-install " IBCNI_VERSION " (" IBCNI_SOURCE ")\n");
		exit(0);
	}
	return -EINVAL;
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
		if (take_opt(o, c))
			return -EINVAL;
	if (optind != argc)
		return -EINVAL;
	return check_opts(o);
}

/* Blocked before installing, so a SIGTERM that comes while it installs is
 * taken once the work is whole, never in the middle of it. */
static void block_stop(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigprocmask(SIG_BLOCK, set, NULL);
}

static int wait_for_stop(const sigset_t *set)
{
	int sig;

	printf("ibcni-install: done; waiting for SIGTERM\n");
	fflush(stdout);
	if (sigwait(set, &sig))
		return 1;
	printf("ibcni-install: %s, exiting\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
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
	    .wait = -1,
	};
	sigset_t set;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	block_stop(&set);
	/* A bad ConfigMap entry changes nothing on the host. */
	if (load_node_ranges(&o))
		return 1;
	if (install_all(&o))
		return 1;
	printf("ibcni-install: ibcni " IBCNI_VERSION " in %s\n", o.dst);
	if (o.netns_mode && set_netns_mode(&o))
		return 1;
	if (node_conf_given(&o) && write_node_conf(&o))
		return 1;
	if (!o.wait)
		return 0;
	return wait_for_stop(&set);
}
