// SPDX-License-Identifier: Apache-2.0
/* How rdma-ns finds a device's function: the sysfs parent of an auxiliary
 * device (cni_pci_aux_parent), a scalable function told apart. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>

#include "helpers.h"
#include "kernel/pci.h"

static char root[64];

/* /sys/bus/auxiliary/devices/<id> are links into the device tree. */
static void aux_tree(void)
{
	make_tmpdir(root, sizeof(root));
	tree_mkdir(root, "sys/devices/pci0000:00/0000:03:00.0/mlx5_core.rdma.0");
	tree_mkdir(root, "sys/devices/pci0000:00/0000:03:00.0/mlx5_core.sf.4");
	tree_put(root, "sys/devices/pci0000:00/0000:03:00.0/mlx5_core.sf.4/sfnum", "88\n");
	tree_mkdir(root, "sys/devices/pci0000:00/0000:03:00.2/mlx5_core.rdma.2");
	tree_mkdir(root, "sys/devices/platform/foo.0");
	tree_mkdir(root, "sys/bus/auxiliary/devices");
	tree_link(root, "../../../devices/pci0000:00/0000:03:00.0/mlx5_core.rdma.0",
		  "sys/bus/auxiliary/devices/mlx5_core.rdma.0");
	tree_link(root, "../../../devices/pci0000:00/0000:03:00.0/mlx5_core.sf.4",
		  "sys/bus/auxiliary/devices/mlx5_core.sf.4");
	tree_link(root, "../../../devices/pci0000:00/0000:03:00.2/mlx5_core.rdma.2",
		  "sys/bus/auxiliary/devices/mlx5_core.rdma.2");
	tree_link(root, "../../../devices/platform/foo.0", "sys/bus/auxiliary/devices/foo.0");
}

static void aux_teardown(void)
{
	rm_tree(root);
}

Test(aux, parent_and_scalable_function, .init = aux_tree, .fini = aux_teardown)
{
	char aux[128], parent[CNI_PCI_ADDR_LEN];
	bool sf = true;

	snprintf(aux, sizeof(aux), "%s/sys/bus/auxiliary", root);
	cr_assert_eq(cni_pci_aux_parent(aux, "mlx5_core.rdma.2", parent, &sf), 0);
	cr_assert_str_eq(parent, "0000:03:00.2");
	cr_assert_not(sf);
	cr_assert_eq(cni_pci_aux_parent(aux, "mlx5_core.rdma.0", parent, &sf), 0);
	cr_assert_str_eq(parent, "0000:03:00.0");
	cr_assert_not(sf);
	cr_assert_eq(cni_pci_aux_parent(aux, "mlx5_core.sf.4", parent, &sf), 0);
	cr_assert(sf);
	cr_assert_eq(cni_pci_aux_parent(aux, "foo.0", parent, &sf), -ENOTTY);
	cr_assert_eq(cni_pci_aux_parent(aux, "nope.1", parent, &sf), -ENODEV);
}
