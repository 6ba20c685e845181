/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the record file's writer and reader share (record.h has the
 * layout): the sizes of its fixed parts, little-endian integers and
 * length-prefixed strings put into a growing buffer and taken from a
 * bounds-checked cursor, and the 32-byte record. Internal to user/record/.
 */
#ifndef BG_RECORD_CODEC_H
#define BG_RECORD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfgraph.h"

#define FILE_HDR_SIZE 16
#define BLK_HDR_SIZE 16
#define REC_SIZE 32
/* Counters of the TRAILER block this bpfgraph writes and reads. */
#define NR_TRAILER 10
/* Least FUNCS entry: addr, size, btf_id, flags, kind, size, pad, 3 lengths */
#define FUNC_MIN_SIZE (8 + 4 + 4 + 4 + 4 + 3 * 4)

/* A growing buffer: nomem is set, and later puts dropped, when it cannot grow. */
struct bbuf {
	uint8_t *p;
	size_t len, cap;
	bool nomem;
};

void b_put(struct bbuf *b, const void *src, size_t n);
/* The low bytes (1 to 8) of v, little-endian. */
void b_le(struct bbuf *b, uint64_t v, unsigned int bytes);
/* A u32 length, then the bytes of s without NUL (at most RECORD_MAX_STR). */
void b_str(struct bbuf *b, const char *s);

/* A cursor over len bytes: bad is set, and 0 read from then on, at the end. */
struct cur {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

uint64_t c_le(struct cur *c, unsigned int bytes);
/*
 * A string of at most RECORD_MAX_STR bytes without NULs; NULL if empty
 * (or malformed: c->bad). *err is set to -ENOMEM if it cannot be copied.
 */
char *c_str(struct cur *c, int *err);

/* A record as the REC_SIZE bytes of the RECORDS block, and back. */
void put_rec(uint8_t *p, const struct bg_rec *r);
void get_rec(const uint8_t *p, struct bg_rec *r);

#endif
