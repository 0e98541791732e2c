// SPDX-License-Identifier: Apache-2.0
#include "protocol/cni.h"
#include "ipam.h"

int main(int argc, char **argv)
{
	return cni_run(&ipam_plugin, argc, argv);
}
