// SPDX-License-Identifier: Apache-2.0
/* `ib-sriov doctor [--json]`: one report of what will make pods fail on
 * this node, each finding with its fix. An admin command (argv, not CNI):
 * it only reads (sysfs through cni/pci, netlink, verbs in a child, our
 * state directories) and prints to stdout. The report is built as JSON;
 * the text form is rendered from it, so both say the same. Exit status:
 * 1 when a finding is an error, else 0; 2 for a usage error. */
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "doctor.h"
#include "ibsriov.h"
#include "kernel/pci.h"

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
	struct json_object *rdma, *ev, *arr, *names = NULL;

	json_object_object_get_ex(d->root, "rdma", &rdma);
	json_object_object_get_ex(rdma, "sharedDevicePlugin", &ev);
	json_object_object_get_ex(rdma, "namesPerNetns", &names);
	printf("RDMA subsystem\n  netns mode: %s\n  set at boot by: %s\n  RDMA shared device "
	       "plugin: %s\n  kernel %s: %s\n",
	       or (js(rdma, "netnsMode"), or (js(rdma, "error"), "?")),
	       or (js(rdma, "bootSetting"), "nothing found"),
	       json_object_array_length(ev)
		   ? json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN)
		   : "not found",
	       or (js(rdma, "kernel"), "?"),
	       json_object_get_boolean(names)
		   ? "RDMA device names per netns, a name with the move (rdmaName)"
		   : "RDMA device names node-wide (no rdmaName)");
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
	printf("\ndoctor: %u errors, %u warnings\n", d->errors, d->warnings);
}

int ibsriov_doctor_main(int argc, char **argv)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct doctor d = {.sys = &sys};
	struct json_object *atts;
	bool json = argc > 2 && !strcmp(argv[2], "--json");
	int ret;

	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], "--pod", 5) || !strncmp(argv[i], "--netns", 7))
			return doctor_pod_main(argc, argv);
	if (argc > 3 || (argc == 3 && !json)) {
		fprintf(stderr, "%s", DOCTOR_USAGE);
		return 2;
	}
	d.root = json_object_new_object();
	d.findings = json_object_new_array();
	d.held = json_object_new_object();
	atts = json_object_new_array();
	/* Attachments first: a VF a pod holds is not a problem VF. */
	doctor_records(&d, atts);
	doctor_section_mode(&d);
	doctor_section_pfs(&d);
	doctor_section_rdma(&d);
	doctor_section_portwait(&d);
	doctor_put(d.root, "attachments", atts);
	ret = doctor_emit(&d, json, text);
	json_object_put(d.held);
	json_object_put(d.root);
	return ret;
}
