/* SPDX-License-Identifier: Apache-2.0 */
/* A netdev's driver, as ethtool asks it (SIOCETHTOOL on an AF_INET socket),
 * in the calling thread's network namespace. */
#ifndef CNI_ETHTOOL_H
#define CNI_ETHTOOL_H

#define CNI_ETHTOOL_STR_MAX 32 /* struct ethtool_drvinfo's driver and bus_info */

struct cni_ethtool_drvinfo {
	char driver[CNI_ETHTOOL_STR_MAX];   /* the driver's name, "" when none */
	char bus_info[CNI_ETHTOOL_STR_MAX]; /* a PCI address for every PCI NIC driver */
};

/* ETHTOOL_GDRVINFO of netdev name into info (zeroed first). Works on any
 * kernel, unlike sysfs, which shows only the host's netdevs. 0, -EINVAL for
 * a name over IFNAMSIZ, or the ioctl's -errno. */
int cni_ethtool_drvinfo(const char *name, struct cni_ethtool_drvinfo *info);

#endif
