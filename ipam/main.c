// SPDX-License-Identifier: Apache-2.0
#include "protocol/cni.h"
#include "ipam.h"

int main(int argc, char **argv)
{
	/* The node's "ranges" are checked by the parser that reads ipam.ranges. */
	cni_nodeconf_ranges_checker(ipam_node_ranges_check);
	return cni_run(&ipam_plugin, argc, argv);
}
