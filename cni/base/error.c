// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"

#define CUT_MARK "..."

/* A text cut to fit len bytes ends on a UTF-8 character boundary with
 * CUT_MARK: shortened, never emptied, and still valid UTF-8 when the whole
 * was (the error reaches the runtime as a JSON string). */
static void mark_cut(char *buf, size_t len)
{
	size_t end = len - sizeof(CUT_MARK);

	/* Back over continuation bytes to the start of the cut character. */
	while (end > 0 && ((unsigned char)buf[end] & 0xc0) == 0x80)
		end--;
	memcpy(buf + end, CUT_MARK, sizeof(CUT_MARK));
}

static void copy_bounded(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n < len) {
		memcpy(dst, src, n + 1);
		return;
	}
	memcpy(dst, src, len - 1);
	mark_cut(dst, len);
}

/* The msg an error gets when its caller had none to give. */
static void fallback_msg(struct cni_error *err, int ret)
{
	if (ret < 0)
		copy_bounded(err->msg, sizeof(err->msg), strerror(-ret));
	else
		snprintf(err->msg, sizeof(err->msg), "error (code %d)", err->code);
}

int cni_errorf(struct cni_error *err, int ret, int code, const char *msg, const char *details_fmt,
	       ...)
{
	va_list ap;
	int n;

	if (!err || err->code)
		return ret;
	err->code = code;
	if (msg && *msg)
		copy_bounded(err->msg, sizeof(err->msg), msg);
	else
		fallback_msg(err, ret);
	err->details[0] = '\0';
	if (details_fmt) {
		va_start(ap, details_fmt);
		/* Truncated details still beat none. */
		n = vsnprintf(err->details, sizeof(err->details), details_fmt, ap);
		va_end(ap);
		if (n >= (int)sizeof(err->details))
			mark_cut(err->details, sizeof(err->details));
	}
	return ret;
}

int cni_error_adopt(struct cni_error *dst, const struct cni_error *src, int ret)
{
	if (dst && src && !dst->code && src->code) {
		dst->code = src->code;
		if (*src->msg)
			copy_bounded(dst->msg, sizeof(dst->msg), src->msg);
		else
			fallback_msg(dst, ret);
		copy_bounded(dst->details, sizeof(dst->details), src->details);
	}
	return ret;
}

void cni_error_prefix(struct cni_error *err, const char *prefix)
{
	char msg[sizeof(err->msg)];

	if (!err->code)
		return;
	int n = snprintf(msg, sizeof(msg), "%s: %s", prefix, err->msg);

	/* Truncation keeps the prefix, which says where the error came from. */
	if (n < 0)
		return;
	if (n >= (int)sizeof(msg))
		mark_cut(msg, sizeof(msg));
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

static cni_die_printer die_printer;

void cni_die_set_printer(cni_die_printer print)
{
	die_printer = print;
}

void cni_die(int code, const char *msg, const char *details)
{
	struct cni_error err = {0};

	cni_errorf(&err, -EIO, code, msg, details ? "%s" : NULL, details);
	if (die_printer)
		die_printer(&err);
	else
		fprintf(stderr, "%s: %s\n", err.msg, err.details);
	fflush(stdout);
	_exit(1);
}
