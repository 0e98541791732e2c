// SPDX-License-Identifier: Apache-2.0
/* Announcements by the kernel itself. Sending them from a packet socket
 * costs an RCU grace period when that socket is closed (packet_release ->
 * synchronize_net: 10-20 ms per ADD on a kernel without expedited RCU).
 * Instead: net.ipv4.conf.<if>.arp_notify and net.ipv6.conf.<if>.ndisc_notify
 * make the kernel announce every address of the link on NETDEV_CHANGEADDR,
 * and re-applying the link's own MAC raises that event without changing
 * anything. */
#include <errno.h>
#include <sys/socket.h>

#include "kernel/announce.h"
#include "kernel/link.h"

int cni_announce(struct cni_sys *sys, const struct cni_link *link)
{
	int ret = cni_link_conf_set(AF_INET, link->name, "arp_notify", "1");

	if (ret)
		return ret;
	/* A kernel without IPv6 has no ipv6/conf: IPv4 is announced alone. */
	ret = cni_link_conf_set(AF_INET6, link->name, "ndisc_notify", "1");
	if (ret && ret != -ENOENT)
		return ret;
	return cni_link_notify_peers(sys, link);
}
