// SPDX-License-Identifier: Apache-2.0
/* gRPC's message framing and the PodResources messages (protoc-c's code,
 * generated from podres.proto into the build directory). No I/O. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/podres.h"
#include "podres.pb-c.h"
#include "base/util.h"

int cni_grpc_frame(const uint8_t *msg, size_t len, uint8_t **out, size_t *out_len)
{
	uint8_t *p;

	if (len > UINT32_MAX)
		return -EMSGSIZE;
	p = malloc(CNI_GRPC_PREFIX + len);
	if (!p)
		return -ENOMEM;
	p[0] = 0;
	p[1] = (uint8_t)(len >> 24);
	p[2] = (uint8_t)(len >> 16);
	p[3] = (uint8_t)(len >> 8);
	p[4] = (uint8_t)len;
	if (len)
		memcpy(p + CNI_GRPC_PREFIX, msg, len);
	*out = p;
	*out_len = CNI_GRPC_PREFIX + len;
	return 0;
}

int cni_grpc_unframe(const uint8_t *buf, size_t len, size_t max, const uint8_t **msg,
		     size_t *msg_len)
{
	uint32_t n;

	if (len < CNI_GRPC_PREFIX || buf[0] > 1)
		return -EPROTO;
	n = (uint32_t)buf[1] << 24 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4];
	if (n > max)
		return -EMSGSIZE;
	/* A compressed message could only come with an encoding we offered:
	 * we offer none. A unary answer is exactly one message. */
	if (buf[0] || len - CNI_GRPC_PREFIX != n)
		return -EPROTO;
	*msg = buf + CNI_GRPC_PREFIX;
	*msg_len = n;
	return 0;
}

int cni_grpc_status_parse(const char *v, size_t len, int *status)
{
	int s = 0;

	if (len == 0 || len > 3)
		return -EPROTO;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EPROTO;
		s = s * 10 + (v[i] - '0');
	}
	if (s > 255)
		return -EPROTO;
	*status = s;
	return 0;
}

void cni_grpc_message_decode(const char *v, size_t len, char *out, size_t size)
{
	size_t o = 0;

	if (!size)
		return;
	for (size_t i = 0; i < len && o + 1 < size; i++) {
		int c = (unsigned char)v[i];

		if (c == '%' && i + 2 < len && cni_hex_digit(v[i + 1]) >= 0 &&
		    cni_hex_digit(v[i + 2]) >= 0) {
			c = cni_hex_digit(v[i + 1]) << 4 | cni_hex_digit(v[i + 2]);
			i += 2;
		}
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[o] = '\0';
}

const char *cni_grpc_status_name(int status)
{
	static const char *const names[] = {"OK",
					    "CANCELLED",
					    "UNKNOWN",
					    "INVALID_ARGUMENT",
					    "DEADLINE_EXCEEDED",
					    "NOT_FOUND",
					    "ALREADY_EXISTS",
					    "PERMISSION_DENIED",
					    "RESOURCE_EXHAUSTED",
					    "FAILED_PRECONDITION",
					    "ABORTED",
					    "OUT_OF_RANGE",
					    "UNIMPLEMENTED",
					    "INTERNAL",
					    "UNAVAILABLE",
					    "DATA_LOSS",
					    "UNAUTHENTICATED"};

	if (status < 0 || status > CNI_GRPC_STATUS_MAX)
		return "unknown";
	return names[status];
}

static int pack_framed(const ProtobufCMessage *m, uint8_t **out, size_t *len)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *p = malloc(n ? n : 1);
	int ret;

	if (!p)
		return -ENOMEM;
	protobuf_c_message_pack(m, p);
	ret = cni_grpc_frame(p, n, out, len);
	free(p);
	return ret;
}

int cni_podres_get_request(const char *ns, const char *name, uint8_t **out, size_t *len)
{
	V1__GetPodResourcesRequest req;
	/* protoc-c's strings are not const; packing only reads them. */
	char *n = strdup(name), *s = strdup(ns);
	int ret = -ENOMEM;

	if (n && s) {
		v1__get_pod_resources_request__init(&req);
		req.pod_name = n;
		req.pod_namespace = s;
		ret = pack_framed(&req.base, out, len);
	}
	free(n);
	free(s);
	return ret;
}

int cni_podres_list_request(uint8_t **out, size_t *len)
{
	V1__ListPodResourcesRequest req;

	v1__list_pod_resources_request__init(&req);
	return pack_framed(&req.base, out, len);
}

void cni_podres_devices_free(struct cni_podres_devices *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->ids[i]);
	free(d->ids);
	for (size_t i = 0; i < d->n_dra; i++) {
		free(d->dra[i].driver);
		free(d->dra[i].pool);
		free(d->dra[i].device);
		free(d->dra[i].claim);
	}
	free(d->dra);
	memset(d, 0, sizeof(*d));
}

/* The device-plugin IDs of container cr, appended to out (room made). */
static int collect_ids(const V1__ContainerResources *cr, struct cni_podres_devices *out)
{
	for (size_t d = 0; d < cr->n_devices; d++) {
		const V1__ContainerDevices *cd = cr->devices[d];

		for (size_t i = 0; i < cd->n_device_ids; i++) {
			if (dup_str(&out->ids[out->n], cd->device_ids[i]))
				return -ENOMEM;
			out->n++;
		}
	}
	return 0;
}

/* One named claim device into out->dra (room made). */
static int dra_add(const V1__DynamicResource *dr, const V1__ClaimResource *res,
		   struct cni_podres_devices *out)
{
	struct cni_podres_dra *e = &out->dra[out->n_dra];
	char claim[2 * CNI_PODRES_NAME_MAX + 2];

	if (check_snprintf(claim, sizeof(claim), "%s/%s",
			   dr->claim_namespace ? dr->claim_namespace : "",
			   dr->claim_name ? dr->claim_name : ""))
		copy_str(claim, sizeof(claim), "(a claim with an over-long name)");
	out->n_dra++;
	if (dup_str(&e->driver, res->driver_name) ||
	    dup_str(&e->pool, res->pool_name ? res->pool_name : "") ||
	    dup_str(&e->device, res->device_name) || dup_str(&e->claim, claim))
		return -ENOMEM;
	return 0;
}

/* The DRA claim devices of container cr, appended to out (room made). */
static int collect_dra(const V1__ContainerResources *cr, struct cni_podres_devices *out)
{
	for (size_t c = 0; c < cr->n_dynamic_resources; c++) {
		const V1__DynamicResource *dr = cr->dynamic_resources[c];

		for (size_t r = 0; r < dr->n_claim_resources; r++) {
			const V1__ClaimResource *res = dr->claim_resources[r];
			int ret;

			if (!res->driver_name || !*res->driver_name || !res->device_name ||
			    !*res->device_name) {
				out->n_dra_unnamed++;
				continue;
			}
			ret = dra_add(dr, res, out);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Every device ID and every DRA claim device of every container of pod p,
 * into out. */
static int collect(const V1__PodResources *p, struct cni_podres_devices *out)
{
	size_t ids = 0, dra = 0;
	int ret = 0;

	for (size_t c = 0; c < p->n_containers; c++) {
		const V1__ContainerResources *cr = p->containers[c];

		for (size_t d = 0; d < cr->n_devices; d++)
			ids += cr->devices[d]->n_device_ids;
		for (size_t d = 0; d < cr->n_dynamic_resources; d++)
			dra += cr->dynamic_resources[d]->n_claim_resources;
	}
	out->known = true;
	if ((ids && !(out->ids = calloc(ids, sizeof(*out->ids)))) ||
	    (dra && !(out->dra = calloc(dra, sizeof(*out->dra)))))
		return -ENOMEM;
	for (size_t c = 0; c < p->n_containers && !ret; c++) {
		ret = collect_ids(p->containers[c], out);
		if (!ret)
			ret = collect_dra(p->containers[c], out);
	}
	return ret;
}

static bool is_pod(const V1__PodResources *p, const char *ns, const char *name)
{
	return p && p->name && p->namespace_ && !strcmp(p->name, name) &&
	       !strcmp(p->namespace_, ns);
}

int cni_podres_decode_get(const uint8_t *msg, size_t len, const char *ns, const char *name,
			  struct cni_podres_devices *out)
{
	V1__GetPodResourcesResponse *r = v1__get_pod_resources_response__unpack(NULL, len, msg);
	int ret;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -EPROTO;
	/* Get answers for the pod asked about, or with an error status. */
	ret = is_pod(r->pod_resources, ns, name) ? collect(r->pod_resources, out) : -EPROTO;
	v1__get_pod_resources_response__free_unpacked(r, NULL);
	if (ret)
		cni_podres_devices_free(out);
	return ret;
}

int cni_podres_decode_list(const uint8_t *msg, size_t len, const char *ns, const char *name,
			   struct cni_podres_devices *out)
{
	V1__ListPodResourcesResponse *r = v1__list_pod_resources_response__unpack(NULL, len, msg);
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -EPROTO;
	for (size_t i = 0; i < r->n_pod_resources && !ret; i++) {
		if (!is_pod(r->pod_resources[i], ns, name))
			continue;
		if (out->known) /* the same pod twice: not kubelet's answer */
			ret = -EPROTO;
		else
			ret = collect(r->pod_resources[i], out);
	}
	v1__list_pod_resources_response__free_unpacked(r, NULL);
	if (ret)
		cni_podres_devices_free(out);
	return ret;
}
