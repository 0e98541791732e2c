// SPDX-License-Identifier: Apache-2.0
/* The PodResources client: gRPC framing, status and message decoding, the
 * messages built byte by byte from kubelet's field numbers, and the
 * transport's bounds against servers that do not speak HTTP/2. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "protocol/podres.h"
#include "base/util.h"

/* --- protobuf by hand: tag (field << 3 | 2), varint length, bytes --- */

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put_ld(struct buf *o, unsigned int field, const void *p, size_t len)
{
	cr_assert_lt(len, 16384);
	o->b[o->n++] = (uint8_t)(field << 3 | 2);
	if (len < 128) {
		o->b[o->n++] = (uint8_t)len;
	} else {
		o->b[o->n++] = (uint8_t)(len | 0x80);
		o->b[o->n++] = (uint8_t)(len >> 7);
	}
	memcpy(o->b + o->n, p, len);
	o->n += len;
}

static void put_str(struct buf *o, unsigned int field, const char *s)
{
	put_ld(o, field, s, strlen(s));
}

static void put_msg(struct buf *o, unsigned int field, const struct buf *m)
{
	put_ld(o, field, m->b, m->n);
}

/* PodResources{name, namespace, containers: [{name "c", devices: [{resource_name r, device_ids}]}]}
 * with kubelet fields we do not read (cpu_ids 4, topology 3) in between. */
static void pod(struct buf *o, const char *ns, const char *name, const char *const *ids, size_t n)
{
	struct buf dev = {0}, ctr = {0};
	static const uint8_t cpu_ids[] = {0x22, 0x02, 0x01, 0x02}; /* field 4, packed 1, 2 */

	put_str(&dev, 1, "example.com/ib_vf");
	for (size_t i = 0; i < n; i++)
		put_str(&dev, 2, ids[i]);
	put_str(&dev, 3, ""); /* TopologyInfo, empty */
	put_str(&ctr, 1, "c");
	put_msg(&ctr, 2, &dev);
	put_str(o, 1, name);
	put_str(o, 2, ns);
	put_msg(o, 3, &ctr);
	memcpy(o->b + o->n, cpu_ids, sizeof(cpu_ids));
	o->n += sizeof(cpu_ids);
}

/* --- framing --- */

Test(grpc, frame_prefixes_length_big_endian)
{
	_cleanup_free_ uint8_t *out = NULL;
	size_t len;
	static const uint8_t want[] = {0, 0, 0, 0, 3, 'a', 'b', 'c'};

	cr_assert_eq(cni_grpc_frame((const uint8_t *)"abc", 3, &out, &len), 0);
	cr_assert_eq(len, sizeof(want));
	cr_assert_arr_eq(out, want, sizeof(want));
}

Test(grpc, unframe_gives_the_one_message)
{
	static const uint8_t in[] = {0, 0, 0, 1, 2, [5 ... 262] = 'x'};
	const uint8_t *msg;
	size_t len;

	cr_assert_eq(cni_grpc_unframe(in, sizeof(in), 1024, &msg, &len), 0);
	cr_assert_eq(len, 258);
	cr_assert_eq(msg, in + 5);
	cr_assert_eq(cni_grpc_unframe(in, 5, 1024, &msg, &len), -EPROTO, "empty body accepted");
}

Test(grpc, unframe_refuses_truncated_trailing_and_compressed)
{
	static const uint8_t trunc[] = {0, 0, 0, 0, 10, 'a', 'b', 'c'};
	static const uint8_t extra[] = {0, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0};
	static const uint8_t zip[] = {1, 0, 0, 0, 1, 'a'};
	static const uint8_t flag2[] = {2, 0, 0, 0, 1, 'a'};
	static const uint8_t empty[] = {0, 0, 0, 0, 0};
	const uint8_t *msg;
	size_t len;

	cr_assert_eq(cni_grpc_unframe(trunc, 4, 1024, &msg, &len), -EPROTO, "short prefix");
	cr_assert_eq(cni_grpc_unframe(trunc, sizeof(trunc), 1024, &msg, &len), -EPROTO);
	cr_assert_eq(cni_grpc_unframe(extra, sizeof(extra), 1024, &msg, &len), -EPROTO);
	cr_assert_eq(cni_grpc_unframe(zip, sizeof(zip), 1024, &msg, &len), -EPROTO);
	cr_assert_eq(cni_grpc_unframe(flag2, sizeof(flag2), 1024, &msg, &len), -EPROTO);
	cr_assert_eq(cni_grpc_unframe(empty, sizeof(empty), 1024, &msg, &len), 0);
	cr_assert_eq(len, 0);
}

Test(grpc, unframe_refuses_oversized_before_reading_it)
{
	/* The prefix alone says 16 MiB + 1: refused whatever follows. */
	static const uint8_t big[] = {0, 0x01, 0x00, 0x00, 0x01, 'a'};
	static const uint8_t huge[] = {0, 0xff, 0xff, 0xff, 0xff};
	const uint8_t *msg;
	size_t len;

	cr_assert_eq(cni_grpc_unframe(big, sizeof(big), CNI_PODRES_MAX_MSG, &msg, &len), -EMSGSIZE);
	cr_assert_eq(cni_grpc_unframe(huge, sizeof(huge), CNI_PODRES_MAX_MSG, &msg, &len),
		     -EMSGSIZE);
}

Test(grpc, status_is_a_small_decimal)
{
	int s = -1;

	cr_assert_eq(cni_grpc_status_parse("0", 1, &s), 0);
	cr_assert_eq(s, 0);
	cr_assert_eq(cni_grpc_status_parse("12", 2, &s), 0);
	cr_assert_eq(s, 12);
	cr_assert_str_eq(cni_grpc_status_name(12), "UNIMPLEMENTED");
	cr_assert_str_eq(cni_grpc_status_name(99), "unknown");
	static const char *const bad[] = {"", "-1", "abc", "12 ", " 1", "256", "1000", "0x1"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		cr_assert_eq(cni_grpc_status_parse(bad[i], strlen(bad[i]), &s), -EPROTO, "\"%s\"",
			     bad[i]);
}

Test(grpc, message_percent_decoded_and_made_printable)
{
	char out[16];
	const char *in = "pod%20x%0a%1b[2J%zz%4";

	cni_grpc_message_decode(in, strlen(in), out, sizeof(out));
	cr_assert_str_eq(out, "pod x??[2J%zz%4");
	cni_grpc_message_decode("abcdefghijklmnopqrstuvwxyz", 26, out, sizeof(out));
	cr_assert_str_eq(out, "abcdefghijklmno", "cut to fit");
	cni_grpc_message_decode("\xc3\xa9t\xc3\xa9", 5, out, sizeof(out));
	cr_assert_str_eq(out, "??t??");
}

/* --- messages --- */

Test(podres, get_request_has_kubelet_field_numbers)
{
	_cleanup_free_ uint8_t *out = NULL;
	size_t len;
	/* pod_name = 1, pod_namespace = 2, behind the gRPC prefix */
	static const uint8_t want[] = {0, 0, 0, 0, 9, 0x0a, 3, 'p', 'o', 'd', 0x12, 2, 'n', 's'};

	cr_assert_eq(cni_podres_get_request("ns", "pod", &out, &len), 0);
	cr_assert_eq(len, sizeof(want));
	cr_assert_arr_eq(out, want, sizeof(want));
	free(out);
	out = NULL;
	cr_assert_eq(cni_podres_list_request(&out, &len), 0);
	cr_assert_eq(len, 5);
	cr_assert_arr_eq(out, ((uint8_t[]){0, 0, 0, 0, 0}), 5);
}

Test(podres, get_response_gives_every_device_id)
{
	static const char *const ids[] = {"0000:03:01.0", "mlx5_core.sf.4"};
	struct buf p = {0}, r = {0};
	struct cni_podres_devices d;

	pod(&p, "ns", "pod", ids, 2);
	put_msg(&r, 1, &p);
	cr_assert_eq(cni_podres_decode_get(r.b, r.n, "ns", "pod", &d), 0);
	cr_assert(d.known);
	cr_assert_eq(d.n, 2);
	cr_assert_str_eq(d.ids[0], "0000:03:01.0");
	cr_assert_str_eq(d.ids[1], "mlx5_core.sf.4");
	cni_podres_devices_free(&d);
	cr_assert_eq(d.n, 0);
	cr_assert_null(d.ids);
}

Test(podres, get_response_for_another_pod_or_none_is_refused)
{
	static const char *const ids[] = {"0000:03:01.0"};
	struct buf p = {0}, r = {0};
	struct cni_podres_devices d;

	pod(&p, "ns", "other", ids, 1);
	put_msg(&r, 1, &p);
	cr_assert_eq(cni_podres_decode_get(r.b, r.n, "ns", "pod", &d), -EPROTO);
	cr_assert_eq(cni_podres_decode_get(r.b, r.n, "other", "other", &d), -EPROTO);
	cr_assert_eq(d.n, 0);
	cr_assert_eq(cni_podres_decode_get(r.b, 0, "ns", "pod", &d), -EPROTO, "no pod_resources");
}

Test(podres, malformed_messages_are_refused)
{
	static const char *const ids[] = {"0000:03:01.0"};
	struct buf p = {0}, r = {0};
	struct cni_podres_devices d;
	static const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	pod(&p, "ns", "pod", ids, 1);
	put_msg(&r, 1, &p);
	/* every truncation of a valid answer is refused or, cut between
	 * fields, decodes without inventing a device */
	for (size_t n = 1; n < r.n; n++) {
		int ret = cni_podres_decode_get(r.b, n, "ns", "pod", &d);

		cr_assert(ret == -EPROTO || (ret == 0 && d.n == 0), "cut at %zu: %d", n, ret);
		cni_podres_devices_free(&d);
	}
	cr_assert_eq(cni_podres_decode_get(junk, sizeof(junk), "ns", "pod", &d), -EPROTO);
	cr_assert_eq(cni_podres_decode_list(junk, sizeof(junk), "ns", "pod", &d), -EPROTO);
	/* a string field carrying a varint */
	static const uint8_t wrong_type[] = {0x08, 0x01};
	cr_assert_eq(cni_podres_decode_get(wrong_type, 2, "ns", "pod", &d), -EPROTO);
}

Test(podres, list_picks_the_pod)
{
	static const char *const a[] = {"0000:03:01.0"}, *const b[] = {"0000:03:01.1", "x"};
	struct buf p1 = {0}, p2 = {0}, r = {0};
	struct cni_podres_devices d;

	pod(&p1, "ns", "a", a, 1);
	pod(&p2, "ns", "b", b, 2);
	put_msg(&r, 1, &p1);
	put_msg(&r, 1, &p2);
	cr_assert_eq(cni_podres_decode_list(r.b, r.n, "ns", "b", &d), 0);
	cr_assert(d.known);
	cr_assert_eq(d.n, 2);
	cr_assert_str_eq(d.ids[0], "0000:03:01.1");
	cni_podres_devices_free(&d);
	cr_assert_eq(cni_podres_decode_list(r.b, r.n, "other", "b", &d), 0);
	cr_assert_not(d.known, "another namespace's pod b taken");
	cr_assert_eq(d.n, 0);
	cr_assert_eq(cni_podres_decode_list(r.b, 0, "ns", "b", &d), 0, "an empty list");
	cr_assert_not(d.known);
	/* the same pod twice is not an answer kubelet gives */
	put_msg(&r, 1, &p2);
	cr_assert_eq(cni_podres_decode_list(r.b, r.n, "ns", "b", &d), -EPROTO);
}

/* --- DRA: dynamic_resources (ContainerResources field 5) --- */

/* ClaimResource{cdi_devices 1 {name 1}, driver_name 2, pool_name 3,
 * device_name 4}; names NULL: as kubelet 1.27-1.30 sends it (CDI only). */
static void claim_res(struct buf *o, const char *drv, const char *pool, const char *dev)
{
	struct buf cdi = {0}, res = {0};

	put_str(&cdi, 1, "sriovnetwork.k8snetworkplumbingwg.io/vf=claim-uid-0000-03-01-1");
	put_msg(&res, 1, &cdi);
	if (drv) {
		put_str(&res, 2, drv);
		put_str(&res, 3, pool);
		put_str(&res, 4, dev);
	}
	put_msg(o, 4, &res);
}

/* A pod whose one container names claim ns/claim (DynamicResource: class_name
 * 1 as 1.27-1.30 send it, claim_name 2, claim_namespace 3) holding res. */
static void dra_pod(struct buf *o, const struct buf *res)
{
	struct buf dr = {0}, ctr = {0};

	put_str(&dr, 1, "vf.example.com");
	put_str(&dr, 2, "claim");
	put_str(&dr, 3, "ns");
	memcpy(dr.b + dr.n, res->b, res->n);
	dr.n += res->n;
	put_str(&ctr, 1, "c");
	put_msg(&ctr, 5, &dr);
	put_str(o, 1, "pod");
	put_str(o, 2, "ns");
	put_msg(o, 3, &ctr);
}

Test(podres, dra_claim_devices_by_driver_pool_and_name)
{
	struct buf res = {0}, p = {0}, r = {0};
	struct cni_podres_devices d;

	claim_res(&res, "sriovnetwork.k8snetworkplumbingwg.io", "node1", "0000-03-01-1");
	claim_res(&res, "gpu.example.com", "node1", "gpu-0");
	claim_res(&res, NULL, NULL, NULL);
	dra_pod(&p, &res);
	put_msg(&r, 1, &p);
	cr_assert_eq(cni_podres_decode_get(r.b, r.n, "ns", "pod", &d), 0);
	cr_assert(d.known);
	cr_assert_eq(d.n, 0, "no device-plugin device");
	cr_assert_eq(d.n_dra, 2);
	cr_assert_str_eq(d.dra[0].driver, "sriovnetwork.k8snetworkplumbingwg.io");
	cr_assert_str_eq(d.dra[0].pool, "node1");
	cr_assert_str_eq(d.dra[0].device, "0000-03-01-1");
	cr_assert_str_eq(d.dra[0].claim, "ns/claim");
	cr_assert_str_eq(d.dra[1].device, "gpu-0");
	cr_assert_eq(d.n_dra_unnamed, 1, "CDI names alone name no device");
	cni_podres_devices_free(&d);
	cr_assert_eq(d.n_dra, 0);
	cr_assert_null(d.dra);
	/* List decodes the same message the same way. */
	cr_assert_eq(cni_podres_decode_list(r.b, r.n, "ns", "pod", &d), 0);
	cr_assert_eq(d.n_dra, 2);
	cni_podres_devices_free(&d);
}

/* --- the transport against servers that are not kubelet --- */

static char dir[64];
static char sock[128];

static void setup(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(sock, sizeof(sock), "%s/kubelet.sock", dir);
}

static void teardown(void)
{
	rm_tree(dir);
}

TestSuite(transport, .init = setup, .fini = teardown, .timeout = 20);

static int listener(int backlog)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	copy_str(sa.sun_path, sizeof(sa.sun_path), sock);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (backlog >= 0)
		cr_assert_eq(listen(fd, backlog), 0);
	return fd;
}

static int ask(unsigned int ms, struct cni_error *err, uint64_t *took)
{
	struct cni_podres_devices d;
	uint64_t t0 = now_ms();
	int ret = cni_podres_pod_devices(sock, "ns", "pod", ms, &d, err);

	*took = now_ms() - t0;
	cni_podres_devices_free(&d);
	return ret;
}

Test(transport, no_socket_is_enoent_and_no_error)
{
	struct cni_error err = {0};
	uint64_t took;

	cr_assert_eq(ask(500, &err, &took), -ENOENT);
	cr_assert_eq(err.code, 0);
}

Test(transport, socket_without_server_is_try_again_naming_it)
{
	struct cni_error err = {0};
	uint64_t took;
	_cleanup_close_ int fd = listener(-1); /* bound, never listening */

	cr_assert_lt(ask(500, &err, &took), 0);
	assert_cni_error(&err, CNI_ERR_TRY_AGAIN, "cannot ask kubelet which devices the pod holds");
	cr_assert(strstr(err.details, sock), "%s", err.details);
	cr_assert(strstr(err.details, "cannot connect"), "%s", err.details);
	cr_assert(strstr(err.details, "pod ns/pod"), "%s", err.details);
}

Test(transport, silent_server_times_out_within_the_bound)
{
	struct cni_error err = {0};
	uint64_t took;
	_cleanup_close_ int fd = listener(4); /* the kernel accepts; nobody answers */

	cr_assert_eq(ask(300, &err, &took), -ETIMEDOUT);
	cr_assert_eq(err.code, CNI_ERR_TRY_AGAIN);
	cr_assert(strstr(err.details, "no answer to /v1.PodResourcesLister/Get in time"), "%s",
		  err.details);
	cr_assert(took >= 290 && took < 2000, "took %llu ms", (unsigned long long)took);
}

static void *answer_http1(void *arg)
{
	int fd = accept(*(int *)arg, NULL, NULL);
	static const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";

	if (fd >= 0) {
		if (write(fd, reply, sizeof(reply) - 1) < 0)
			cr_log_warn("write: %s", strerror(errno));
		close(fd);
	}
	return NULL;
}

Test(transport, http1_server_is_try_again_at_once)
{
	struct cni_error err = {0};
	uint64_t took;
	_cleanup_close_ int fd = listener(4);
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, answer_http1, &fd), 0);
	cr_assert_lt(ask(5000, &err, &took), 0);
	pthread_join(t, NULL);
	cr_assert_eq(err.code, CNI_ERR_TRY_AGAIN);
	cr_assert(took < 4000, "took %llu ms: waited for the deadline", (unsigned long long)took);
}
