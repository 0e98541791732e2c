// SPDX-License-Identifier: Apache-2.0
/* The record codec: one key table, both directions (record.h). Written as
 * text straight from the table, without building a json-c tree (ib-sriov
 * saves a record twice an ADD). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "state/record.h"

/* Large enough for "xx:" per byte of any hardware address (20 bytes). */
#define HEX_MAX 64

static const void *at(const void *base, size_t off)
{
	return (const char *)base + off;
}

static unsigned int count_of(const struct cni_rec_key *k, const void *base)
{
	return *(const unsigned int *)at(base, k->count_off);
}

static void text_obj(struct cni_json_buf *b, const struct cni_rec_table *t, const void *base,
		     uint32_t flags);

static void text_num(struct cni_json_buf *b, int64_t v)
{
	char num[CNI_NUM_MAX];

	cni_json_put_raw(b, cni_i64_str(v, num));
}

static void text_hex(struct cni_json_buf *b, const unsigned char *p, size_t n)
{
	char buf[HEX_MAX];

	if (n > sizeof(buf) / 3)
		n = sizeof(buf) / 3;
	cni_hex_str(p, n, ':', buf, sizeof(buf));
	cni_json_put_str(b, buf);
}

static void text_guid(struct cni_json_buf *b, uint64_t guid)
{
	unsigned char bytes[8];

	for (int i = 7; i >= 0; i--, guid >>= 8)
		bytes[i] = (unsigned char)(guid & 0xff);
	text_hex(b, bytes, sizeof(bytes));
}

static void text_array(struct cni_json_buf *b, const struct cni_rec_key *k, const void *base)
{
	unsigned int n = count_of(k, base);

	cni_json_put_raw(b, "[");
	for (unsigned int i = 0; i < n; i++) {
		if (i)
			cni_json_put_raw(b, ",");
		if (k->type == CNI_REC_U32S)
			text_num(b, ((const uint32_t *)at(base, k->off))[i]);
		else
			cni_json_put_str(b, (const char *)at(base, k->off + i * k->size));
	}
	cni_json_put_raw(b, "]");
}

static void text_one(struct cni_json_buf *b, const struct cni_rec_key *k, const void *base,
		     uint32_t flags)
{
	const void *p = at(base, k->off);
	const char *s;

	switch (k->type) {
	case CNI_REC_STR:
		cni_json_put_str(b, p);
		break;
	case CNI_REC_PSTR:
		s = *(char *const *)p;
		if (!s)
			s = "";
		cni_json_put_str(b, s);
		break;
	case CNI_REC_INT:
		text_num(b, *(const int *)p);
		break;
	case CNI_REC_U32:
		text_num(b, *(const uint32_t *)p);
		break;
	case CNI_REC_U16:
		text_num(b, *(const uint16_t *)p);
		break;
	case CNI_REC_BOOL:
		cni_json_put_raw(b, *(const bool *)p ? "true" : "false");
		break;
	case CNI_REC_FLAG:
		cni_json_put_raw(b, "true");
		break;
	case CNI_REC_ENUM:
		cni_json_put_str(b, k->names[*(const int *)p]);
		break;
	case CNI_REC_GUID:
		text_guid(b, *(const uint64_t *)p);
		break;
	case CNI_REC_MAC6:
		text_hex(b, p, 6);
		break;
	case CNI_REC_HWADDR:
		text_hex(b, p, count_of(k, base));
		break;
	case CNI_REC_STRS:
	case CNI_REC_U32S:
		text_array(b, k, base);
		break;
	case CNI_REC_OBJ:
		text_obj(b, k->sub, p, flags);
		break;
	}
}

static void text_obj(struct cni_json_buf *b, const struct cni_rec_table *t, const void *base,
		     uint32_t flags)
{
	bool first = true;

	cni_json_put_raw(b, "{");
	for (const struct cni_rec_key *k = t->keys; k->name; k++) {
		if (k->flag && !(flags & k->flag))
			continue;
		cni_json_put_key(b, k->name, first);
		first = false;
		text_one(b, k, base, flags);
	}
	cni_json_put_raw(b, "}");
}

char *cni_record_text(const struct cni_rec_table *t, const void *base, uint32_t flags)
{
	struct cni_json_buf b = {0};

	text_obj(&b, t, base, flags);
	return cni_json_buf_take(&b);
}

static int decode_int(struct json_object *v, int64_t min, int64_t max, int64_t *out)
{
	if (!json_object_is_type(v, json_type_int))
		return -EBADMSG;
	errno = 0;
	*out = json_object_get_int64(v);
	if (errno || *out < min || *out > max)
		return -EBADMSG;
	return 0;
}

static int decode_str(struct json_object *v, const char **s)
{
	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	*s = json_object_get_string(v);
	/* An embedded NUL would make two records look alike. */
	if (strlen(*s) != (size_t)json_object_get_string_len(v))
		return -EBADMSG;
	return 0;
}

static int decode_copy(struct json_object *v, char *dst, size_t size)
{
	const char *s;

	if (decode_str(v, &s) || copy_str(dst, size, s))
		return -EBADMSG;
	return 0;
}

static int decode_pstr(struct json_object *v, char **dst)
{
	const char *s;

	if (decode_str(v, &s))
		return -EBADMSG;
	free(*dst);
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

static int decode_guid(struct json_object *v, uint64_t *g)
{
	unsigned char b[8];
	const char *s;

	if (json_object_is_type(v, json_type_int)) {
		/* 0.x records: the u64 stored as a signed integer. */
		*g = (uint64_t)json_object_get_int64(v);
		return 0;
	}
	if (decode_str(v, &s) || !cni_hex_parse(s, b, sizeof(b)))
		return -EBADMSG;
	*g = 0;
	for (size_t i = 0; i < sizeof(b); i++)
		*g = *g << 8 | b[i];
	return 0;
}

static int decode_mac6(struct json_object *v, unsigned char *mac)
{
	const char *s;

	if (decode_str(v, &s) || !cni_hex_parse(s, mac, 6))
		return -EBADMSG;
	return 0;
}

/* Any length up to size bytes; "" is none. */
static int decode_hwaddr(const struct cni_rec_key *k, struct json_object *v, void *base)
{
	unsigned int *len = (unsigned int *)(void *)((char *)base + k->count_off);
	const char *s;
	size_t n;

	if (decode_str(v, &s))
		return -EBADMSG;
	if (!*s) {
		*len = 0;
		return 0;
	}
	n = (strlen(s) + 1) / 3;
	if (n > k->size || !cni_hex_parse(s, (unsigned char *)base + k->off, n))
		return -EBADMSG;
	*len = (unsigned int)n;
	return 0;
}

static int decode_enum(const struct cni_rec_key *k, struct json_object *v, int *out)
{
	const char *s;

	if (decode_str(v, &s))
		return -EBADMSG;
	for (int i = 0; k->names[i]; i++)
		if (!strcmp(s, k->names[i])) {
			*out = i;
			return 0;
		}
	return -EBADMSG;
}

static int decode_elem(const struct cni_rec_key *k, struct json_object *e, void *base, size_t i)
{
	char *p = (char *)base + k->off;
	int64_t n;

	if (k->type == CNI_REC_STRS)
		return decode_copy(e, p + i * k->size, k->size);
	if (decode_int(e, 0, UINT32_MAX, &n))
		return -EBADMSG;
	((uint32_t *)(void *)p)[i] = (uint32_t)n;
	return 0;
}

static int decode_array(const struct cni_rec_key *k, struct json_object *v, void *base)
{
	unsigned int *count = (unsigned int *)(void *)((char *)base + k->count_off);
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(v);
	if (n > k->max || ((k->opts & CNI_REC_SAME_COUNT) && n != *count))
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		int ret = decode_elem(k, json_object_array_get_idx(v, i), base, i);

		if (ret)
			return ret;
	}
	*count = (unsigned int)n;
	return 0;
}

static int decode_num(const struct cni_rec_key *k, struct json_object *v, void *p)
{
	int64_t n;

	switch (k->type) {
	case CNI_REC_INT:
		if (decode_int(v, INT32_MIN, INT32_MAX, &n))
			return -EBADMSG;
		*(int *)p = (int)n;
		return 0;
	case CNI_REC_U32:
		if (decode_int(v, 0, UINT32_MAX, &n))
			return -EBADMSG;
		*(uint32_t *)p = (uint32_t)n;
		return 0;
	case CNI_REC_U16:
		if (decode_int(v, 0, UINT16_MAX, &n))
			return -EBADMSG;
		*(uint16_t *)p = (uint16_t)n;
		return 0;
	default: /* BOOL: 0.x records wrote 0/1 */
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_boolean))
			return -EBADMSG;
		*(bool *)p = json_object_get_int64(v) != 0;
		return 0;
	}
}

static int decode_one(const struct cni_rec_key *k, struct json_object *v, void *base,
		      uint32_t *flags)
{
	void *p = (char *)base + k->off;

	switch (k->type) {
	case CNI_REC_STR:
		return decode_copy(v, p, k->size);
	case CNI_REC_PSTR:
		return decode_pstr(v, p);
	case CNI_REC_INT:
	case CNI_REC_U32:
	case CNI_REC_U16:
	case CNI_REC_BOOL:
		return decode_num(k, v, p);
	case CNI_REC_ENUM:
		return decode_enum(k, v, p);
	case CNI_REC_GUID:
		return decode_guid(v, p);
	case CNI_REC_MAC6:
		return decode_mac6(v, p);
	case CNI_REC_HWADDR:
		return decode_hwaddr(k, v, base);
	case CNI_REC_STRS:
	case CNI_REC_U32S:
		return decode_array(k, v, base);
	case CNI_REC_OBJ:
		return cni_record_decode(k->sub, v, p, flags);
	case CNI_REC_FLAG:
		break;
	}
	return -EBADMSG;
}

int cni_record_decode(const struct cni_rec_table *t, struct json_object *o, void *base,
		      uint32_t *flags)
{
	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	for (const struct cni_rec_key *k = t->keys; k->name; k++) {
		struct json_object *v;
		int ret;

		if (!json_object_object_get_ex(o, k->name, &v) || (t->null_absent && !v)) {
			if (k->opts & CNI_REC_REQUIRED)
				return -EBADMSG;
			continue;
		}
		if (k->type == CNI_REC_FLAG) {
			/* Lenient as 0.x was: any true value. */
			if (json_object_get_int64(v) || json_object_get_boolean(v))
				*flags |= k->flag;
			continue;
		}
		ret = decode_one(k, v, base, flags);
		if (ret)
			return ret;
		*flags |= k->flag;
	}
	return 0;
}
