/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_ARGS_H
#define CNI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include "base/error.h"

struct cni_kv {
	char *key;
	char *val;
};

struct cni_args {
	size_t n;
	struct cni_kv *kv;
	bool ignore_unknown; /* IgnoreUnknown=1|true (value case-insensitive) */
};

/* Longest KEY=VALUE pair taken from CNI_ARGS. */
#define CNI_ARGS_PAIR_MAX     4096
#define CNI_ARGS_PAIR_MAX_STR "4096"

/* Parse CNI_ARGS ("K=V;K2=V2"); a pair without exactly one '=', with a
 * control character or longer than CNI_ARGS_PAIR_MAX is code 4 naming the
 * pair. Empty items are skipped. Free with cni_args_free(). */
int cni_args_parse(const char *s, struct cni_args *args, struct cni_error *err);

/* Keys are matched case-sensitively, as Go matches its struct fields.
 * Unless IgnoreUnknown is set, a key outside known[] is code 4 listing them. */
int cni_args_check(const struct cni_args *args, const char *const *known, size_t n_known,
		   struct cni_error *err);

/* The value of key, borrowed; NULL when absent. */
const char *cni_args_get(const struct cni_args *args, const char *key);

/* Free what cni_args_parse() allocated; args is left empty. */
void cni_args_free(struct cni_args *args);

#endif
