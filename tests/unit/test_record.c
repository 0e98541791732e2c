// SPDX-License-Identifier: Apache-2.0
/* The record codec (cni/state/record.c): every type both ways, the exact
 * bytes cni_json_dump() writes, unknown keys ignored, wrong types refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "state/record.h"

enum { HAS_NAME = 1 << 0, HAS_ON = 1 << 1, HAS_SUB = 1 << 2, HAS_FLAG = 1 << 3 };

struct sub {
	uint32_t a;
};

struct all {
	char name[8];
	char *owned;
	int i;
	uint32_t u;
	uint16_t h;
	bool on;
	int color;
	uint64_t guid;
	unsigned char mac[6];
	unsigned char hw[20];
	unsigned int hw_len;
	char strs[3][8];
	unsigned int n_strs;
	uint32_t idx[3];
	unsigned int n_idx;
	struct sub sub;
};

static const struct cni_rec_key sub_keys[] = {
    {"a", CNI_REC_U32, CNI_REC_AT(struct sub, a), .opts = CNI_REC_REQUIRED},
    {NULL},
};

static const struct cni_rec_table sub_table = {.keys = sub_keys};

static const char *const colors[] = {"red", "green", NULL};

#define ALL(f) CNI_REC_AT(struct all, f)

static const struct cni_rec_key all_keys[] = {
    {"name", CNI_REC_STR, ALL(name), .flag = HAS_NAME, .opts = CNI_REC_REQUIRED},
    {"owned", CNI_REC_PSTR, ALL(owned)},
    {"i", CNI_REC_INT, ALL(i)},
    {"u", CNI_REC_U32, ALL(u)},
    {"h", CNI_REC_U16, ALL(h)},
    {"on", CNI_REC_BOOL, ALL(on), .flag = HAS_ON},
    {"color", CNI_REC_ENUM, ALL(color), .names = colors},
    {"guid", CNI_REC_GUID, ALL(guid)},
    {"mac", CNI_REC_MAC6, ALL(mac)},
    {"hw", CNI_REC_HWADDR, ALL(hw), .count_off = offsetof(struct all, hw_len)},
    {"strs", CNI_REC_STRS, offsetof(struct all, strs), 8, .count_off = offsetof(struct all, n_strs),
     .max = 3},
    {"idx", CNI_REC_U32S, ALL(idx), .count_off = offsetof(struct all, n_strs),
     .opts = CNI_REC_SAME_COUNT, .max = 3},
    {"sub", CNI_REC_OBJ, ALL(sub), .flag = HAS_SUB, .sub = &sub_table},
    {"flag", CNI_REC_FLAG, .flag = HAS_FLAG},
    {NULL},
};

static const struct cni_rec_table all_table = {.keys = all_keys};
static const struct cni_rec_table lenient_table = {.keys = all_keys, .null_absent = true};

#define ALL_JSON                                                                                   \
	"{\"name\":\"n\\\"1\",\"owned\":\"o/x\",\"i\":-5,\"u\":4294967295,\"h\":65535,"            \
	"\"on\":true,\"color\":\"green\",\"guid\":\"01:02:03:04:05:06:07:08\","                    \
	"\"mac\":\"aa:bb:cc:dd:ee:ff\",\"hw\":\"00:11:22\",\"strs\":[\"x\",\"y\"],"                \
	"\"idx\":[7,4294967295],\"sub\":{\"a\":3},\"flag\":true}"

static struct json_object *parse(const char *s)
{
	const char *why;
	struct json_object *o = cni_json_parse(s, strlen(s), &why);

	cr_assert_not_null(o, "%s: %s", s, why);
	return o;
}

static int decode(const struct cni_rec_table *t, const char *s, struct all *a, uint32_t *flags)
{
	_cleanup_json_ struct json_object *o = parse(s);

	memset(a, 0, sizeof(*a));
	*flags = 0;
	return cni_record_decode(t, o, a, flags);
}

Test(record, every_type_round_trips_to_the_same_bytes)
{
	_cleanup_json_ struct json_object *o = NULL;
	_cleanup_free_ char *text = NULL, *dump = NULL;
	uint32_t flags;
	struct all a;

	cr_assert_eq(decode(&all_table, ALL_JSON, &a, &flags), 0);
	cr_assert_eq(flags, HAS_NAME | HAS_ON | HAS_SUB | HAS_FLAG);
	cr_assert_str_eq(a.name, "n\"1");
	cr_assert_str_eq(a.owned, "o/x");
	cr_assert_eq(a.i, -5);
	cr_assert_eq(a.u, UINT32_MAX);
	cr_assert_eq(a.h, UINT16_MAX);
	cr_assert(a.on);
	cr_assert_eq(a.color, 1);
	cr_assert_eq(a.guid, 0x0102030405060708ULL);
	cr_assert_eq(a.mac[5], 0xff);
	cr_assert_eq(a.hw_len, 3);
	cr_assert_eq(a.hw[2], 0x22);
	cr_assert_eq(a.n_strs, 2);
	cr_assert_str_eq(a.strs[1], "y");
	cr_assert_eq(a.idx[1], UINT32_MAX);
	cr_assert_eq(a.sub.a, 3);
	text = cni_record_text(&all_table, &a, flags);
	cr_assert_str_eq(text, ALL_JSON);
	/* What the previous release wrote through a json-c tree. */
	o = parse(text);
	dump = cni_json_dump(o, false);
	cr_assert_str_eq(text, dump);
	free(a.owned);
}

Test(record, absent_flags_not_written_null_pstr_is_empty)
{
	_cleanup_free_ char *text = NULL;
	struct all a = {.name = "n"};

	text = cni_record_text(&all_table, &a, 0);
	cr_assert_str_eq(text, "{\"owned\":\"\",\"i\":0,\"u\":0,\"h\":0,\"color\":\"red\","
			       "\"guid\":\"00:00:00:00:00:00:00:00\",\"mac\":\"00:00:00:00:00:00\","
			       "\"hw\":\"\",\"strs\":[],\"idx\":[]}");
}

Test(record, unknown_keys_ignored_old_forms_read)
{
	uint32_t flags;
	struct all a;

	cr_assert_eq(decode(&all_table,
			    "{\"name\":\"n\",\"newer\":{\"x\":[1]},\"on\":1,"
			    "\"guid\":-1,\"flag\":1}",
			    &a, &flags),
		     0);
	cr_assert(a.on);
	cr_assert_eq(a.guid, UINT64_MAX);
	cr_assert_eq(flags, HAS_NAME | HAS_ON | HAS_FLAG);
}

Test(record, wrong_types_and_bounds_refused)
{
	static const char *const bad[] = {
	    "[]",
	    "{}", /* name required */
	    "{\"name\":1}",
	    "{\"name\":\"123456789\"}", /* too long for char[8] */
	    "{\"name\":\"a\\u0000b\"}",
	    "{\"name\":\"n\",\"owned\":1}",
	    "{\"name\":\"n\",\"i\":\"1\"}",
	    "{\"name\":\"n\",\"i\":2147483648}",
	    "{\"name\":\"n\",\"u\":-1}",
	    "{\"name\":\"n\",\"h\":65536}",
	    "{\"name\":\"n\",\"on\":\"yes\"}",
	    "{\"name\":\"n\",\"color\":\"blue\"}",
	    "{\"name\":\"n\",\"guid\":\"01:02\"}",
	    "{\"name\":\"n\",\"mac\":\"aa:bb:cc:dd:ee\"}",
	    "{\"name\":\"n\",\"hw\":\"zz\"}",
	    "{\"name\":\"n\",\"strs\":[\"a\",\"b\",\"c\",\"d\"]}",
	    "{\"name\":\"n\",\"strs\":[1]}",
	    "{\"name\":\"n\",\"strs\":[\"a\"],\"idx\":[1,2]}", /* not one per name */
	    "{\"name\":\"n\",\"sub\":{}}",
	    "{\"name\":\"n\",\"sub\":[]}",
	    "{\"name\":null}",
	};
	uint32_t flags;
	struct all a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(decode(&all_table, bad[i], &a, &flags), -EBADMSG, "%s", bad[i]);
		free(a.owned);
	}
}

Test(record, null_is_absent_when_the_table_says_so)
{
	uint32_t flags;
	struct all a;

	cr_assert_eq(decode(&lenient_table, "{\"name\":\"n\",\"on\":null}", &a, &flags), 0);
	cr_assert_eq(flags, HAS_NAME);
	cr_assert_eq(decode(&all_table, "{\"name\":\"n\",\"on\":null}", &a, &flags), -EBADMSG);
}
