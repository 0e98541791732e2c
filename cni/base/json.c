// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"

struct json_object *cni_json_get(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	if (!obj || !json_object_is_type(obj, json_type_object))
		return NULL;
	if (json_object_object_get_ex(obj, key, &v))
		return v;
	json_object_object_foreach (obj, k, val) {
		if (!strcasecmp(k, key))
			return val;
	}
	return NULL;
}

static int wrong_type(struct cni_error *err, const char *where, const char *type)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
			  "\"%s\" must be %s", where, type);
}

static struct json_object *lookup(struct json_object *obj, const char *key, json_type type)
{
	struct json_object *v = cni_json_get(obj, key);

	if (!v)
		errno = ENOENT;
	else if (!json_object_is_type(v, type))
		errno = EINVAL;
	else
		return v;
	return NULL;
}

static int nul_inside(struct cni_error *err, const char *where)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
			  "\"%s\" contains a NUL character (\\u0000)", where);
}

int cni_json_str(struct json_object *v, const char *where, const char **out, struct cni_error *err)
{
	const char *s = json_object_get_string(v);

	if (strlen(s) != (size_t)json_object_get_string_len(v))
		return nul_inside(err, where);
	*out = s;
	return 0;
}

int cni_json_string(struct json_object *obj, const char *key, const char *where, const char **out,
		    struct cni_error *err)
{
	struct json_object *v = lookup(obj, key, json_type_string);

	if (!where)
		where = key;
	if (!v)
		return errno == ENOENT ? -ENOENT : wrong_type(err, where, "a string");
	return cni_json_str(v, where, out, err);
}

enum bad_value { VALUE_OK, VALUE_NUL, VALUE_NONFINITE };

/* Whether key is in the NULL-terminated list (NULL: none). */
static bool listed(const char *const *list, const char *key)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], key))
			return true;
	return false;
}

/* Depth-first: the first string value holding a NUL, or number that is not
 * finite (json-c takes NaN and Infinity; JSON and Go have no such numbers),
 * its path in path[] unless path is NULL. A string of a top-level key in
 * exempt is the caller's to check. */
static enum bad_value find_bad(struct json_object *o, char *path, size_t len, size_t used,
			       const char *const *exempt)
{
	enum bad_value bad;
	size_t n;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return strlen(json_object_get_string(o)) != (size_t)json_object_get_string_len(o)
			   ? VALUE_NUL
			   : VALUE_OK;
	case json_type_double:
		return isfinite(json_object_get_double(o)) ? VALUE_OK : VALUE_NONFINITE;
	case json_type_array:
		n = json_object_array_length(o);
		for (size_t i = 0; i < n; i++) {
			if (path)
				snprintf(path + used, len - used, "[%zu]", i);
			bad = find_bad(json_object_array_get_idx(o, i), path, len,
				       path ? used + strlen(path + used) : 0, NULL);
			if (bad)
				return bad;
		}
		break;
	case json_type_object: {
		/* Braces: the macro declares variables, which clang refuses
		 * right after a case label. */
		json_object_object_foreach (o, k, v) {
			if (listed(exempt, k) && json_object_is_type(v, json_type_string))
				continue;
			if (path)
				snprintf(path + used, len - used, "%s%s", used ? "." : "", k);
			bad = find_bad(v, path, len, path ? used + strlen(path + used) : 0, NULL);
			if (bad)
				return bad;
		}
		break;
	}
	default:
		break;
	}
	if (path)
		path[used] = '\0';
	return VALUE_OK;
}

/* Whether the string that ends at raw[i] (its closing quote) is a key: the
 * next character but JSON whitespace is ':'. */
static bool is_key(const char *raw, size_t len, size_t i)
{
	while (++i < len && strchr(" \t\r\n", raw[i]))
		;
	return i < len && raw[i] == ':';
}

/* json-c truncates a key at an escaped NUL before we can see it, so look
 * for the escape itself in the raw text, in keys only: string values are
 * checked in the tree (find_bad), where exempt ones can be told apart. */
static bool raw_key_has_nul_escape(const char *raw, size_t len)
{
	bool in_string = false, nul = false;

	for (size_t i = 0; i < len; i++) {
		if (raw[i] == '"') {
			in_string = !in_string;
			if (!in_string && nul && is_key(raw, len, i))
				return true;
			nul = false;
		} else if (in_string && raw[i] == '\\') {
			if (len - i > 5 && !memcmp(raw + i + 1, "u0000", 5))
				nul = true;
			i++; /* the escaped character cannot end the string */
		}
	}
	return false;
}

int cni_json_check_input(struct json_object *root, const char *raw, size_t len,
			 const char *const *exempt, struct cni_error *err)
{
	char path[256] = "";
	size_t bad;

	if (!utf8_valid(raw, len, &bad))
		return cni_errorf(err, -EINVAL, CNI_ERR_DECODE, "error unmarshall network config",
				  "invalid UTF-8 at byte %zu", bad);
	/* Found first; its path is built only then, for the message. */
	switch (find_bad(root, NULL, 0, 0, exempt) ? find_bad(root, path, sizeof(path), 0, exempt)
						   : VALUE_OK) {
	case VALUE_NUL:
		return nul_inside(err, path);
	case VALUE_NONFINITE:
		return cni_errorf(err, -EINVAL, CNI_ERR_DECODE, "error unmarshall network config",
				  "\"%s\" is not a JSON number (NaN or Infinity)", path);
	case VALUE_OK:
		break;
	}
	if (raw_key_has_nul_escape(raw, len))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "a key contains a NUL character (\\u0000)");
	return 0;
}

int cni_json_bool(struct json_object *obj, const char *key, const char *where, bool *out,
		  struct cni_error *err)
{
	struct json_object *v = lookup(obj, key, json_type_boolean);

	if (!where)
		where = key;
	if (!v)
		return errno == ENOENT ? -ENOENT : wrong_type(err, where, "true or false");
	*out = json_object_get_boolean(v);
	return 0;
}

int cni_json_int(struct json_object *obj, const char *key, const char *where,
		 struct cni_int_range range, int64_t *out, struct cni_error *err)
{
	int64_t min = range.min, max = range.max;
	struct json_object *v = lookup(obj, key, json_type_int);
	int64_t n;

	if (!where)
		where = key;
	if (!v) {
		if (errno == ENOENT)
			return -ENOENT;
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"%s\" must be an integer from %" PRId64 " to %" PRId64, where,
				  min, max);
	}
	errno = 0;
	n = json_object_get_int64(v);
	if (errno || n < min || n > max)
		return cni_errorf(err, -ERANGE, CNI_ERR_INVALID_CONFIG, "invalid configuration",
				  "\"%s\" is %s; it must be from %" PRId64 " to %" PRId64, where,
				  json_object_to_json_string(v), min, max);
	*out = n;
	return 0;
}

int cni_json_object(struct json_object *obj, const char *key, const char *where,
		    struct json_object **out, struct cni_error *err)
{
	struct json_object *v = lookup(obj, key, json_type_object);

	if (!where)
		where = key;
	if (!v)
		return errno == ENOENT ? -ENOENT : wrong_type(err, where, "an object");
	*out = v;
	return 0;
}

int cni_json_array(struct json_object *obj, const char *key, const char *where,
		   struct json_object **out, struct cni_error *err)
{
	struct json_object *v = lookup(obj, key, json_type_array);

	if (!where)
		where = key;
	if (!v)
		return errno == ENOENT ? -ENOENT : wrong_type(err, where, "a list");
	*out = v;
	return 0;
}

static void put(struct cni_json_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(struct cni_json_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_indent(struct cni_json_buf *b, bool indent, int depth)
{
	if (!indent)
		return;
	put(b, "\n", 1);
	for (int i = 0; i < depth; i++)
		put(b, "    ", 4);
}

/* Go escapes <, > and & too, and U+2028/U+2029; invalid UTF-8 becomes
 * U+FFFD so that what we print is always valid JSON for libcni. */
static void put_string(struct cni_json_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;

	put(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		char esc[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
		size_t k, run = 0;

		/* Printable ASCII that needs no escape goes out as one run. */
		while (i + run < n && u[i + run] >= 0x20 && u[i + run] < 0x80 &&
		       !strchr("\"\\<>&", u[i + run]))
			run++;
		if (run) {
			put(b, s + i, run);
			i += run - 1;
			continue;
		}
		k = c < 0x80 ? 1 : utf8_seq(u + i, n - i, &cp);
		if (!k) {
			puts_(b, "\\ufffd");
		} else if (k > 1 && (cp == 0x2028 || cp == 0x2029)) {
			puts_(b, cp == 0x2028 ? "\\u2028" : "\\u2029");
			i += k - 1;
		} else if (k > 1) {
			put(b, s + i, k);
			i += k - 1;
		} else if (c == '"' || c == '\\') {
			put(b, "\\", 1);
			put(b, (const char *)&s[i], 1);
		} else if (c == '\n') {
			puts_(b, "\\n");
		} else if (c == '\r') {
			puts_(b, "\\r");
		} else if (c == '\t') {
			puts_(b, "\\t");
		} else {
			puts_(b, esc); /* below 0x20, or < > & */
		}
	}
	put(b, "\"", 1);
}

static void dump(struct cni_json_buf *b, struct json_object *o, bool indent, int depth)
{
	char num[64];
	size_t n, i = 0;

	switch (json_object_get_type(o)) {
	case json_type_null:
		puts_(b, "null");
		break;
	case json_type_boolean:
		puts_(b, json_object_get_boolean(o) ? "true" : "false");
		break;
	case json_type_int:
		if (json_object_get_int64(o) == INT64_MAX)
			puts_(b, cni_u64_str(json_object_get_uint64(o), num));
		else
			puts_(b, cni_i64_str(json_object_get_int64(o), num));
		break;
	case json_type_double:
		puts_(b, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		break;
	case json_type_string:
		put_string(b, json_object_get_string(o), (size_t)json_object_get_string_len(o));
		break;
	case json_type_array:
		n = json_object_array_length(o);
		if (!n) {
			puts_(b, "[]");
			break;
		}
		put(b, "[", 1);
		for (i = 0; i < n; i++) {
			if (i)
				put(b, ",", 1);
			put_indent(b, indent, depth + 1);
			dump(b, json_object_array_get_idx(o, i), indent, depth + 1);
		}
		put_indent(b, indent, depth);
		put(b, "]", 1);
		break;
	case json_type_object:
		if (!json_object_object_length(o)) {
			puts_(b, "{}");
			break;
		}
		put(b, "{", 1);
		json_object_object_foreach (o, k, v) {
			if (i++)
				put(b, ",", 1);
			put_indent(b, indent, depth + 1);
			put_string(b, k, strlen(k));
			puts_(b, indent ? ": " : ":");
			dump(b, v, indent, depth + 1);
		}
		put_indent(b, indent, depth);
		put(b, "}", 1);
		break;
	}
}

char *cni_json_dump(struct json_object *o, bool indent)
{
	struct cni_json_buf b = {0};

	dump(&b, o, indent, 0);
	if (b.oom || !b.p) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	return b.p;
}

void cni_json_put_raw(struct cni_json_buf *b, const char *s)
{
	puts_(b, s);
}

void cni_json_put_str(struct cni_json_buf *b, const char *s)
{
	put_string(b, s, strlen(s));
}

void cni_json_put_key(struct cni_json_buf *b, const char *key, bool first)
{
	if (!first)
		put(b, ",", 1);
	put_string(b, key, strlen(key));
	put(b, ":", 1);
}

char *cni_json_buf_take(struct cni_json_buf *b)
{
	char *p = b->p;

	if (b->oom || !p) {
		free(p);
		p = NULL;
		errno = ENOMEM;
	}
	*b = (struct cni_json_buf){0};
	return p;
}

struct json_object *cni_json_parse(const char *buf, size_t len, const char **why)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	size_t used;

	*why = NULL;
	if (!tok) {
		*why = "out of memory";
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		json_tokener_free(tok);
		*why = "invalid character NUL in input";
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		*why = e == json_tokener_continue ? "unexpected end of JSON input"
						  : json_tokener_error_desc(e);
		json_tokener_free(tok);
		return NULL;
	}
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	for (; used < len; used++) {
		if (!strchr(" \t\r\n", buf[used])) {
			json_object_put(o);
			*why = "invalid character after top-level value";
			return NULL;
		}
	}
	return o;
}
