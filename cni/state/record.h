/* SPDX-License-Identifier: Apache-2.0 */
/* The one record codec: a plugin describes its record struct with a key
 * table (JSON key, type, where it lands, which presence flag it sets) and
 * this module writes the struct as compact JSON text and reads a json-c
 * object back into it. Keys not in the table are ignored when read, so an
 * older build reads a newer record; the text is byte for byte what
 * cni_json_dump() makes of the same object (records written by the
 * previous release, through a json-c tree, are the same bytes). */
#ifndef CNI_STATE_RECORD_H
#define CNI_STATE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

enum cni_rec_type {
	CNI_REC_STR,	/* char[size] */
	CNI_REC_PSTR,	/* char *, owned (strdup'd when read; NULL written as "") */
	CNI_REC_INT,	/* int */
	CNI_REC_U32,	/* uint32_t / unsigned int */
	CNI_REC_U16,	/* uint16_t */
	CNI_REC_BOOL,	/* bool (true/false; 0/1 read too) */
	CNI_REC_FLAG,	/* no storage: the key's flag, written as true */
	CNI_REC_ENUM,	/* an int-sized enum as one of names[] */
	CNI_REC_GUID,	/* uint64_t as "xx:..:xx" (an integer read too) */
	CNI_REC_MAC6,	/* unsigned char[6] as "xx:..:xx" */
	CNI_REC_HWADDR, /* unsigned char[size] as "xx:..", its length at count_off; "" */
	CNI_REC_STRS,	/* char[max][size], the count at count_off */
	CNI_REC_U32S,	/* uint32_t[max], the count at count_off */
	CNI_REC_OBJ,	/* a nested object, described by the table sub */
};

/* Options of a key. */
enum {
	CNI_REC_REQUIRED = 1U << 0,   /* absent is -EBADMSG */
	CNI_REC_SAME_COUNT = 1U << 1, /* STRS/U32S: count_off set by an earlier key,
				       * the array must have that many elements */
};

struct cni_rec_table;

struct cni_rec_key {
	const char *name; /* NULL ends the table */
	enum cni_rec_type type;
	size_t off, size; /* the member; STRS: one element's size */
	uint32_t flag;	  /* written only when set in the flags; set when read */
	unsigned int opts;
	size_t count_off;		 /* STRS, U32S, HWADDR: an unsigned int */
	unsigned int max;		 /* STRS, U32S: elements */
	const char *const *names;	 /* ENUM: NULL-terminated */
	const struct cni_rec_table *sub; /* OBJ */
};

struct cni_rec_table {
	const struct cni_rec_key *keys;
	bool null_absent; /* a JSON null is an absent key (Go's omitempty readers) */
};

/* Member f of struct type T, for a key's off and size. */
#define CNI_REC_AT(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)

/* base as compact JSON text: the keys whose flag is 0 or set in flags, in
 * table order (a nested object gets the same flags). Caller frees; NULL
 * with errno ENOMEM. */
char *cni_record_text(const struct cni_rec_table *t, const void *base, uint32_t flags);

/* Read object o into base (not cleared first), OR-ing into *flags the flag
 * of each key read (a FLAG key's when it is true). -EBADMSG when o is not
 * an object, a required key is absent, or a key has the wrong type, range
 * or length (a string with an embedded NUL, one too long for its member);
 * -ENOMEM. A PSTR already set is replaced. */
int cni_record_decode(const struct cni_rec_table *t, struct json_object *o, void *base,
		      uint32_t *flags);

#endif
