// SPDX-License-Identifier: Apache-2.0
/* ib-host-local leases in the agent's pass, only with "reclaimLeases": true
 * in /etc/ibcni/ibcni.conf: host-local writes the same files, and another
 * plugin's leases may share a data directory. Within every allowed data
 * directory, a lease's owner (container ID, interface, network) has its
 * leases freed when all of these hold, else they are kept:
 * - every lease file of the owner is older than the grace;
 * - no ib-sriov or rdma-ns record is of that container ID (a record's own
 *   release frees its leases, through the IPAM config it kept);
 * - the runtime's libcni cache entry of the attachment
 *   (/var/lib/cni/results/<network>-<id>-<ifname>) names its netns ("netns",
 *   written by libcni 1.2 and later) and that netns is gone. No entry, or
 *   one without a netns (an older libcni), is no proof: kept.
 * They are freed by ib-host-local's own DEL of that owner (the binary
 * beside this one, or its code built in), which keeps its index right. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/addr.h"
#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "kernel/netns.h"
#include "protocol/delegate.h"
#include "protocol/nodeconf.h"
#include "reconcile.h"
#include "state/state.h"

#define LIBCNI_RESULTS_DIR "/var/lib/cni/results"
#define OWNERS_MAX	   4096 /* owners looked at per network and pass */
#define LEASE_FILE_MAX	   4096
#define CACHE_MAX	   (1 << 20)

struct owner {
	char id[256], ifname[IFNAMSIZ];
	unsigned int files;
	time_t newest;
};

struct network {
	struct reconcile_pass *p;
	const char *data_dir, *name;
	struct owner *owners;
	size_t n;
};

/* One lease file: its owner noted, with the file's age. Anything else in
 * the directory (lock, last_reserved_ip.N, the index, a legacy bare ID)
 * is left alone. */
static int note_lease(int dirfd, const char *name, void *arg)
{
	struct network *net = arg;
	_cleanup_free_ char *text = NULL;
	struct cni_addr ip;
	struct stat st;
	size_t len, i;
	char *cr;

	if (!cni_addr_parse(name, &ip) || read_fileat(dirfd, name, LEASE_FILE_MAX, &text, &len) ||
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !(cr = strstr(text, "\r\n")))
		return 0;
	*cr = '\0';
	for (i = 0; i < net->n; i++)
		if (!strcmp(net->owners[i].id, text) && !strcmp(net->owners[i].ifname, cr + 2))
			break;
	if (i == net->n) {
		if (net->n == OWNERS_MAX ||
		    copy_str(net->owners[i].id, sizeof(net->owners[i].id), text) ||
		    copy_str(net->owners[i].ifname, sizeof(net->owners[i].ifname), cr + 2))
			return 0;
		net->owners[i].files = 0;
		net->owners[i].newest = 0;
		net->n++;
	}
	net->owners[i].files++;
	if (st.st_mtime > net->owners[i].newest)
		net->owners[i].newest = st.st_mtime;
	return 0;
}

/* 1 when the libcni cache entry of the attachment names a netns that is
 * gone; 0 when there is none, it names none, the netns is alive or this
 * view cannot tell (noted in p->blind). */
static int cache_says_gone(struct reconcile_pass *p, const char *network, const struct owner *o)
{
	_cleanup_json_ struct json_object *root = NULL;
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	struct json_object *v;
	const char *why;
	size_t len;
	int gone;

	if (check_snprintf(path, sizeof(path), "%s/%s-%s-%s", LIBCNI_RESULTS_DIR, network, o->id,
			   o->ifname) ||
	    read_file(path, CACHE_MAX, &text, &len) || !(root = cni_json_parse(text, len, &why)) ||
	    !json_object_object_get_ex(root, "netns", &v) ||
	    !json_object_is_type(v, json_type_string))
		return 0;
	gone = cni_netns_gone(json_object_get_string(v));
	cni_netns_blind_note(&p->blind, json_object_get_string(v), gone);
	return gone > 0;
}

/* ib-host-local's DEL of the owner in this network and data directory. */
static int free_owner(const struct network *net, const struct owner *o, struct cni_error *err)
{
	_cleanup_json_ struct json_object *c = json_object_new_object();
	struct json_object *ipam = json_object_new_object();
	struct cni_env env = {.command = CNI_CMD_DEL,
			      .command_str = "DEL",
			      .containerid = o->id,
			      .netns = "",
			      .ifname = o->ifname,
			      .args = "",
			      .path = net->p->self_dir};
	struct cni_conf *conf = NULL;
	const char *txt;
	char *raw;
	int ret;

	if (!c || !ipam || json_object_object_add(c, "ipam", ipam)) {
		json_object_put(ipam);
		return -ENOMEM;
	}
	json_object_object_add(c, "cniVersion", json_object_new_string("1.0.0"));
	json_object_object_add(c, "name", json_object_new_string(net->name));
	json_object_object_add(c, "type", json_object_new_string("ib-sriov"));
	json_object_object_add(ipam, "type", json_object_new_string("ib-host-local"));
	json_object_object_add(ipam, "dataDir", json_object_new_string(net->data_dir));
	txt = json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN);
	raw = txt ? strdup(txt) : NULL;
	if (!raw)
		return -ENOMEM;
	ret = cni_conf_parse(raw, strlen(raw), CNI_CMD_DEL, &conf, err);
	if (!ret)
		ret = cni_ipam_run(&env, conf, CNI_CMD_DEL, err);
	cni_conf_free(conf);
	return ret;
}

static void settle_owner(struct network *net, const struct owner *o)
{
	struct reconcile_pass *p = net->p;
	struct cni_error err = {0};

	if (p->now - o->newest < (time_t)p->o->grace || reconcile_has_record(o->id) ||
	    !cache_says_gone(p, net->name, o))
		return;
	if (p->o->dry_run) {
		p->leases += o->files;
		log_info("would free %u lease(s) of %s/%s in %s/%s: no record, its netns is gone",
			 o->files, o->id, o->ifname, net->data_dir, net->name);
	} else if (free_owner(net, o, &err)) {
		log_warn("cannot free the leases of %s/%s in %s/%s: %s: %s", o->id, o->ifname,
			 net->data_dir, net->name, err.msg, err.details);
	} else {
		p->leases += o->files;
		log_info("freed %u lease(s) of %s/%s in %s/%s: no record, its netns is gone",
			 o->files, o->id, o->ifname, net->data_dir, net->name);
	}
}

/* One network directory of a data directory. */
static int one_network(int dirfd, const char *name, void *arg)
{
	struct network net = *(struct network *)arg;
	char dir[PATH_MAX];

	(void)dirfd;
	net.name = name;
	net.n = 0;
	if (check_snprintf(dir, sizeof(dir), "%s/%s", net.data_dir, name))
		return 0;
	if (cni_state_each(dir, 0, note_lease, &net) < 0)
		return 0;
	for (size_t i = 0; i < net.n && !reconcile_stop(); i++)
		settle_owner(&net, &net.owners[i]);
	return reconcile_stop();
}

void reconcile_leases(struct reconcile_pass *p)
{
	struct cni_nodeconf nc = {0};
	struct cni_error err = {0};
	struct network net = {.p = p};

	if (cni_nodeconf_load(&nc, NULL, &err)) {
		log_err("%s: %s; leases are not reclaimed", err.msg, err.details);
		return;
	}
	if (!nc.reclaim_leases) {
		cni_nodeconf_free(&nc);
		return;
	}
	net.owners = calloc(OWNERS_MAX, sizeof(*net.owners));
	for (size_t i = 0; net.owners && i < nc.n_allowed_data_dirs && !reconcile_stop(); i++) {
		net.data_dir = nc.allowed_data_dirs[i];
		cni_state_each(net.data_dir, 0, one_network, &net);
	}
	free(net.owners);
	cni_nodeconf_free(&nc);
}
