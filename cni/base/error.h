/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_ERROR_H
#define CNI_ERROR_H

/* Error codes of the CNI specification; 100 and up are ibcni's own. */
enum {
	CNI_ERR_INCOMPATIBLE_VERSION = 1,
	CNI_ERR_UNSUPPORTED_FIELD = 2,
	CNI_ERR_UNKNOWN_CONTAINER = 3,
	CNI_ERR_INVALID_ENV = 4,
	CNI_ERR_IO = 5,
	CNI_ERR_DECODE = 6,
	CNI_ERR_INVALID_CONFIG = 7,
	CNI_ERR_TRY_AGAIN = 11,
	CNI_ERR_NOT_AVAILABLE = 50,
	CNI_ERR_LIMITED_CONNECTIVITY = 51,
	CNI_ERR_INTERNAL = 100,	     /* a system call or kernel request failed */
	CNI_ERR_DEVICE = 101,	     /* device missing or in an unusable state */
	CNI_ERR_PERMISSION = 102,    /* a needed capability is missing */
	CNI_ERR_DELEGATE = 103,	     /* a delegated plugin misbehaved */
	CNI_ERR_RDMA_MODE = 104,     /* RDMA netns mode is shared, exclusive needed */
	CNI_ERR_NO_ADDRESS = 110,    /* IPAM: a range set is exhausted */
	CNI_ERR_ADDRESS_TAKEN = 111, /* IPAM: a requested address is in use */
	CNI_ERR_NOT_LEASED = 112,    /* IPAM CHECK: an address is not leased to us */
};

struct cni_error {
	int code; /* 0 while unset */
	char msg[512];
	char details[1024];
	char version[16]; /* the request's cniVersion, when known early */
};

/* Fill err once (a set error is never overwritten) and return ret, a
 * negative errno, so callers can write `return cni_errorf(...)`. details may be NULL.
 * A msg or details too long for its field is cut on a character boundary and
 * ends in "..."; a NULL or empty msg becomes strerror(-ret): never empty. */
int cni_errorf(struct cni_error *err, int ret, int code, const char *msg, const char *details_fmt,
	       ...) __attribute__((format(printf, 5, 6)));

/* The one rule: a set error is never overwritten. A step whose error is
 * optional (logged, or reported only when nothing else failed) fills a
 * scratch `struct cni_error` of its own and hands it on with
 * cni_error_adopt; nothing writes err's fields directly. */

/* Copy src into dst when dst is unset and src is set; returns ret. An
 * empty msg in src becomes strerror(-ret), as in cni_errorf. */
int cni_error_adopt(struct cni_error *dst, const struct cni_error *src, int ret);

/* Put "prefix: " in front of a set error's msg (truncating the tail). */
void cni_error_prefix(struct cni_error *err, const char *prefix);

/* Give a set error another code (the caller knows better what it means). */
void cni_error_recode(struct cni_error *err, int code);

/* Forget a set error: the step that failed was optional after all. */
void cni_error_clear(struct cni_error *err);

/* The CNI code that best describes a bare -errno with no filled error. */
int cni_error_code_for_errno(int ret);

/* How cni_die() reports: the dispatcher registers one that prints err as
 * the CNI error JSON of the request in progress (only it writes stdout). */
typedef void (*cni_die_printer)(const struct cni_error *err);
void cni_die_set_printer(cni_die_printer print);

/* For a state the process cannot safely continue from: report (code, msg,
 * details) through the registered printer (stderr without one), then
 * _exit(1) without running any cleanup that could act on the wrong
 * namespace. */
void cni_die(int code, const char *msg, const char *details) __attribute__((noreturn));

#endif
