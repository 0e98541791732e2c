// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "protocol/args.h"
#include "base/cleanup.h"

void cni_args_free(struct cni_args *args)
{
	for (size_t i = 0; i < args->n; i++) {
		free(args->kv[i].key);
		free(args->kv[i].val);
	}
	free(args->kv);
	memset(args, 0, sizeof(*args));
}

/* Why a pair is not one Go's types.LoadArgs would take (it splits on '='
 * and wants two parts), or that no runtime would send; NULL when good. */
static const char *bad_pair(const char *item, size_t len)
{
	const char *eq = memchr(item, '=', len);

	if (!eq)
		return "is not KEY=VALUE; separate pairs with ';'";
	if (memchr(eq + 1, '=', len - (size_t)(eq - item) - 1))
		return "holds a second '=' (Go plugins refuse it too); one KEY=VALUE per pair";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)item[i] < 0x20 || item[i] == 0x7f)
			return "holds a control character (a newline?); pairs are one line";
	/* Kubelet's values (pod name, namespace, UID, sandbox ID) are short. */
	if (len > CNI_ARGS_PAIR_MAX)
		return "is longer than " CNI_ARGS_PAIR_MAX_STR " bytes";
	return NULL;
}

static int add_pair(struct cni_args *args, const char *item, size_t len, struct cni_error *err)
{
	const char *eq = memchr(item, '=', len), *why = bad_pair(item, len);
	size_t show = len > 64 ? 64 : len;
	struct cni_kv *kv;

	/* Named by its first bytes (the pair may be what is too long), cut
	 * between characters. */
	while (show < len && show > 0 && ((unsigned char)item[show] & 0xc0) == 0x80)
		show--;
	if (why)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV,
				  "ARGS: invalid pair in CNI_ARGS", "\"%.*s%s\" (%zu bytes) %s",
				  (int)show, item, show < len ? "..." : "", len, why);
	kv = realloc(args->kv, (args->n + 1) * sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	args->kv = kv;
	kv = &args->kv[args->n];
	kv->key = strndup(item, (size_t)(eq - item));
	kv->val = strndup(eq + 1, len - (size_t)(eq - item) - 1);
	if (!kv->key || !kv->val) {
		free(kv->key);
		free(kv->val);
		return -ENOMEM;
	}
	args->n++;
	if (!strcmp(kv->key, "IgnoreUnknown"))
		args->ignore_unknown = !strcasecmp(kv->val, "1") || !strcasecmp(kv->val, "true");
	return 0;
}

int cni_args_parse(const char *s, struct cni_args *args, struct cni_error *err)
{
	const char *p = s ? s : "";
	int ret;

	memset(args, 0, sizeof(*args));
	while (*p) {
		size_t len = strcspn(p, ";");

		if (len) {
			ret = add_pair(args, p, len, err);
			if (ret) {
				cni_args_free(args);
				return ret;
			}
		}
		p += len;
		if (*p == ';')
			p++;
	}
	return 0;
}

const char *cni_args_get(const struct cni_args *args, const char *key)
{
	for (size_t i = 0; i < args->n; i++)
		if (!strcmp(args->kv[i].key, key))
			return args->kv[i].val;
	return NULL;
}

int cni_args_check(const struct cni_args *args, const char *const *known, size_t n_known,
		   struct cni_error *err)
{
	char list[768] = "";
	size_t used = 0;

	if (args->ignore_unknown)
		return 0;
	for (size_t i = 0; i < args->n; i++) {
		bool found = !strcmp(args->kv[i].key, "IgnoreUnknown");

		for (size_t k = 0; k < n_known && !found; k++)
			found = !strcmp(args->kv[i].key, known[k]);
		if (found)
			continue;
		snprintf(list + used, sizeof(list) - used, "%s\"%s=%s\"", used ? " " : "",
			 args->kv[i].key, args->kv[i].val);
		used = strlen(list);
	}
	if (!used)
		return 0;
	return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV, "ARGS: unknown args in CNI_ARGS",
			  "[%s]; add IgnoreUnknown=1 to CNI_ARGS to ignore them", list);
}
