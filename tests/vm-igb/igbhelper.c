// SPDX-License-Identifier: Apache-2.0
/* Drives cni/kernel/pci.c against the real igb/igbvf sysfs in the vm-igb guest.
 * Usage: igbhelper vf PCI       the VF's topology as cni_pci_vf_get sees it
 *        igbhelper rebind PCI   the GUID flow's unbind/bind, then the netdev
 *                               found again by PCI address (its name printed)
 *        igbhelper vfio GROUP PCI  open the VF through VFIO behind the IOMMU
 *                               (type 1 container), print its region count
 *        igbhelper json PATH... JSON on stdin: the value at each PATH
 *                               (".key", "[N]" segments), compact, as jq -c
 *                               prints it; several PATHs print an array
 *        igbhelper raw PATH     the same, a string without its quotes
 * (jq needs about two seconds to start under TCG; this needs none.)
 * Prints one line; "error <ERRNO>" and exit 1 on failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/vfio.h>

#include "base/cleanup.h"

#include "kernel/pci.h"

#define REBIND_WAIT_MS 10000 /* as ib-sriov's netdevWaitMs default */

static int fail(int ret)
{
	printf("error %s\n", strerrorname_np(-ret) ? strerrorname_np(-ret) : "?");
	return 1;
}

static int show_vf(const char *addr)
{
	struct cni_pci_vf vf;
	int ret = cni_pci_vf_get(CNI_PCI_ROOT, addr, &vf);

	if (ret)
		return fail(ret);
	printf("%s pf=%s index=%d pf_netdev=%s netdev=%s driver=%s\n", vf.addr, vf.pf_addr,
	       vf.vf_index, vf.pf_netdev, vf.netdev, vf.driver);
	return 0;
}

static int rebind(const char *addr)
{
	char name[IFNAMSIZ] = "";
	int ret = cni_pci_rebind(CNI_PCI_ROOT, addr);

	if (!ret)
		ret = cni_pci_wait_netdev(CNI_PCI_ROOT, addr, REBIND_WAIT_MS, name);
	if (ret)
		return fail(ret);
	printf("%s\n", name);
	return 0;
}

/* What a VMM does before it maps guest memory: a viable group in a type 1
 * container, then the device's fd and its regions. */
static int vfio_open(const char *group, const char *addr)
{
	struct vfio_group_status st = {.argsz = sizeof(st)};
	struct vfio_device_info info = {.argsz = sizeof(info)};
	_cleanup_close_ int c = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	_cleanup_close_ int g = -1, dev = -1;
	char path[64];

	if (c < 0)
		return fail(-errno);
	if (ioctl(c, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) != 1)
		return fail(-ENOTSUP);
	snprintf(path, sizeof(path), "/dev/vfio/%s", group);
	g = open(path, O_RDWR | O_CLOEXEC);
	if (g < 0 || ioctl(g, VFIO_GROUP_GET_STATUS, &st))
		return fail(-errno);
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE))
		return fail(-EBUSY);
	if (ioctl(g, VFIO_GROUP_SET_CONTAINER, &c) || ioctl(c, VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU))
		return fail(-errno);
	dev = ioctl(g, VFIO_GROUP_GET_DEVICE_FD, addr);
	if (dev < 0 || ioctl(dev, VFIO_DEVICE_GET_INFO, &info))
		return fail(-errno);
	printf("pci=%d regions=%u irqs=%u\n", !!(info.flags & VFIO_DEVICE_FLAGS_PCI),
	       info.num_regions, info.num_irqs);
	return 0;
}

/* The value at PATH, or NULL (printed as null) when any segment is absent. */
static struct json_object *walk(struct json_object *o, const char *path)
{
	while (o && *path) {
		if (*path == '.') {
			char key[128];
			size_t n = strcspn(path + 1, ".[");

			if (n >= sizeof(key))
				return NULL;
			memcpy(key, path + 1, n);
			key[n] = '\0';
			if (n && !json_object_object_get_ex(o, key, &o))
				return NULL;
			path += 1 + n;
		} else if (*path == '[') {
			char *end;
			long i = strtol(path + 1, &end, 10);

			if (*end != ']' || !json_object_is_type(o, json_type_array))
				return NULL;
			if (i < 0)
				i += (long)json_object_array_length(o);
			o = i < 0 ? NULL : json_object_array_get_idx(o, (size_t)i);
			path = end + 1;
		} else {
			return NULL;
		}
	}
	return o;
}

static int json_get(int n, char **paths, int raw)
{
	const int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
	struct json_object *in = json_object_from_fd(0), *v;

	if (!in) {
		printf("invalid JSON\n");
		return 1;
	}
	if (n > 1)
		putchar('[');
	for (int i = 0; i < n; i++) {
		v = walk(in, paths[i]);
		if (raw && json_object_is_type(v, json_type_string))
			fputs(json_object_get_string(v), stdout);
		else
			printf("%s%s", i ? "," : "",
			       v ? json_object_to_json_string_ext(v, flags) : "null");
	}
	printf("%s\n", n > 1 ? "]" : "");
	json_object_put(in);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "vf"))
		return show_vf(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rebind"))
		return rebind(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "json"))
		return json_get(argc - 2, argv + 2, 0);
	if (argc == 3 && !strcmp(argv[1], "raw"))
		return json_get(1, argv + 2, 1);
	if (argc == 4 && !strcmp(argv[1], "vfio"))
		return vfio_open(argv[2], argv[3]);
	fprintf(stderr, "usage: igbhelper vf|rebind PCI, vfio GROUP PCI, json PATH..., raw PATH\n");
	return 2;
}
