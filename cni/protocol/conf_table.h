/* SPDX-License-Identifier: Apache-2.0 */
/* Configuration keys loaded from a table (cni/protocol/conf_table.c): each
 * key named once, with its type, its range and where it lands; one loader
 * walks the object, checks each value and fills the CNI error naming the
 * key's path ("ipam.subnet") and the fix. */
#ifndef CNI_CONF_TABLE_H
#define CNI_CONF_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "base/addr.h"
#include "base/error.h"

enum cni_key_type {
	CNI_KEY_STRING,	   /* const char *, borrowed; absent: NULL */
	CNI_KEY_BOOL,	   /* bool; absent: untouched */
	CNI_KEY_INT,	   /* int64_t from min to max; absent: untouched */
	CNI_KEY_OBJECT,	   /* struct json_object *, borrowed; absent: untouched */
	CNI_KEY_ARRAY,	   /* struct json_object *, borrowed; absent: untouched */
	CNI_KEY_RDMA_NAME, /* char[CNI_RDMA_NAME_MAX], cni_rdma_name_valid's rule or
			    * "auto" (the load's ifname); absent: "" */
	CNI_KEY_CUSTOM,	   /* parse() decides, the value as found (NULL: absent) */
};

struct cni_conf_load;
struct cni_conf_key;

/* One key as the loader found it: its value (NULL when absent), its path
 * for messages, and the field it lands in. */
struct cni_conf_field {
	const struct cni_conf_key *k;
	struct json_object *v;
	const char *where;
	void *at;
};

/* A table entry. key NULL is a step that checks what the entries before it
 * filled (at is the loaded struct itself). */
struct cni_conf_key {
	const char *key;
	enum cni_key_type type;
	size_t off; /* offsetof the field in the loaded struct */
	int64_t min, max;
	int (*parse)(const struct cni_conf_load *l, const struct cni_conf_field *f);
};

/* Table entries, by type: the key and offsetof the field it lands in. */
#define CNI_CONF_STR(k, at)                                                                        \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_STRING, .off = (at)                                    \
	}
#define CNI_CONF_BOOL(k, at)                                                                       \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_BOOL, .off = (at)                                      \
	}
#define CNI_CONF_INT(k, at, lo, hi)                                                                \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_INT, .off = (at), .min = (lo), .max = (hi)             \
	}
#define CNI_CONF_OBJ(k, at)                                                                        \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_OBJECT, .off = (at)                                    \
	}
#define CNI_CONF_ARR(k, at)                                                                        \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_ARRAY, .off = (at)                                     \
	}
/* An RDMA device name (rdmaName): one rule and one message for every plugin. */
#define CNI_CONF_RDMA_NAME(k, at)                                                                  \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_RDMA_NAME, .off = (at)                                 \
	}
/* A key that needs its own logic: fn(l, f) with f->at the field at. */
#define CNI_CONF_PARSE(k, at, fn)                                                                  \
	{                                                                                          \
		.key = (k), .type = CNI_KEY_CUSTOM, .off = (at), .parse = (fn)                     \
	}
/* A check of what the entries before it filled. */
#define CNI_CONF_STEP(fn)                                                                          \
	{                                                                                          \
		.type = CNI_KEY_CUSTOM, .parse = (fn)                                              \
	}

/* What is loaded: keys looked up in obj (NULL: all absent), named in
 * messages under prefix (NULL at the top), landing in dst; arg is for the
 * parse functions, err takes the first failure; ifname (CNI_IFNAME) is what
 * an RDMA name of "auto" stands for. */
struct cni_conf_load {
	struct json_object *obj;
	const char *prefix;
	void *dst;
	void *arg;
	struct cni_error *err;
	const char *ifname;
};

/* A parse function's answer: the entries after it are not read, and the
 * load succeeds. */
#define CNI_CONF_DONE 1

/* Load keys[0..n) in order: 0, or the first entry's negative errno (err
 * filled by it, code 7 for a wrong type or a value out of range). */
int cni_conf_load(const struct cni_conf_load *l, const struct cni_conf_key *keys, size_t n);

/* The string key of obj named under prefix: absent is NULL and 0; another
 * type or an escaped NUL is code 7 naming "prefix.key". */
int cni_conf_string(struct json_object *obj, const char *prefix, const char *key, const char **out,
		    struct cni_error *err);

/* Which of spellings[0..n) s is (exact match): its index, or -EINVAL with code
 * 7 "\"where\" is \"s\"; it must be \"a\", \"b\" or \"c\"". */
int cni_conf_spelling(const char *where, const char *s, const char *const *spellings, size_t n,
		      struct cni_error *err);

#endif
