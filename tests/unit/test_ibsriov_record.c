// SPDX-License-Identifier: Apache-2.0
/* ib-sriov's attachment record: one key table both ways, records of the
 * previous release, the Go ib-sriov-cni cache and the twin we leave for it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <json-c/json.h>
#include <linux/if_link.h>
#include <string.h>

#include "ibsriov.h"
#include "base/json.h"
#include "base/util.h"

static struct ibsriov_record full(void)
{
	struct ibsriov_record r;

	cr_assert_eq(ibsriov_record_init(&r, "rdma-net", "ctr1", "net1", "/run/netns/p"), 0);
	copy_str(r.device, sizeof(r.device), "0000:03:01.1");
	r.kind = IBSRIOV_IB;
	copy_str(r.pf, sizeof(r.pf), "ibp3s0");
	r.pf_ifindex = 4;
	r.vf = 1;
	r.flags |= IBSRIOV_REC_HAS_NETDEV | IBSRIOV_REC_HAS_VF_ORIG | IBSRIOV_REC_HAS_RDMA |
		   IBSRIOV_REC_COMPLETE | IBSRIOV_REC_MAC_UNSET;
	copy_str(r.orig_name, sizeof(r.orig_name), "ibp3s0v1");
	copy_str(r.tmpname, sizeof(r.tmpname), "ibcni9");
	copy_str(r.link_kind, sizeof(r.link_kind), "ipoib");
	r.orig_mtu = 2044;
	r.orig_up = true;
	r.orig_mac_len = 20;
	for (int i = 0; i < 20; i++)
		r.orig_mac[i] = (unsigned char)(i * 13);
	r.orig_ifindex = 9;
	r.pod_ifindex = 9;
	r.vf_orig.mask = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID | CNI_VF_LINK_STATE;
	r.vf_orig.node_guid = 0xfedcba9876543210ULL; /* top bit set */
	r.vf_orig.port_guid = 0x8000000000000001ULL;
	r.vf_orig.link_state = IFLA_VF_LINK_STATE_AUTO;
	r.vf_changed = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID;
	copy_str(r.rdma[0], sizeof(r.rdma[0]), "mlx5_4");
	r.n_rdma = 1;
	return r;
}

/* The record as saved, parsed back. */
static struct json_object *as_json(const struct ibsriov_record *r)
{
	char *text = ibsriov_record_text(r);
	const char *why;
	struct json_object *o;

	cr_assert_not_null(text);
	o = cni_json_parse(text, strlen(text), &why);
	free(text);
	return o;
}

Test(ibsriov_record, round_trip_is_exact)
{
	struct ibsriov_record r = full(), back = {0};
	struct json_object *o = as_json(&r);

	cr_assert_not_null(o);
	cr_assert_eq(ibsriov_record_from_json(o, &back), 0);
	cr_assert_str_eq(back.network, "rdma-net");
	cr_assert_str_eq(back.container_id, "ctr1");
	cr_assert_str_eq(back.netns, "/run/netns/p");
	cr_assert_eq(back.flags, r.flags);
	cr_assert_eq(back.kind, IBSRIOV_IB);
	cr_assert_eq(back.orig_mac_len, 20);
	cr_assert_eq(memcmp(back.orig_mac, r.orig_mac, 20), 0);
	cr_assert_eq(back.vf_orig.node_guid, r.vf_orig.node_guid);
	cr_assert_eq(back.vf_orig.port_guid, r.vf_orig.port_guid);
	cr_assert_eq(back.vf_changed, r.vf_changed);
	cr_assert_str_eq(back.rdma[0], "mlx5_4");
	cr_assert_eq(back.version, IBSRIOV_RECORD_VERSION);
	/* GUIDs are strings, never negative integers. */
	cr_assert_str_eq(
	    json_object_get_string(cni_json_get(cni_json_get(o, "vf_orig"), "node_guid")),
	    "fe:dc:ba:98:76:54:32:10");
	json_object_put(o);
	ibsriov_record_clear(&r);
	ibsriov_record_clear(&back);
}

Test(ibsriov_record, previous_release_is_read)
{
	/* 0.x: no version, flags as 0/1, GUIDs as signed integers, no
	 * vf_changed (everything recorded was changed), no pod index. */
	const char *old =
	    "{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"net1\",\"netns\":\"/x\","
	    "\"device\":\"0000:03:01.1\",\"kind\":\"ib\",\"pf\":\"p\",\"pf_ifindex\":4,\"vf\":1,"
	    "\"orig_name\":\"v\",\"orig_mtu\":2044,\"orig_up\":1,\"orig_mac\":\"\",\"tmpname\":"
	    "\"ibcni9\","
	    "\"orig_ifindex\":9,\"vf_orig\":{\"mask\":192,\"node_guid\":-81985529216486896,"
	    "\"port_guid\":-81985529216486896,\"mac\":\"00:00:00:00:00:00\"},\"child\":1,"
	    "\"complete\":1}";
	struct json_object *o = json_tokener_parse(old);
	struct ibsriov_record r = {0};

	cr_assert_eq(ibsriov_record_from_json(o, &r), 0);
	cr_assert_eq(r.version, 1);
	cr_assert(r.flags & IBSRIOV_REC_HAS_CHILD);
	cr_assert(r.flags & IBSRIOV_REC_COMPLETE);
	cr_assert(r.orig_up);
	cr_assert_eq(r.vf_orig.node_guid, 0xfedcba9876543210ULL);
	cr_assert_eq(r.vf_changed, 192);
	cr_assert_eq(r.pod_ifindex, 9);
	json_object_put(o);
	ibsriov_record_clear(&r);
}

/* The netdev attributes and RDMA indices ADD records go both ways; a
 * record of the previous format (neither key) is read without them, so
 * DEL leaves those attributes as that build did. */
Test(ibsriov_record, netdev_attributes_and_rdma_indices)
{
	struct ibsriov_record r = full(), back = {0}, old = {0};
	struct json_object *o;

	r.flags |= IBSRIOV_REC_HAS_ATTRS | IBSRIOV_REC_HAS_RDMA_INDEX;
	r.orig_attrs = (struct cni_link_attrs){.mask = 0x7f,
					       .alias = "host \033 alias",
					       .flags = IFF_MULTICAST | IFF_ALLMULTI,
					       .group = 3,
					       .txqlen = 900,
					       .gso_max_size = 65536,
					       .gso_max_segs = 65535,
					       .gro_max_size = 65536};
	r.rdma_index[0] = 4000000000U;
	o = as_json(&r);
	cr_assert_eq(ibsriov_record_from_json(o, &back), 0);
	cr_assert_eq(back.flags, r.flags);
	cr_assert_eq(memcmp(&back.orig_attrs, &r.orig_attrs, sizeof(r.orig_attrs)), 0);
	cr_assert_eq(back.rdma_index[0], 4000000000U);
	/* The previous build's view: the same record without the new keys. */
	json_object_object_del(o, "attrs");
	json_object_object_del(o, "rdma_index");
	cr_assert_eq(ibsriov_record_from_json(o, &old), 0);
	cr_assert_eq(old.flags, r.flags & ~(IBSRIOV_REC_HAS_ATTRS | IBSRIOV_REC_HAS_RDMA_INDEX));
	cr_assert_str_eq(old.rdma[0], "mlx5_4");
	json_object_put(o);
	/* An index list that does not match the names is refused. */
	o = as_json(&r);
	json_object_object_add(o, "rdma_index", json_tokener_parse("[1,2]"));
	ibsriov_record_clear(&old);
	cr_assert_eq(ibsriov_record_from_json(o, &old), -EBADMSG);
	json_object_put(o);
	ibsriov_record_clear(&r);
	ibsriov_record_clear(&back);
	ibsriov_record_clear(&old);
}

Test(ibsriov_record, mistyped_or_missing_keys_refused)
{
	static const char *const bad[] = {
	    "{\"containerID\":\"c\",\"ifname\":\"i\",\"device\":\"d\",\"kind\":\"ib\"}",
	    "{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"i\",\"device\":\"d\",\"kind\":"
	    "\"x\"}",
	    "{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"i\",\"device\":\"d\",\"kind\":"
	    "\"ib\",\"vf\":\"1\"}",
	    "{\"network\":\"n\",\"containerID\":\"c\\u0000x\",\"ifname\":\"i\",\"device\":\"d\","
	    "\"kind\":\"ib\"}",
	    "{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"i\",\"device\":\"d\",\"kind\":"
	    "\"ib\",\"orig_mtu\":-1}",
	    "{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"i\",\"device\":\"d\",\"kind\":"
	    "\"ib\",\"rdma\":[1]}",
	    "{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"0123456789abcdefX\",\"device\":"
	    "\"d\",\"kind\":\"ib\"}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json_object *o = json_tokener_parse(bad[i]);
		struct ibsriov_record r = {0};

		cr_assert_not_null(o, "%s", bad[i]);
		cr_assert_eq(ibsriov_record_from_json(o, &r), -EBADMSG, "%s", bad[i]);
		json_object_put(o);
		ibsriov_record_clear(&r);
	}
}

Test(ibsriov_record, names_are_unambiguous)
{
	char a[NAME_MAX + 1], b[NAME_MAX + 1];
	char id[256];

	cr_assert_eq(ibsriov_record_name("a", "b-c", a, sizeof(a)), 0);
	cr_assert_eq(ibsriov_record_name("a-b", "c", b, sizeof(b)), 0);
	cr_assert_str_neq(a, b);
	cr_assert_str_eq(a, "a:b-c");
	memset(id, 'a', 200);
	id[200] = '\0';
	cr_assert_eq(ibsriov_record_name(id, "net1", a, sizeof(a)), -ENAMETOOLONG);
	cr_assert_eq(ibsriov_record_name("a:b", "c", a, sizeof(a)), -EINVAL);
	cr_assert_eq(ibsriov_record_name(".x", "c", a, sizeof(a)), -EINVAL);
}

Test(ibsriov_record, go_cache_is_read_as_the_go_del_would_undo_it)
{
	/* As ib-sriov-cni's SaveNetConf writes it (pkg/utils). */
	const char *go =
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"ib-net\",\"type\":\"ib-sriov\","
	    "\"ipam\":{\"type\":\"host-local\"},\"Master\":\"ibp4s0f0\",\"deviceID\":\"0000:04:00."
	    "7\","
	    "\"VFID\":5,\"HostIFNames\":\"ibp4s0f0v5\",\"HostIFGUID\":\"11:22:33:00:00:aa:bb:cc\","
	    "\"ContIFNames\":\"net1\",\"pkey\":\"0x5\",\"link_state\":\"enable\",\"rdmaIsolation\":"
	    "true,"
	    "\"RdmaNetState\":{\"version\":\"\",\"deviceID\":\"0000:04:00.7\","
	    "\"sandboxRdmaDevName\":\"mlx5_7\","
	    "\"containerRdmaDevName\":\"mlx5_7\"}}";
	struct json_object *o = json_tokener_parse(go);
	struct ibsriov_record r;

	cr_assert_eq(ibsriov_gocache_parse(o, "abc-def-net1", "/run/netns/p", &r), 0);
	cr_assert_str_eq(r.container_id, "abc-def");
	cr_assert_str_eq(r.ifname, "net1");
	cr_assert_str_eq(r.network, "ib-net");
	cr_assert_str_eq(r.netns, "/run/netns/p");
	cr_assert_str_eq(r.device, "0000:04:00.7");
	cr_assert_str_eq(r.orig_name, "ibp4s0f0v5");
	cr_assert_str_eq(r.pf, "ibp4s0f0");
	cr_assert_eq(r.vf, 5);
	cr_assert_eq(r.kind, IBSRIOV_IB);
	cr_assert(r.flags & IBSRIOV_REC_GO_CACHE);
	cr_assert_eq(r.vf_changed, CNI_VF_LINK_STATE | CNI_VF_NODE_GUID | CNI_VF_PORT_GUID);
	cr_assert_eq(r.vf_orig.link_state, IFLA_VF_LINK_STATE_AUTO);
	cr_assert_eq(r.vf_orig.node_guid, 0x1122330000aabbccULL);
	cr_assert_eq(r.n_rdma, 1);
	cr_assert_str_eq(r.rdma[0], "mlx5_7");
	/* The file name must end in -<ContIFNames>. */
	ibsriov_record_clear(&r);
	cr_assert_eq(ibsriov_gocache_parse(o, "abc-def-net2", "/p", &r), -EBADMSG);
	json_object_put(o);
}

Test(ibsriov_record, zero_host_guid_restores_all_ones)
{
	const char *go = "{\"name\":\"n\",\"deviceID\":\"0000:04:00.7\",\"HostIFNames\":\"v\","
			 "\"HostIFGUID\":\"00:00:00:00:00:00:00:00\",\"ContIFNames\":\"net1\"}";
	struct json_object *o = json_tokener_parse(go);
	struct ibsriov_record r;

	cr_assert_eq(ibsriov_gocache_parse(o, "c-net1", "", &r), 0);
	cr_assert_eq(r.vf_orig.node_guid, UINT64_MAX);
	ibsriov_record_clear(&r);
	json_object_put(o);
}

/* The text a record is saved as is, byte for byte, the compact dump of the
 * object it parses to, for every key type and flag, escapes included. */
Test(ibsriov_record, text_is_the_dump_of_the_tree)
{
	struct ibsriov_record recs[4];

	for (size_t i = 0; i < 3; i++)
		recs[i] = full();

	/* Every flag and key: an Ethernet VF with all PF-side settings. */
	recs[1].kind = IBSRIOV_ETH;
	recs[1].flags |=
	    IBSRIOV_REC_HAS_CHILD | IBSRIOV_REC_PF_PASSTHROUGH | IBSRIOV_REC_HAS_GO_TWIN;
	recs[1].orig_mac_len = 6;
	recs[1].vf_orig = (struct cni_vf){.mask = ~0u,
					  .vf = 3,
					  .vlan = 4094,
					  .qos = 7,
					  .vlan_proto = 0x88a8,
					  .min_tx_rate = 1,
					  .max_tx_rate = 100000,
					  .spoofchk = 1,
					  .trust = 1,
					  .link_state = 2,
					  .mac = {0x02, 0, 0, 0, 0, 0xff}};
	recs[1].vf = -1;
	copy_str(recs[1].rdma[1], sizeof(recs[1].rdma[1]), "mlx5_5");
	recs[1].n_rdma = 2;
	copy_str(recs[1].go_twin, sizeof(recs[1].go_twin), "2049:131:1796160184.063242241");
	copy_str(recs[1].link_kind, sizeof(recs[1].link_kind), "a\"b\\c<d>&e\n\x01");
	free(recs[1].network);
	recs[1].network = strdup("n\xc3\xa9t\xe2\x80\xa8");
	/* No netns, no flags: the fewest keys. */
	free(recs[2].netns);
	recs[2].netns = NULL;
	recs[2].flags = 0;
	recs[2].n_rdma = 0;
	cr_assert_eq(ibsriov_record_init(&recs[3], "n", "c", "eth0", ""), 0);
	for (size_t i = 0; i < 4; i++) {
		struct json_object *o = as_json(&recs[i]);
		char *dump = cni_json_dump(o, false), *text = ibsriov_record_text(&recs[i]);

		struct ibsriov_record back = {0};
		const struct cni_vf *w = &recs[i].vf_orig, *g = &back.vf_orig;

		cr_assert(dump && text);
		cr_assert_str_eq(text, dump, "record %zu", i);
		/* And it says what the record holds. */
		cr_assert_eq(ibsriov_record_from_json(o, &back), 0, "record %zu", i);
		cr_assert(back.flags == recs[i].flags && back.vf == recs[i].vf &&
			      back.kind == recs[i].kind && !strcmp(back.go_twin, recs[i].go_twin) &&
			      !strcmp(back.network, recs[i].network),
			  "record %zu", i);
		cr_assert(!(recs[i].flags & IBSRIOV_REC_HAS_NETDEV) ||
			      !strcmp(back.link_kind, recs[i].link_kind),
			  "record %zu: link_kind", i);
		cr_assert(!(recs[i].flags & IBSRIOV_REC_HAS_RDMA) || back.n_rdma == recs[i].n_rdma,
			  "record %zu: rdma", i);
		cr_assert(!(recs[i].flags & IBSRIOV_REC_HAS_VF_ORIG) ||
			      (g->mask == w->mask && g->vlan == w->vlan && g->qos == w->qos &&
			       g->vlan_proto == w->vlan_proto && g->min_tx_rate == w->min_tx_rate &&
			       g->max_tx_rate == w->max_tx_rate && g->spoofchk == w->spoofchk &&
			       g->trust == w->trust && g->link_state == w->link_state &&
			       g->node_guid == w->node_guid && g->port_guid == w->port_guid &&
			       !memcmp(g->mac, w->mac, 6)),
			  "record %zu: vf_orig", i);
		ibsriov_record_clear(&back);
		free(dump);
		free(text);
		json_object_put(o);
		ibsriov_record_clear(&recs[i]);
	}
	/* Invalid UTF-8 goes out as Go writes it: U+FFFD, escaped. */
	recs[0] = full();
	free(recs[0].network);
	recs[0].network = strdup("n\xc3\xa9t\xff\xe2\x80\xa8");
	char *text = ibsriov_record_text(&recs[0]);

	cr_assert(text && strstr(text, "\"network\":\"n\xc3\xa9t\\ufffd\\u2028\""), "%s", text);
	free(text);
	ibsriov_record_clear(&recs[0]);
}

/* The pod's namespace, name and MTU (`ib-sriov doctor --pod`): written
 * when known, read back, and an over-long name refused with the record. */
Test(ibsriov_record, pod_keys)
{
	struct ibsriov_record r = full(), back = {0};
	struct json_object *o, *v;

	copy_str(r.pod_ns, sizeof(r.pod_ns), "team-a");
	copy_str(r.pod_name, sizeof(r.pod_name), "trainer-0");
	r.pod_mtu = 4200;
	copy_str(r.pod_addrs[0], sizeof(r.pod_addrs[0]), "10.56.0.2");
	copy_str(r.pod_addrs[1], sizeof(r.pod_addrs[1]), "fd00::2");
	r.n_pod_addrs = 2;
	r.flags |= IBSRIOV_REC_HAS_POD | IBSRIOV_REC_HAS_POD_MTU | IBSRIOV_REC_HAS_POD_ADDRS;
	o = as_json(&r);
	cr_assert(json_object_object_get_ex(o, "podNamespace", &v));
	cr_assert_str_eq(json_object_get_string(v), "team-a");
	cr_assert(json_object_object_get_ex(o, "podMtu", &v) && json_object_get_int(v) == 4200);
	cr_assert(json_object_object_get_ex(o, "podAddrs", &v));
	cr_assert_str_eq(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			 "[\"10.56.0.2\",\"fd00::2\"]");
	cr_assert_eq(ibsriov_record_from_json(o, &back), 0);
	cr_assert(back.flags & IBSRIOV_REC_HAS_POD && back.flags & IBSRIOV_REC_HAS_POD_MTU);
	cr_assert_str_eq(back.pod_ns, "team-a");
	cr_assert_str_eq(back.pod_name, "trainer-0");
	cr_assert_eq(back.pod_mtu, 4200);
	cr_assert(back.flags & IBSRIOV_REC_HAS_POD_ADDRS && back.n_pod_addrs == 2);
	cr_assert_str_eq(back.pod_addrs[1], "fd00::2");
	ibsriov_record_clear(&back);
	{
		char big[400];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		json_object_object_add(o, "podName", json_object_new_string(big));
		memset(&back, 0, sizeof(back));
		cr_assert_eq(ibsriov_record_from_json(o, &back), -EBADMSG);
		ibsriov_record_clear(&back);
	}
	json_object_put(o);
	ibsriov_record_clear(&r);
	/* Without them: no keys. */
	r = full();
	o = as_json(&r);
	cr_assert_not(json_object_object_get_ex(o, "podNamespace", NULL));
	cr_assert_not(json_object_object_get_ex(o, "podMtu", NULL));
	cr_assert_not(json_object_object_get_ex(o, "podAddrs", NULL));
	json_object_put(o);
	ibsriov_record_clear(&r);
}
