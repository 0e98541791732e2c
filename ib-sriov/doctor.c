// SPDX-License-Identifier: Apache-2.0
/* `ib-sriov doctor [--json]`: one report of what will make pods fail on
 * this node, each finding with its fix. An admin command (argv, not CNI):
 * it only reads (sysfs through cni/pci, netlink, verbs in a child, our
 * state directories) and prints to stdout. The report is built as JSON;
 * the text form is rendered from it, so both say the same. Exit status:
 * 1 when a finding is an error, else 0; 2 for a usage error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <net/if_arp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "base/cleanup.h"
#include "guid.h"
#include "ibsriov.h"
#include "base/json.h"
#include "state/state.h"
#include "base/util.h"
#include "kernel/verbs.h"

#ifndef DOCTOR_MODPROBE_DIR
#define DOCTOR_MODPROBE_DIR "/etc/modprobe.d"
#endif
#ifndef DOCTOR_UNIT_DIR
#define DOCTOR_UNIT_DIR "/etc/systemd/system"
#endif
#ifndef DOCTOR_CHECKPOINT
#define DOCTOR_CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#endif
#ifndef DOCTOR_RDMANS_DIR
#define DOCTOR_RDMANS_DIR "/var/lib/cni/rdma-ns"
#endif
#define DOCTOR_PFS_MAX 64
#define DOCTOR_VFS_MAX 256
#define DOCTOR_UNIT    "rdma-ns-netns-mode.service"
#define DOCTOR_BOOT_FIX                                                                            \
	"set the mode at boot: install conf-examples/ib_core.conf as "                             \
	"/etc/modprobe.d/ib_core.conf "                                                            \
	"(options ib_core netns_mode=0), update-initramfs -u and reboot; or enable "               \
	"conf-examples/" DOCTOR_UNIT " (it runs `rdma-ns netns-mode exclusive` before the "        \
	"container runtime). At run time the kernel refuses the switch while any other network "   \
	"namespace exists"

struct doctor {
	struct cni_sys *sys; /* the kernel context of the report */
	struct json_object *root, *findings;
	unsigned int errors, warnings;
	bool rdma, exclusive, boot_known, boot_exclusive, shared_plugin;
	struct json_object *held; /* deviceID -> the attachment holding it */
};

static void put(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *guid_json(uint64_t g)
{
	char buf[32];

	return str(ibsriov_guid_str(g, buf, sizeof(buf)));
}

static __attribute__((format(printf, 5, 6))) void finding(struct doctor *d, const char *severity,
							  const char *subject, const char *fix,
							  const char *fmt, ...)
{
	struct json_object *f = json_object_new_object();
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	put(f, "severity", str(severity));
	put(f, "subject", str(subject));
	put(f, "what", str(what));
	put(f, "fix", str(fix));
	json_object_array_add(d->findings, f);
	d->errors += !strcmp(severity, "error");
	d->warnings += !strcmp(severity, "warning");
}

/* A netns path whose namespace is gone: absent, or the plain file an
 * unmounted bind leaves. Anything we cannot tell is not called gone. */
static bool netns_gone(const char *path)
{
	_cleanup_close_ int fd = -1;
	struct statfs sfs;

	if (!path || !*path)
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	return fstatfs(fd, &sfs) == 0 && sfs.f_type != NSFS_MAGIC;
}

static struct json_object *attachment(const char *file, const char *network, const char *id,
				      const char *ifname, const char *device, const char *netns,
				      bool gone)
{
	struct json_object *o = json_object_new_object();

	put(o, "file", str(file));
	put(o, "network", str(network));
	put(o, "containerID", str(id));
	put(o, "ifname", str(ifname));
	put(o, "deviceID", str(device));
	put(o, "netns", str(netns));
	put(o, "netnsGone", json_object_new_boolean(gone));
	return o;
}

static void leftover(struct doctor *d, const char *plugin, const char *path, const char *network,
		     const char *id, const char *ifname, const char *netns)
{
	char fix[768];

	snprintf(
	    fix, sizeof(fix),
	    "the runtime's CNI GC of network %s releases it; or run DEL by hand: "
	    "CNI_COMMAND=DEL CNI_CONTAINERID=%s CNI_IFNAME=%s CNI_NETNS= CNI_PATH=/opt/cni/bin "
	    "/opt/cni/bin/%s < (the network's config)",
	    network && *network ? network : "(unknown)", id, ifname, plugin);
	finding(d, "warning", path, fix,
		"leftover attachment %s/%s of %s: its network namespace %s is gone, so its VF or "
		"RDMA device is held for a pod that no longer exists",
		id, ifname, plugin, netns && *netns ? netns : "(not recorded)");
}

/* Our records: netns recorded, so a gone one is certain. */
static void records_ours(struct doctor *d, struct json_object *arr)
{
	_cleanup_dir_ DIR *dir = opendir(IBSRIOV_STATE_DIR);
	unsigned int seen = 0;
	struct dirent *e;

	while (dir && (e = readdir(dir)) && seen++ < IBSRIOV_RECORDS_MAX) {
		struct ibsriov_record r;
		char path[PATH_MAX];
		bool gone;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", IBSRIOV_STATE_DIR, e->d_name);
		if (ibsriov_record_load(e->d_name, &r)) {
			finding(d, "warning", path,
				"look at it, then remove it (it is not one ib-sriov wrote)",
				"unreadable ib-sriov record");
			continue;
		}
		gone = netns_gone(r.netns);
		json_object_array_add(arr, attachment(path, r.network, r.container_id, r.ifname,
						      r.device, r.netns, gone));
		put(d->held, r.device, str(path));
		if (gone)
			leftover(d, "ib-sriov", path, r.network, r.container_id, r.ifname, r.netns);
		ibsriov_record_clear(&r);
	}
}

/* ib-sriov-cni's caches record no netns: one is stale when its VF netdev
 * is back on the host (a pod's namespace holds it while the pod lives). */
static void records_go(struct doctor *d, struct json_object *arr)
{
	_cleanup_dir_ DIR *dir = opendir(IBSRIOV_GO_DIR);
	unsigned int seen = 0;
	struct dirent *e;

	while (dir && (e = readdir(dir)) && seen++ < IBSRIOV_RECORDS_MAX) {
		_cleanup_json_ struct json_object *o = NULL;
		struct ibsriov_record r;
		char path[PATH_MAX], name[IFNAMSIZ];
		struct cni_link l;
		bool gone;

		if (e->d_name[0] == '.' || cni_state_read(IBSRIOV_GO_DIR, e->d_name, &o) ||
		    json_object_object_get_ex(o, "ibcni", NULL) ||
		    ibsriov_gocache_parse(o, e->d_name, "", &r))
			continue;
		snprintf(path, sizeof(path), "%s/%s", IBSRIOV_GO_DIR, e->d_name);
		gone = r.kind != IBSRIOV_VFIO &&
		       ((*r.orig_name && !cni_link_get(d->sys, r.orig_name, 0, &l)) ||
			(!cni_pci_netdev(CNI_PCI_ROOT, r.device, name) &&
			 !cni_link_get(d->sys, name, 0, &l)));
		json_object_array_add(
		    arr, attachment(path, NULL, r.container_id, r.ifname, r.device, NULL, gone));
		if (!json_object_object_get_ex(d->held, r.device, NULL))
			put(d->held, r.device, str(path));
		if (gone)
			finding(d, "warning", path,
				"DEL it with the network's config (ib-sriov reads this cache), or "
				"remove it",
				"leftover ib-sriov-cni cache %s/%s: VF %s is back on the host, so "
				"the pod "
				"it was for is gone",
				r.container_id, r.ifname, r.device);
		ibsriov_record_clear(&r);
	}
}

static const char *jget_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : "";
}

static void records_rdmans(struct doctor *d, struct json_object *arr)
{
	_cleanup_dir_ DIR *dir = opendir(DOCTOR_RDMANS_DIR);
	unsigned int seen = 0;
	struct dirent *e;

	while (dir && (e = readdir(dir)) && seen++ < IBSRIOV_RECORDS_MAX) {
		_cleanup_json_ struct json_object *o = NULL;
		char path[PATH_MAX];
		const char *netns;
		bool gone;

		if (e->d_name[0] == '.' || cni_state_read(DOCTOR_RDMANS_DIR, e->d_name, &o))
			continue;
		snprintf(path, sizeof(path), "%s/%s", DOCTOR_RDMANS_DIR, e->d_name);
		netns = jget_str(o, "netns");
		gone = netns_gone(netns);
		json_object_array_add(
		    arr, attachment(path, jget_str(o, "network"), jget_str(o, "containerID"),
				    jget_str(o, "ifname"), jget_str(o, "deviceID"), netns, gone));
		if (gone)
			leftover(d, "rdma-ns", path, jget_str(o, "network"),
				 jget_str(o, "containerID"), jget_str(o, "ifname"), netns);
	}
}

/* "options ib_core ... netns_mode=N" in a modprobe.d file, or our unit. */
static void boot_setting(struct doctor *d, char *out, size_t len)
{
	_cleanup_dir_ DIR *dir = opendir(DOCTOR_MODPROBE_DIR);
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;

	while (dir && (e = readdir(dir))) {
		_cleanup_free_ char *buf = NULL;
		char *line, *save = NULL;

		if (e->d_name[0] == '.' || !strstr(e->d_name, ".conf") ||
		    check_snprintf(path, sizeof(path), "%s/%s", DOCTOR_MODPROBE_DIR, e->d_name) ||
		    read_file(path, 65536, &buf, NULL))
			continue;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *m = strstr(line, "netns_mode=");

			line += strspn(line, " \t");
			if (strncmp(line, "options", 7) || !strstr(line, " ib_core ") || !m)
				continue;
			d->boot_known = true;
			d->boot_exclusive = m[11] == '0' || m[11] == 'N' || m[11] == 'n';
			snprintf(out, len, "%s: netns_mode=%c (%s)", path, m[11],
				 d->boot_exclusive ? "exclusive" : "shared");
		}
	}
	if (!d->boot_known &&
	    !check_snprintf(path, sizeof(path), "%s/multi-user.target.wants/%s", DOCTOR_UNIT_DIR,
			    DOCTOR_UNIT) &&
	    stat(path, &st) == 0) {
		d->boot_known = d->boot_exclusive = true;
		snprintf(out, len, "%s (enabled: exclusive before the container runtime)", path);
	}
}

/* Evidence of the RDMA shared device plugin: its resources registered with
 * the kubelet (prefix "rdma/", or "rdma_shared" in the name), its process. */
static void shared_plugin(struct doctor *d, struct json_object *evidence)
{
	_cleanup_json_ struct json_object *cp = NULL;
	_cleanup_free_ char *buf = NULL;
	_cleanup_dir_ DIR *proc = opendir("/proc");
	struct json_object *data, *reg;
	const char *why;
	struct dirent *e;
	size_t len;

	if (!read_file(DOCTOR_CHECKPOINT, 16 << 20, &buf, &len) &&
	    (cp = cni_json_parse(buf, len, &why)) && json_object_object_get_ex(cp, "Data", &data) &&
	    json_object_object_get_ex(data, "RegisteredDevices", &reg) &&
	    json_object_is_type(reg, json_type_object)) {
		json_object_object_foreach (reg, name, devs) {
			char what[512];

			(void)devs;
			if (strncmp(name, "rdma/", 5) && !strstr(name, "rdma_shared"))
				continue;
			snprintf(what, sizeof(what), "kubelet resource %s (%s)", name,
				 DOCTOR_CHECKPOINT);
			json_object_array_add(evidence, str(what));
		}
	}
	while (proc && (e = readdir(proc))) {
		_cleanup_free_ char *comm = NULL;
		char path[64], what[320];
		uint64_t pid;

		if (parse_u64(e->d_name, 10, UINT32_MAX, &pid) ||
		    check_snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name) ||
		    read_file(path, 64, &comm, NULL) || strncmp(comm, "k8s-rdma-shared", 15))
			continue;
		snprintf(what, sizeof(what), "process %s (k8s-rdma-shared-dev-plugin)", e->d_name);
		json_object_array_add(evidence, str(what));
	}
	d->shared_plugin = json_object_array_length(evidence) > 0;
}

static void section_mode(struct doctor *d)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_array();
	char boot[PATH_MAX + 64] = "";
	int ret = cni_rdma_get_netns_mode(d->sys, &d->exclusive);

	d->rdma = !ret;
	boot_setting(d, boot, sizeof(boot));
	shared_plugin(d, ev);
	put(o, "netnsMode", str(ret ? NULL : d->exclusive ? "exclusive" : "shared"));
	put(o, "error", str(ret ? cni_rdma_strerror(ret) : NULL));
	put(o, "bootSetting", str(*boot ? boot : NULL));
	put(o, "sharedDevicePlugin", ev);
	put(d->root, "rdma", o);
	if (ret) {
		finding(
		    d, "warning", "RDMA subsystem",
		    "load ib_core, ib_uverbs and the NIC's RDMA driver (mlx5_ib), or install "
		    "rdma-core",
		    "no RDMA netlink here (%s): rdmaIsolation, rdma-ns and pkeyEnforce cannot work",
		    cni_rdma_strerror(ret));
		return;
	}
	if (d->shared_plugin && d->exclusive)
		finding(
		    d, "error", "RDMA netns mode",
		    "a node serves either shared RDMA devices (shared mode, no rdma-ns or "
		    "rdmaIsolation) or isolated SR-IOV VFs (exclusive mode): keep the shared "
		    "device "
		    "plugin's DaemonSet off this node (NicClusterPolicy rdmaSharedDevicePlugin "
		    "node "
		    "affinity), or set the mode to shared at boot (netns_mode=1)",
		    "the RDMA shared device plugin runs here but the mode is exclusive: its pods "
		    "see no RDMA device, as each device belongs to one network namespace");
	else if (d->shared_plugin)
		finding(d, "info", "RDMA netns mode",
			"nothing, unless this node should isolate VFs",
			"shared mode, as the RDMA shared device plugin here needs: networks with "
			"rdma-ns "
			"or rdmaIsolation fail on this node (error 104)");
	else if (!d->exclusive)
		finding(d, "warning", "RDMA netns mode", DOCTOR_BOOT_FIX,
			"the RDMA netns mode is shared: networks with rdma-ns or ib-sriov's "
			"rdmaIsolation fail (error 104), and every pod sees every RDMA device");
	else if (!d->boot_known || !d->boot_exclusive)
		finding(
		    d, "warning", "RDMA netns mode", DOCTOR_BOOT_FIX,
		    "exclusive now, but nothing here sets it at boot: after a reboot the mode is "
		    "shared and rdma-ns or rdmaIsolation pods fail");
	if (d->boot_known && d->boot_exclusive != d->exclusive && !d->shared_plugin)
		finding(d, "warning", "RDMA netns mode",
			"update-initramfs -u (ib_core loads from the initramfs) and reboot",
			"the boot setting (%s) differs from the running mode", boot);
}

static const char *link_state_str(uint32_t s)
{
	return s == IFLA_VF_LINK_STATE_ENABLE	 ? "enable"
	       : s == IFLA_VF_LINK_STATE_DISABLE ? "disable"
						 : "auto";
}

/* The VF's GUID: the PF's VF info when it reports one, else the port GUID
 * in an IPoIB netdev's hardware address. */
static bool vf_guid(const struct cni_vf *info, const struct cni_link *l, uint64_t *g)
{
	if (info && (info->mask & CNI_VF_PORT_GUID)) {
		*g = info->port_guid;
		return true;
	}
	if (l && l->mac_len == 20) {
		*g = ibsriov_guid_from_hwaddr(l->mac, l->mac_len);
		return true;
	}
	return false;
}

static void vf_findings(struct doctor *d, const struct cni_pci_vf *vf, const char *held, bool ib,
			bool has_guid, uint64_t guid, const struct cni_vf *info, bool pf_rdma)
{
	char fix[256], g[32];

	if (!*vf->driver) {
		snprintf(fix, sizeof(fix),
			 "bind it: echo %s > /sys/bus/pci/drivers/mlx5_core/bind "
			 "(or vfio-pci for vfioPciMode networks)",
			 vf->addr);
		finding(d, "warning", vf->addr, fix, "VF %u of %s has no driver: no pod can use it",
			vf->vf_index, vf->pf_addr);
		return;
	}
	if (!strcmp(vf->driver, "vfio-pci")) {
		finding(
		    d, "info", vf->addr,
		    "for a netdev VF, unbind it from vfio-pci and bind it to its network driver",
		    "VF %u of %s is bound to vfio-pci: only networks with vfioPciMode can use it "
		    "(passed through whole, no netdev, no GUID or pkey handling)",
		    vf->vf_index, vf->pf_addr);
		return;
	}
	if (held)
		return;
	if (!*vf->netdev)
		finding(
		    d, "warning", vf->addr,
		    "load its network driver (mlx5_core, and ib_ipoib for InfiniBand) or rebind it",
		    "VF %u of %s (driver %s) has no netdev on the host and no attachment holds it",
		    vf->vf_index, vf->pf_addr, vf->driver);
	if (ib && has_guid && ibsriov_guid_unset(guid))
		finding(
		    d, "warning", vf->addr,
		    "have the SR-IOV network operator assign VF GUIDs, or run ib-kubernetes",
		    "VF %u of %s has GUID %s (unassigned): a pod gets it only with a GUID from its "
		    "network (runtimeConfig infinibandGUID, cni-args guid, ib-kubernetes); "
		    "otherwise "
		    "ADD fails with \"the VF has no valid GUID\"",
		    vf->vf_index, vf->pf_addr, ibsriov_guid_str(guid, g, sizeof(g)));
	if (info && (info->mask & CNI_VF_LINK_STATE) &&
	    info->link_state == IFLA_VF_LINK_STATE_DISABLE)
		finding(d, "warning", vf->addr,
			"ip link set <PF> vf <N> state auto, or give the network a link_state",
			"VF %u of %s has link state disable: its link never comes up", vf->vf_index,
			vf->pf_addr);
	if (pf_rdma && !*vf->rdma_dev)
		finding(
		    d, "warning", vf->addr,
		    "load the RDMA driver (mlx5_ib); an RDMA device in a pod's namespace is not "
		    "visible here",
		    "VF %u of %s has no RDMA device though its PF has one", vf->vf_index,
		    vf->pf_addr);
}

static struct json_object *vf_report(struct doctor *d, const char *addr, const struct cni_vf *info,
				     bool ib, bool pf_rdma)
{
	struct json_object *o = json_object_new_object(), *h;
	struct cni_pci_vf vf;
	struct cni_link l;
	bool has_link, has_guid;
	const char *held = NULL;
	uint64_t guid = 0;

	put(o, "pci", str(addr));
	if (cni_pci_vf_get(CNI_PCI_ROOT, addr, &vf)) {
		put(o, "error", str("cannot read its sysfs topology"));
		return o;
	}
	if (json_object_object_get_ex(d->held, addr, &h))
		held = json_object_get_string(h);
	has_link = *vf.netdev && !cni_link_get(d->sys, vf.netdev, 0, &l);
	has_guid = ib && vf_guid(info, has_link ? &l : NULL, &guid);
	put(o, "vf", json_object_new_int(vf.vf_index));
	put(o, "driver", str(*vf.driver ? vf.driver : NULL));
	put(o, "netdev", str(*vf.netdev ? vf.netdev : NULL));
	put(o, "netdevUp", has_link ? json_object_new_boolean(l.flags & IFF_UP) : NULL);
	put(o, "rdmaDevice", str(*vf.rdma_dev ? vf.rdma_dev : NULL));
	put(o, "guid", has_guid ? guid_json(guid) : NULL);
	put(o, "guidSet", has_guid ? json_object_new_boolean(!ibsriov_guid_unset(guid)) : NULL);
	put(o, "linkState",
	    info && (info->mask & CNI_VF_LINK_STATE) ? str(link_state_str(info->link_state))
						     : NULL);
	put(o, "attachedBy", str(held));
	vf_findings(d, &vf, held, ib, has_guid, guid, info, pf_rdma);
	return o;
}

static struct json_object *pf_report(struct doctor *d, const char *pf)
{
	struct json_object *o = json_object_new_object(), *vfs = json_object_new_array();
	char netdev[IFNAMSIZ] = "", drv[64] = "", rdma[1][CNI_RDMA_NAME_MAX];
	_cleanup_free_ struct cni_vf *info = NULL;
	unsigned int num = 0, total = 0;
	struct cni_link l;
	bool has_link, ib, pf_rdma;
	size_t n_info = 0;

	cni_pci_netdev(CNI_PCI_ROOT, pf, netdev);
	cni_pci_driver(CNI_PCI_ROOT, pf, drv, sizeof(drv));
	has_link = *netdev && !cni_link_get(d->sys, netdev, 0, &l);
	ib = has_link && l.type == ARPHRD_INFINIBAND;
	pf_rdma = cni_pci_rdma_devs(CNI_PCI_ROOT, pf, rdma, 1) > 0;
	if (has_link && cni_link_vfs_get(d->sys, l.ifindex, &info, &n_info))
		n_info = 0;
	put(o, "pci", str(pf));
	put(o, "driver", str(*drv ? drv : NULL));
	put(o, "netdev", str(*netdev ? netdev : NULL));
	put(o, "linkType", str(!has_link ? NULL : ib ? "InfiniBand" : "Ethernet"));
	if (!cni_pci_sriov_counts(CNI_PCI_ROOT, pf, &num, &total)) {
		put(o, "numVfs", json_object_new_int((int)num));
		put(o, "totalVfs", json_object_new_int((int)total));
	}
	for (unsigned int n = 0; n < DOCTOR_VFS_MAX; n++) {
		char vf[CNI_PCI_ADDR_LEN];
		const struct cni_vf *vi = NULL;

		if (cni_pci_vf_addr(CNI_PCI_ROOT, pf, n, vf))
			break;
		for (size_t i = 0; i < n_info; i++)
			if (info[i].vf == n)
				vi = &info[i];
		json_object_array_add(vfs, vf_report(d, vf, vi, ib, pf_rdma));
	}
	put(o, "vfs", vfs);
	if (!json_object_array_length(vfs))
		finding(d, "info", pf,
			"echo N > /sys/bus/pci/devices/<PF>/sriov_numvfs (or the SR-IOV "
			"network operator's SriovNetworkNodePolicy)",
			"SR-IOV PF %s has no VFs enabled", pf);
	return o;
}

static void section_pfs(struct doctor *d)
{
	struct json_object *arr = json_object_new_array();
	char pfs[DOCTOR_PFS_MAX][CNI_PCI_ADDR_LEN];
	int n = cni_pci_sriov_pfs(CNI_PCI_ROOT, pfs, DOCTOR_PFS_MAX);

	for (int i = 0; i < n; i++)
		json_object_array_add(arr, pf_report(d, pfs[i]));
	put(d->root, "pfs", arr);
	if (n <= 0)
		finding(d, "warning", CNI_PCI_ROOT,
			"enable SR-IOV on the NIC (firmware SRIOV_EN, then sriov_numvfs)",
			"no SR-IOV PF here: ib-sriov has no VF to give a pod");
}

static const char *open_fix(int ret)
{
	switch (ret) {
	case -ENOSYS:
	case -EOPNOTSUPP:
		return "modprobe ib_uverbs (rdma-core's udev rules load it)";
	case -ENODEV:
		return "this build has no libibverbs provider for its driver: use a DYNAMIC=1 "
		       "build "
		       "with ibverbs-providers installed, or add the provider to VERBS_PROVIDERS";
	case -EACCES:
		return "check /dev/infiniband/uverbs* (owner, mode) and the device cgroup";
	default:
		return "look at dmesg for the RDMA driver's errors";
	}
}

static struct json_object *port_report(struct doctor *d, const char *dev,
				       const struct cni_verbs_port *p)
{
	struct json_object *o = json_object_new_object(), *keys = json_object_new_array();
	bool ib = p->link_layer == CNI_VERBS_LL_IB;
	char buf[CNI_RDMA_NAME_MAX + 32];

	put(o, "port", json_object_new_int((int)p->num));
	put(o, "state", str(cni_verbs_port_state_str(p->state)));
	put(o, "physState", str(cni_verbs_phys_state_str(p->phys_state)));
	put(o, "linkLayer", str(cni_verbs_link_layer_str(p->link_layer)));
	put(o, "rate", str(cni_verbs_rate_str(p, buf, sizeof(buf))));
	put(o, "portGuid", ib && p->has_gid0 ? guid_json(p->port_guid) : NULL);
	put(o, "lid", ib ? json_object_new_int(p->lid) : NULL);
	put(o, "gidTableSize", json_object_new_int(p->gid_tbl_len));
	put(o, "pkeyTableSize", json_object_new_int((int)p->pkey_tbl_len));
	for (unsigned int i = 0; i < p->n_pkeys; i++) {
		snprintf(buf, sizeof(buf), "%#06x", p->pkeys[i]);
		if (p->pkeys[i] & 0x7fff)
			json_object_array_add(keys, str(buf));
	}
	put(o, "pkeys", keys);
	snprintf(buf, sizeof(buf), "%s port %u", dev, p->num);
	if (p->state != CNI_VERBS_PORT_ACTIVE)
		finding(d, "warning", buf, cni_verbs_port_hint(p), "port is %s (physical state %s)",
			cni_verbs_port_state_str(p->state),
			cni_verbs_phys_state_str(p->phys_state));
	if (ib && p->has_gid0 && ibsriov_guid_unset(p->port_guid))
		finding(d, "warning", buf, "assign the VF a GUID (SR-IOV operator, ib-kubernetes)",
			"port GUID is zero: the subnet manager cannot bring the port up");
	if (ib && !json_object_array_length(keys))
		finding(d, "warning", buf,
			"the subnet manager has not configured the port's partitions",
			"the pkey table has no valid entry");
	return o;
}

static struct json_object *dev_report(struct doctor *d, const struct cni_rdma_dev *nl)
{
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();
	struct cni_verbs_dev v;
	int ret = cni_verbs_query_in(-1, nl->name, CNI_VERBS_GID0 | CNI_VERBS_PKEYS,
				     CNI_VERBS_TIMEOUT_MS, &v);

	put(o, "name", str(nl->name));
	put(o, "kind", str(*nl->link_type ? nl->link_type : NULL));
	put(o, "nodeGuid", guid_json(nl->node_guid));
	put(o, "opensHere", json_object_new_boolean(!ret));
	put(o, "usableFrom",
	    str(d->exclusive ? "this network namespace only (exclusive mode: a pod "
			       "sees it once it is moved in)"
			     : "every network namespace (shared mode)"));
	if (ibsriov_guid_unset(nl->node_guid))
		finding(d, "warning", nl->name, "assign GUIDs (SR-IOV operator, ib-kubernetes)",
			"node GUID is zero");
	if (ret) {
		put(o, "verbsError", str(cni_verbs_strerror(ret)));
		finding(d, "warning", nl->name, open_fix(ret),
			"does not open through verbs here: %s", cni_verbs_strerror(ret));
	} else {
		put(o, "firmware", str(v.fw_ver));
		for (unsigned int i = 0; i < v.n_ports; i++)
			json_object_array_add(ports, port_report(d, nl->name, &v.ports[i]));
	}
	put(o, "ports", ports);
	return o;
}

static void section_rdma(struct doctor *d)
{
	struct json_object *arr = json_object_new_array();
	_cleanup_free_ struct cni_rdma_dev *devs = NULL;
	size_t n = 0;

	if (d->rdma && cni_rdma_devs(d->sys, &devs, &n))
		n = 0;
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, dev_report(d, &devs[i]));
	put(d->root, "rdmaDevices", arr);
}

static const char *js(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static const char * or (const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void text_pfs(struct json_object *pfs)
{
	printf("\nSR-IOV PFs (%s)\n", CNI_PCI_ROOT);
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i), *vfs;

		printf("  %s  netdev %s  driver %s  %s  VFs %s/%s\n", js(pf, "pci"),
		       or (js(pf, "netdev"), "-"), or (js(pf, "driver"), "-"),
		       or (js(pf, "linkType"), "-"), or (js(pf, "numVfs"), "?"),
		       or (js(pf, "totalVfs"), "?"));
		json_object_object_get_ex(pf, "vfs", &vfs);
		for (size_t j = 0; j < json_object_array_length(vfs); j++) {
			struct json_object *vf = json_object_array_get_idx(vfs, j);
			const char *up = js(vf, "netdevUp"), *set = js(vf, "guidSet");

			printf("    VF %s  %s  driver %s  netdev %s%s  rdma %s  GUID %s%s  link "
			       "%s%s%s\n",
			       or (js(vf, "vf"), "?"), js(vf, "pci"), or (js(vf, "driver"), "-"),
			       or (js(vf, "netdev"), "-"),
			       !up		     ? ""
			       : !strcmp(up, "true") ? " (up)"
						     : " (down)",
			       or (js(vf, "rdmaDevice"), "-"), or (js(vf, "guid"), "-"),
			       set && !strcmp(set, "false") ? " (unset)" : "",
			       or (js(vf, "linkState"), "-"),
			       js(vf, "attachedBy") ? "  attached: " : "",
			       or (js(vf, "attachedBy"), ""));
		}
	}
}

static void text_devices(struct json_object *devs)
{
	printf("\nRDMA devices (verbs, from this network namespace)\n");
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		struct json_object *dev = json_object_array_get_idx(devs, i), *ports;

		printf(
		    "  %s%s%s%s  node GUID %s  firmware %s\n    opens here: %s; usable from %s\n",
		    js(dev, "name"), js(dev, "kind") ? " (" : "", or (js(dev, "kind"), ""),
		    js(dev, "kind") ? ")" : "", js(dev, "nodeGuid"), or (js(dev, "firmware"), "-"),
		    js(dev, "verbsError") ? js(dev, "verbsError") : "yes", js(dev, "usableFrom"));
		json_object_object_get_ex(dev, "ports", &ports);
		for (size_t j = 0; j < json_object_array_length(ports); j++) {
			struct json_object *p = json_object_array_get_idx(ports, j), *keys;

			json_object_object_get_ex(p, "pkeys", &keys);
			printf(
			    "    port %s: %s (%s), %s, %s, port GUID %s, GID table %s, pkeys %s\n",
			    js(p, "port"), js(p, "state"), js(p, "physState"), js(p, "linkLayer"),
			    js(p, "rate"), or (js(p, "portGuid"), "-"), js(p, "gidTableSize"),
			    json_object_to_json_string_ext(keys, JSON_C_TO_STRING_PLAIN));
		}
	}
}

static void text_findings(struct json_object *findings)
{
	printf("\nFindings\n");
	if (!json_object_array_length(findings))
		printf("  none: nothing here should make a pod fail\n");
	for (size_t i = 0; i < json_object_array_length(findings); i++) {
		struct json_object *f = json_object_array_get_idx(findings, i);
		const char *sev = js(f, "severity");

		printf("  %-7s %s: %s\n          fix: %s\n",
		       !strcmp(sev, "error")	 ? "ERROR"
		       : !strcmp(sev, "warning") ? "WARNING"
						 : "INFO",
		       js(f, "subject"), js(f, "what"), js(f, "fix"));
	}
}

static void text(struct doctor *d)
{
	struct json_object *rdma, *ev, *arr;

	json_object_object_get_ex(d->root, "rdma", &rdma);
	json_object_object_get_ex(rdma, "sharedDevicePlugin", &ev);
	printf("RDMA subsystem\n  netns mode: %s\n  set at boot by: %s\n  RDMA shared device "
	       "plugin: %s\n",
	       or (js(rdma, "netnsMode"), or (js(rdma, "error"), "?")),
	       or (js(rdma, "bootSetting"), "nothing found"),
	       json_object_array_length(ev)
		   ? json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN)
		   : "not found");
	json_object_object_get_ex(d->root, "pfs", &arr);
	text_pfs(arr);
	json_object_object_get_ex(d->root, "rdmaDevices", &arr);
	text_devices(arr);
	json_object_object_get_ex(d->root, "attachments", &arr);
	printf("\nAttachments (records of ib-sriov, ib-sriov-cni and rdma-ns)\n");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *a = json_object_array_get_idx(arr, i);

		printf("  %s  %s/%s  device %s  netns %s%s\n", js(a, "file"), js(a, "containerID"),
		       js(a, "ifname"), js(a, "deviceID"), or (js(a, "netns"), "-"),
		       !strcmp(js(a, "netnsGone"), "true") ? " (gone)" : "");
	}
	text_findings(d->findings);
}

int ibsriov_doctor_main(int argc, char **argv)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct doctor d = {.sys = &sys};
	struct json_object *atts, *sum;
	bool json = argc > 2 && !strcmp(argv[2], "--json");
	int ret;

	if (argc > 3 || (argc == 3 && !json)) {
		fprintf(stderr, "usage: ib-sriov doctor [--json]\n");
		return 2;
	}
	d.root = json_object_new_object();
	d.findings = json_object_new_array();
	d.held = json_object_new_object();
	atts = json_object_new_array();
	/* Attachments first: a VF a pod holds is not a problem VF. */
	records_ours(&d, atts);
	records_go(&d, atts);
	records_rdmans(&d, atts);
	section_mode(&d);
	section_pfs(&d);
	section_rdma(&d);
	put(d.root, "attachments", atts);
	put(d.root, "findings", d.findings);
	sum = json_object_new_object();
	put(sum, "errors", json_object_new_int((int)d.errors));
	put(sum, "warnings", json_object_new_int((int)d.warnings));
	put(d.root, "summary", sum);
	if (json) {
		_cleanup_free_ char *out = cni_json_dump(d.root, true);

		printf("%s\n", out ? out : "null");
	} else {
		text(&d);
		printf("\ndoctor: %u errors, %u warnings\n", d.errors, d.warnings);
	}
	ret = d.errors ? 1 : 0;
	json_object_put(d.held);
	json_object_put(d.root);
	return ret;
}
