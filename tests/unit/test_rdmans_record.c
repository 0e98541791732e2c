// SPDX-License-Identifier: Apache-2.0
/* rdma-ns's record and rdma-cni's cache entry (cni/state/record_rdmans.c):
 * one key table each, exact JSON both ways, every malformed input refused;
 * record names; which load errors are for good. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "state/record_rdmans.h"

static struct json_object *parse(const char *s)
{
	const char *why;
	struct json_object *o = cni_json_parse(s, strlen(s), &why);

	cr_assert_not_null(o, "%s: %s", s, why);
	return o;
}

static int rec_from(const char *s, struct rdmans_record *rec)
{
	_cleanup_json_ struct json_object *o = parse(s);

	return rdmans_record_from_json(o, rec);
}

static int cache_from(const char *s, struct rdmacni_cache *c)
{
	_cleanup_json_ struct json_object *o = parse(s);

	return rdmacni_cache_from_json(o, c);
}

#define REC_JSON                                                                                   \
	"{\"network\":\"rdma-net\",\"containerID\":\"ctr1\",\"ifname\":\"net1\","                  \
	"\"netns\":\"/run/netns/pod1\",\"deviceID\":\"0000:03:01.1\",\"rdma\":[\"mlx5_0\","        \
	"\"mlx5_1\"]}"

Test(record, round_trip_is_exact)
{
	_cleanup_json_ struct json_object *o = NULL;
	_cleanup_free_ char *s = NULL;
	struct rdmans_record rec;

	cr_assert_eq(rec_from(REC_JSON, &rec), 0);
	cr_assert_eq(rec.has, RDMANS_REC_HAS_NETWORK | RDMANS_REC_HAS_CONTAINERID |
				  RDMANS_REC_HAS_IFNAME | RDMANS_REC_HAS_NETNS |
				  RDMANS_REC_HAS_DEVICEID | RDMANS_REC_HAS_RDMA);
	cr_assert_str_eq(rec.network, "rdma-net");
	cr_assert_str_eq(rec.netns, "/run/netns/pod1");
	cr_assert_eq(rec.n_rdma, 2);
	cr_assert_str_eq(rec.rdma[1], "mlx5_1");
	cr_assert_eq(rdmans_record_to_json(&rec, &o), 0);
	s = cni_json_dump(o, false);
	cr_assert_str_eq(s, REC_JSON);
}

/* The text save writes, byte for byte what the previous release wrote
 * through a json-c tree (rdma_index, newer, last). */
Test(record, saved_text_is_the_previous_bytes)
{
	_cleanup_free_ char *s = NULL;
	struct rdmans_record rec;

	cr_assert_eq(rec_from(REC_JSON, &rec), 0);
	s = rdmans_record_text(&rec);
	cr_assert_str_eq(s, REC_JSON);
	rec.rdma_index[0] = 3;
	rec.rdma_index[1] = 4294967295U;
	rec.n_rdma_index = 2;
	rec.has |= RDMANS_REC_HAS_RDMA_INDEX;
	free(s);
	s = rdmans_record_text(&rec);
	cr_assert_str_eq(s, "{\"network\":\"rdma-net\",\"containerID\":\"ctr1\",\"ifname\":"
			    "\"net1\",\"netns\":\"/run/netns/pod1\",\"deviceID\":\"0000:03:01.1\","
			    "\"rdma\":[\"mlx5_0\",\"mlx5_1\"],\"rdma_index\":[3,4294967295]}");
}

Test(record, only_present_fields_are_written)
{
	_cleanup_json_ struct json_object *o = NULL;
	_cleanup_free_ char *s = NULL;
	struct rdmans_record rec = {.has = RDMANS_REC_HAS_NETWORK, .network = "n"};

	cr_assert_eq(rdmans_record_to_json(&rec, &o), 0);
	s = cni_json_dump(o, false);
	cr_assert_str_eq(s, "{\"network\":\"n\"}");
}

Test(record, previous_version_records_read)
{
	struct rdmans_record rec;

	/* Written by the previous rdma-ns (same keys, no new ones). */
	cr_assert_eq(
	    rec_from("{\"network\":\"rdma-net\",\"containerID\":\"ctr1\",\"ifname\":\"net1\","
		     "\"netns\":\"/run/netns/pod1\",\"deviceID\":\"0000:03:01.1\","
		     "\"rdma\":[\"mlx5_0_1\"]}",
		     &rec),
	    0);
	cr_assert(rdmans_record_is(&rec, "rdma-net", "ctr1", "net1"));
	cr_assert_not(rdmans_record_is(&rec, "rdma", "net-ctr1", "net1"));
}

/* The RDMA indices ADD records go both ways, one per name; a record of
 * the previous build has none and is still read (DEL goes by name then). */
Test(record, rdma_indices)
{
	_cleanup_json_ struct json_object *o = NULL;
	_cleanup_free_ char *s = NULL;
	struct rdmans_record rec;
	const char *with = "{\"network\":\"n\",\"rdma\":[\"mlx5_0\",\"mlx5_1\"],"
			   "\"rdma_index\":[0,4294967295]}";

	cr_assert_eq(rec_from(with, &rec), 0);
	cr_assert(rec.has & RDMANS_REC_HAS_RDMA_INDEX);
	cr_assert(rec.n_rdma_index == 2 && rec.rdma_index[0] == 0 &&
		  rec.rdma_index[1] == 4294967295U);
	cr_assert_eq(rdmans_record_to_json(&rec, &o), 0);
	s = cni_json_dump(o, false);
	cr_assert_str_eq(s, with);
	cr_assert_eq(rec_from("{\"network\":\"n\",\"rdma\":[\"mlx5_0\"]}", &rec), 0);
	cr_assert_not(rec.has & RDMANS_REC_HAS_RDMA_INDEX);
	cr_assert_eq(rec_from("{\"rdma_index\":[-1]}", &rec), -EBADMSG);
	cr_assert_eq(rec_from("{\"rdma_index\":[4294967296]}", &rec), -EBADMSG);
	cr_assert_eq(rec_from("{\"rdma_index\":[\"1\"]}", &rec), -EBADMSG);
}

/* The identity of the namespace ADD used (netnsId) goes both ways, last;
 * a record of an older build has none and still loads. */
Test(record, netns_identity)
{
	_cleanup_free_ char *s = NULL;
	struct rdmans_record rec;
	struct rdmans_netns_id id;

	cr_assert_eq(rec_from(REC_JSON, &rec), 0);
	cr_assert_eq(rdmans_record_netns_id(&rec, &id), -ENOENT);
	rdmans_record_set_netns_id(
	    &rec, &(struct rdmans_netns_id){.dev = 4, .ino = 4026532173, .nsid = UINT64_MAX});
	s = rdmans_record_text(&rec);
	cr_assert_str_eq(s, "{\"network\":\"rdma-net\",\"containerID\":\"ctr1\",\"ifname\":"
			    "\"net1\",\"netns\":\"/run/netns/pod1\",\"deviceID\":\"0000:03:01.1\","
			    "\"rdma\":[\"mlx5_0\",\"mlx5_1\"],"
			    "\"netnsId\":\"4:4026532173:18446744073709551615\"}");
	cr_assert_eq(rec_from(s, &rec), 0);
	cr_assert(rec.has & RDMANS_REC_HAS_NETNS_ID);
	cr_assert_eq(rdmans_record_netns_id(&rec, &id), 0);
	cr_assert(id.dev == 4 && id.ino == 4026532173 && id.nsid == UINT64_MAX);
	/* A kernel without namespace IDs: device and inode. */
	rdmans_record_set_netns_id(&rec, &(struct rdmans_netns_id){.dev = 4, .ino = 7});
	cr_assert_str_eq(rec.netns_id, "4:7");
	cr_assert_eq(rec_from("{\"network\":\"n\",\"netnsId\":\"0:0\"}", &rec), 0);
	cr_assert_eq(rdmans_record_netns_id(&rec, &id), 0);
	cr_assert(id.dev == 0 && id.ino == 0 && id.nsid == 0);
}

/* The namespace's cookie (a kernel before 6.18 has no ID: 0 in its place)
 * goes both ways too; with it, the ID's place is kept. */
Test(record, netns_identity_cookie)
{
	_cleanup_free_ char *s = NULL;
	struct rdmans_record rec;
	struct rdmans_netns_id id;

	cr_assert_eq(rec_from(REC_JSON, &rec), 0);
	rdmans_record_set_netns_id(
	    &rec, &(struct rdmans_netns_id){.dev = 4, .ino = 4026532173, .cookie = UINT64_MAX});
	s = rdmans_record_text(&rec);
	cr_assert_str_eq(s, "{\"network\":\"rdma-net\",\"containerID\":\"ctr1\",\"ifname\":"
			    "\"net1\",\"netns\":\"/run/netns/pod1\",\"deviceID\":\"0000:03:01.1\","
			    "\"rdma\":[\"mlx5_0\",\"mlx5_1\"],"
			    "\"netnsId\":\"4:4026532173:0:18446744073709551615\"}");
	cr_assert_eq(rec_from(s, &rec), 0);
	cr_assert_eq(rdmans_record_netns_id(&rec, &id), 0);
	cr_assert(id.dev == 4 && id.ino == 4026532173 && id.nsid == 0 && id.cookie == UINT64_MAX);
	/* Both, at their widest: nothing is cut. */
	rdmans_record_set_netns_id(
	    &rec, &(struct rdmans_netns_id){
		      .dev = UINT64_MAX, .ino = UINT64_MAX, .nsid = UINT64_MAX, .cookie = 4109});
	cr_assert_str_eq(rec.netns_id, "18446744073709551615:18446744073709551615:"
				       "18446744073709551615:4109");
	cr_assert_eq(rdmans_record_netns_id(&rec, &id), 0);
	cr_assert(id.dev == UINT64_MAX && id.ino == UINT64_MAX && id.nsid == UINT64_MAX &&
		  id.cookie == 4109);
	/* Without one, as before: no fourth number. */
	rdmans_record_set_netns_id(&rec, &(struct rdmans_netns_id){.dev = 4, .ino = 7, .nsid = 9});
	cr_assert_str_eq(rec.netns_id, "4:7:9");
	cr_assert_eq(rdmans_record_netns_id(&rec, &id), 0);
	cr_assert_eq(id.cookie, 0);
}

Test(record, netns_identity_malformed_refused)
{
	static const char *const bad[] = {
	    "",	     "4",    "4:",   "4:x",  ":4",   "4:5:6:7:8", "4:5:6:",
	    "-4:5",  "4:-5", "4: 5", "4:5:", "4::5", "0x4:5",	  "4:18446744073709551616",
	    "4:5:6 "};
	struct rdmans_record rec;
	char json[128];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(json, sizeof(json), "{\"network\":\"n\",\"netnsId\":\"%s\"}", bad[i]);
		cr_expect_eq(rec_from(json, &rec), -EBADMSG, "%s", bad[i]);
	}
	cr_assert_eq(rec_from("{\"netnsId\":45}", &rec), -EBADMSG);
}

Test(record, unknown_keys_ignored_null_is_absent)
{
	struct rdmans_record rec;

	cr_assert_eq(rec_from("{\"network\":\"n\",\"future\":{\"x\":1},\"netns\":null}", &rec), 0);
	cr_assert_eq(rec.has, RDMANS_REC_HAS_NETWORK);
	cr_assert_str_eq(rec.netns, "");
}

Test(record, malformed_refused)
{
	static const char *const bad[] = {
	    "[]",
	    "\"x\"",
	    "{\"network\":1}",
	    "{\"rdma\":\"mlx5_0\"}",
	    "{\"rdma\":[1]}",
	    "{\"rdma\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}",
	    "{\"ifname\":\"0123456789abcdef\"}",
	    "{\"network\":\"a\\u0000b\"}",
	    "{\"Network\":\"n\",\"netns\":true}",
	};
	struct rdmans_record rec;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		cr_expect_eq(rec_from(bad[i], &rec), -EBADMSG, "%s", bad[i]);
}

Test(record, keys_match_exactly)
{
	struct rdmans_record rec;

	/* User config matches keys case-insensitively; our own files do not. */
	cr_assert_eq(rec_from("{\"NETWORK\":\"n\"}", &rec), 0);
	cr_assert_eq(rec.has, 0);
}

Test(rdmacni, cache_entry_as_rdma_cni_writes_it)
{
	struct rdmacni_cache c;

	cr_assert_eq(
	    cache_from("{\"version\":\"1.0\",\"deviceID\":\"0000:04:00.5\","
		       "\"sandboxRdmaDevName\":\"mlx5_4\",\"containerRdmaDevName\":\"mlx5_4\"}",
		       &c),
	    0);
	cr_assert_eq(c.has, RDMACNI_HAS_VERSION | RDMACNI_HAS_DEVICEID | RDMACNI_HAS_SANDBOX_DEV |
				RDMACNI_HAS_CONTAINER_DEV);
	cr_assert_str_eq(c.version, "1.0");
	cr_assert_str_eq(c.deviceid, "0000:04:00.5");
	cr_assert_str_eq(c.container_dev, "mlx5_4");
}

Test(rdmacni, container_name_defaults_to_sandbox_name)
{
	struct rdmacni_cache c;

	cr_assert_eq(cache_from("{\"version\":\"1.0\",\"sandboxRdmaDevName\":\"mlx5_7\"}", &c), 0);
	cr_assert_str_eq(c.container_dev, "mlx5_7");
}

Test(rdmacni, unusable_entries_refused)
{
	static const char *const bad[] = {
	    "{\"version\":\"1.0\",\"deviceID\":\"0000:04:00.5\"}",
	    "{\"containerRdmaDevName\":\"\"}",
	    "{\"containerRdmaDevName\":5}",
	    "{\"containerRdmaDevName\":\"mlx5_0\",\"deviceID\":[]}",
	    "{\"containerRdmaDevName\":"
	    "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
	};
	struct rdmacni_cache c;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		cr_expect_eq(cache_from(bad[i], &c), -EBADMSG, "%s", bad[i]);
}

Test(names, new_names_are_unambiguous)
{
	char a[RDMANS_NAME_MAX + 1], b[RDMANS_NAME_MAX + 1], oa[NAME_MAX + 1], ob[NAME_MAX + 1];

	cr_assert_eq(rdmans_record_name("a", "b-c", "net1", a), 0);
	cr_assert_eq(rdmans_record_name("a-b", "c", "net1", b), 0);
	cr_assert_str_eq(a, "a:b-c:net1");
	cr_assert_str_neq(a, b);
	/* The previous format could not tell these two apart. */
	cr_assert_eq(rdmans_record_old_name("a", "b-c", "net1", oa), 0);
	cr_assert_eq(rdmans_record_old_name("a-b", "c", "net1", ob), 0);
	cr_assert_str_eq(oa, ob);
}

Test(names, too_long_refused_not_truncated)
{
	char id[RDMANS_NAME_MAX + 1], buf[RDMANS_NAME_MAX + 1];

	/* "n:" + id + ":net1" is exactly the limit, then one byte more. */
	memset(id, 'c', sizeof(id));
	id[RDMANS_NAME_MAX - 7] = '\0';
	cr_assert_eq(rdmans_record_name("n", id, "net1", buf), 0);
	cr_assert_eq(strlen(buf), RDMANS_NAME_MAX);
	cr_assert_eq(rdmans_record_name("nn", id, "net1", buf), -ENAMETOOLONG);
}

Test(load, permanent_and_transient_errors)
{
	cr_assert(rdmans_load_error_permanent(-EBADMSG));
	cr_assert(rdmans_load_error_permanent(-EINVAL)); /* a FIFO or directory */
	cr_assert(rdmans_load_error_permanent(-EFBIG));
	cr_assert(rdmans_load_error_permanent(-ELOOP));
	cr_assert_not(rdmans_load_error_permanent(-EIO));
	cr_assert_not(rdmans_load_error_permanent(-ENOMEM));
	cr_assert_not(rdmans_load_error_permanent(-EACCES));
}

/* The pod's namespace and name (`ib-sriov doctor --pod`): read, written
 * back, bounded. */
Test(record, pod_keys)
{
	struct rdmans_record rec, back;
	_cleanup_free_ char *text = NULL;
	char big[400], json[1024];

	cr_assert_eq(
	    rec_from("{\"network\":\"n\",\"containerID\":\"c\",\"ifname\":\"net1\","
		     "\"podNamespace\":\"team-a\",\"podName\":\"trainer-0\",\"podMtu\":1500,"
		     "\"podAddrs\":[\"10.56.0.2\"]}",
		     &rec),
	    0);
	cr_assert(rec.has & RDMANS_REC_HAS_POD);
	cr_assert_str_eq(rec.pod_ns, "team-a");
	cr_assert_str_eq(rec.pod_name, "trainer-0");
	cr_assert(rec.has & RDMANS_REC_HAS_POD_MTU && rec.pod_mtu == 1500);
	cr_assert(rec.has & RDMANS_REC_HAS_POD_ADDRS && rec.n_pod_addrs == 1);
	cr_assert_str_eq(rec.pod_addrs[0], "10.56.0.2");
	text = rdmans_record_text(&rec);
	cr_assert_not_null(
	    strstr(text, "\"podNamespace\":\"team-a\",\"podName\":\"trainer-0\",\"podMtu\":1500"),
	    "%s", text);
	cr_assert_not_null(strstr(text, "\"podAddrs\":[\"10.56.0.2\"]"), "%s", text);
	cr_assert_eq(rec_from(text, &back), 0);
	cr_assert_str_eq(back.pod_name, "trainer-0");
	cr_assert_str_eq(back.pod_addrs[0], "10.56.0.2");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(json, sizeof(json), "{\"network\":\"n\",\"podName\":\"%s\"}", big);
	cr_assert_eq(rec_from(json, &rec), -EBADMSG);
	cr_assert_eq(rec_from("{\"network\":\"n\"}", &rec), 0);
	cr_assert_not(rec.has & RDMANS_REC_HAS_POD);
}
