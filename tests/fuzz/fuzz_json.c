// SPDX-License-Identifier: Apache-2.0
/* JSON: parse, Go-style dump (pretty and compact), reparse, typed lookups.
 * A dump must parse again, and dumping must settle after one round. */
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

/* Parse text (it must parse) and dump it again. */
static char *redump(const char *text, bool indent)
{
	_cleanup_json_ struct json_object *o = NULL;
	const char *why;

	if (!text || !(o = cni_json_parse(text, strlen(text), &why)))
		abort();
	return cni_json_dump(o, indent);
}

/* A dump parses, and after one round (invalid UTF-8 printed as \ufffd
 * comes back as the character itself) dumping is a fixed point. */
static void round_trip(struct json_object *o, bool indent)
{
	_cleanup_free_ char *first = cni_json_dump(o, indent), *a = redump(first, indent),
			    *b = redump(a, indent);

	if (!b || strcmp(a, b))
		abort();
}

static void lookups(struct json_object *o)
{
	struct cni_error err = {0};
	struct json_object *sub;
	const char *s;
	int64_t i;
	bool b;

	cni_json_get(o, "cniVersion");
	fuzz_check_error(&err, cni_json_string(o, "name", "name", &s, &err));
	memset(&err, 0, sizeof(err));
	fuzz_check_error(&err, cni_json_bool(o, "trust", "trust", &b, &err));
	memset(&err, 0, sizeof(err));
	fuzz_check_error(&err,
			 cni_json_int(o, "mtu", "mtu", (struct cni_int_range){0, 65535}, &i, &err));
	memset(&err, 0, sizeof(err));
	fuzz_check_error(&err, cni_json_object(o, "ipam", "ipam", &sub, &err));
	memset(&err, 0, sizeof(err));
	fuzz_check_error(&err, cni_json_array(o, "ranges", "ranges", &sub, &err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_json_ struct json_object *o = NULL;
	const char *why = NULL;

	o = cni_json_parse((const char *)data, size, &why);
	if (!o) {
		if (!why || !*why)
			abort();
		return 0;
	}
	/* A bare top-level number does not parse without a byte after it
	 * (json-c waits for more digits): round-trip what CNI sends. */
	if (json_object_is_type(o, json_type_object) || json_object_is_type(o, json_type_array)) {
		round_trip(o, true);
		round_trip(o, false);
	}
	lookups(o);
	return 0;
}
