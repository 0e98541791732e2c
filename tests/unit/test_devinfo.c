// SPDX-License-Identifier: Apache-2.0
/* Device Information file names (cni/state/devinfo.c): Multus' rule, the
 * runtimeConfig path confined to the spec's directory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "state/devinfo.h"

static int name(const char *path, const char *net, char *out)
{
	return cni_devinfo_name(path, net, "ctr1", "net1", out, NAME_MAX + 1);
}

Test(devinfo, multus_rule_and_runtime_config_path)
{
	char out[NAME_MAX + 1];

	cr_assert_eq(name(NULL, "rail-1", out), 0);
	cr_assert_str_eq(out, "rail-1-ctr1_net1");
	cr_assert_eq(name("", "rail-1", out), 0);
	cr_assert_str_eq(out, "rail-1-ctr1_net1");
	cr_assert_eq(name("/var/run/k8s.cni.cncf.io/devinfo/cni/rail-1-ctr1_net1", "x", out), 0);
	cr_assert_str_eq(out, "rail-1-ctr1_net1");
	cr_assert_eq(name("/run/k8s.cni.cncf.io/devinfo/cni/ns-net-ctr1_net1", "x", out), 0);
	cr_assert_str_eq(out, "ns-net-ctr1_net1");
}

/* A NAD may carry its own runtimeConfig: a name that is not this
 * attachment's (Multus' "<network>-<containerID>_<ifname>") would let it
 * replace, then on DEL or rollback remove, another pod's file or the copy
 * of the device plugin's that Multus made for another attachment. */
Test(devinfo, runtime_config_path_bound_to_the_attachment)
{
	static const char *const paths[] = {
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/other",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/rail-1-ctr2_net1",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/rail-1-ctr1_net2",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/rail-1-xctr1_net1",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/rail-1-ctr1_net1-x",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/-ctr1_net1",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/ctr1_net1",
	};
	char out[NAME_MAX + 1];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		cr_assert_eq(name(paths[i], "ok", out), -EINVAL, "path %s", paths[i]);
}

Test(devinfo, hostile_names_refused)
{
	static const char *const nets[] = {"", "../x", "a/b", ".x", "-x", "a b", "a\nb", "a:b"};
	static const char *const paths[] = {
	    "/etc/passwd",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/..",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/.",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/../dp/x",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni/sub/x",
	    "/var/run/k8s.cni.cncf.io/devinfo/cni//x",
	    "/var/run/k8s.cni.cncf.io/devinfo/cnix",
	    "/var/run/k8s.cni.cncf.io/devinfo/dp/x",
	    "var/run/k8s.cni.cncf.io/devinfo/cni/x",
	};
	char out[NAME_MAX + 1], longer[300];

	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++)
		cr_assert_eq(name(NULL, nets[i], out), -EINVAL, "network \"%s\"", nets[i]);
	cr_assert_eq(name(NULL, NULL, out), -EINVAL);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		cr_assert_eq(name(paths[i], "ok", out), -EINVAL, "path %s", paths[i]);
	memset(longer, 'n', 241);
	longer[241] = '\0';
	cr_assert_eq(name(NULL, longer, out), -ENAMETOOLONG);
}
