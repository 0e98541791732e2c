/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_JSON_H
#define CNI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "base/error.h"

/* Look key up in obj the way Go's encoding/json matches struct fields: an
 * exact match first, then a case-insensitive one. JSON null counts as absent.
 * Borrowed; valid while obj lives. NULL when absent or obj is not an object. */
struct json_object *cni_json_get(struct json_object *obj, const char *key);

/* The C string of v, a JSON string: one holding an escaped NUL (\u0000,
 * which C would silently truncate) is code 7 naming `where`. */
int cni_json_str(struct json_object *v, const char *where, const char **out, struct cni_error *err);

/* Hostile-input checks of a parsed request before anything reads it: raw
 * must be well-formed UTF-8 (code 6, the offset named), and no string or
 * key of root may hold an escaped NUL (code 7 naming the key's path), but
 * the string of a top-level key in exempt (NULL-terminated, or NULL), which
 * the caller reads with its own care. */
int cni_json_check_input(struct json_object *root, const char *raw, size_t len,
			 const char *const *exempt, struct cni_error *err);

/* Typed lookups. 0 when present with the right type, -ENOENT when absent
 * (out untouched), -EINVAL when of another type: err gets code 7 naming
 * `where` (the key's path, e.g. "ipam.subnet"; NULL: the key itself) and the
 * expected type. */
int cni_json_string(struct json_object *obj, const char *key, const char *where, const char **out,
		    struct cni_error *err);
int cni_json_bool(struct json_object *obj, const char *key, const char *where, bool *out,
		  struct cni_error *err);
/* The bounds an integer must be within (both included). */
struct cni_int_range {
	int64_t min, max;
};
int cni_json_int(struct json_object *obj, const char *key, const char *where,
		 struct cni_int_range range, int64_t *out, struct cni_error *err);
int cni_json_object(struct json_object *obj, const char *key, const char *where,
		    struct json_object **out, struct cni_error *err);
int cni_json_array(struct json_object *obj, const char *key, const char *where,
		   struct json_object **out, struct cni_error *err);

/* Serialise as Go's json.MarshalIndent(v, "", "    ") does (4-space indent,
 * Go's string escaping, no trailing newline); compact when indent is false.
 * Invalid UTF-8 is printed as \ufffd, as Go does: the output is always valid.
 * Returns a malloc'd string the caller frees, or NULL with errno set. */
char *cni_json_dump(struct json_object *o, bool indent);

/* JSON text written directly, byte for byte as cni_json_dump() writes it
 * compact: for records built from a table, without a json-c tree. */
struct cni_json_buf {
	char *p;
	size_t len, cap;
	bool oom; /* an allocation failed: cni_json_buf_take() says so */
};

/* Append s as is (a number, a literal, a bracket). */
void cni_json_put_raw(struct cni_json_buf *b, const char *s);

/* Append s as a JSON string, escaped as cni_json_dump() escapes it. */
void cni_json_put_str(struct cni_json_buf *b, const char *s);

/* Append "key": (after a comma unless first). */
void cni_json_put_key(struct cni_json_buf *b, const char *key, bool first);

/* The text written (caller frees), or NULL with errno ENOMEM; b is reset. */
char *cni_json_buf_take(struct cni_json_buf *b);

/* Parse a whole buffer as one JSON value; trailing non-space is an error.
 * On failure returns NULL and points *why at a static description. */
struct json_object *cni_json_parse(const char *buf, size_t len, const char **why);

#endif
