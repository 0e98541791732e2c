// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "error.h"
#include "util.h"

int cni_errorf(struct cni_error *err, int ret, int code, const char *msg,
	       const char *details_fmt, ...)
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
