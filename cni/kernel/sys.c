// SPDX-License-Identifier: Apache-2.0
#include <netlink/socket.h>
#include <unistd.h>

#include "kernel/sys.h"

void cni_sys_close(struct cni_sys *sys)
{
	for (unsigned int i = 0; i < CNI_SYS_SOCKS; i++)
		if (sys->socks[i].sk)
			nl_socket_free(sys->socks[i].sk);
	if (sys->home >= 0)
		close(sys->home);
	*sys = (struct cni_sys)CNI_SYS_INIT;
}

const char *cni_sys_ext_ack(const struct cni_sys *sys)
{
	return sys->ext_ack;
}
