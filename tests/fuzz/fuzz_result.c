// SPDX-License-Identifier: Apache-2.0
/* A result (a delegate's stdout, a prevResult) in any version: decode,
 * copy, encode in every version. Encoding the decoded result in the
 * latest version and decoding that again must settle to the same JSON. */
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "fuzz.h"
#include "base/json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cni_log_setup("panic", NULL);
	return 0;
}

static char *encode(const struct cni_result *r, enum cni_version v)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct cni_error err = {0};
	int ret = cni_result_to_json(r, v, &o, &err);

	fuzz_check_error(&err, ret);
	return ret ? NULL : cni_json_dump(o, true);
}

/* Parse, decode and encode text again (it must parse and decode). */
static char *recode(const char *text)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct cni_result *r = NULL;
	struct cni_error err = {0};
	const char *why;
	char *out;

	if (!text || !(o = cni_json_parse(text, strlen(text), &why)) ||
	    cni_result_from_json(o, CNI_VERSION_LATEST, &r, &err))
		abort();
	out = encode(r, CNI_VERSION_LATEST);
	cni_result_free(r);
	return out;
}

/* After one round (invalid UTF-8 printed as \ufffd comes back as the
 * character itself), decoding and encoding is a fixed point. */
static void stable(const struct cni_result *r)
{
	_cleanup_free_ char *first = encode(r, CNI_VERSION_LATEST), *a = NULL, *b = NULL;

	if (!first)
		return;
	a = recode(first);
	b = recode(a);
	if (!b || strcmp(a, b))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct cni_result *r = NULL, *copy;
	struct cni_error err = {0};
	const char *why;
	int ret;

	if (size < 1)
		return 0;
	o = cni_json_parse((const char *)data + 1, size - 1, &why);
	if (!o)
		return 0;
	ret = cni_result_from_json(o, (enum cni_version)(data[0] % CNI_VERSION_COUNT), &r, &err);
	fuzz_check_error(&err, ret);
	if (ret)
		return 0;
	for (int v = 0; v < CNI_VERSION_COUNT; v++)
		free(encode(r, (enum cni_version)v));
	for (size_t i = 0; i < r->n_routes; i++)
		cni_result_route_via(r, i);
	copy = cni_result_dup(r);
	if (!copy)
		abort();
	stable(copy);
	cni_result_free(copy);
	cni_result_free(r);
	return 0;
}
