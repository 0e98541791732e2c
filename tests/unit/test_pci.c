// SPDX-License-Identifier: Apache-2.0
/* SR-IOV topology lookups on a temporary sysfs-shaped tree. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "kernel/pci.h"
#include "base/util.h"

static char root[64];

/* PF 0000:03:00.0 (netdev ib0) with VFs .1 (ib1) and .2 (ib2, mlx5_3). */
static void build(void)
{
	make_tmpdir(root, sizeof(root));
	tree_mkdir(root, "devices/0000:03:00.0/net/ib0");
	tree_mkdir(root, "devices/0000:03:00.1/net/ib1");
	tree_mkdir(root, "devices/0000:03:00.2/net/ib2");
	tree_mkdir(root, "devices/0000:03:00.2/infiniband/mlx5_3/ports/1/pkeys");
	tree_mkdir(root, "devices/0000:04:00.0");
	tree_mkdir(root, "drivers/mlx5_core");
	tree_link(root, "../0000:03:00.1", "devices/0000:03:00.0/virtfn0");
	tree_link(root, "../0000:03:00.2", "devices/0000:03:00.0/virtfn1");
	tree_link(root, "../0000:03:00.0", "devices/0000:03:00.1/physfn");
	tree_link(root, "../0000:03:00.0", "devices/0000:03:00.2/physfn");
	tree_link(root, "../../drivers/mlx5_core", "devices/0000:03:00.2/driver");
	tree_put(root, "drivers/mlx5_core/bind", "");
	tree_put(root, "drivers/mlx5_core/unbind", "");
	tree_put(root, "devices/0000:03:00.2/infiniband/mlx5_3/ports/1/pkeys/0", "0xffff\n");
	tree_put(root, "devices/0000:03:00.2/infiniband/mlx5_3/ports/1/pkeys/1", "0x8001\n");
	tree_put(root, "devices/0000:03:00.2/infiniband/mlx5_3/ports/1/pkeys/2", "0x0000\n");
}

static void teardown(void)
{
	rm_tree(root);
}

TestSuite(pci, .init = build, .fini = teardown);

Test(pci, address_forms)
{
	char out[CNI_PCI_ADDR_LEN];

	cr_assert(cni_pci_addr_parse("0000:03:00.2", out));
	cr_assert_str_eq(out, "0000:03:00.2");
	cr_assert(cni_pci_addr_parse("3B:00.7", out));
	cr_assert_str_eq(out, "0000:3b:00.7");
	cr_assert_not(cni_pci_addr_parse("0000:03:00.8", out));
	cr_assert_not(cni_pci_addr_parse("0000:03:20.0", out));
	cr_assert_not(cni_pci_addr_parse("0000:03:00:2", out));
	cr_assert_not(cni_pci_addr_parse("../../etc", out));
	cr_assert_not(cni_pci_addr_parse("", out));
}

/* Hardware addresses as text (base/addr.c): any length up to a bound, as a
 * previous result's "mac" (Ethernet, IPoIB's 20 bytes) comes; GUIDs both ways. */
Test(pci, hardware_address_forms)
{
	unsigned char hw[32];
	unsigned int len = 99;
	uint64_t g = 0;
	char buf[64];

	cr_assert(cni_hw_parse_len("02:AA:bb:cc:dd:ee", hw, sizeof(hw), &len));
	cr_assert_eq(len, 6);
	cr_assert_str_eq(cni_hw_str(hw, len, buf, sizeof(buf)), "02:aa:bb:cc:dd:ee");
	cr_assert(cni_hw_parse_len("00:00:10:87:fe:80:00:00:00:00:00:00:02:c9:03:00:00:0f:ab:cd",
				   hw, sizeof(hw), &len));
	cr_assert_eq(len, 20, "IPoIB");
	cr_assert_not(cni_hw_parse_len("02:aa:bb", hw, 2, &len), "past the bound");
	cr_assert_eq(len, 0);
	cr_assert_not(cni_hw_parse_len("", hw, sizeof(hw), &len));
	cr_assert_not(cni_hw_parse_len("02:aa:", hw, sizeof(hw), &len));
	cr_assert_not(cni_hw_parse_len("2:aa:bb", hw, sizeof(hw), &len));
	cr_assert_not(cni_hw_parse_len("02-aa-bb", hw, sizeof(hw), &len));
	cr_assert(cni_guid_parse("aa:bb:cc:dd:ee:ff:00:01", &g));
	cr_assert_eq(g, 0xaabbccddeeff0001ULL, "first byte most significant");
	cr_assert_str_eq(cni_guid_str(g, buf, sizeof(buf)), "aa:bb:cc:dd:ee:ff:00:01");
	cr_assert_not(cni_guid_parse("aa:bb:cc:dd:ee:ff:00", &g));
}

Test(pci, vf_resolution)
{
	struct cni_pci_vf vf;

	cr_assert_eq(cni_pci_vf_get(root, "0000:03:00.2", &vf), 0);
	cr_assert_str_eq(vf.pf_addr, "0000:03:00.0");
	cr_assert_eq(vf.vf_index, 1);
	cr_assert_str_eq(vf.pf_netdev, "ib0");
	cr_assert_str_eq(vf.netdev, "ib2");
	cr_assert_str_eq(vf.driver, "mlx5_core");
	cr_assert_str_eq(vf.rdma_dev, "mlx5_3");
	cr_assert_eq(cni_pci_vf_get(root, "0000:03:00.1", &vf), 0);
	cr_assert_eq(vf.vf_index, 0);
	cr_assert_str_eq(vf.driver, "");
	cr_assert_str_eq(vf.rdma_dev, "");
}

Test(pci, vf_index_from_offset_and_stride)
{
	struct cni_pci_vf vf;

	/* Without the SR-IOV attributes: the virtfn links are listed. */
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.2"), -ENOENT);
	/* RID 0x300 + offset 1 + n * stride 1. */
	tree_put(root, "devices/0000:03:00.0/sriov_offset", "1\n");
	tree_put(root, "devices/0000:03:00.0/sriov_stride", "1\n");
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.2"), 1);
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.1"), 0);
	cr_assert_eq(cni_pci_vf_get(root, "0000:03:00.2", &vf), 0);
	cr_assert_eq(vf.vf_index, 1);
	/* Below the first VF, off the stride, another domain, beyond the links. */
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.0"), -ENOENT);
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0001:03:00.1"), -ENOENT);
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.5"), -ENOENT);
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.2x"), -ENOENT);
	tree_put(root, "devices/0000:03:00.0/sriov_stride", "2\n");
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.2"), -ENOENT);
	/* Attributes that disagree with the links: the links win. */
	tree_put(root, "devices/0000:03:00.0/sriov_stride", "1\n");
	tree_put(root, "devices/0000:03:00.0/sriov_offset", "2\n");
	cr_assert_eq(cni_pci_vf_index_rid(root, "0000:03:00.0", "0000:03:00.2"), -ENOENT);
	cr_assert_eq(cni_pci_vf_get(root, "0000:03:00.2", &vf), 0);
	cr_assert_eq(vf.vf_index, 1);
	tree_put(root, "devices/0000:03:00.0/sriov_offset", "garbage\n");
	cr_assert_eq(cni_pci_vf_get(root, "0000:03:00.1", &vf), 0);
	cr_assert_eq(vf.vf_index, 0);
}

Test(pci, not_a_vf_or_absent)
{
	struct cni_pci_vf vf;

	cr_assert_eq(cni_pci_vf_get(root, "0000:04:00.0", &vf), -ENOTTY);
	cr_assert_eq(cni_pci_vf_get(root, "0000:05:00.0", &vf), -ENODEV);
}

Test(pci, netdev_gone_and_back)
{
	char name[IFNAMSIZ], path[256];

	snprintf(path, sizeof(path), "%s/devices/0000:03:00.1/net/ib1", root);
	cr_assert_eq(rmdir(path), 0);
	cr_assert_eq(cni_pci_netdev(root, "0000:03:00.1", name), -ENODEV);
	cr_assert_eq(cni_pci_wait_netdev(root, "0000:03:00.1", 50, name), -ETIMEDOUT);
	tree_mkdir(root, "devices/0000:03:00.1/net/ib7");
	cr_assert_eq(cni_pci_wait_netdev(root, "0000:03:00.1", 50, name), 0);
	cr_assert_str_eq(name, "ib7");
	/* Several (an IPoIB child beside its parent): the first in byte order,
	 * dot files skipped, whatever order the directory lists them in. */
	tree_mkdir(root, "devices/0000:03:00.1/net/ib7.8001");
	tree_mkdir(root, "devices/0000:03:00.1/net/.hidden");
	tree_mkdir(root, "devices/0000:03:00.1/net/ib10");
	cr_assert_eq(cni_pci_netdev(root, "0000:03:00.1", name), 0);
	cr_assert_str_eq(name, "ib10");
	for (int i = 0; i < 200; i++) {
		char many[64];

		snprintf(many, sizeof(many), "devices/0000:03:00.1/net/zz%03d-padding-padding", i);
		tree_mkdir(root, many);
	}
	cr_assert_eq(cni_pci_netdev(root, "0000:03:00.1", name), 0);
	cr_assert_str_eq(name, "ib10", "found across several reads of the directory");
}

Test(pci, rebind_writes_unbind_then_bind)
{
	_cleanup_free_ char *unbind = NULL;
	_cleanup_free_ char *bind = NULL;
	char path[256];

	cr_assert_eq(cni_pci_rebind(root, "0000:03:00.2"), 0);
	snprintf(path, sizeof(path), "%s/drivers/mlx5_core/unbind", root);
	cr_assert_eq(read_file(path, 64, &unbind, NULL), 0);
	snprintf(path, sizeof(path), "%s/drivers/mlx5_core/bind", root);
	cr_assert_eq(read_file(path, 64, &bind, NULL), 0);
	cr_assert_str_eq(unbind, "0000:03:00.2");
	cr_assert_str_eq(bind, "0000:03:00.2");
	cr_assert_eq(cni_pci_rebind(root, "0000:03:00.1"), -ENOENT, "unbound VF");
}

Test(pci, pkey_table)
{
	uint16_t keys[8];
	int n = cni_pci_pkeys(root, "0000:03:00.2", "mlx5_3", 1, keys, 8);

	cr_assert_eq(n, 2);
	cr_assert((keys[0] == 0xffff && keys[1] == 0x8001) ||
		  (keys[0] == 0x8001 && keys[1] == 0xffff));
	cr_assert_eq(cni_pci_pkeys(root, "0000:03:00.2", "mlx5_3", 2, keys, 8), -ENOENT);
}

/* ports/N/state and phys_state as the kernel prints them ("%d: %s\n"). */
Test(pci, port_attr_parse)
{
	static const struct {
		const char *text;
		int ret;
		unsigned int want;
	} cases[] = {
	    {"4: ACTIVE\n", 0, 4},    {"2: INIT", 0, 2},	   {"1: DOWN\n", 0, 1},
	    {"3: ARMED\n", 0, 3},     {"5: ACTIVE_DEFER\n", 0, 5}, {"0: NOP\n", 0, 0},
	    {"5: LinkUp\n", 0, 5},    {"2: Polling\n", 0, 2},	   {"7\n", 0, 7},
	    {"", -EINVAL, 0},	      {"ACTIVE\n", -EINVAL, 0},	   {"-1: X", -EINVAL, 0},
	    {"256: X\n", -EINVAL, 0}, {" 4: ACTIVE", -EINVAL, 0},  {"4x: ACTIVE", -EINVAL, 0},
	};
	unsigned int v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 99;
		cr_assert_eq(cni_pci_port_attr_parse(cases[i].text, 255, &v), cases[i].ret,
			     "\"%s\"", cases[i].text);
		if (!cases[i].ret)
			cr_assert_eq(v, cases[i].want, "\"%s\": %u", cases[i].text, v);
	}
	cr_assert_eq(cni_pci_port_attr_parse(NULL, 255, &v), -EINVAL);
	cr_assert_eq(cni_pci_port_attr_parse("6: X", 5, &v), -EINVAL);
}
