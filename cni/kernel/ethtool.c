// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "kernel/ethtool.h"

_Static_assert(sizeof(((struct ethtool_drvinfo *)0)->driver) == CNI_ETHTOOL_STR_MAX &&
		   sizeof(((struct ethtool_drvinfo *)0)->bus_info) == CNI_ETHTOOL_STR_MAX,
	       "struct ethtool_drvinfo's strings");

int cni_ethtool_drvinfo(const char *name, struct cni_ethtool_drvinfo *info)
{
	_cleanup_close_ int fd = -1;
	struct ethtool_drvinfo d = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr = {0};

	memset(info, 0, sizeof(*info));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (copy_str(ifr.ifr_name, sizeof(ifr.ifr_name), name))
		return -EINVAL;
	ifr.ifr_data = (void *)&d;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	/* The kernel terminates both; a driver's own copy might not. */
	d.driver[sizeof(d.driver) - 1] = '\0';
	d.bus_info[sizeof(d.bus_info) - 1] = '\0';
	memcpy(info->driver, d.driver, sizeof(info->driver));
	memcpy(info->bus_info, d.bus_info, sizeof(info->bus_info));
	return 0;
}
