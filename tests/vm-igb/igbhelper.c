// SPDX-License-Identifier: Apache-2.0
/* Drives cni/pci.c against the real igb/igbvf sysfs in the vm-igb guest.
 * Usage: igbhelper vf PCI       the VF's topology as cni_pci_vf_get sees it
 *        igbhelper rebind PCI   the GUID flow's unbind/bind, then the netdev
 *                               found again by PCI address (its name printed)
 *        igbhelper vfio GROUP PCI  open the VF through VFIO behind the IOMMU
 *                               (type 1 container), print its region count
 * Prints one line; "error <ERRNO>" and exit 1 on failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "cleanup.h"

#include "pci.h"

#define REBIND_WAIT_MS 10000	/* as ib-sriov's netdevWaitMs default */

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
	struct vfio_group_status st = { .argsz = sizeof(st) };
	struct vfio_device_info info = { .argsz = sizeof(info) };
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

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "vf"))
		return show_vf(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rebind"))
		return rebind(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "vfio"))
		return vfio_open(argv[2], argv[3]);
	fprintf(stderr, "usage: igbhelper vf|rebind PCI, igbhelper vfio GROUP PCI\n");
	return 2;
}
