// SPDX-License-Identifier: Apache-2.0
/* kubelet's answers: a gRPC body unframed, then decoded as Get's and as
 * List's response for one pod; grpc-status and grpc-message values. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "protocol/podres.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

static void decode(const uint8_t *msg, size_t len)
{
	struct cni_podres_devices d;
	int ret = cni_podres_decode_get(msg, len, "ns", "pod", &d);

	/* Every device ID found is a string of the message's bytes. */
	if (ret == 0 && (!d.known || (d.n && !d.ids)))
		abort();
	for (size_t i = 0; !ret && i < d.n; i++)
		if (!d.ids[i] || strlen(d.ids[i]) > len)
			abort();
	/* So is every DRA claim device's driver and name (never empty). */
	for (size_t i = 0; !ret && i < d.n_dra; i++)
		if (!d.dra[i].driver || !*d.dra[i].driver || !d.dra[i].device ||
		    !*d.dra[i].device || !d.dra[i].pool || !d.dra[i].claim ||
		    strlen(d.dra[i].device) > len)
			abort();
	cni_podres_devices_free(&d);
	ret = cni_podres_decode_list(msg, len, "ns", "pod", &d);
	if (ret && (d.n || d.ids || d.n_dra || d.dra))
		abort();
	cni_podres_devices_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *msg;
	size_t len;
	char text[64];
	int status;

	if (cni_grpc_unframe(data, size, 1u << 20, &msg, &len) == 0) {
		if (msg != data + CNI_GRPC_PREFIX || len != size - CNI_GRPC_PREFIX)
			abort();
		decode(msg, len);
	}
	decode(data, size);
	if (cni_grpc_status_parse((const char *)data, size, &status) == 0 &&
	    (status < 0 || status > 255 || size > 3))
		abort();
	cni_grpc_message_decode((const char *)data, size, text, sizeof(text));
	for (const char *p = text; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			abort();
	return 0;
}
