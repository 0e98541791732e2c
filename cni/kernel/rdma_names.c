// SPDX-License-Identifier: Apache-2.0
/* RDMA device names, identities and error sentences: rules without a
 * request. */
#include <errno.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>

#include "base/util.h"
#include "kernel/rdma.h"

const char *cni_rdma_strerror(int ret)
{
	switch (-ret) {
	case EPROTONOSUPPORT:
		return "the kernel has no RDMA subsystem (is ib_core loaded?)";
	case EBUSY:
		return "another network namespace exists; the mode can only change while there is "
		       "none";
	case EOPNOTSUPP:
		/* Both plugins require exclusive mode first, which leaves the
		 * driver (no disassociate_ucontext) as the kernel's reason. */
		return "its driver does not support moving between network namespaces (soft RDMA "
		       "drivers such as rxe and siw never do)";
	case ENOSYS:
		return "this kernel cannot give an RDMA device a name as it moves it (names per "
		       "network namespace came with Linux 7)";
	case E2BIG:
		return "the kernel lists more RDMA devices or ports than a dump here holds (32 MiB "
		       "of entries)";
	case ENOTUNIQ:
		return "every name tried for it on the host is taken (its recorded name, "
		       "<name>_<index> and unpredictable ones; the log lists them); the record "
		       "stays "
		       "for the next DEL";
	default:
		return strerror(-ret);
	}
}

const char *cni_rdma_driver_soft(uint32_t driver)
{
	switch (driver) {
	case RDMA_DRIVER_RXE:
		return "rxe";
	case RDMA_DRIVER_SIW:
		return "siw";
	default:
		return NULL;
	}
}

bool cni_rdma_release_names_per_netns(const char *release)
{
	unsigned int major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 7 || (major == 7 && minor >= 3);
}

bool cni_rdma_names_per_netns(char release[65])
{
	struct utsname u;

	release[0] = '\0';
	if (uname(&u))
		return false;
	copy_str(release, 65, u.release);
	return cni_rdma_release_names_per_netns(u.release);
}

uint64_t cni_rdma_guid_of_mac(const unsigned char *mac, unsigned int len)
{
	if (len != 6)
		return 0;
	return (uint64_t)(mac[0] ^ 2) << 56 | (uint64_t)mac[1] << 48 | (uint64_t)mac[2] << 40 |
	       (uint64_t)0xfffe << 24 | (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];
}

int cni_rdma_home_name(const char *want, uint32_t index, unsigned int attempt,
		       char out[CNI_RDMA_NAME_MAX])
{
	const char *base = *want ? want : "rdma";
	char suffix[48] = "";
	uint64_t r;
	int ret = 0;

	if (attempt >= CNI_RDMA_HOME_TRIES)
		return -ENOTUNIQ;
	if (attempt == 1)
		ret = check_snprintf(suffix, sizeof(suffix), "_%" PRIu32, index);
	else if (attempt > 1) {
		/* 64 bits a pod cannot guess, so it cannot hold the name first. */
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return errno ? -errno : -EIO;
		ret = check_snprintf(suffix, sizeof(suffix), "_%" PRIu32 "_%016" PRIx64, index, r);
	}
	if (ret)
		return ret;
	/* <name> is cut so that the suffix always fits. */
	return check_snprintf(out, CNI_RDMA_NAME_MAX, "%.*s%s",
			      (int)(CNI_RDMA_NAME_MAX - 1 - strlen(suffix)), base, suffix);
}
