/* SPDX-License-Identifier: Apache-2.0 */
/* A client of kubelet's PodResources v1 API (gRPC over HTTP/2 on a unix
 * socket): which devices kubelet allocated to a pod. cni/protocol/podres.c speaks
 * HTTP/2 (libnghttp2), cni/protocol/podres_wire.c the gRPC framing and the protobuf
 * messages (protoc-c, from cni/protocol/podres.proto); nothing else speaks gRPC. */
#ifndef CNI_PODRES_H
#define CNI_PODRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define CNI_PODRES_SOCKET "/var/lib/kubelet/pod-resources/kubelet.sock"
/* The whole exchange (connect, Get, List) is bounded by this, or less. */
#define CNI_PODRES_TIMEOUT_MS 2000
/* The largest response message read: a List of every pod on a big node
 * (Multus's kubelet client allows the same 16 MiB). */
#define CNI_PODRES_MAX_MSG (16u << 20)
/* Pod names and namespaces are DNS subdomains (253) and labels (63). */
#define CNI_PODRES_NAME_MAX 253

/* gRPC status codes ibcni tells apart (grpc's doc/statuscodes.md). */
enum {
	CNI_GRPC_OK = 0,
	CNI_GRPC_UNKNOWN = 2,
	CNI_GRPC_UNIMPLEMENTED = 12,
	CNI_GRPC_STATUS_MAX = 16,
};
#define CNI_GRPC_PREFIX 5 /* compressed flag, 4-byte big-endian length */

/* The socket the client asks: CNI_PODRES_SOCKET; unit tests point it at a
 * temporary one. Nothing a production binary reads changes it. */
extern const char *cni_podres_socket;

/* One device of a DRA claim a container of the pod names, as kubelet
 * reports it (kubelet 1.31 on): the driver, its pool and the device's name
 * in the ResourceSlice; claim is "<namespace>/<name>" of the ResourceClaim. */
struct cni_podres_dra {
	char *driver, *pool, *device, *claim;
};

/* The device IDs of one pod, every container and resource, as kubelet has
 * them (device plugins' IDs: PCI addresses, auxiliary device names), and the
 * devices of its DRA claims. */
struct cni_podres_devices {
	char **ids;
	size_t n;
	struct cni_podres_dra *dra;
	size_t n_dra;
	/* Claim devices without driver or device name (kubelet 1.27-1.30 gives
	 * only CDI names, which do not say which device): never matched. */
	size_t n_dra_unnamed;
	bool known; /* kubelet knows the pod (List may not list it) */
};

/* Ask kubelet at socket for pod ns/name's devices, the whole exchange
 * within timeout_ms: Get, or List where Get answers UNIMPLEMENTED (before
 * 1.27) or UNKNOWN (gate off in 1.27-1.33, or a pod Get does not know).
 * 0 with *out filled (free it with cni_podres_devices_free); -ENOENT when
 * there is no socket (err untouched); else err filled, code 11 naming it. */
int cni_podres_pod_devices(const char *socket, const char *ns, const char *name,
			   unsigned int timeout_ms, struct cni_podres_devices *out,
			   struct cni_error *err);

/* Free what a decode or cni_podres_pod_devices filled; *d is emptied. */
void cni_podres_devices_free(struct cni_podres_devices *d);

/* --- podres_wire.c: framing and messages, no I/O --- */

/* One gRPC message: msg[len] behind the 5-byte prefix (uncompressed), in
 * *out (caller frees). 0, -EMSGSIZE past 4 GiB or -ENOMEM. */
int cni_grpc_frame(const uint8_t *msg, size_t len, uint8_t **out, size_t *out_len);

/* The one message of a unary response body buf[len]: *msg points into buf.
 * -EPROTO when truncated, followed by more bytes or compressed (we never
 * offer an encoding); -EMSGSIZE when its length is over max. */
int cni_grpc_unframe(const uint8_t *buf, size_t len, size_t max, const uint8_t **msg,
		     size_t *msg_len);

/* A grpc-status value v[len]: 0..16 in decimal (an unknown code is kept as
 * it is, up to 255). -EPROTO for anything else. */
int cni_grpc_status_parse(const char *v, size_t len, int *status);

/* A grpc-message value (percent-encoded) decoded into out[size], every
 * byte outside printable ASCII as '?', cut to fit. */
void cni_grpc_message_decode(const char *v, size_t len, char *out, size_t size);

/* The name of a gRPC status code ("UNIMPLEMENTED"), "unknown" past 16. */
const char *cni_grpc_status_name(int status);

/* Framed requests: Get for pod ns/name, or List. *out is the caller's. */
int cni_podres_get_request(const char *ns, const char *name, uint8_t **out, size_t *len);
int cni_podres_list_request(uint8_t **out, size_t *len);

/* Decode an (unframed) Get or List response into the devices of pod
 * ns/name. -EPROTO when it is not the message, or a Get answer names
 * another pod; -ENOMEM. A List without the pod gives known false. */
int cni_podres_decode_get(const uint8_t *msg, size_t len, const char *ns, const char *name,
			  struct cni_podres_devices *out);
int cni_podres_decode_list(const uint8_t *msg, size_t len, const char *ns, const char *name,
			   struct cni_podres_devices *out);

#endif
