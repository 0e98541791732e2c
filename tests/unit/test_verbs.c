// SPDX-License-Identifier: Apache-2.0
/* cni/kernel/verbs.c against a fake libibverbs (fake_verbs.c): what it reads,
 * how libibverbs' error conventions become -errno, the child process
 * (clean environment, nothing on stdout, a bound on time), CHECK's
 * messages. The real library on a real device runs in the vm tier (rxe). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <sys/wait.h>

#include "fake_verbs.h"
#include "helpers.h"
#include "base/util.h"
#include "kernel/verbs.h"

static void setup(void)
{
	fake_verbs_reset();
}

TestSuite(verbs, .init = setup);

Test(verbs, query_reads_what_ibv_devinfo_shows)
{
	struct cni_verbs_dev d;
	struct fake_verbs_dev *f = fake_verbs_add("mlx5_3", true);

	f->ports[0].pkeys[f->ports[0].n_pkeys++] = 0;
	cr_assert_eq(cni_verbs_query("mlx5_3", CNI_VERBS_GID0 | CNI_VERBS_PKEYS, &d), 0);
	cr_assert_str_eq(d.name, "mlx5_3");
	cr_assert_eq(d.node_guid, 0x0c42a10300aabb01ULL, "node GUID in host order");
	cr_assert_str_eq(d.fw_ver, "20.39.1002");
	cr_assert_eq(d.vendor_id, 0x02c9);
	cr_assert_eq(d.phys_ports, 1);
	cr_assert_eq(d.n_ports, 1);
	cr_assert_eq(d.ports[0].num, 1);
	cr_assert_eq(d.ports[0].state, CNI_VERBS_PORT_ACTIVE);
	cr_assert_eq(d.ports[0].link_layer, CNI_VERBS_LL_IB);
	cr_assert(d.ports[0].has_gid0);
	cr_assert_eq(d.ports[0].port_guid, 0x0200000000000009ULL, "port GUID from GID 0");
	cr_assert_eq(d.ports[0].subnet_prefix, 0xfe80000000000000ULL);
	cr_assert_eq(d.ports[0].gid_tbl_len, 128);
	cr_assert_eq(d.ports[0].pkey_tbl_len, 3);
	cr_assert_eq(d.ports[0].n_pkeys, 3, "every entry by index, zero ones too");
	cr_assert(d.ports[0].pkeys[0] == 0xffff && d.ports[0].pkeys[1] == 0x8001 &&
		  d.ports[0].pkeys[2] == 0);
	cr_assert(fv.opens == 1 && fv.closes == 1 && fv.lists == 1 && fv.frees == 1);
}

Test(verbs, query_without_flags_reads_no_tables)
{
	struct cni_verbs_dev d;

	fake_verbs_add("mlx5_3", true)->ports[0].pkey_errno = EIO;
	cr_assert_eq(cni_verbs_query("mlx5_3", 0, &d), 0);
	cr_assert_not(d.ports[0].has_gid0);
	cr_assert_eq(d.ports[0].n_pkeys, 0);
	cr_assert_eq(d.ports[0].pkey_tbl_len, 2);
}

Test(verbs, unspecified_link_layer_is_infiniband)
{
	struct cni_verbs_dev d;

	fake_verbs_add("mthca0", true)->ports[0].link_layer = IBV_LINK_LAYER_UNSPECIFIED;
	cr_assert_eq(cni_verbs_query("mthca0", 0, &d), 0);
	cr_assert_eq(d.ports[0].link_layer, CNI_VERBS_LL_IB, "as ibv_devinfo reports it");
}

/* Each of libibverbs' error conventions, translated, and nothing leaked. */
Test(verbs, errors_become_negative_errno)
{
	struct cni_verbs_dev d;
	struct fake_verbs_dev *f;

	cr_assert_eq(cni_verbs_query("mlx5_0", 0, &d), -ENOSYS,
		     "no kernel verbs: NULL list, ENOSYS");
	f = fake_verbs_add("mlx5_0", true);
	cr_assert_eq(cni_verbs_query("mlx5_1", 0, &d), -ENODEV, "not listed");
	f->open_errno = EPERM;
	cr_assert_eq(cni_verbs_query("mlx5_0", 0, &d), -EPERM, "open refused: NULL with errno");
	f->open_errno = 0;
	f->ports[0].query_ret = EIO;
	cr_assert_eq(cni_verbs_query("mlx5_0", 0, &d), -EIO, "query_port: a positive errno");
	f->ports[0].query_ret = 0;
	f->ports[0].pkey_errno = EACCES;
	cr_assert_eq(cni_verbs_query("mlx5_0", CNI_VERBS_PKEYS, &d), -EACCES,
		     "query_pkey: -1, errno");
	f->ports[0].pkey_errno = 0;
	f->ports[0].gid_fail = 1;
	cr_assert_eq(cni_verbs_query("mlx5_0", CNI_VERBS_GID0, &d), -EIO,
		     "query_gid: -1, no errno");
	cr_assert_eq(fv.opens, fv.closes, "every opened device closed");
	cr_assert_eq(fv.lists - 1, fv.frees, "every list but the failed one freed");
	cr_assert_eq(cni_verbs_query("x", 0, &d), -ENODEV);
	cr_assert_eq(cni_verbs_strerror(-ENODEV), cni_verbs_strerror(-ENODEV)); /* stable pointer */
	cr_assert(strstr(cni_verbs_strerror(-EPERM), "another network namespace"));
	cr_assert(strstr(cni_verbs_strerror(-ENOSYS), "ib_uverbs"));
}

/* The child gets none of the plugin's environment (the fake refuses to open
 * while SYSFS_PATH is set, as a hostile value would steer libibverbs). */
Test(verbs, child_has_a_clean_environment)
{
	struct cni_verbs_dev d;

	fake_verbs_add("mlx5_0", true);
	setenv("SYSFS_PATH", "/tmp/planted", 1);
	cr_assert_eq(cni_verbs_query("mlx5_0", 0, &d), -EINVAL, "in-process, the fake sees it");
	cr_assert_eq(cni_verbs_query_in(-1, "mlx5_0", CNI_VERBS_GID0, 2000, &d), 0);
	cr_assert_eq(d.ports[0].port_guid, 0x0200000000000009ULL, "the reply crossed the pipe");
	cr_assert_str_eq(getenv("SYSFS_PATH"), "/tmp/planted", "the plugin's own is untouched");
	cr_assert_eq(fv.opens, 0, "the open happened in the child");
}

Test(verbs, child_errors_come_back)
{
	struct cni_verbs_dev d;

	cr_assert_eq(cni_verbs_query_in(-1, "mlx5_0", 0, 2000, &d), -ENOSYS);
	fake_verbs_add("mlx5_0", true)->open_errno = EPERM;
	cr_assert_eq(cni_verbs_query_in(-1, "mlx5_0", 0, 2000, &d), -EPERM);
	cr_assert_str_eq(d.name, "mlx5_0");
}

/* stdout is the CNI result: whatever libibverbs prints goes nowhere. */
Test(verbs, child_writes_nothing_to_stdout_or_stderr)
{
	struct cni_verbs_dev d;
	int p[2], out, errfd;
	char buf[128];
	ssize_t n;

	fake_verbs_add("mlx5_0", true)->chatty = true;
	cr_assert_eq(pipe2(p, O_NONBLOCK), 0);
	fflush(stdout);
	out = dup(STDOUT_FILENO);
	errfd = dup(STDERR_FILENO);
	dup2(p[1], STDOUT_FILENO);
	dup2(p[1], STDERR_FILENO);
	int ret = cni_verbs_query_in(-1, "mlx5_0", 0, 2000, &d);
	dup2(out, STDOUT_FILENO);
	dup2(errfd, STDERR_FILENO);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf));
	cr_assert_eq(ret, 0);
	cr_assert_leq(n, 0, "the child wrote %zd bytes", n);
}

/* The child is a fork of a root plugin: it keeps only the reply pipe (no VF
 * lock, netlink socket or state directory of the plugin) and, once in the
 * pod's namespace, no capability. */
Test(verbs, child_holds_nothing_of_the_plugin)
{
	struct cni_verbs_dev d;
	int held[3];

	for (int i = 0; i < 3; i++)
		cr_assert((held[i] = open("/dev/null", O_RDONLY)) >= 0);
	fake_verbs_add("mlx5_0", true)->audit = true;
	cr_assert_eq(cni_verbs_query_in(-1, "mlx5_0", 0, 2000, &d), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(fcntl(held[i], F_GETFD), 0, "the plugin's own fds are untouched");
}

Test(verbs, child_past_its_time_is_killed)
{
	struct cni_verbs_dev d;
	uint64_t start = now_ms();

	fake_verbs_add("mlx5_0", true)->open_sleep_ms = 20000;
	cr_assert_eq(cni_verbs_query_in(-1, "mlx5_0", 0, 300, &d), -ETIMEDOUT);
	cr_assert_lt(now_ms() - start, 3000, "the wait was bounded");
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "the child was reaped");
	cr_assert_eq(errno, ECHILD);
}

Test(verbs, pkeys_lists_nonzero_entries)
{
	struct fake_verbs_dev *f = fake_verbs_add("mlx5_1", true);
	uint16_t keys[8];

	f->ports[0].pkeys[f->ports[0].n_pkeys++] = 0x0000;
	f->ports[0].pkeys[f->ports[0].n_pkeys++] = 0x8000; /* key 0 with the membership bit */
	f->ports[0].pkeys[f->ports[0].n_pkeys++] = 0x0002;
	cr_assert_eq(cni_verbs_pkeys("mlx5_1", 1, keys, 8), 3);
	cr_assert(keys[0] == 0xffff && keys[1] == 0x8001 && keys[2] == 0x0002);
	cr_assert_eq(cni_verbs_pkeys("mlx5_1", 1, keys, 1), 1, "bounded by max");
	cr_assert_eq(cni_verbs_pkeys("mlx5_1", 2, keys, 8), -ENOENT, "no port 2");
	cr_assert_eq(cni_verbs_pkeys("mlx5_9", 1, keys, 8), -ENODEV);
}

Test(verbs, rate_and_state_strings)
{
	struct cni_verbs_port p = {.width = 2, .speed = 32};
	char buf[48];

	cr_assert_str_eq(cni_verbs_rate_str(&p, buf, sizeof(buf)), "100 Gb/sec (4X EDR)");
	p = (struct cni_verbs_port){.width = 1, .speed = 1};
	cr_assert_str_eq(cni_verbs_rate_str(&p, buf, sizeof(buf)), "2.5 Gb/sec (1X SDR)");
	p = (struct cni_verbs_port){.width = 16, .speed = 128};
	cr_assert_str_eq(cni_verbs_rate_str(&p, buf, sizeof(buf)), "200 Gb/sec (2X NDR)");
	p = (struct cni_verbs_port){.width = 2, .speed = 16};
	cr_assert_str_eq(cni_verbs_rate_str(&p, buf, sizeof(buf)), "56 Gb/sec (4X FDR)");
	p = (struct cni_verbs_port){.width = 3, .speed = 32};
	cr_assert_str_eq(cni_verbs_rate_str(&p, buf, sizeof(buf)), "unknown (width 3, speed 32)");
	cr_assert_str_eq(cni_verbs_port_state_str(CNI_VERBS_PORT_ARMED), "ARMED");
	cr_assert_str_eq(cni_verbs_port_state_str(9), "unknown");
	cr_assert_str_eq(cni_verbs_phys_state_str(3), "Disabled");
	cr_assert_str_eq(cni_verbs_link_layer_str(CNI_VERBS_LL_ETH), "Ethernet");
}

Test(verbs, check_passes_an_active_device)
{
	struct cni_verbs_expect want = {
	    .has_guid = true, .port_guid = 0x0200000000000009ULL, .has_pkey = true, .pkey = 0x0001};
	struct cni_error err = {0};

	fake_verbs_add("mlx5_1", true);
	cr_assert_eq(cni_verbs_check(-1, "mlx5_1", &want, &err), 0, "%s", err.details);
	cr_assert_eq(err.code, 0);
	fake_verbs_add("rxe0", false);
	cr_assert_eq(cni_verbs_check(-1, "rxe0", &want, &err), 0, "GUID and pkey are InfiniBand's");
}

static void check_fails(const char *name, const struct cni_verbs_expect *want, const char *details)
{
	struct cni_error err = {0};

	cr_assert_lt(cni_verbs_check(-1, name, want, &err), 0);
	assert_cni_error(&err, CNI_ERR_DEVICE, "CHECK failed");
	cr_assert_str_eq(err.details, details);
}

Test(verbs, check_says_which_state_and_why)
{
	struct fake_verbs_dev *ib = fake_verbs_add("mlx5_1", true);
	struct fake_verbs_dev *roce = fake_verbs_add("rxe0", false);
	struct cni_verbs_expect guid = {.has_guid = true, .port_guid = 0x0200000000000010ULL};
	struct cni_verbs_expect pkey = {.has_pkey = true, .pkey = 0x8002};

	check_fails("mlx5_9", NULL,
		    "RDMA device mlx5_9 is not usable through verbs in the pod: "
		    "not listed by libibverbs here (not in this network namespace, no uverbs "
		    "character device, or no provider for its driver)");
	roce->ports[0].state = IBV_PORT_DOWN;
	roce->ports[0].phys_state = 3;
	check_fails(
	    "rxe0", NULL,
	    "RDMA device rxe0 port 1 is DOWN (physical state Disabled, "
	    "Ethernet): a RoCE port follows its netdev: that netdev is down or has no carrier "
	    "(bring it up, check the cable and the PF's link; for a VF, its link_state)");
	ib->ports[0].state = IBV_PORT_INIT;
	check_fails("mlx5_1", NULL,
		    "RDMA device mlx5_1 port 1 is INIT (physical state LinkUp, "
		    "InfiniBand): the link is up but no subnet manager has configured the port (is "
		    "an SM running, and does it know this GUID?)");
	ib->ports[0].state = IBV_PORT_ACTIVE;
	check_fails("mlx5_1", &guid,
		    "RDMA device mlx5_1 port 1: port GUID "
		    "02:00:00:00:00:00:00:09, ADD set 02:00:00:00:00:00:00:10");
	check_fails(
	    "mlx5_1", &pkey,
	    "RDMA device mlx5_1 port 1 (100 Gb/sec (4X EDR)): pkey 0x8002 "
	    "is no longer in its table (2 entries, index 0 holds 0xffff): the subnet manager "
	    "removed the GUID from the partition");
	ib->open_errno = EPERM;
	check_fails("mlx5_1", NULL,
		    "RDMA device mlx5_1 is not usable through verbs in the pod: "
		    "the kernel refused to open it (it belongs to another network namespace)");
}

Test(verbs, gids_active_mtu_and_char_device)
{
	struct cni_verbs_dev d;
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);

	f->ports[0].active_mtu = IBV_MTU_4096;
	f->n_gids = 2;
	f->gids[0] = (struct fake_verbs_gid){
	    .raw = {0xfe, 0x80}, .index = 0, .port = 1, .type = 1, .ifindex = 7};
	f->gids[1] = (struct fake_verbs_gid){.raw = {[10] = 0xff, [11] = 0xff, 10, 56, 0, 2},
					     .index = 3,
					     .port = 1,
					     .type = 2,
					     .ifindex = 7};
	cr_assert_eq(cni_verbs_query_in(-1, "rxe0", CNI_VERBS_GIDS, CNI_VERBS_TIMEOUT_MS, &d), 0);
	cr_assert_eq(d.ports[0].active_mtu, 4096);
	cr_assert_str_eq(d.uverbs, "uverbs0");
	cr_assert_eq(d.gids_ret, 0);
	cr_assert_eq(d.n_gids, 2);
	cr_assert(d.gids[1].index == 3 && d.gids[1].type == CNI_VERBS_GID_ROCE_V2 &&
		  d.gids[1].ndev_ifindex == 7 && d.gids[1].raw[15] == 2);
	/* Without the flag the table is not read; a refused read is kept. */
	cr_assert_eq(cni_verbs_query("rxe0", 0, &d), 0);
	cr_assert_eq(d.n_gids, 0);
	f->gid_table_ret = -EINVAL;
	cr_assert_eq(cni_verbs_query("rxe0", CNI_VERBS_GIDS, &d), 0);
	cr_assert(d.n_gids == 0 && d.gids_ret == -EINVAL);
}
