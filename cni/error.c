// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "util.h"

int cni_errorf(struct cni_error *err, int ret, int code, const char *msg, const char *details_fmt,
	       ...)
{
	va_list ap;

	if (!err || err->code)
		return ret;
	err->code = code;
	copy_str(err->msg, sizeof(err->msg), msg);
	err->details[0] = '\0';
	if (details_fmt) {
		va_start(ap, details_fmt);
		/* Truncated details still beat none. */
		vsnprintf(err->details, sizeof(err->details), details_fmt, ap);
		va_end(ap);
	}
	return ret;
}

int cni_error_adopt(struct cni_error *dst, const struct cni_error *src, int ret)
{
	if (dst && src && !dst->code && src->code) {
		dst->code = src->code;
		copy_str(dst->msg, sizeof(dst->msg), src->msg);
		copy_str(dst->details, sizeof(dst->details), src->details);
	}
	return ret;
}

void cni_error_prefix(struct cni_error *err, const char *prefix)
{
	char msg[sizeof(err->msg)];

	if (!err->code)
		return;
	/* Truncation keeps the prefix, which says where the error came from. */
	if (snprintf(msg, sizeof(msg), "%s: %s", prefix, err->msg) < 0)
		return;
	memcpy(err->msg, msg, sizeof(msg));
}

void cni_error_recode(struct cni_error *err, int code)
{
	if (err->code)
		err->code = code;
}

void cni_error_clear(struct cni_error *err)
{
	char version[sizeof(err->version)];

	/* The request's version outlives the error it was kept for. */
	memcpy(version, err->version, sizeof(version));
	memset(err, 0, sizeof(*err));
	memcpy(err->version, version, sizeof(version));
}

int cni_error_code_for_errno(int ret)
{
	switch (-ret) {
	case EAGAIN:
	case EBUSY:
	case ETIMEDOUT:
		return CNI_ERR_TRY_AGAIN;
	case EIO:
		return CNI_ERR_IO;
	case EPERM:
	case EACCES:
		return CNI_ERR_PERMISSION;
	default:
		return CNI_ERR_INTERNAL;
	}
}
