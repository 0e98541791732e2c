// SPDX-License-Identifier: Apache-2.0
/* `ib-sriov doctor --pod NAMESPACE/NAME` and `--netns PATH`: every ibcni
 * attachment of one pod (ib-sriov's and rdma-ns's records, matched by the
 * pod's namespace and name ADD recorded, or by the netns path), each
 * checked from inside the pod's network namespace (pod_rdma.c). It reads
 * only the records under the admin's state directories and the pod's
 * namespace through the kernel (a netns path is opened only under the
 * runtimes' directories, non-blocking, and checked to be a namespace). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "doctor.h"
#include "ibsriov.h"
#include "kernel/netns.h"
#include "state/record_rdmans.h"
#include "state/state.h"

#define POD_ATTS_MAX 32

/* What the command was asked, and what it found. */
struct pod {
	const char *ns, *name, *netns; /* the arguments (ns and name NULL with --netns) */
	char ns_buf[64], name_buf[254], rec_ns[254], rec_name[254], netns_buf[PATH_MAX];
	struct doctor_att atts[POD_ATTS_MAX];
	unsigned int n, unreadable, more;
};

/* A Kubernetes namespace or pod name: DNS-1123 (lower-case letters,
 * digits, '-' and '.'), so nothing a path or a terminal would read. */
static bool k8s_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-' &&
		    s[i] != '.')
			return false;
	return true;
}

/* Where runtimes put a pod's netns: /run/netns/NAME, /var/run/netns/NAME or
 * /proc/PID/ns/net; nothing else is opened. */
static bool netns_allowed(const char *p)
{
	const char *rest = NULL;

	if (!strncmp(p, "/run/netns/", 11))
		rest = p + 11;
	else if (!strncmp(p, "/var/run/netns/", 15))
		rest = p + 15;
	if (rest)
		return *rest && *rest != '.' && !strchr(rest, '/') && strlen(p) < PATH_MAX;
	if (strncmp(p, "/proc/", 6))
		return false;
	p += 6;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return !strcmp(p, "/ns/net");
}

static int usage(const char *why)
{
	fprintf(stderr, "ib-sriov doctor: %s\n%s", why, DOCTOR_USAGE);
	return 2;
}

static int parse_args(int argc, char **argv, struct pod *p, bool *json)
{
	for (int i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL, *slash;

		if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else if (!strcmp(argv[i], "--pod") && v && !p->ns && !p->netns) {
			slash = strchr(v, '/');
			if (!slash || (size_t)(slash - v) >= sizeof(p->ns_buf) ||
			    copy_str(p->name_buf, sizeof(p->name_buf), slash + 1))
				return usage("--pod takes NAMESPACE/NAME");
			memcpy(p->ns_buf, v, (size_t)(slash - v));
			p->ns_buf[slash - v] = '\0';
			if (!k8s_name(p->ns_buf, 63) || !k8s_name(p->name_buf, 253))
				return usage("--pod takes NAMESPACE/NAME, each a Kubernetes name "
					     "(lower-case letters, digits, '-', '.')");
			p->ns = p->ns_buf;
			p->name = p->name_buf;
			i++;
		} else if (!strcmp(argv[i], "--netns") && v && !p->ns && !p->netns) {
			if (!netns_allowed(v))
				return usage("--netns takes a path under /run/netns/ or "
					     "/var/run/netns/, or /proc/PID/ns/net");
			p->netns = v;
			i++;
		} else {
			return usage("unknown or repeated argument");
		}
	}
	return p->ns || p->netns ? 0 : usage("--pod or --netns is needed");
}

/* Whether a record with this pod and netns is one asked for; the pod's
 * netns and, with --netns, its name are taken from the first. */
static bool wanted(struct pod *p, const char *ns, const char *name, const char *netns)
{
	bool ok = p->ns ? !strcmp(ns, p->ns) && !strcmp(name, p->name)
			: netns && !strcmp(netns, p->netns);

	if (!ok)
		return false;
	if (p->n >= POD_ATTS_MAX) {
		p->more++;
		return false;
	}
	if (!*p->netns_buf && netns)
		copy_str(p->netns_buf, sizeof(p->netns_buf), netns);
	if (!*p->rec_ns && *ns) {
		copy_str(p->rec_ns, sizeof(p->rec_ns), ns);
		copy_str(p->rec_name, sizeof(p->rec_name), name);
	}
	return true;
}

static int scan_ours(int dirfd, const char *file, void *arg)
{
	struct pod *p = arg;
	struct ibsriov_record r;
	struct doctor_att *a;
	bool pod;

	(void)dirfd;
	if (ibsriov_record_load(file, &r)) {
		p->unreadable++;
		return 0;
	}
	pod = r.flags & IBSRIOV_REC_HAS_POD;
	if (wanted(p, pod ? r.pod_ns : "", pod ? r.pod_name : "", r.netns)) {
		a = &p->atts[p->n++];
		*a = (struct doctor_att){.plugin = "ib-sriov",
					 .ib = r.kind == IBSRIOV_IB,
					 .vfio = r.kind == IBSRIOV_VFIO,
					 .exclusive = r.flags & IBSRIOV_REC_HAS_RDMA,
					 .has_guid = r.flags & IBSRIOV_REC_HAS_GUID,
					 .guid = r.guid};
		copy_str(a->id, sizeof(a->id), r.container_id);
		copy_str(a->ifname, sizeof(a->ifname), r.ifname);
		copy_str(a->network, sizeof(a->network), r.network ? r.network : "");
		copy_str(a->netns, sizeof(a->netns), r.netns ? r.netns : "");
		copy_str(a->device, sizeof(a->device), r.device);
		if (a->exclusive && r.n_rdma) {
			copy_str(a->rdma, sizeof(a->rdma), r.rdma[0]);
			a->has_index = r.flags & IBSRIOV_REC_HAS_RDMA_INDEX;
			a->rdma_index = r.rdma_index[0];
		}
		if (r.flags & IBSRIOV_REC_HAS_POD_MTU)
			a->want.mtu = r.pod_mtu;
		for (unsigned int i = 0; i < r.n_pod_addrs; i++)
			cni_roce_want_add(&a->want, r.pod_addrs[i]);
	}
	ibsriov_record_clear(&r);
	return 0;
}

static int scan_rdmans(int dirfd, const char *file, void *arg)
{
	struct pod *p = arg;
	struct rdmans_record r;
	struct doctor_att *a;
	bool pod;

	(void)dirfd;
	if (rdmans_record_load(file, &r)) {
		p->unreadable++;
		return 0;
	}
	pod = r.has & RDMANS_REC_HAS_POD;
	if (!r.n_rdma || !wanted(p, pod ? r.pod_ns : "", pod ? r.pod_name : "", r.netns))
		return 0;
	a = &p->atts[p->n++];
	*a = (struct doctor_att){.plugin = "rdma-ns", .exclusive = true};
	copy_str(a->id, sizeof(a->id), r.containerid);
	copy_str(a->ifname, sizeof(a->ifname), r.ifname);
	copy_str(a->network, sizeof(a->network), r.network);
	copy_str(a->netns, sizeof(a->netns), r.netns);
	copy_str(a->rdma, sizeof(a->rdma), r.rdma[0]);
	a->has_index = r.has & RDMANS_REC_HAS_RDMA_INDEX && r.n_rdma_index;
	if (r.has & RDMANS_REC_HAS_POD_MTU)
		a->want.mtu = r.pod_mtu;
	for (unsigned int i = 0; i < r.n_pod_addrs; i++)
		cni_roce_want_add(&a->want, r.pod_addrs[i]);
	a->rdma_index = r.rdma_index[0];
	return 0;
}

static void no_attachment(struct doctor *d, const struct pod *p)
{
	char subject[320];

	d->check = "attachment";
	if (p->ns)
		snprintf(subject, sizeof(subject), "pod %s/%s", p->ns, p->name);
	else
		snprintf(subject, sizeof(subject), "netns %s", p->netns);
	if (!p->n)
		doctor_finding(d, "error", subject,
			       "check the pod's networks (k8s.v1.cni.cncf.io/networks) and that "
			       "ib-sriov or rdma-ns ran for it on this node; records of builds "
			       "before podNamespace/podName are found with --netns",
			       "no ibcni attachment found for %s in %s or %s", subject,
			       IBSRIOV_STATE_DIR, RDMANS_STATE_DIR);
	if (p->unreadable)
		doctor_finding(d, "warning", subject, "look at them, then remove them",
			       "%u records cannot be read; an attachment of this pod may be one",
			       p->unreadable);
	if (p->more)
		doctor_finding(d, "warning", subject, "none",
			       "%u more attachments than the %d checked", p->more, POD_ATTS_MAX);
}

static struct json_object *pod_json(const struct pod *p)
{
	struct json_object *o = json_object_new_object();

	doctor_put(o, "namespace", doctor_str(p->ns ? p->ns : *p->rec_ns ? p->rec_ns : NULL));
	doctor_put(o, "name", doctor_str(p->name ? p->name : *p->rec_ns ? p->rec_name : NULL));
	doctor_put(o, "netns",
		   doctor_str(p->netns	      ? p->netns
			      : *p->netns_buf ? p->netns_buf
					      : NULL));
	return o;
}

/* The namespace an attachment's record names, opened when it is under the
 * runtimes' directories and still a namespace: the fd, or -1 with the
 * finding said. */
static int open_netns(struct doctor *d, const struct doctor_att *a)
{
	struct cni_error err = {0};
	int fd;

	d->check = "attachment";
	if (!netns_allowed(a->netns)) {
		doctor_finding(d, "error", a->netns, "none: the doctor opens no other path",
			       "the record of %s/%s names network namespace \"%s\", not under "
			       "/run/netns/, /var/run/netns/ or /proc/PID/ns/net",
			       a->id, a->ifname, a->netns);
		return -1;
	}
	fd = cni_netns_open(d->sys, a->netns, &err);
	if (fd < 0)
		doctor_finding(d, "error", a->netns,
			       "the pod is gone or not on this node: its runtime's CNI GC "
			       "releases what it held",
			       "cannot open the network namespace of %s/%s: %s", a->id, a->ifname,
			       err.details);
	return fd;
}

/* Each attachment, from inside the namespace its record names (a pod's
 * records may outlive a sandbox the runtime recreated). */
static void check_all(struct doctor *d, const struct pod *p, struct json_object *arr)
{
	for (unsigned int i = 0; i < p->n; i++) {
		_cleanup_close_ int fd = open_netns(d, &p->atts[i]);
		struct json_object *o;

		if (fd < 0)
			continue;
		o = json_object_new_object();
		doctor_pod_check(d, &p->atts[i], fd, o);
		json_object_array_add(arr, o);
	}
}

static void text(struct doctor *d)
{
	struct json_object *pod, *f, *v;

	json_object_object_get_ex(d->root, "pod", &pod);
	json_object_object_get_ex(pod, "namespace", &v);
	printf("Pod %s", v ? json_object_get_string(v) : "-");
	json_object_object_get_ex(pod, "name", &v);
	printf("/%s", v ? json_object_get_string(v) : "-");
	json_object_object_get_ex(pod, "netns", &v);
	printf("  netns %s\n\nFindings\n", v ? json_object_get_string(v) : "-");
	for (size_t i = 0; i < json_object_array_length(d->findings); i++) {
		const char *sev, *chk;

		f = json_object_array_get_idx(d->findings, i);
		json_object_object_get_ex(f, "severity", &v);
		sev = json_object_get_string(v);
		json_object_object_get_ex(f, "check", &v);
		chk = json_object_get_string(v);
		printf("  %-7s [%s] ",
		       !strcmp(sev, "error")	 ? "ERROR"
		       : !strcmp(sev, "warning") ? "WARNING"
						 : "INFO",
		       chk);
		json_object_object_get_ex(f, "subject", &v);
		printf("%s: ", json_object_get_string(v));
		json_object_object_get_ex(f, "what", &v);
		printf("%s\n", json_object_get_string(v));
		json_object_object_get_ex(f, "fix", &v);
		if (strcmp(sev, "info"))
			printf("          fix: %s\n", json_object_get_string(v));
	}
	printf("\ndoctor: %u errors, %u warnings\n", d->errors, d->warnings);
}

int doctor_pod_main(int argc, char **argv)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct doctor d = {.sys = &sys};
	struct json_object *atts;
	static struct pod p;
	bool json = false;
	int ret = parse_args(argc, argv, &p, &json);

	if (ret)
		return ret;
	d.root = json_object_new_object();
	d.findings = json_object_new_array();
	atts = json_object_new_array();
	/* A listing that fails shows as no attachment, an error finding. */
	cni_state_each(IBSRIOV_STATE_DIR, IBSRIOV_RECORDS_MAX, scan_ours, &p);
	cni_state_each(RDMANS_STATE_DIR, IBSRIOV_RECORDS_MAX, scan_rdmans, &p);
	no_attachment(&d, &p);
	check_all(&d, &p, atts);
	doctor_put(d.root, "pod", pod_json(&p));
	doctor_put(d.root, "attachments", atts);
	ret = doctor_emit(&d, json, text);
	json_object_put(d.root);
	return ret;
}
