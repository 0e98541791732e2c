// SPDX-License-Identifier: Apache-2.0
/* RDMA netlink requests against the kernel ABI's layouts (reference B2),
 * and replies as the kernel sends them. */
#include <criterion/criterion.h>
#include <errno.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <netlink/msg.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "kernel/rdma.h"
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>
#include "kernel/sys.h"

/* One kernel context for the process (each test runs in a fork of its own). */
static struct cni_sys test_sys = CNI_SYS_INIT;
static struct cni_sys *const sys = &test_sys;

static void header(struct nl_msg *msg, unsigned int len, unsigned int type, unsigned int flags)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);

	cr_assert_eq(h->nlmsg_len, len);
	cr_assert_eq(h->nlmsg_type, type);
	cr_assert_eq(h->nlmsg_flags, flags);
}

Test(rdma, sys_get_layout)
{
	struct nl_msg *msg = cni_rdma_msg_sys_get();

	header(msg, 16, 5126, NLM_F_REQUEST | NLM_F_ACK);
	nlmsg_free(msg);
}

Test(rdma, sys_set_layout)
{
	for (int exclusive = 0; exclusive < 2; exclusive++) {
		struct nl_msg *msg = cni_rdma_msg_sys_set(exclusive);
		unsigned char *a = (unsigned char *)nlmsg_hdr(msg) + 16;

		header(msg, 24, 5127, NLM_F_REQUEST | NLM_F_ACK);
		/* NLA{len=5, type=66, u8 mode} + 3 bytes of padding */
		cr_assert(a[0] == 5 && a[1] == 0 && a[2] == 66 && a[3] == 0);
		cr_assert_eq(a[4], exclusive ? 0 : 1, "0 is exclusive, 1 shared");
		nlmsg_free(msg);
	}
}

Test(rdma, dump_layout)
{
	struct nl_msg *msg = cni_rdma_msg_dump();

	header(msg, 16, 5121, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
	nlmsg_free(msg);
}

Test(rdma, move_layout_without_name)
{
	struct nl_msg *msg = cni_rdma_msg_move(7, 42);
	uint32_t *w = (uint32_t *)((unsigned char *)nlmsg_hdr(msg) + 16);
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];

	header(msg, 32, 5122, NLM_F_REQUEST | NLM_F_ACK);
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_MAX, NULL), 0);
	cr_assert_eq(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7);
	cr_assert_eq(nla_get_u32(tb[RDMA_NLDEV_NET_NS_FD]), 42);
	cr_assert_null(tb[RDMA_NLDEV_ATTR_DEV_NAME], "with a name the kernel only renames");
	/* NLA{8,1,index} then NLA{8,68,fd}, native endian. */
	cr_assert(w[0] == (8 | 1 << 16) && w[1] == 7 && w[2] == (8 | 68 << 16) && w[3] == 42);
	nlmsg_free(msg);
}

/* A GET reply as a 6.1 kernel sends it, with attributes we do not know. */
static struct nl_msg *reply(bool with_name)
{
	struct nl_msg *msg = nlmsg_alloc_simple(5121, NLM_F_MULTI);

	nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	if (with_name)
		nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	nla_put_string(msg, 5, ""); /* FW_VERSION */
	nla_put_u64(msg, RDMA_NLDEV_ATTR_NODE_GUID, 0x0211223344556677ULL);
	nla_put_u64(msg, 7, 0x1); /* SYS_IMAGE_GUID */
	nla_put_u8(msg, 200, 1);  /* from a kernel newer than our table */
	return msg;
}

Test(rdma, reply_parsing)
{
	struct cni_rdma_dev d;
	struct nl_msg *msg = reply(true);

	cr_assert_eq(cni_rdma_parse_dev(msg, &d), 0);
	cr_assert_eq(d.index, 3);
	cr_assert_str_eq(d.name, "rxe0");
	cr_assert_eq(d.ports, 1);
	cr_assert_eq(d.node_guid, 0x0211223344556677ULL);
	cr_assert_eq(d.driver, 0, "no device dump says the driver");
	nlmsg_free(msg);
	msg = reply(false);
	cr_assert_eq(cni_rdma_parse_dev(msg, &d), -EPROTO, "a reply without a name is refused");
	nlmsg_free(msg);
}

/* GET_CHARDEV (cmd 15) for uverbs, by index: what rdma-core sends. */
Test(rdma, chardev_layout)
{
	struct nl_msg *msg = cni_rdma_msg_chardev(7);
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];

	header(msg, 36, 5135, NLM_F_REQUEST | NLM_F_ACK);
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_MAX, NULL), 0);
	cr_assert_eq(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7);
	cr_assert_str_eq(nla_get_string(tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE]), "uverbs");
	cr_assert_null(tb[RDMA_NLDEV_ATTR_PORT_INDEX], "with a port uverbs answers EINVAL");
	nlmsg_free(msg);
}

/* A GET_CHARDEV reply as ib_uverbs_get_nl_info fills it: the chardev's
 * name, dev_t and ABI, and the driver ID as a u32 (driver_bytes 4), as
 * the uapi comment's u64 (8), or none (the driver opts out of binding). */
static struct nl_msg *chardev_reply(unsigned int driver_bytes, uint64_t driver)
{
	struct nl_msg *msg = nlmsg_alloc_simple(5135, 0);

	nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME, "uverbs0");
	nla_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, 1);
	nla_put_u64(msg, RDMA_NLDEV_ATTR_CHARDEV, 0xe700000000ULL);
	if (driver_bytes == 4)
		nla_put_u32(msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, (uint32_t)driver);
	else if (driver_bytes)
		nla_put(msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, (int)driver_bytes, &driver);
	return msg;
}

Test(rdma, chardev_reply_gives_the_driver)
{
	static const struct {
		unsigned int bytes;
		uint64_t driver;
		int ret;
		uint32_t want;
	} cases[] = {
	    {4, RDMA_DRIVER_RXE, 0, RDMA_DRIVER_RXE},	{4, RDMA_DRIVER_SIW, 0, RDMA_DRIVER_SIW},
	    {8, RDMA_DRIVER_MLX5, 0, RDMA_DRIVER_MLX5}, {0, 0, -ENODATA, 99},
	    {2, RDMA_DRIVER_RXE, -EPROTO, 99},		{8, 1ULL << 40, -EPROTO, 99},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nl_msg *msg = chardev_reply(cases[i].bytes, cases[i].driver);
		uint32_t driver = 99;

		cr_assert_eq(cni_rdma_parse_driver(msg, &driver), cases[i].ret, "case %zu", i);
		cr_assert_eq(driver, cases[i].want, "case %zu", i);
		nlmsg_free(msg);
	}
}

/* Soft means the kernel said rxe or siw; every other ID, unknown included,
 * is not proven soft. */
Test(rdma, soft_only_by_driver_id)
{
	cr_assert_str_eq(cni_rdma_driver_soft(RDMA_DRIVER_RXE), "rxe");
	cr_assert_str_eq(cni_rdma_driver_soft(RDMA_DRIVER_SIW), "siw");
	cr_assert_null(cni_rdma_driver_soft(RDMA_DRIVER_UNKNOWN));
	cr_assert_null(cni_rdma_driver_soft(RDMA_DRIVER_MLX5));
	cr_assert_null(cni_rdma_driver_soft(RDMA_DRIVER_BNXT_RE));
	cr_assert_null(cni_rdma_driver_soft(RDMA_DRIVER_ERDMA));
}

Test(rdma, error_sentences)
{
	cr_assert_str_eq(cni_rdma_strerror(-EPROTONOSUPPORT),
			 "the kernel has no RDMA subsystem (is ib_core loaded?)");
	cr_assert(strstr(cni_rdma_strerror(-EBUSY), "another network namespace exists"));
	/* One sentence for both plugins (tests/vm/init.sh reads it in rdma-ns's error). */
	cr_assert_str_eq(cni_rdma_strerror(-EOPNOTSUPP),
			 "its driver does not support moving between network namespaces (soft "
			 "RDMA drivers such as rxe and siw never do)");
	cr_assert_str_eq(cni_rdma_strerror(-ENODEV), "No such device");
}

Test(rdma, no_subsystem_here_is_named)
{
	bool exclusive;
	struct cni_error err = {0};
	int ret = cni_rdma_get_netns_mode(sys, &exclusive);

	if (ret == 0)
		cr_skip_test("this kernel has RDMA: the vm tier covers it");
	cr_assert_eq(ret, -EPROTONOSUPPORT);
	cr_assert_lt(cni_rdma_require_exclusive(sys, &err, 50), 0);
	assert_cni_error(&err, 50, "cannot read the RDMA netns mode");
	cr_assert_str_eq(err.details, "the kernel has no RDMA subsystem (is ib_core loaded?)");
}

/* One message of tests/fixtures/rdma-replies.txt (recorded in the vm tier). */
static struct nl_msg *recorded(const char *which)
{
	char path[512], line[4096];
	struct nl_msg *msg = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rdma-replies.txt", fixtures_dir());
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *hex = strchr(line, ' ');
		unsigned char buf[1024] = {0};
		size_t n;

		if (line[0] == '#' || !hex || strncmp(line, which, strlen(which)) ||
		    line[strlen(which)] != ' ')
			continue;
		hex++;
		n = strcspn(hex, "\n") / 2;
		for (size_t i = 0; i < n && i < sizeof(buf); i++)
			cr_assert_eq(sscanf(hex + 2 * i, "%2hhx", &buf[i]), 1);
		msg = nlmsg_convert((struct nlmsghdr *)buf);
	}
	fclose(f);
	cr_assert_not_null(msg, "no recorded %s", which);
	return msg;
}

Test(rdma, recorded_device_dump_reply)
{
	struct nl_msg *msg = recorded("dump-device");
	struct cni_rdma_dev d;

	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_type, 5121);
	cr_assert(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_MULTI);
	cr_assert_eq(cni_rdma_parse_dev(msg, &d), 0);
	cr_assert_eq(d.index, 0);
	cr_assert_str_eq(d.name, "rxe0");
	cr_assert_eq(d.ports, 1);
	/* The EUI-64 of the veth's MAC aa:00:73:3b:29:3e. */
	cr_assert_eq(d.node_guid, 0xa80073fffe3b293eULL);
	nlmsg_free(msg);
}

Test(rdma, recorded_sys_get_reply)
{
	struct nl_msg *msg = recorded("sys-get");
	bool exclusive = true;

	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_type, 5126);
	cr_assert_eq(cni_rdma_parse_mode(msg, &exclusive), 0);
	cr_assert_not(exclusive, "the VM booted in shared mode");
	nlmsg_free(msg);
	msg = recorded("dump-done");
	cr_assert_eq(cni_rdma_parse_mode(msg, &exclusive), -EPROTO, "no mode attribute");
	nlmsg_free(msg);
}

Test(rdma, reply_policy)
{
	struct cni_rdma_dev d;
	struct nl_msg *msg = nlmsg_alloc_simple(5121, NLM_F_MULTI);

	nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	nla_put(msg, RDMA_NLDEV_ATTR_DEV_NAME, 4, "rxe0");
	cr_assert_eq(cni_rdma_parse_dev(msg, &d), -EPROTO, "a name without its NUL");
	nlmsg_free(msg);
	msg = nlmsg_alloc_simple(5121, NLM_F_MULTI);
	nla_put(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 2, "\1\0");
	nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	cr_assert_eq(cni_rdma_parse_dev(msg, &d), -EPROTO, "a 2-byte index");
	nlmsg_free(msg);
	msg = nlmsg_alloc_simple(5126, 0);
	nla_put(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0, NULL);
	bool exclusive;

	cr_assert_eq(cni_rdma_parse_mode(msg, &exclusive), -EPROTO, "an empty u8");
	nlmsg_free(msg);
}

/* --- dumps are bounded by bytes, not by a count a pod reaches --- */

static int dev_item(struct nl_msg *msg, void *item)
{
	return cni_rdma_parse_dev(msg, item);
}

/* Feed the dump callback the same GET reply, re-numbered, count times
 * (what a host with that many rxe devices sends); its last answer. */
static int feed(struct cni_rdma_dump *d, size_t count)
{
	struct nl_msg *msg = reply(true);
	struct nlattr *index = nlmsg_find_attr(nlmsg_hdr(msg), 0, RDMA_NLDEV_ATTR_DEV_INDEX);
	int ret = 0;

	cr_assert_not_null(index);
	for (size_t i = 0; i < count && !ret; i++) {
		*(uint32_t *)nla_data(index) = (uint32_t)i;
		ret = cni_rdma_dump_add(msg, d);
	}
	nlmsg_free(msg);
	return ret;
}

Test(rdma, dump_past_4096_devices_is_read_whole)
{
	struct cni_rdma_dump d = {.size = sizeof(struct cni_rdma_dev), .parse = dev_item};
	const struct cni_rdma_dev *devs;

	cr_assert_eq(feed(&d, 5000), 0, "4097 rxe devices of a pod must not fail the host's dumps");
	devs = d.items;
	cr_assert_eq(d.n, 5000);
	cr_assert(devs[4096].index == 4096 && devs[4999].index == 4999);
	cr_assert_str_eq(devs[4999].name, "rxe0");
	free(d.items);
}

Test(rdma, dump_is_bounded_by_bytes)
{
	struct cni_rdma_dump d = {.size = sizeof(struct cni_rdma_dev), .parse = dev_item};
	size_t most = CNI_RDMA_DUMP_MAX_BYTES / sizeof(struct cni_rdma_dev);

	cr_assert_geq(most, 300000, "tens of MiB: far more devices than a node has");
	cr_assert_eq(feed(&d, most), 0);
	cr_assert_eq(d.n, most);
	cr_assert_eq(feed(&d, 1), -E2BIG, "one entry past the bound fails the dump");
	cr_assert_eq(d.n, most, "nothing more was kept");
	cr_assert_leq(d.cap * d.size, CNI_RDMA_DUMP_MAX_BYTES);
	cr_assert(strstr(cni_rdma_strerror(-E2BIG), "32 MiB"));
	cr_assert(strstr(cni_rdma_strerror(-ENOTUNIQ), "every name tried for it on the host is "
						       "taken"));
	free(d.items);
}

/* The one-device GET (a doit: no dump, so the host's size does not matter). */
Test(rdma, get_one_device_layout)
{
	struct nl_msg *msg = cni_rdma_msg_get(7);
	uint32_t *w = (uint32_t *)((unsigned char *)nlmsg_hdr(msg) + 16);

	header(msg, 24, 5121, NLM_F_REQUEST | NLM_F_ACK);
	cr_assert(w[0] == (8 | 1 << 16) && w[1] == 7, "NLA{8, DEV_INDEX, 7}");
	nlmsg_free(msg);
}
