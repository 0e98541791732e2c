// SPDX-License-Identifier: Apache-2.0
/* Go-compatible key matching and serialisation. */
#include <criterion/criterion.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "base/json.h"
#include "base/util.h"

static struct json_object *parse(const char *s)
{
	const char *why;
	struct json_object *o = cni_json_parse(s, strlen(s), &why);

	cr_assert_not_null(o, "%s: %s", s, why);
	return o;
}

Test(json, exact_match_wins_then_case_insensitive)
{
	_cleanup_json_ struct json_object *o =
	    parse("{\"HostPort\": 1, \"hostPort\": 2, \"Other\": 3}");

	cr_assert_eq(json_object_get_int(cni_json_get(o, "hostPort")), 2);
	cr_assert_eq(json_object_get_int(cni_json_get(o, "HostPort")), 1);
	cr_assert_eq(json_object_get_int(cni_json_get(o, "other")), 3);
	cr_assert_null(cni_json_get(o, "missing"));
}

Test(json, null_counts_as_absent)
{
	_cleanup_json_ struct json_object *o = parse("{\"a\": null}");
	struct cni_error err = {0};
	const char *s;

	cr_assert_eq(cni_json_string(o, "a", "a", &s, &err), -ENOENT);
	cr_assert_eq(err.code, 0);
}

Test(json, typed_lookup_errors_name_the_key)
{
	_cleanup_json_ struct json_object *o = parse("{\"mtu\": \"big\", \"vlan\": 5000}");
	struct cni_error err = {0};
	int64_t n;

	cr_assert_eq(cni_json_int(o, "mtu", "mtu", (struct cni_int_range){0, 65535}, &n, &err),
		     -EINVAL);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(err.details, "\"mtu\" must be an integer from 0 to 65535");
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_json_int(o, "vlan", "vlan", (struct cni_int_range){0, 4094}, &n, &err),
		     -ERANGE);
	cr_assert_str_eq(err.details, "\"vlan\" is 5000; it must be from 0 to 4094");
}

Test(json, dump_matches_go_marshal_indent)
{
	_cleanup_json_ struct json_object *o =
	    parse("{\"a\": [1, \"x<y>&z\"], \"b\": {}, \"c\": [], \"d\": \"/p\\n\", \"e\": true}");
	_cleanup_free_ char *pretty = cni_json_dump(o, true);
	_cleanup_free_ char *compact = cni_json_dump(o, false);

	cr_assert_str_eq(pretty, "{\n"
				 "    \"a\": [\n"
				 "        1,\n"
				 "        \"x\\u003cy\\u003e\\u0026z\"\n"
				 "    ],\n"
				 "    \"b\": {},\n"
				 "    \"c\": [],\n"
				 "    \"d\": \"/p\\n\",\n"
				 "    \"e\": true\n"
				 "}");
	cr_assert_str_eq(compact, "{\"a\":[1,\"x\\u003cy\\u003e\\u0026z\"],\"b\":{},\"c\":[],"
				  "\"d\":\"/p\\n\",\"e\":true}");
}

Test(json, parse_rejects_trailing_garbage_and_nul)
{
	const char *why;

	cr_assert_null(cni_json_parse("{} x", 4, &why));
	cr_assert_not_null(why);
	json_object_put(cni_json_parse("{}\n\t ", 5, &why));
	cr_assert_null(why);
	cr_assert_null(cni_json_parse("{\"a\":1", 6, &why));
	cr_assert_null(cni_json_parse("{}\0", 3, &why));
	cr_assert_not_null(why);
}

Test(json, escaped_nul_refused_naming_the_key)
{
	_cleanup_json_ struct json_object *o =
	    parse("{\"spoofchk\": \"on\\u0000\", \"ok\": \"on\", \"l\": [\"a\", \"b\\u0000\"]}");
	struct cni_error err = {0};
	const char *s = NULL;

	cr_assert_eq(cni_json_string(o, "spoofchk", "spoofchk", &s, &err), -EINVAL);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(err.details, "\"spoofchk\" contains a NUL character (\\u0000)");
	cr_assert_null(s);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_json_string(o, "ok", "ok", &s, &err), 0);
	cr_assert_str_eq(s, "on");
	cr_assert_eq(
	    cni_json_str(json_object_array_get_idx(cni_json_get(o, "l"), 1), "l[1]", &s, &err),
	    -EINVAL);
	cr_assert_str_eq(err.details, "\"l[1]\" contains a NUL character (\\u0000)");
}

Test(json, check_input_names_the_path)
{
	static const char in[] = "{\"a\": {\"b\": [1, {\"c\": \"x\\u0000\"}]}}";
	_cleanup_json_ struct json_object *o = parse(in);
	struct cni_error err = {0};

	cr_assert_eq(cni_json_check_input(o, in, strlen(in), NULL, &err), -EINVAL);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(err.details, "\"a.b[1].c\" contains a NUL character (\\u0000)");
}

Test(json, check_input_utf8)
{
	static const char good[] = "{\"a\": \"caf\xc3\xa9\", \"b\": \"\\ud800\"}";
	static const char bad[] = "{\"a\": \"caf\xe9\"}";
	_cleanup_json_ struct json_object *g = parse(good);
	_cleanup_json_ struct json_object *b = parse(bad);
	struct cni_error err = {0};

	cr_assert_eq(cni_json_check_input(g, good, strlen(good), NULL, &err), 0, "%s", err.details);
	cr_assert_eq(cni_json_check_input(b, bad, strlen(bad), NULL, &err), -EINVAL);
	assert_cni_error(&err, 6, "error unmarshall network config");
	cr_assert_str_eq(err.details, "invalid UTF-8 at byte 10");
}

Test(json, dump_is_always_valid_utf8)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *out = NULL;

	/* What an error msg may hold: a delegate's bytes, a truncated
	 * multi-byte character, a control character. */
	json_object_object_add(o, "msg",
			       json_object_new_string("a\xff\xc3\xa9\xe2\x80\xa8\x1b\xe2\x82"));
	out = cni_json_dump(o, false);
	cr_assert_str_eq(out, "{\"msg\":\"a\\ufffd\xc3\xa9\\u2028\\u001b\\ufffd\\ufffd\"}");
	cr_assert(utf8_valid(out, strlen(out), NULL));
}
