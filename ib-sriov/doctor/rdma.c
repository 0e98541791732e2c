// SPDX-License-Identifier: Apache-2.0
/* The doctor's RDMA side: the netns mode (running, at boot, what the RDMA
 * shared device plugin needs) and each RDMA device as verbs opens it. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "doctor.h"
#include "guid.h"
#include "kernel/rdma.h"
#include "kernel/verbs.h"

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
			json_object_array_add(evidence, doctor_str(what));
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
		json_object_array_add(evidence, doctor_str(what));
	}
	d->shared_plugin = json_object_array_length(evidence) > 0;
}

/* What the kernel's RDMA netlink can do beyond moving a device: per-netns
 * names, a name given with the move (rdmaName), extended acks. */
static void kernel_names(struct doctor *d, struct json_object *o)
{
	char release[65];
	bool yes = cni_rdma_names_per_netns(release);

	doctor_put(o, "kernel", doctor_str(*release ? release : NULL));
	doctor_put(o, "namesPerNetns", json_object_new_boolean(yes));
	doctor_put(o, "nameWithMove", json_object_new_boolean(yes));
	if (d->rdma && d->exclusive && !yes)
		doctor_finding(d, "info", "RDMA device names",
			       "run Linux 7.3 or later for rdmaName",
			       "this kernel (%s) names RDMA devices once for the whole node and "
			       "cannot name one as it moves it: rdmaName is refused (rdma-ns reads "
			       "each move back), and a device comes back to the host under the "
			       "name it had",
			       *release ? release : "unknown");
}

void doctor_section_mode(struct doctor *d)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_array();
	char boot[PATH_MAX + 64] = "";
	int ret = cni_rdma_get_netns_mode(d->sys, &d->exclusive);

	d->rdma = !ret;
	boot_setting(d, boot, sizeof(boot));
	shared_plugin(d, ev);
	doctor_put(o, "netnsMode", doctor_str(ret ? NULL : d->exclusive ? "exclusive" : "shared"));
	doctor_put(o, "error", doctor_str(ret ? cni_rdma_strerror(ret) : NULL));
	doctor_put(o, "bootSetting", doctor_str(*boot ? boot : NULL));
	doctor_put(o, "sharedDevicePlugin", ev);
	kernel_names(d, o);
	doctor_put(d->root, "rdma", o);
	if (ret) {
		doctor_finding(
		    d, "warning", "RDMA subsystem",
		    "load ib_core, ib_uverbs and the NIC's RDMA driver (mlx5_ib), or install "
		    "rdma-core",
		    "no RDMA netlink here (%s): rdmaIsolation, rdma-ns and pkeyEnforce cannot work",
		    cni_rdma_strerror(ret));
		return;
	}
	if (d->shared_plugin && d->exclusive)
		doctor_finding(
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
		doctor_finding(
		    d, "info", "RDMA netns mode", "nothing, unless this node should isolate VFs",
		    "shared mode, as the RDMA shared device plugin here needs: networks with "
		    "rdma-ns "
		    "or rdmaIsolation fail on this node (error 104)");
	else if (!d->exclusive)
		doctor_finding(
		    d, "warning", "RDMA netns mode", DOCTOR_BOOT_FIX,
		    "the RDMA netns mode is shared: networks with rdma-ns or ib-sriov's "
		    "rdmaIsolation fail (error 104), and every pod sees every RDMA device");
	else if (!d->boot_known || !d->boot_exclusive)
		doctor_finding(
		    d, "warning", "RDMA netns mode", DOCTOR_BOOT_FIX,
		    "exclusive now, but nothing here sets it at boot: after a reboot the mode is "
		    "shared and rdma-ns or rdmaIsolation pods fail");
	if (d->boot_known && d->boot_exclusive != d->exclusive && !d->shared_plugin)
		doctor_finding(d, "warning", "RDMA netns mode",
			       "update-initramfs -u (ib_core loads from the initramfs) and reboot",
			       "the boot setting (%s) differs from the running mode", boot);
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

	doctor_put(o, "port", json_object_new_int((int)p->num));
	doctor_put(o, "state", doctor_str(cni_verbs_port_state_str(p->state)));
	doctor_put(o, "physState", doctor_str(cni_verbs_phys_state_str(p->phys_state)));
	doctor_put(o, "linkLayer", doctor_str(cni_verbs_link_layer_str(p->link_layer)));
	doctor_put(o, "rate", doctor_str(cni_verbs_rate_str(p, buf, sizeof(buf))));
	doctor_put(o, "portGuid", ib && p->has_gid0 ? doctor_guid_json(p->port_guid) : NULL);
	doctor_put(o, "lid", ib ? json_object_new_int(p->lid) : NULL);
	doctor_put(o, "gidTableSize", json_object_new_int(p->gid_tbl_len));
	doctor_put(o, "pkeyTableSize", json_object_new_int((int)p->pkey_tbl_len));
	for (unsigned int i = 0; i < p->n_pkeys; i++) {
		snprintf(buf, sizeof(buf), "%#06x", p->pkeys[i]);
		if (p->pkeys[i] & 0x7fff)
			json_object_array_add(keys, doctor_str(buf));
	}
	doctor_put(o, "pkeys", keys);
	snprintf(buf, sizeof(buf), "%s port %u", dev, p->num);
	if (p->state != CNI_VERBS_PORT_ACTIVE)
		doctor_finding(d, "warning", buf, cni_verbs_port_hint(p),
			       "port is %s (physical state %s)", cni_verbs_port_state_str(p->state),
			       cni_verbs_phys_state_str(p->phys_state));
	if (ib && p->has_gid0 && ibsriov_guid_unset(p->port_guid))
		doctor_finding(d, "warning", buf,
			       "assign the VF a GUID (SR-IOV operator, ib-kubernetes)",
			       "port GUID is zero: the subnet manager cannot bring the port up");
	if (ib && !json_object_array_length(keys))
		doctor_finding(d, "warning", buf,
			       "the subnet manager has not configured the port's partitions",
			       "the pkey table has no valid entry");
	return o;
}

/* "rxe" or "siw" when the kernel reports that driver; else null. */
static const char *soft_kind(struct doctor *d, const struct cni_rdma_dev *nl)
{
	uint32_t driver;

	return cni_rdma_driver(d->sys, nl->index, &driver) ? NULL : cni_rdma_driver_soft(driver);
}

static struct json_object *dev_report(struct doctor *d, const struct cni_rdma_dev *nl)
{
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();
	struct cni_verbs_dev v;
	int ret = cni_verbs_query_in(-1, nl->name, CNI_VERBS_GID0 | CNI_VERBS_PKEYS,
				     CNI_VERBS_TIMEOUT_MS, &v);

	doctor_put(o, "name", doctor_str(nl->name));
	doctor_put(o, "kind", doctor_str(soft_kind(d, nl)));
	doctor_put(o, "nodeGuid", doctor_guid_json(nl->node_guid));
	doctor_put(o, "opensHere", json_object_new_boolean(!ret));
	doctor_put(o, "usableFrom",
		   doctor_str(d->exclusive ? "this network namespace only (exclusive mode: a pod "
					     "sees it once it is moved in)"
					   : "every network namespace (shared mode)"));
	if (ibsriov_guid_unset(nl->node_guid))
		doctor_finding(d, "warning", nl->name,
			       "assign GUIDs (SR-IOV operator, ib-kubernetes)",
			       "node GUID is zero");
	if (ret) {
		doctor_put(o, "verbsError", doctor_str(cni_verbs_strerror(ret)));
		doctor_finding(d, "warning", nl->name, open_fix(ret),
			       "does not open through verbs here: %s", cni_verbs_strerror(ret));
	} else {
		doctor_put(o, "firmware", doctor_str(v.fw_ver));
		for (unsigned int i = 0; i < v.n_ports; i++)
			json_object_array_add(ports, port_report(d, nl->name, &v.ports[i]));
	}
	doctor_put(o, "ports", ports);
	return o;
}

void doctor_section_rdma(struct doctor *d)
{
	struct json_object *arr = json_object_new_array();
	_cleanup_free_ struct cni_rdma_dev *devs = NULL;
	size_t n = 0;

	if (d->rdma && cni_rdma_devs(d->sys, &devs, &n))
		n = 0;
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, dev_report(d, &devs[i]));
	doctor_put(d->root, "rdmaDevices", arr);
}
