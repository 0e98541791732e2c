// SPDX-License-Identifier: Apache-2.0
/* kubelet's PodResources API over its unix socket: one HTTP/2 connection
 * (libnghttp2, our own nonblocking I/O under poll), one or two unary gRPC
 * calls on it, the whole exchange under one deadline and a byte budget. */
#include <errno.h>
#include <limits.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "protocol/podres.h"
#include "base/util.h"

const char *cni_podres_socket = CNI_PODRES_SOCKET;

/* Everything read off the socket, frames and all: a peer that floods us
 * with pings or headers is cut off, not only timed out. */
#define PODRES_READ_BUDGET (CNI_PODRES_MAX_MSG + (4u << 20))
#define PODRES_RBUF	   16384

static char path_get[] = "/v1.PodResourcesLister/Get";
static char path_list[] = "/v1.PodResourcesLister/List";

/* One unary call: the framed request and what came back on its stream. */
struct call {
	int32_t stream;
	const uint8_t *req;
	size_t req_len, req_off;
	int http_status, grpc_status; /* -1 until seen */
	bool grpc_type;		      /* content-type application/grpc[+proto] */
	char grpc_message[160];
	uint8_t *body;
	size_t body_len, body_cap;
	bool closed;
	uint32_t reset; /* the stream's RST_STREAM code, 0 if none */
	int fail;	/* a -errno found in a callback (EMSGSIZE, EPROTO) */
};

struct conn {
	int fd;
	nghttp2_session *s;
	uint64_t deadline;
	size_t read_total;
	struct call *call;
	uint8_t *rbuf;
	char why[384]; /* what went wrong, for the error's details */
};

/* Say what went wrong (once: the first failure is the cause); returns ret. */
__attribute__((format(printf, 3, 4))) static int whyf(struct conn *c, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!*c->why) {
		va_start(ap, fmt);
		vsnprintf(c->why, sizeof(c->why), fmt, ap);
		va_end(ap);
	}
	return ret;
}

static ssize_t on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *ud)
{
	struct conn *c = ud;
	ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EINTR)
		return NGHTTP2_ERR_WOULDBLOCK;
	return NGHTTP2_ERR_CALLBACK_FAILURE;
}

static ssize_t on_read_body(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len,
			    uint32_t *flags, nghttp2_data_source *src, void *ud)
{
	struct call *k = src->ptr;
	size_t n = k->req_len - k->req_off;

	if (n > len)
		n = len;
	memcpy(buf, k->req + k->req_off, n);
	k->req_off += n;
	if (k->req_off == k->req_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static bool header_is(const uint8_t *name, size_t len, const char *want)
{
	return len == strlen(want) && !memcmp(name, want, len);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
		     const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	struct call *k = ((struct conn *)ud)->call;
	const char *v = (const char *)value;

	if (!k || f->hd.stream_id != k->stream)
		return 0;
	if (header_is(name, nlen, ":status")) {
		if (vlen == 3 && v[0] >= '1' && v[0] <= '5')
			k->http_status = (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
	} else if (header_is(name, nlen, "content-type")) {
		k->grpc_type = header_is(value, vlen, "application/grpc") ||
			       (vlen > 17 && !memcmp(v, "application/grpc+", 17));
	} else if (header_is(name, nlen, "grpc-status")) {
		if (cni_grpc_status_parse(v, vlen, &k->grpc_status))
			k->fail = -EPROTO;
	} else if (header_is(name, nlen, "grpc-message")) {
		cni_grpc_message_decode(v, vlen, k->grpc_message, sizeof(k->grpc_message));
	}
	return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data,
		   size_t len, void *ud)
{
	struct call *k = ((struct conn *)ud)->call;

	if (!k || stream != k->stream || k->fail)
		return 0;
	if (len > CNI_PODRES_MAX_MSG + CNI_GRPC_PREFIX - k->body_len) {
		k->fail = -EMSGSIZE;
		nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL);
		return 0;
	}
	if (k->body_len + len > k->body_cap) {
		size_t cap = k->body_cap ? k->body_cap : 16384;
		uint8_t *p;

		while (cap < k->body_len + len)
			cap *= 2;
		p = realloc(k->body, cap);
		if (!p) {
			k->fail = -ENOMEM;
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		}
		k->body = p;
		k->body_cap = cap;
	}
	memcpy(k->body + k->body_len, data, len);
	k->body_len += len;
	return 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t code, void *ud)
{
	struct call *k = ((struct conn *)ud)->call;

	if (k && stream == k->stream) {
		k->closed = true;
		k->reset = code;
	}
	return 0;
}

/* The socket connected within the deadline, nonblocking. */
static int sock_connect(struct conn *c, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pollfd p;

	if (copy_str(sa.sun_path, sizeof(sa.sun_path), path))
		return -ENAMETOOLONG;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	/* A unix socket connects at once or says EAGAIN (backlog full):
	 * retried until the deadline, as a server that does not accept. */
	while (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		uint64_t now = now_ms();

		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EINPROGRESS)
			return -errno;
		if (now >= c->deadline)
			return -ETIMEDOUT;
		if (errno == EINPROGRESS) {
			int soerr = 0;
			socklen_t len = sizeof(soerr);

			p = (struct pollfd){.fd = c->fd, .events = POLLOUT};
			if (poll(&p, 1, (int)(c->deadline - now)) != 1)
				return -ETIMEDOUT;
			if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
				return -errno;
			return -soerr;
		}
		sleep_ms(c->deadline - now < 20 ? (unsigned int)(c->deadline - now) : 20);
	}
	return 0;
}

static int session_open(struct conn *c)
{
	nghttp2_session_callbacks *cb;
	nghttp2_option *opt;
	/* No push; windows large enough that a List needs few round trips. */
	nghttp2_settings_entry set[] = {
	    {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
	    {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 0},
	    {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 20},
	    {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, 16384},
	};
	int ret;

	if (nghttp2_session_callbacks_new(&cb))
		return -ENOMEM;
	nghttp2_session_callbacks_set_send_callback(cb, on_send);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
	if (nghttp2_option_new(&opt)) {
		nghttp2_session_callbacks_del(cb);
		return -ENOMEM;
	}
	nghttp2_option_set_max_continuations(opt, 4);
	nghttp2_option_set_max_settings(opt, 32);
	ret = nghttp2_session_client_new2(&c->s, cb, c, opt);
	nghttp2_option_del(opt);
	nghttp2_session_callbacks_del(cb);
	if (ret)
		return -ENOMEM;
	if (nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, set, ARRAY_SIZE(set)) ||
	    nghttp2_session_set_local_window_size(c->s, NGHTTP2_FLAG_NONE, 0, 4u << 20))
		return -ENOMEM;
	return 0;
}

static nghttp2_nv nv(char *name, char *value)
{
	return (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, strlen(name), strlen(value),
			    NGHTTP2_NV_FLAG_NONE};
}

static int submit(struct conn *c, struct call *k, char *path)
{
	static char m[] = ":method", post[] = "POST", sch[] = ":scheme", http[] = "http",
		    auth[] = ":authority", host[] = "localhost", p[] = ":path",
		    ct[] = "content-type", grpc[] = "application/grpc", te[] = "te",
		    trailers[] = "trailers", to[] = "grpc-timeout";
	char left[CNI_NUM_MAX + 1];
	uint64_t now = now_ms();
	nghttp2_data_provider body = {.source.ptr = k, .read_callback = on_read_body};
	nghttp2_nv h[8];

	/* kubelet learns our deadline too (gRPC's "<n>m": at most 8 digits). */
	cni_u64_str(c->deadline > now ? c->deadline - now : 1, left);
	if (strlen(left) > 8)
		copy_str(left, sizeof(left), "99999999");
	memcpy(left + strlen(left), "m", 2);
	h[0] = nv(m, post), h[1] = nv(sch, http), h[2] = nv(auth, host), h[3] = nv(p, path);
	h[4] = nv(ct, grpc), h[5] = nv(te, trailers), h[6] = nv(to, left);
	k->http_status = k->grpc_status = -1;
	c->call = k;
	k->stream = nghttp2_submit_request(c->s, NULL, h, 7, &body, NULL);
	return k->stream < 0 ? -ENOMEM : 0;
}

/* Feed what the socket has to the session. 0, or -errno. */
static int pump_in(struct conn *c)
{
	ssize_t n = read(c->fd, c->rbuf, PODRES_RBUF);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	c->read_total += (size_t)n;
	if (c->read_total > PODRES_READ_BUDGET)
		return -EMSGSIZE;
	return nghttp2_session_mem_recv(c->s, c->rbuf, (size_t)n) < 0 ? -EPROTO : 0;
}

/* Run the session until call k's stream closes or the deadline passes. */
static int exchange(struct conn *c, struct call *k)
{
	while (!k->closed && !k->fail) {
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		uint64_t now;
		int ret;

		if (nghttp2_session_send(c->s))
			return -ECONNRESET;
		if (!nghttp2_session_want_read(c->s) && !nghttp2_session_want_write(c->s))
			return -ECONNRESET; /* GOAWAY, or a fatal protocol error */
		if (nghttp2_session_want_write(c->s))
			p.events |= POLLOUT;
		now = now_ms();
		if (now >= c->deadline)
			return -ETIMEDOUT;
		ret = poll(&p, 1, (int)(c->deadline - now));
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret == 0)
			return -ETIMEDOUT;
		if (ret > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
			ret = pump_in(c);
			if (ret)
				return ret;
		}
	}
	return k->fail;
}

static void conn_close(struct conn *c)
{
	nghttp2_session_del(c->s);
	if (c->fd >= 0)
		close(c->fd);
	free(c->rbuf);
}

/* One unary call on the connection, of the request in k->req: 0 with the
 * response's message in *msg (pointing into k->body), else -errno with
 * c->why saying what. */
static int call(struct conn *c, struct call *k, char *path, const uint8_t **msg, size_t *msg_len)
{
	int ret = submit(c, k, path);

	if (!ret)
		ret = exchange(c, k);
	if (ret == -ETIMEDOUT)
		return whyf(c, ret, "no answer to %s in time", path);
	if (ret == -EMSGSIZE)
		return whyf(c, ret, "the answer to %s is over %u bytes", path, CNI_PODRES_MAX_MSG);
	if (ret)
		return whyf(c, ret, "%s: %s", path, strerror(-ret));
	/* A status, even in a reset stream's trailers, says most. */
	if (k->grpc_status > 0)
		return whyf(c, -EREMOTEIO, "%s: grpc-status %d (%s): %s", path, k->grpc_status,
			    cni_grpc_status_name(k->grpc_status),
			    *k->grpc_message ? k->grpc_message : "no message");
	if (k->reset)
		return whyf(c, -ECONNRESET, "%s: stream reset (HTTP/2 error %u)", path, k->reset);
	if (k->http_status != 200 || !k->grpc_type || k->grpc_status < 0)
		return whyf(c, -EPROTO, "%s: not a gRPC answer (HTTP status %d, %s, %s)", path,
			    k->http_status, k->grpc_type ? "gRPC" : "no gRPC content-type",
			    k->grpc_status < 0 ? "no grpc-status" : "grpc-status 0");
	ret = cni_grpc_unframe(k->body, k->body_len, CNI_PODRES_MAX_MSG, msg, msg_len);
	if (ret)
		return whyf(c, ret, "%s: a malformed gRPC message (%zu bytes)", path, k->body_len);
	return 0;
}

static void call_clear(struct call *k)
{
	free(k->body);
	memset(k, 0, sizeof(*k));
}

static int ask_list(struct conn *c, const char *ns, const char *name,
		    struct cni_podres_devices *out)
{
	_cleanup_free_ uint8_t *req = NULL;
	struct call k = {0};
	const uint8_t *msg;
	size_t len, mlen;
	int ret = cni_podres_list_request(&req, &len);

	if (!ret) {
		k.req = req;
		k.req_len = len;
		ret = call(c, &k, path_list, &msg, &mlen);
	}
	if (!ret) {
		ret = cni_podres_decode_list(msg, mlen, ns, name, out);
		if (ret)
			whyf(c, ret, "%s: a malformed answer", path_list);
	}
	call_clear(&k);
	return ret;
}

/* Whether Get's refusal leaves the answer to List. UNIMPLEMENTED: a kubelet
 * before 1.27 has no Get. UNKNOWN: kubelet's handlers return plain Go errors,
 * which gRPC sends as UNKNOWN; from 1.27 to 1.33 (KubeletPodResourcesGet off
 * by default) Get answers "PodResources API Get method disabled", and every
 * version answers "pod ... not found" for a pod Get does not know. List is
 * served by all of them and is the whole truth, so it decides both. */
static bool get_defers_to_list(const struct call *k)
{
	return k->grpc_status == CNI_GRPC_UNIMPLEMENTED || k->grpc_status == CNI_GRPC_UNKNOWN;
}

/* Get, then List when kubelet does not answer Get (get_defers_to_list):
 * both on one connection. */
static int ask(struct conn *c, const char *ns, const char *name, struct cni_podres_devices *out)
{
	_cleanup_free_ uint8_t *req = NULL;
	struct call k = {0};
	const uint8_t *msg;
	size_t len, mlen;
	int ret = cni_podres_get_request(ns, name, &req, &len);

	if (ret)
		return ret;
	k.req = req;
	k.req_len = len;
	ret = call(c, &k, path_get, &msg, &mlen);
	if (!ret) {
		ret = cni_podres_decode_get(msg, mlen, ns, name, out);
		if (ret)
			whyf(c, ret, "%s: not an answer about pod %s/%s", path_get, ns, name);
	} else if (ret == -EREMOTEIO && get_defers_to_list(&k)) {
		log_debug("kubelet answered %s with %s (%s): asking %s", path_get,
			  cni_grpc_status_name(k.grpc_status),
			  *k.grpc_message ? k.grpc_message : "no message", path_list);
		c->why[0] = '\0';
		ret = ask_list(c, ns, name, out);
	}
	call_clear(&k);
	return ret;
}

int cni_podres_pod_devices(const char *socket, const char *ns, const char *name,
			   unsigned int timeout_ms, struct cni_podres_devices *out,
			   struct cni_error *err)
{
	_cleanup_free_ struct conn *c = calloc(1, sizeof(*c));
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	if (lstat(socket, &st) && errno == ENOENT)
		return -ENOENT;
	if (!c)
		return cni_errorf(err, -ENOMEM, CNI_ERR_INTERNAL, "out of memory", NULL);
	c->fd = -1;
	/* poll takes an int of milliseconds */
	c->deadline = now_ms() + (timeout_ms > INT_MAX ? INT_MAX : timeout_ms);
	ret = sock_connect(c, socket);
	if (ret)
		whyf(c, ret, "cannot connect: %s", strerror(-ret));
	if (!ret) {
		c->rbuf = malloc(PODRES_RBUF);
		ret = c->rbuf ? session_open(c) : -ENOMEM;
	}
	if (!ret)
		ret = ask(c, ns, name, out);
	conn_close(c);
	if (!ret)
		return 0;
	cni_podres_devices_free(out);
	return cni_errorf(err, ret, CNI_ERR_TRY_AGAIN,
			  "cannot ask kubelet which devices the pod holds",
			  "%s: %s (the exchange is bounded by %u ms); the devices allocated to "
			  "pod %s/%s cannot be checked: retry when kubelet answers, or set "
			  "\"deviceCheck\": \"off\" in /etc/ibcni/ibcni.conf",
			  socket, *c->why ? c->why : strerror(-ret), timeout_ms, ns, name);
}
