// SPDX-License-Identifier: Apache-2.0
/* `rdma-ns netns-mode [show|exclusive|shared]`: the boot-time half of
 * exclusive mode. Output goes to stdout here: this is a command, not CNI. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "rdmans.h"
#include "base/util.h"

/* Who keeps another network namespace alive: named ones and processes. */
static void list_blockers(void)
{
	_cleanup_dir_ DIR *named = opendir("/run/netns");
	_cleanup_dir_ DIR *proc = opendir("/proc");
	struct stat init, st;
	struct dirent *e;
	unsigned int shown = 0;

	if (stat("/proc/1/ns/net", &init) < 0)
		return;
	while (named && (e = readdir(named)))
		if (e->d_name[0] != '.')
			fprintf(stderr, "  named network namespace %s (ip netns)\n", e->d_name);
	while (proc && (e = readdir(proc)) && shown < 20) {
		char path[64], comm[64] = "?";
		_cleanup_free_ char *buf = NULL;
		uint64_t pid;

		if (parse_u64(e->d_name, 10, UINT32_MAX, &pid) ||
		    check_snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name) ||
		    stat(path, &st) < 0 || st.st_ino == init.st_ino)
			continue;
		if (!check_snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name) &&
		    !read_file(path, 60, &buf, NULL))
			snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(buf, "\n"), buf);
		fprintf(stderr, "  pid %s (%s) runs in network namespace inode %lu\n", e->d_name,
			comm, (unsigned long)st.st_ino);
		shown++;
	}
}

int rdmans_mode_main(int argc, char **argv)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	const char *want = argc > 2 ? argv[2] : "show";
	bool exclusive;
	int ret;

	if (strcmp(want, "show") && strcmp(want, "exclusive") && strcmp(want, "shared")) {
		fprintf(stderr, "usage: rdma-ns netns-mode [show|exclusive|shared]\n");
		return 2;
	}
	ret = cni_rdma_get_netns_mode(&sys, &exclusive);
	if (ret) {
		fprintf(stderr, "rdma-ns: cannot read the RDMA netns mode: %s\n",
			cni_rdma_strerror(ret));
		return 1;
	}
	if (!strcmp(want, "show")) {
		printf("%s\n", exclusive ? "exclusive" : "shared");
		return 0;
	}
	if (exclusive == !strcmp(want, "exclusive")) {
		printf("%s (unchanged)\n", want);
		return 0;
	}
	ret = cni_rdma_set_netns_mode(&sys, !strcmp(want, "exclusive"));
	if (ret == -EBUSY) {
		fprintf(stderr,
			"rdma-ns: the kernel refused to switch to %s (EBUSY): the RDMA netns mode "
			"can only\n"
			"change while the host's is the only network namespace. These keep others "
			"alive:\n",
			want);
		list_blockers();
		fprintf(
		    stderr,
		    "Set the mode at boot instead: enable the rdma-ns-netns-mode.service unit "
		    "from\n"
		    "conf-examples (it runs before the container runtime), or put\n"
		    "`options ib_core netns_mode=%d` in /etc/modprobe.d/ib_core.conf and reboot.\n",
		    !strcmp(want, "exclusive") ? 0 : 1);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "rdma-ns: cannot set the RDMA netns mode: %s %s\n",
			cni_rdma_strerror(ret), cni_sys_ext_ack(&sys));
		return 1;
	}
	printf("%s (was %s)\n", want, exclusive ? "exclusive" : "shared");
	return 0;
}

int rdmans_devices_main(void)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct cni_rdma_dev *devs;
	size_t n;
	int ret = cni_rdma_devs(&sys, &devs, &n);

	if (ret) {
		fprintf(stderr, "rdma-ns: cannot list RDMA devices: %s\n", cni_rdma_strerror(ret));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		/* The driver ID: "rxe", "siw", or "-" for any other or untold. */
		const char *kind = cni_rdma_driver(&sys, devs[i].index, &devs[i].driver)
				       ? NULL
				       : cni_rdma_driver_soft(devs[i].driver);

		printf("%u %s %s %016llx %u\n", devs[i].index, devs[i].name, kind ? kind : "-",
		       (unsigned long long)devs[i].node_guid, devs[i].ports);
	}
	free(devs);
	return 0;
}
