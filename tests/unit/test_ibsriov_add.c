// SPDX-License-Identifier: Apache-2.0
/* ib-sriov ADD against a fake kernel whose Nth change fails, for every N
 * until ADD succeeds: each failure must leave the kernel as it was found,
 * and no record behind. Then DEL must undo the successful ADD. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/if_link.h>
#include <net/if_arp.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "fake_kernel.h"
#include "guid.h"
#include "fake_paths.h"
#include "fake_verbs.h"
#include "helpers.h"
#include "ibsriov.h"
#include "kernel/nl.h"
#include "kernel/verbs.h"
#include "add/add.h"
#include "port.h"
#include "protocol/podres.h"
#include "base/util.h"

#define PF_GUID 0x0002c90300a1b2c3ULL /* Mellanox's OUI, as ConnectX numbers ports */

static char base[64];
static char kubelet_sock[128]; /* cni_podres_socket: absent unless a test binds it */

const char *fake_path(const char *what)
{
	static char buf[4][160];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", base, what);
	return p;
}

/* PF 0000:03:00.0 (pf0) with VF 1 at 0000:03:00.2 (vf0, RDMA device mlx5_1). */
static void sysfs(void)
{
	const char *d = "sys/bus/pci/devices";
	char rel[200];

	make_tmpdir(base, sizeof(base));
	snprintf(kubelet_sock, sizeof(kubelet_sock), "%s/kubelet.sock", base);
	cni_podres_socket = kubelet_sock;
	snprintf(rel, sizeof(rel), "%s/0000:03:00.0/net/pf0", d);
	tree_mkdir(base, rel);
	snprintf(rel, sizeof(rel), "%s/0000:03:00.2/net/vf0", d);
	tree_mkdir(base, rel);
	snprintf(rel, sizeof(rel), "%s/0000:03:00.2/infiniband/mlx5_1/ports/1/pkeys", d);
	tree_mkdir(base, rel);
	tree_mkdir(base, "sys/bus/pci/drivers/mlx5_core");
	tree_put(base, "sys/bus/pci/drivers/mlx5_core/bind", "");
	tree_put(base, "sys/bus/pci/drivers/mlx5_core/unbind", "");
	tree_put(base, "sys/bus/pci/devices/0000:03:00.2/infiniband/mlx5_1/ports/1/pkeys/0",
		 "0xffff\n");
	tree_put(base, "sys/bus/pci/devices/0000:03:00.2/infiniband/mlx5_1/ports/1/pkeys/1",
		 "0x8001\n");
	tree_link(base, "../0000:03:00.0", "sys/bus/pci/devices/0000:03:00.2/physfn");
	tree_link(base, "../0000:03:00.1", "sys/bus/pci/devices/0000:03:00.0/virtfn0");
	tree_link(base, "../0000:03:00.2", "sys/bus/pci/devices/0000:03:00.0/virtfn1");
	tree_link(base, "../../drivers/mlx5_core", "sys/bus/pci/devices/0000:03:00.2/driver");
}

static void teardown(void)
{
	rm_tree(base);
}

static void kernel(bool ib)
{
	static const unsigned char eth[6] = {0x02, 0, 0, 0, 0, 0x42};
	/* IPoIB: flags+QPN, the fe80:: subnet prefix, GUID 00..00 (unassigned). */
	static const unsigned char ipoib[20] = {0, 0, 1, 7, 0xfe, 0x80};
	struct fake_link *pf = &fk.links[0], *vf = &fk.links[1];

	memset(&fk, 0, sizeof(fk));
	fk.pod_fd = -1;
	fk.n = 2;
	*pf = (struct fake_link){.exists = true,
				 .ifindex = 2,
				 .name = "pf0",
				 .mtu = 1500,
				 .type = ib ? ARPHRD_INFINIBAND : ARPHRD_ETHER};
	*vf = (struct fake_link){.exists = true,
				 .ifindex = 7,
				 .name = "vf0",
				 .mtu = 1500,
				 .type = pf->type,
				 .pkey = 0xffff};
	/* The host's own values, none of them the kernel's defaults. */
	vf->attrs = (struct cni_link_attrs){.mask = 0x1ff,
					    .alias = "host",
					    .flags = IFF_MULTICAST | IFF_ALLMULTI,
					    .group = 3,
					    .txqlen = 900,
					    .gso_max_size = 60000,
					    .gso_max_segs = 100,
					    .gro_max_size = 50000,
					    .gso_ipv4_max_size = 40000,
					    .gro_ipv4_max_size = 30000};
	vf->mac_len = ib ? 20 : 6;
	memcpy(vf->mac, ib ? ipoib : eth, vf->mac_len);
	/* The PF's IPoIB address carries its vendor port GUID, PF_GUID. */
	if (ib) {
		pf->mac_len = 20;
		memcpy(pf->mac, ipoib, 20);
		for (int i = 0; i < 8; i++)
			pf->mac[12 + i] = (unsigned char)(PF_GUID >> (56 - 8 * i));
	}
	fk.n_vfs = 2;
	fk.vfs[1].vf = 1;
	fk.vfs[1].vlan_proto = 0x8100;
	fk.vfs[1].spoofchk = 1;
}

static struct cni_ctx *ctx_for(const char *keys)
{
	static struct cni_ctx ctx;
	char *raw;

	cni_conf_free(ctx.own_conf);
	cni_result_free(ctx.result);
	memset(&ctx, 0, sizeof(ctx));
	ctx.env = (struct cni_env){.command = CNI_CMD_ADD,
				   .command_str = "ADD",
				   .containerid = "c1",
				   .netns = "/pod",
				   .ifname = "net1",
				   .args = "",
				   .path = "/nonexistent"};
	cr_assert(asprintf(&raw,
			   "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"ib-sriov\","
			   "\"deviceID\":\"0000:03:00.2\",%s}",
			   keys) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &ctx.own_conf, &ctx.err), 0);
	ctx.conf = ctx.own_conf;
	ctx.node = cni_nodeconf_defaults();
	return &ctx;
}

static bool dir_has_files(const char *dir)
{
	DIR *d = opendir(fake_path(dir));
	struct dirent *e;
	bool any = false;

	while (d && (e = readdir(d)))
		any |= e->d_name[0] != '.';
	if (d)
		closedir(d);
	return any;
}

/* Our record, its Go-format twin or the device-info file. */
static bool records_left(void)
{
	return dir_has_files("state") || dir_has_files("gostate") || dir_has_files("devinfo");
}

static void assert_as_found(const struct fake_kernel *before, const char *when)
{
	for (int i = 0; i < fk.n; i++) {
		const struct fake_link *l = &fk.links[i];

		if (i >= before->n) {
			cr_assert_not(l->exists, "%s: link %s was left behind", when, l->name);
			continue;
		}
		const struct fake_link *b = &before->links[i];

		cr_assert(
		    l->exists == b->exists && l->up == b->up && l->ifindex == b->ifindex &&
			l->ns == b->ns && !strcmp(l->name, b->name) && l->mtu == b->mtu &&
			l->mac_len == b->mac_len && !memcmp(l->mac, b->mac, l->mac_len) &&
			l->pkey == b->pkey && !memcmp(&l->attrs, &b->attrs, sizeof(l->attrs)) &&
			l->n_altnames == b->n_altnames,
		    "%s: link %s (ns %d, up %d, mtu %u, alias %s, %u altnames) is not as found "
		    "(%s, ns %d, up %d, mtu %u, alias %s)",
		    when, l->name, l->ns, l->up, l->mtu, l->attrs.alias, l->n_altnames, b->name,
		    b->ns, b->up, b->mtu, b->attrs.alias);
	}
	cr_assert_eq(memcmp(fk.vfs, before->vfs, sizeof(fk.vfs)), 0, "%s: VF settings changed",
		     when);
	cr_assert_not(fk.rdma_in_pod, "%s: the RDMA device stayed in the pod", when);
	cr_assert_not(records_left(), "%s: a record was left", when);
}

/* hostile: the pod changes every attribute of what it gets, at once. */
static int fail_everywhere(bool ib, bool hostile, const char *keys, int min_steps)
{
	struct fake_kernel before;
	struct cni_ctx *ctx;
	char when[64];
	int n, ret = -1;

	for (n = 1; n < 80 && ret; n++) {
		kernel(ib);
		before = fk;
		fk.fail_at = n;
		fk.spoil = hostile;
		ctx = ctx_for(keys);
		ret = ibsriov_add(ctx);
		snprintf(when, sizeof(when), "failure at change %d", n);
		if (ret) {
			cr_assert_neq(ctx->err.code, 0, "%s: no CNI error", when);
			fk.fail_at = 0;
			assert_as_found(&before, when);
		}
	}
	cr_assert_eq(ret, 0, "ADD never succeeded");
	cr_assert_geq(n - 2, min_steps, "only %d failing steps", n - 2);
	/* The last ADD succeeded: the pod has the interface, and DEL undoes it all. */
	cr_assert(fk.links[1].ns == 1 || fk.links[fk.n - 1].ns == 1, "nothing in the pod");
	ctx->env.command = CNI_CMD_DEL;
	fk.fail_at = 0;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s %s", ctx->err.msg, ctx->err.details);
	assert_as_found(&before, "after DEL");
	return n - 2;
}

Test(ibsriov_add, rollback_at_every_step_ethernet, .init = sysfs, .fini = teardown)
{
	fail_everywhere(
	    false, false,
	    "\"mtu\":1400,\"mac\":\"02:11:22:33:44:55\",\"vlan\":10,\"spoofchk\":\"off\","
	    "\"trust\":\"on\",\"link_state\":\"enable\",\"max_tx_rate\":100",
	    8);
}

Test(ibsriov_add, rollback_at_every_step_infiniband, .init = sysfs, .fini = teardown)
{
	/* GUID (with rebind), a pkey needing an IPoIB child, RDMA isolation. */
	fail_everywhere(
	    true, false,
	    "\"guid\":\"02:00:00:00:00:00:00:09\",\"pkey\":\"0x8001\",\"pkeyEnforce\":true,"
	    "\"link_state\":\"enable\",\"rdmaIsolation\":true,\"mtu\":2044",
	    8);
}

/* A pod that, the moment the VF arrives, gives it 300 altnames and changes
 * its alias, flags, group, queue length and GSO/GRO limits: a rollback at
 * every step after the move, and the final DEL, put back what the host had. */
Test(ibsriov_add, rollback_at_every_step_hostile_pod, .init = sysfs, .fini = teardown)
{
	fail_everywhere(false, true, "\"mtu\":1400,\"mac\":\"02:11:22:33:44:55\",\"vlan\":10", 5);
}

/* The same pod with rdmaIsolation renames the RDMA device it gets: DEL and
 * every rollback still bring it back, found by its recorded index. */
Test(ibsriov_add, rollback_at_every_step_hostile_pod_rdma, .init = sysfs, .fini = teardown)
{
	fail_everywhere(true, true,
			"\"guid\":\"02:00:00:00:00:00:00:09\",\"rdmaIsolation\":true,\"mtu\":2044",
			5);
}

/* rdmaIsolation with rdmaName: the device moves under that name; every
 * rollback and the final DEL bring it back. */
Test(ibsriov_add, rollback_at_every_step_rdma_name, .init = sysfs, .fini = teardown)
{
	fail_everywhere(true, false,
			"\"guid\":\"02:00:00:00:00:00:00:09\",\"rdmaIsolation\":true,"
			"\"rdmaName\":\"auto\",\"mtu\":2044",
			5);
}

/* dra-driver-sriov's standalone call (dra.md 1.1-1.2), whose RDMA move the
 * netns tier cannot make (tests/netns/test-dra-sriov.sh runs the rest on
 * the simulated node): the NAD re-encoded with sorted keys and deviceID,
 * name and cniVersion injected, no runtimeConfig; the sandbox ID, vfnet0,
 * the driver's CNI_ARGS (IgnoreUnknown=true); DEL with prevResult, then a
 * second DEL without it once the netns is gone. kubelet's socket is not
 * bound here, so the device check does not run (the pod name in CNI_ARGS
 * would make it run on a node with one). */
#define DRA_SANDBOX "8c1f4e0a9b2d47c6a3e5f7081b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d"
#define DRA_CONF                                                                                   \
	"{\"cniVersion\":\"1.0.0\",\"deviceID\":\"0000:03:00.2\",\"guidFallback\":true,"           \
	"\"logLevel\":\"info\",\"mtu\":2044,\"name\":\"ib-rail0\"%s,\"rdmaIsolation\":true,"       \
	"\"type\":\"ib-sriov\"}"

static struct cni_ctx *dra_ctx(enum cni_command cmd, const char *netns, const char *prev)
{
	static struct cni_ctx ctx;
	char *raw; /* cni_conf_parse takes it */

	cni_conf_free(ctx.own_conf);
	cni_result_free(ctx.result);
	cni_args_free(&ctx.args);
	memset(&ctx, 0, sizeof(ctx));
	ctx.env = (struct cni_env){
	    .command = cmd,
	    .command_str = cni_command_str(cmd),
	    .containerid = DRA_SANDBOX,
	    .netns = netns,
	    .ifname = "vfnet0",
	    .args = "IgnoreUnknown=true;K8S_POD_NAMESPACE=train;K8S_POD_NAME=rank-0;"
		    "K8S_POD_INFRA_CONTAINER_ID=" DRA_SANDBOX ";"
		    "K8S_POD_UID=7e4a2c19-5b3d-4f8e-a6c1-2d9b0e7f3a58",
	    .path = "/opt/cni/bin"};
	cr_assert_eq(cni_args_parse(ctx.env.args, &ctx.args, &ctx.err), 0, "%s", ctx.err.msg);
	cr_assert(asprintf(&raw, DRA_CONF, prev) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), cmd, &ctx.own_conf, &ctx.err), 0, "%s %s",
		     ctx.err.msg, ctx.err.details);
	ctx.conf = ctx.own_conf;
	ctx.node = cni_nodeconf_defaults();
	return &ctx;
}

Test(ibsriov_add, dra_standalone_call_moves_the_rdma_device, .init = sysfs, .fini = teardown)
{
	struct fake_kernel before;
	struct cni_ctx *ctx;
	char prev[512];

	kernel(true);
	before = fk;
	ctx = dra_ctx(CNI_CMD_ADD, "/pod", "");
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	cr_assert(fk.rdma_in_pod, "the RDMA device did not move with the VF");
	cr_assert(fk.links[1].ns == 1 && !strcmp(fk.links[1].name, "vfnet0"),
		  "the VF is %s in ns %d", fk.links[1].name, fk.links[1].ns);
	cr_assert_eq(ctx->result->n_ifaces, 1);
	cr_assert_str_eq(ctx->result->ifaces[0].name, "vfnet0");
	cr_assert_str_eq(ctx->result->ifaces[0].sandbox, "/pod");
	/* StopPodSandbox: libcni's cached result as prevResult (types/100's
	 * field order; no IPAM in this config, so no ips). */
	snprintf(prev, sizeof(prev),
		 ",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"vfnet0\","
		 "\"mac\":\"%s\",\"mtu\":2044,\"sandbox\":\"/pod\",\"pciID\":\"0000:03:00.2\"}]}",
		 ctx->result->ifaces[0].mac);
	ctx = dra_ctx(CNI_CMD_DEL, "/pod", prev);
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s %s", ctx->err.msg, ctx->err.details);
	assert_as_found(&before, "after DEL");
	/* RemovePodSandbox stops it again: no prevResult, the netns gone. */
	ctx = dra_ctx(CNI_CMD_DEL, "/var/run/netns/cni-3b6e1f2a-9c4d-4e7b-8a1f-5d2c6b9e0f13", "");
	cr_assert_eq(ibsriov_del(ctx), 0, "second DEL: %s %s", ctx->err.msg, ctx->err.details);
	assert_as_found(&before, "after the second DEL");
}

/* A PF that refuses one setting for good (igb: link state, or max_tx_rate
 * without carrier): ADD fails naming it, leaves no record, and restores
 * nothing it did not change, so nothing is left for a DEL to trip on. */
Test(ibsriov_add, refused_setting_leaves_nothing, .init = sysfs, .fini = teardown)
{
	static const struct {
		uint32_t bit;
		const char *keys, *name;
	} cases[] = {
	    {CNI_VF_LINK_STATE,
	     "\"mac\":\"02:11:22:33:44:55\",\"vlan\":10,\"link_state\":\"enable\"", "link_state"},
	    {CNI_VF_RATE, "\"trust\":\"on\",\"max_tx_rate\":100", "min_tx_rate/max_tx_rate"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_kernel before;
		struct cni_ctx *ctx;
		char want[128];

		kernel(false);
		before = fk;
		fk.refuse = cases[i].bit;
		ctx = ctx_for(cases[i].keys);
		cr_assert_neq(ibsriov_add(ctx), 0, "%s accepted", cases[i].name);
		cr_assert_eq(ctx->err.code, CNI_ERR_DEVICE);
		snprintf(want, sizeof(want), "refused %s of VF", cases[i].name);
		cr_assert(strstr(ctx->err.details, want), "details: %s", ctx->err.details);
		fk.refuse = 0;
		before.refuse = 0;
		assert_as_found(&before, cases[i].name);
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL after a refused ADD: %s", ctx->err.details);
	}
}

/* pkeyEnforce reads the VF's pkey table through verbs when its RDMA device
 * opens, and sysfs when it does not: sysfs holds 0x8001, verbs 0x8002. */
Test(ibsriov_add, pkey_table_through_verbs_then_sysfs, .init = sysfs, .fini = teardown)
{
	static const struct {
		bool opens;
		const char *pkey;
		bool found;
	} cases[] = {
	    {true, "0x8002", true},
	    {true, "0x8001", false},
	    {false, "0x8001", true},
	    {false, "0x8002", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_verbs_dev *d;
		struct cni_ctx *ctx;
		char keys[160];
		int ret;

		kernel(true);
		fake_verbs_reset();
		d = fake_verbs_add("mlx5_1", true);
		d->ports[0].pkeys[1] = 0x8002;
		d->open_errno = cases[i].opens ? 0 : EPERM;
		snprintf(keys, sizeof(keys),
			 "\"guid\":\"02:00:00:00:00:00:00:09\",\"pkey\":\"%s\","
			 "\"pkeyEnforce\":true,\"pkeyWaitMs\":0",
			 cases[i].pkey);
		ctx = ctx_for(keys);
		ret = ibsriov_add(ctx);
		if (!cases[i].found) {
			cr_assert_neq(ret, 0, "case %zu: %s accepted", i, cases[i].pkey);
			assert_cni_error(&ctx->err, CNI_ERR_DEVICE,
					 "pkey not in the VF's pkey table");
			continue;
		}
		cr_assert_eq(ret, 0, "case %zu: %s %s", i, ctx->err.msg, ctx->err.details);
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
	}
}

/* The record names the Go-format twin ADD left: DEL removes that twin
 * without reading it, and keeps one rewritten since (another attachment's
 * under a colliding name). */
Test(ibsriov_add, the_twin_left_is_removed_and_a_rewritten_one_kept, .init = sysfs,
     .fini = teardown)
{
	_cleanup_free_ char *rec = NULL;
	_cleanup_free_ char *twin = NULL;
	char id[CNI_STATE_ID_MAX], path[256], want[CNI_STATE_ID_MAX + 16];
	/* Go's cache of ("a", "b-c"): the file name of ("a-b", "c") too. */
	const char *other = "{\"name\":\"n\",\"deviceID\":\"0000:03:00.2\",\"ContIFNames\":\"b-c\","
			    "\"Master\":\"pf0\",\"HostIFNames\":\"vf0\"}";
	struct cni_ctx *ctx;

	for (int round = 0; round < 2; round++) {
		kernel(false);
		ctx = ctx_for("\"mtu\":1400");
		ctx->env.containerid = "a-b";
		ctx->env.ifname = "c";
		cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
		cr_assert_eq(cni_state_identity(fake_path("gostate"), "a-b-c", id, sizeof(id)), 0);
		snprintf(path, sizeof(path), "%s/a-b:c", fake_path("state"));
		free(rec);
		rec = NULL;
		cr_assert_eq(read_file(path, 65536, &rec, NULL), 0);
		snprintf(want, sizeof(want), "\"go_twin\":\"%s\"", id);
		cr_assert(strstr(rec, want), "the record names its twin: %s", rec);
		if (round) {
			/* Rewritten (a new file renamed over it): not the one ADD left. */
			tree_put(fake_path("gostate"), ".new", other);
			snprintf(path, sizeof(path), "%s/.new", fake_path("gostate"));
			snprintf(want, sizeof(want), "%s/a-b-c", fake_path("gostate"));
			cr_assert_eq(rename(path, want), 0);
		}
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s %s", ctx->err.msg, ctx->err.details);
		snprintf(path, sizeof(path), "%s/a-b-c", fake_path("gostate"));
		if (!round) {
			cr_assert_eq(access(path, F_OK), -1, "the twin ADD left is gone");
		} else {
			cr_assert_eq(read_file(path, 4096, &twin, NULL), 0, "another's twin stays");
			cr_assert_str_eq(twin, other);
		}
	}
}

/* Another attachment's record on the node (c9:net1, device 0000:03:00.1)
 * whose pod has GUID guid: noted by this build, found by an older one in
 * the IPoIB address, or unknown (an older ADD that set a GUID). */
enum holder { HOLDER_NOTED, HOLDER_FOUND, HOLDER_UNKNOWN };

static void plant_holder(uint64_t guid, enum holder how)
{
	struct ibsriov_record r;

	cr_assert_eq(ibsriov_record_init(&r, "other", "c9", "net1", "/pod9"), 0);
	copy_str(r.device, sizeof(r.device), "0000:03:00.1");
	r.kind = IBSRIOV_IB;
	r.flags = IBSRIOV_REC_HAS_NETDEV | IBSRIOV_REC_COMPLETE;
	r.orig_mac_len = 20;
	for (int i = 0; i < 8; i++)
		r.orig_mac[12 + i] = (unsigned char)(guid >> (56 - 8 * i));
	if (how == HOLDER_NOTED) {
		memset(r.orig_mac, 0, sizeof(r.orig_mac));
		r.flags |= IBSRIOV_REC_HAS_GUID;
		r.guid = guid;
	} else if (how == HOLDER_UNKNOWN) {
		r.flags |= IBSRIOV_REC_HAS_VF_ORIG;
		r.vf_orig.mask = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID;
	}
	cr_assert_eq(ibsriov_record_save(&r), 0);
	ibsriov_record_clear(&r);
}

/* One attachment per GUID: a GUID another record holds is refused before
 * anything changes (code 7 naming the key, the value and the holder), from
 * every source of a GUID; one the holder's record cannot tell is not. */
Test(ibsriov_add, one_attachment_per_guid, .init = sysfs, .fini = teardown)
{
	static const char *const keys[] = {
	    "\"guid\":\"02:00:00:00:00:00:00:09\"",
	    "\"args\":{\"cni\":{\"guid\":\"02:00:00:00:00:00:00:09\"}}",
	    "\"runtimeConfig\":{\"infinibandGUID\":\"02:00:00:00:00:00:00:09\"}",
	};
	static const char *const from[] = {"guid", "args.cni.guid", "runtimeConfig.infinibandGUID"};
	char path[256], want[256];
	_cleanup_free_ char *rec = NULL;
	struct fake_kernel before;
	struct cni_ctx *ctx;

	snprintf(path, sizeof(path), "%s/c1:net1", fake_path("state"));
	for (int how = HOLDER_NOTED; how <= HOLDER_FOUND; how++) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			kernel(true);
			before = fk;
			plant_holder(0x0200000000000009ULL, (enum holder)how);
			ctx = ctx_for(keys[k]);
			cr_assert_neq(ibsriov_add(ctx), 0, "%s accepted (holder %d)", keys[k], how);
			assert_cni_error(&ctx->err, CNI_ERR_INVALID_CONFIG,
					 "the GUID is held by another attachment");
			snprintf(want, sizeof(want),
				 "%s is 02:00:00:00:00:00:00:09, which net1 of container c9 "
				 "(network other, device 0000:03:00.1) holds",
				 from[k]);
			cr_assert(strstr(ctx->err.details, want), "%s", ctx->err.details);
			cr_assert_eq(fk.changes, 0, "something changed before the refusal");
			cr_assert_eq(memcmp(fk.links, before.links, sizeof(fk.links)), 0);
			cr_assert_eq(access(path, F_OK), -1, "a record of the refused ADD");
		}
	}
	/* The holder's GUID unknown: accepted, and this ADD notes its own. */
	kernel(true);
	plant_holder(0x0200000000000009ULL, HOLDER_UNKNOWN);
	ctx = ctx_for(keys[0]);
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	cr_assert_eq(read_file(path, 65536, &rec, NULL), 0);
	cr_assert(strstr(rec, "\"guid\":\"02:00:00:00:00:00:00:09\""), "%s", rec);
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
}

/* Another attachment's record holding the device: refused while its pod
 * lives (the fake kernel's one live netns is /pod); released first when
 * its pod is gone, and the ADD goes on. */
Test(ibsriov_add, a_gone_pods_record_is_released_first, .init = sysfs, .fini = teardown)
{
	struct ibsriov_record r;
	struct cni_ctx *ctx;
	char path[256];

	snprintf(path, sizeof(path), "%s/c9:net1", fake_path("state"));
	for (int gone = 0; gone <= 1; gone++) {
		kernel(false);
		cr_assert_eq(
		    ibsriov_record_init(&r, "other", "c9", "net1", gone ? "/gone" : "/pod"), 0);
		copy_str(r.device, sizeof(r.device), "0000:03:00.2");
		r.kind = IBSRIOV_VFIO;
		r.flags = IBSRIOV_REC_COMPLETE;
		cr_assert_eq(ibsriov_record_save(&r), 0);
		ibsriov_record_clear(&r);
		ctx = ctx_for("\"mtu\":1400");
		if (!gone) {
			cr_assert_neq(ibsriov_add(ctx), 0, "a live pod's device taken");
			assert_cni_error(&ctx->err, CNI_ERR_DEVICE,
					 "the device is attached already");
			cr_assert_eq(fk.changes, 0, "something changed before the refusal");
			cr_assert_eq(access(path, F_OK), 0, "the live pod's record stays");
			cr_assert_eq(unlink(path), 0);
			continue;
		}
		cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
		cr_assert_eq(access(path, F_OK), -1, "the gone pod's record stays");
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
		cr_assert(!records_left());
	}
}

/* A socket at kubelet's path that nobody serves (bound, not listening). */
static int dead_kubelet(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	copy_str(sa.sun_path, sizeof(sa.sun_path), kubelet_sock);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void pod_args(struct cni_ctx *ctx, const char *args)
{
	cr_assert_eq(cni_args_parse(args, &ctx->args, &ctx->err), 0);
}

/* Issue 21 (T4): kubelet is asked before sysfs is read or anything changed;
 * without an answer ADD fails closed, touching nothing. */
Test(ibsriov_add, kubelet_without_answer_fails_closed_before_any_change, .init = sysfs,
     .fini = teardown)
{
	_cleanup_close_ int fd = dead_kubelet();
	struct fake_kernel before;
	struct cni_ctx *ctx;

	kernel(false);
	before = fk;
	ctx = ctx_for("\"mtu\":1400");
	pod_args(ctx, "K8S_POD_NAMESPACE=ns;K8S_POD_NAME=pod");
	cr_assert_lt(ibsriov_add(ctx), 0);
	assert_cni_error(&ctx->err, CNI_ERR_TRY_AGAIN,
			 "cannot ask kubelet which devices the pod holds");
	cr_assert(strstr(ctx->err.details, kubelet_sock), "%s", ctx->err.details);
	cr_assert_eq(fk.changes, 0, "%d kernel changes", fk.changes);
	assert_as_found(&before, "kubelet not answering");
	cr_assert_not(dir_has_files("lock"), "a lock file was made");
	cni_args_free(&ctx->args);
}

Test(ibsriov_add, socket_present_without_pod_name_is_refused, .init = sysfs, .fini = teardown)
{
	_cleanup_close_ int fd = dead_kubelet();
	struct cni_ctx *ctx;

	kernel(false);
	ctx = ctx_for("\"mtu\":1400");
	pod_args(ctx, "K8S_POD_NAMESPACE=ns");
	cr_assert_lt(ibsriov_add(ctx), 0);
	assert_cni_error(&ctx->err, CNI_ERR_INVALID_ENV, "CNI_ARGS does not name the pod");
	cr_assert(strstr(ctx->err.details, "K8S_POD_NAME"), "%s", ctx->err.details);
	cr_assert_eq(fk.changes, 0);
	cni_args_free(&ctx->args);
}

Test(ibsriov_add, device_check_off_never_asks_kubelet, .init = sysfs, .fini = teardown)
{
	static const struct cni_nodeconf off = {.device_check = CNI_DEVICE_CHECK_OFF,
						.max_wait_ms = 30000};
	_cleanup_close_ int fd = dead_kubelet();
	struct cni_ctx *ctx;

	kernel(false);
	ctx = ctx_for("\"mtu\":1400");
	ctx->node = &off;
	cr_assert_eq(ibsriov_add(ctx), 0, "%s: %s", ctx->err.msg, ctx->err.details);
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s %s", ctx->err.msg, ctx->err.details);
}

/* rdmaIsolation on a VF whose RDMA device is an rxe over its netdev (no PCI
 * child; found by netdev on the host): the netdev's move would make the
 * kernel delete it, so ADD refuses it with 101 naming it, and nothing on
 * the host is left changed (security review 5, U3). softRdmaByMac, rdma-ns's
 * opt-in, changes nothing here. */
Test(ibsriov_add, rdma_isolation_refuses_a_soft_device, .init = sysfs, .fini = teardown)
{
	static const struct cni_nodeconf by_mac = {.max_wait_ms = 30000, .soft_rdma_by_mac = true};
	const struct cni_nodeconf *nodes[] = {cni_nodeconf_defaults(), &by_mac};
	char dir[200];

	snprintf(dir, sizeof(dir), "%s", fake_path("sys/bus/pci/devices/0000:03:00.2/infiniband"));
	rm_tree(dir);
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
		struct fake_kernel before;
		struct cni_ctx *ctx;

		kernel(false);
		fk.rdma_soft = true;
		before = fk;
		ctx = ctx_for("\"rdmaIsolation\":true,\"mtu\":1400");
		ctx->node = nodes[i];
		cr_assert_lt(ibsriov_add(ctx), 0, "an rxe taken for rdmaIsolation");
		assert_cni_error(&ctx->err, CNI_ERR_DEVICE,
				 "a software RDMA device cannot follow the VF into the pod");
		cr_assert(strstr(ctx->err.details,
				 "rdmaIsolation: rxe0, the RDMA device of "
				 "0000:03:00.2 (found by netdev, vf0), is bound to "
				 "the VF netdev, not a child of the VF"),
			  "%s", ctx->err.details);
		cr_assert(strstr(ctx->err.details, "cannot survive the move"), "%s",
			  ctx->err.details);
		cr_assert_eq(fk.changes, 0, "refused before any change");
		assert_as_found(&before, "after the refusal");
	}
}

/* A PCI child the kernel reports as siw (siw on older kernels takes its netdev's parent,
 * the VF, as its own): soft all the same, refused naming the driver; one it
 * reports as mlx5 is taken (rdma_isolation_* above). */
Test(ibsriov_add, rdma_isolation_refuses_a_soft_pci_child, .init = sysfs, .fini = teardown)
{
	struct fake_kernel before;
	struct cni_ctx *ctx;

	kernel(false);
	fk.rdma_driver = RDMA_DRIVER_SIW;
	before = fk;
	ctx = ctx_for("\"rdmaIsolation\":true,\"mtu\":1400");
	cr_assert_lt(ibsriov_add(ctx), 0, "a siw taken for rdmaIsolation");
	assert_cni_error(&ctx->err, CNI_ERR_DEVICE,
			 "a software RDMA device cannot follow the VF into the pod");
	cr_assert(strstr(ctx->err.details,
			 "rdmaIsolation: mlx5_1, the RDMA device of 0000:03:00.2 (found by PCI "
			 "child, vf0), is a software RDMA device (the kernel reports its driver "
			 "as siw)"),
		  "%s", ctx->err.details);
	cr_assert_eq(fk.changes, 0, "refused before any change");
	assert_as_found(&before, "after the refusal");
}

/* The VF's GUID as its PF's VF table has it (node and port alike). */
static uint64_t vf_guid(void)
{
	cr_assert_eq(fk.vfs[1].node_guid, fk.vfs[1].port_guid);
	return fk.vfs[1].port_guid;
}

/* CHECK's expectation of the pod's port GUID, from this network's config
 * and the record ADD left. */
static void check_expects(struct cni_ctx *ctx, uint64_t want)
{
	struct ibsriov_record rec;
	struct ibsriov_conf conf;
	uint64_t g = 0;

	cr_assert_eq(ibsriov_conf_load(ctx, &conf, false), 0);
	cr_assert_eq(ibsriov_record_find("c1", "net1", "/pod", &rec), 0);
	cr_assert(ibsriov_check_guid(&conf, &rec, &g), "CHECK expects no GUID");
	cr_assert_eq(g, want, "CHECK expects %#llx", (unsigned long long)g);
	ibsriov_record_clear(&rec);
}

/* guidFallback on a VF with GUID zero or all ones: ADD sets the GUID derived
 * from the PF's (VF index 1 into byte 2, the local bit into byte 0) with the
 * rebind and notes it; DEL puts back what the VF had. */
Test(ibsriov_add, guid_fallback_sets_and_restores, .init = sysfs, .fini = teardown)
{
	static const uint64_t unset[] = {0, UINT64_MAX};
	char path[256];
	_cleanup_free_ char *bound = NULL;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/drivers/mlx5_core/bind", base);
	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *rec = NULL;
		struct cni_ctx *ctx;

		kernel(true);
		fk.vfs[1].node_guid = fk.vfs[1].port_guid = unset[i];
		memset(&fk.links[1].mac[12], unset[i] ? 0xff : 0, 8);
		ctx = ctx_for("\"guidFallback\":true");
		cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
		cr_assert_eq(vf_guid(), 0x0202c80300a1b2c3ULL, "the derived GUID");
		cr_assert_eq(ibsriov_guid_derive(PF_GUID, 1), 0x0202c80300a1b2c3ULL);
		free(bound);
		bound = NULL;
		cr_assert_eq(read_file(path, 4096, &bound, NULL), 0);
		cr_assert(strstr(bound, "0000:03:00.2"), "no rebind: %s", bound);
		snprintf(path, sizeof(path), "%s/c1:net1", fake_path("state"));
		cr_assert_eq(read_file(path, 65536, &rec, NULL), 0);
		cr_assert(strstr(rec, "\"guid\":\"02:02:c8:03:00:a1:b2:c3\""), "%s", rec);
		check_expects(ctx, 0x0202c80300a1b2c3ULL);
		snprintf(path, sizeof(path), "%s/sys/bus/pci/drivers/mlx5_core/bind", base);
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
		cr_assert_eq(vf_guid(), unset[i], "DEL restores what the VF had");
		cr_assert_not(records_left());
	}
}

/* Today's behaviour stays without the key, or when a GUID is given; a VF
 * that has a GUID keeps it; a RoCE VF ignores the key. */
Test(ibsriov_add, guid_fallback_only_when_asked_and_needed, .init = sysfs, .fini = teardown)
{
	struct cni_ctx *ctx;

	kernel(true);
	ctx = ctx_for("\"guidFallback\":false");
	cr_assert_neq(ibsriov_add(ctx), 0);
	assert_cni_error(&ctx->err, CNI_ERR_INVALID_CONFIG, "the VF has no valid GUID");
	cr_assert_eq(fk.changes, 0);

	kernel(true);
	ctx = ctx_for("\"guidFallback\":true,\"guid\":\"02:00:00:00:00:00:00:09\"");
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	cr_assert_eq(vf_guid(), 0x0200000000000009ULL, "the given GUID wins");
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
	cr_assert_eq(vf_guid(), 0);

	kernel(true);
	fk.links[1].mac[19] = 0x42; /* the VF has GUID 00:..:42 */
	ctx = ctx_for("\"guidFallback\":true");
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	cr_assert_eq(fk.vfs[1].port_guid, 0, "nothing set on the PF");
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);

	kernel(false);
	ctx = ctx_for("\"guidFallback\":true");
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
}

/* Refused before any change, naming the key: a PF whose GUID is no vendor
 * GUID, the derived GUID on another VF of the PF, or held by another
 * attachment's pod. */
Test(ibsriov_add, guid_fallback_refusals_change_nothing, .init = sysfs, .fini = teardown)
{
	struct fake_kernel before;
	struct cni_ctx *ctx;

	for (int i = 0; i < 3; i++) {
		kernel(true);
		if (i == 0)
			fk.links[0].mac[12] = 0x02; /* locally administered */
		else if (i == 1)
			fk.vfs[0].port_guid = 0x0202c80300a1b2c3ULL;
		else
			plant_holder(0x0202c80300a1b2c3ULL, HOLDER_NOTED);
		before = fk;
		ctx = ctx_for("\"guidFallback\":true");
		cr_assert_neq(ibsriov_add(ctx), 0, "case %d accepted", i);
		cr_assert_eq(ctx->err.code, CNI_ERR_INVALID_CONFIG, "case %d: %s", i, ctx->err.msg);
		cr_assert(strstr(ctx->err.details, "guidFallback"), "%s", ctx->err.details);
		cr_assert_eq(fk.changes, 0, "case %d changed something", i);
		cr_assert_eq(memcmp(fk.vfs, before.vfs, sizeof(fk.vfs)), 0);
		if (i == 2)
			cr_assert(
			    strstr(ctx->err.details, "guidFallback is 02:02:c8:03:00:a1:b2:c3"),
			    "%s", ctx->err.details);
		else
			cr_assert_not(records_left());
	}
}

/* A failure at every step of an ADD with guidFallback leaves the VF's zero
 * GUID; the final DEL puts it back. */
Test(ibsriov_add, rollback_at_every_step_guid_fallback, .init = sysfs, .fini = teardown)
{
	fail_everywhere(true, false, "\"guidFallback\":true,\"rdmaIsolation\":true,\"mtu\":2044",
			5);
}

/* A VF bound to vfio-pci has no netdev: its GUID is read from the PF's VF
 * table, and the derived one is set there (no rebind: the VM's driver
 * reads it when it starts); DEL restores zero. */
Test(ibsriov_add, guid_fallback_vfio_vf, .init = sysfs, .fini = teardown)
{
	char path[256];
	struct cni_ctx *ctx;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:03:00.2/driver", base);
	cr_assert_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:03:00.2/net/vf0", base);
	cr_assert_eq(rmdir(path), 0);
	tree_mkdir(base, "sys/bus/pci/drivers/vfio-pci");
	tree_link(base, "../../drivers/vfio-pci", "sys/bus/pci/devices/0000:03:00.2/driver");
	kernel(true);
	fk.links[1].exists = false;
	ctx = ctx_for("\"guidFallback\":true");
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	cr_assert_eq(vf_guid(), 0x0202c80300a1b2c3ULL, "the derived GUID in the VF table");
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
	cr_assert_eq(vf_guid(), 0, "DEL restores the zero GUID");
	cr_assert_not(records_left());
}

/* --- big PFs ---
 * GPU nodes run PFs of 16 to 127 VFs. Reading the PF's VF table with the
 * VFs' counters costs a firmware command per VF on mlx5 (a 64-VF PF's read
 * near 0.9 s, vishvananda/netlink#1097): every read skips them, one read
 * serves ADD's guidFallback and VF settings, and the table comes whole. */
static const unsigned int big_pfs[] = {8, 64, 127};

static void big_pf(bool ib, unsigned int n)
{
	kernel(ib);
	fk.n_vfs = n;
	for (unsigned int i = 0; i < n; i++)
		fk.vfs[i].vf = i;
}

/* guidFallback (it reads the table) then the GUID set (the settings read
 * it too): one read in ADD, one in DEL, never the counters. */
Test(ibsriov_add, big_pf_one_vf_table_read_without_counters, .init = sysfs, .fini = teardown)
{
	for (size_t i = 0; i < ARRAY_SIZE(big_pfs); i++) {
		unsigned int n = big_pfs[i];
		struct cni_ctx *ctx;

		big_pf(true, n);
		ctx = ctx_for("\"guidFallback\":true");
		cr_assert_eq(ibsriov_add(ctx), 0, "%u VFs: %s %s", n, ctx->err.msg,
			     ctx->err.details);
		cr_assert_eq(fk.vf_stats_reads, 0,
			     "%u VFs: a VF-table read without RTEXT_FILTER_SKIP_STATS", n);
		cr_assert_eq(fk.vf_reads, 1, "%u VFs: %u VF-table reads in one ADD", n,
			     fk.vf_reads);
		cr_assert_eq(vf_guid(), 0x0202c80300a1b2c3ULL, "%u VFs: the derived GUID", n);
		cr_assert_leq(fk.vf_reply_bytes, CNI_NL_MSG_MAX, "%u VFs: %zu bytes", n,
			      fk.vf_reply_bytes);
		fk.vf_reads = 0;
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
		cr_assert_eq(fk.vf_reads, 1, "%u VFs: %u VF-table reads in one DEL", n,
			     fk.vf_reads);
		cr_assert_eq(fk.vf_stats_reads, 0, "%u VFs: DEL asked for the counters", n);
		cr_assert_eq(vf_guid(), 0, "%u VFs: DEL restores the zero GUID", n);
	}
}

/* An Ethernet VF's settings: the one read of the ADD, without counters. */
Test(ibsriov_add, big_pf_settings_read_once, .init = sysfs, .fini = teardown)
{
	for (size_t i = 0; i < ARRAY_SIZE(big_pfs); i++) {
		unsigned int n = big_pfs[i];
		struct cni_ctx *ctx;

		big_pf(false, n);
		ctx = ctx_for("\"mac\":\"02:00:00:00:00:07\",\"vlan\":7,\"trust\":\"on\"");
		cr_assert_eq(ibsriov_add(ctx), 0, "%u VFs: %s %s", n, ctx->err.msg,
			     ctx->err.details);
		cr_assert_eq(fk.vf_reads, 1, "%u VFs: %u VF-table reads in one ADD", n,
			     fk.vf_reads);
		cr_assert_eq(fk.vf_stats_reads, 0, "%u VFs: the counters asked for", n);
		cr_assert(fk.vfs[1].vlan == 7 && fk.vfs[1].trust == 1, "%u VFs: not configured", n);
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
		cr_assert(fk.vfs[1].vlan == 0 && fk.vfs[1].trust == 0, "%u VFs: not restored", n);
	}
}

/* Another VF resetting (the kernel leaves it out of the list): a VF's own
 * settings go on; guidFallback, which must see every VF's GUID, asks for a
 * retry and changes nothing. */
Test(ibsriov_add, big_pf_another_vf_skipped, .init = sysfs, .fini = teardown)
{
	for (size_t i = 0; i < ARRAY_SIZE(big_pfs); i++) {
		unsigned int n = big_pfs[i];
		struct cni_ctx *ctx;

		big_pf(false, n);
		fk.vf_skip = n; /* VF n - 1 */
		ctx = ctx_for("\"mac\":\"02:00:00:00:00:07\",\"vlan\":7");
		cr_assert_eq(ibsriov_add(ctx), 0, "%u VFs, one skipped: %s %s", n, ctx->err.msg,
			     ctx->err.details);
		cr_assert_eq(fk.vfs[1].vlan, 7, "%u VFs: not configured", n);
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
		big_pf(true, n);
		fk.vf_skip = n;
		ctx = ctx_for("\"guidFallback\":true");
		cr_assert_neq(ibsriov_add(ctx), 0, "%u VFs: guidFallback without every VF", n);
		cr_assert_eq(ctx->err.code, CNI_ERR_TRY_AGAIN, "%s", ctx->err.details);
		cr_assert(strstr(ctx->err.details, "reported "), "%s", ctx->err.details);
		cr_assert_eq(fk.changes, 0);
		fk.vf_skip = 0;
	}
}

/* The table is read whole: the derived GUID on the PF's last VF is seen,
 * and ADD refuses naming that VF. */
Test(ibsriov_add, big_pf_table_read_to_the_last_vf, .init = sysfs, .fini = teardown)
{
	for (size_t i = 0; i < ARRAY_SIZE(big_pfs); i++) {
		unsigned int n = big_pfs[i];
		struct cni_ctx *ctx;
		char want[32];

		big_pf(true, n);
		fk.vfs[n - 1].port_guid = 0x0202c80300a1b2c3ULL;
		ctx = ctx_for("\"guidFallback\":true");
		cr_assert_neq(ibsriov_add(ctx), 0, "%u VFs: the last VF's GUID not seen", n);
		snprintf(want, sizeof(want), "VF %u of", n - 1);
		cr_assert(strstr(ctx->err.details, want), "%u VFs: %s", n, ctx->err.details);
		cr_assert_eq(fk.changes, 0);
	}
}

/* The Device Information file (device-info-spec 1.1.0) of an InfiniBand VF
 * with rdmaIsolation and of a RoCE VF, byte for byte; DEL removes it. */
Test(ibsriov_add, device_info_file, .init = sysfs, .fini = teardown)
{
	static const char *const keys[] = {
	    "\"guid\":\"02:00:00:00:00:00:00:09\",\"rdmaIsolation\":true",
	    "\"mac\":\"02:11:22:33:44:55\",\"runtimeConfig\":{\"CNIDeviceInfoFile\":"
	    "\"/var/run/k8s.cni.cncf.io/devinfo/cni/default-n-c1_net1\"}",
	};
	static const char *const files[] = {"n-c1_net1", "default-n-c1_net1"};
	static const char *const want[] = {
	    "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:03:00.2\","
	    "\"pf-pci-address\":\"0000:03:00.0\",\"rdma-device\":\"mlx5_1\"},\"ibcni\":{"
	    "\"vf-index\":1,\"pf-netdev\":\"pf0\",\"link-layer\":\"InfiniBand\",\"port\":1,"
	    "\"guid\":\"02:00:00:00:00:00:00:09\"}}\n",
	    "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:03:00.2\","
	    "\"pf-pci-address\":\"0000:03:00.0\",\"rdma-device\":\"mlx5_1\"},\"ibcni\":{"
	    "\"vf-index\":1,\"pf-netdev\":\"pf0\",\"link-layer\":\"Ethernet\",\"port\":1,"
	    "\"mac\":\"02:11:22:33:44:55\"}}\n",
	};
	char path[256];

	for (int i = 0; i < 2; i++) {
		_cleanup_free_ char *text = NULL;
		struct cni_ctx *ctx;

		kernel(i == 0);
		ctx = ctx_for(keys[i]);
		cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
		snprintf(path, sizeof(path), "%s/%s", fake_path("devinfo"), files[i]);
		cr_assert_eq(read_file(path, 65536, &text, NULL), 0, "%s", path);
		cr_assert_str_eq(text, want[i]);
		ctx->env.command = CNI_CMD_DEL;
		cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
		cr_assert_eq(access(path, F_OK), -1, "%s stayed after DEL", path);
	}
}

/* The device information's GID indices (ibcni.gids) of a RoCE attachment:
 * each address of the result ADD built (the IPAM's, taken from a->ipam by
 * then) at the index the device's GID table has it, read in the pod. One
 * tier down: no RoCE device of a VF exists in the qemu tiers (rxe over a VF
 * netdev is refused by rdmaIsolation and has no PCI parent). */
Test(ibsriov_add, device_info_gid_indices, .init = sysfs, .fini = teardown)
{
	struct fake_verbs_dev *f = fake_verbs_add("mlx5_1", false);
	struct fake_verbs_gid *g = &f->gids[f->n_gids++];
	struct cni_ctx ctx = {0};
	struct add a = {.ctx = &ctx, .rdma_dev = "mlx5_1", .netns_fd = -1};
	struct ibsriov_devinfo_gid got[4];
	struct cni_ip *ip;

	memset(g->raw, 0, 16);
	g->raw[10] = g->raw[11] = 0xff;
	inet_pton(AF_INET, "10.56.0.2", g->raw + 12);
	g->index = 3;
	g->port = 1;
	g->type = CNI_VERBS_GID_ROCE_V2;
	ctx.result = cni_result_new();
	ip = cni_result_add_ip(ctx.result);
	cr_assert(cni_prefix_parse("10.56.0.2/24", &ip->address));
	cr_assert_eq(ibsriov_roce_gids(&a, got, 4), 1);
	cr_assert_str_eq(got[0].address, "10.56.0.2");
	cr_assert_eq(got[0].index, 3);
	/* InfiniBand: no GID of an address. */
	a.ib = true;
	cr_assert_eq(ibsriov_roce_gids(&a, got, 4), 0);
	cni_result_free(ctx.result);
}

/* waitPortActiveMs on InfiniBand: a port that stays INIT fails the ADD
 * (code 11, the state named) with the kernel as found; ACTIVE passes. */
Test(ibsriov_add, port_wait_infiniband, .init = sysfs, .fini = teardown)
{
	const char *state = "sys/bus/pci/devices/0000:03:00.2/infiniband/mlx5_1/ports/1/state";
	struct fake_kernel before;
	struct cni_ctx *ctx;

	kernel(true);
	before = fk;
	tree_put(base, state, "2: INIT\n");
	ctx = ctx_for("\"guid\":\"02:00:00:00:00:00:00:09\",\"waitPortActiveMs\":100");
	cr_assert_neq(ibsriov_add(ctx), 0);
	assert_cni_error(&ctx->err, CNI_ERR_TRY_AGAIN, "the VF's RDMA port is not ACTIVE");
	cr_assert(strstr(ctx->err.details, "mlx5_1 port 1 (VF 0000:03:00.2) is INIT"), "%s",
		  ctx->err.details);
	cr_assert(strstr(ctx->err.details, "subnet manager has not configured the port"), "%s",
		  ctx->err.details);
	assert_as_found(&before, "after the wait");
	tree_put(base, state, "4: ACTIVE\n");
	kernel(true);
	ctx = ctx_for("\"guid\":\"02:00:00:00:00:00:00:09\",\"waitPortActiveMs\":100");
	cr_assert_eq(ibsriov_add(ctx), 0, "%s %s", ctx->err.msg, ctx->err.details);
	ctx->env.command = CNI_CMD_DEL;
	cr_assert_eq(ibsriov_del(ctx), 0, "DEL: %s", ctx->err.details);
}

/* Each state's fix names what to do about it (InfiniBand and RoCE). */
Test(ibsriov_add, port_fix_names_each_state)
{
	cr_assert(strstr(ibsriov_port_fix(2, 5, true), "subnet manager has not configured"));
	cr_assert(strstr(ibsriov_port_fix(1, 2, true), "Polling"));
	cr_assert(strstr(ibsriov_port_fix(1, 3, true), "disabled"));
	cr_assert(strstr(ibsriov_port_fix(1, 5, true), "cable"));
	cr_assert(strstr(ibsriov_port_fix(1, 3, false), "carrier"));
	cr_assert(strstr(ibsriov_port_fix(3, 5, true), "ARMED"));
	cr_assert(strstr(ibsriov_port_fix(0, 0, true), "NOP"));
}

/* A record read before the VF lock, read again under it: the same
 * attachment only while it is the same ADD's (ibsriov_record_reload). */
Test(ibsriov_add, record_reload_finds_only_the_attachment_seen, .init = sysfs, .fini = teardown)
{
	struct ibsriov_record seen, now, later; /* later: seen's strings, never cleared */
	char path[256], p2[] = "/run/netns/p2";

	cr_assert_eq(ibsriov_record_init(&seen, "n", "c1", "net1", "/run/netns/p1"), 0);
	cr_assert(seen.flags & IBSRIOV_REC_HAS_GEN);
	copy_str(seen.device, sizeof(seen.device), "0000:03:00.2");
	cr_assert_eq(ibsriov_record_save(&seen), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), 0);
	cr_assert_str_eq(now.gen, seen.gen);
	ibsriov_record_clear(&now);
	/* Released, then the same name by a later ADD: not seen's. */
	later = seen;
	copy_str(later.gen, sizeof(later.gen), "1.000000001");
	cr_assert_eq(ibsriov_record_save(&later), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), -ENOENT);
	later.flags &= ~(uint32_t)IBSRIOV_REC_HAS_GEN;
	cr_assert_eq(ibsriov_record_save(&later), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), -ENOENT);
	/* Same generation, another device or netns: not seen's either. */
	later = seen;
	copy_str(later.device, sizeof(later.device), "0000:03:00.3");
	cr_assert_eq(ibsriov_record_save(&later), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), -ENOENT);
	later = seen;
	later.netns = p2;
	cr_assert_eq(ibsriov_record_save(&later), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), -ENOENT);
	snprintf(path, sizeof(path), "%s/c1:net1", fake_path("state"));
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), -ENOENT, "gone: nothing to undo");
	ibsriov_record_clear(&seen);
}

/* One found under the Go directory (a 0.x record) is read there again, and
 * is no longer the attachment once a record of ours has its name. */
Test(ibsriov_add, record_reload_of_the_go_directory, .init = sysfs, .fini = teardown)
{
	struct ibsriov_record old, seen, now;
	char *text;

	cr_assert_eq(ibsriov_record_init(&old, "n", "c1", "net1", "/run/netns/p1"), 0);
	copy_str(old.device, sizeof(old.device), "0000:03:00.2");
	old.flags = IBSRIOV_REC_COMPLETE;
	text = ibsriov_record_text(&old);
	cr_assert_not_null(text);
	cr_assert_eq(cni_state_write_text(fake_path("gostate"), "c1-net1", text), 0);
	free(text);
	cr_assert_eq(ibsriov_record_find("c1", "net1", "", &seen), 0);
	cr_assert(seen.flags & IBSRIOV_REC_FROM_GO_DIR);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), 0);
	cr_assert_str_eq(now.name, "c1:net1");
	ibsriov_record_clear(&now);
	cr_assert_eq(ibsriov_record_save(&old), 0);
	cr_assert_eq(ibsriov_record_reload(&seen, &now), -ENOENT);
	ibsriov_record_clear(&seen);
	ibsriov_record_clear(&old);
}
