// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The record file's byte level (codec.h): little-endian integers and
 * strings into a buffer and out of a cursor, and the 32-byte record.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "record.h"

void b_put(struct bbuf *b, const void *src, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

void b_le(struct bbuf *b, uint64_t v, unsigned int bytes)
{
	uint8_t le[8];

	for (unsigned int i = 0; i < bytes; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	b_put(b, le, bytes);
}

void b_str(struct bbuf *b, const char *s)
{
	size_t n = s ? strnlen(s, RECORD_MAX_STR) : 0;

	b_le(b, n, 4);
	b_put(b, s, n);
}

uint64_t c_le(struct cur *c, unsigned int bytes)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->at < bytes) {
		c->bad = true;
		return 0;
	}
	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[c->at + i] << (8 * i);
	c->at += bytes;
	return v;
}

char *c_str(struct cur *c, int *err)
{
	uint64_t n = c_le(c, 4);
	char *s;

	if (c->bad || n > RECORD_MAX_STR || n > c->len - c->at ||
	    memchr(c->p + c->at, 0, n)) {
		c->bad = true;
		return NULL;
	}
	if (!n)
		return NULL;
	s = strndup((const char *)c->p + c->at, n);
	if (!s)
		*err = -ENOMEM;
	c->at += n;
	return s;
}

/*
 * The record's fields at their fixed offsets, each one little-endian load
 * or store: a record is written for every one the session takes (b_le()
 * per field cost ten times as much).
 */
static void st_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	v = htole64(v);
	memcpy(p, &v, bytes);
}

static uint64_t ld_le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	memcpy(&v, p, bytes);
	return le64toh(v);
}

void put_rec(uint8_t *p, const struct bg_rec *r)
{
	st_le(p, r->ts, 8);
	st_le(p + 8, r->val, 8);
	st_le(p + 16, r->dur, 4);
	st_le(p + 20, r->pid, 4);
	st_le(p + 24, r->func, 4);
	st_le(p + 28, r->cpu, 2);
	p[30] = r->type;
	p[31] = r->depth;
}

void get_rec(const uint8_t *p, struct bg_rec *r)
{
	r->ts = ld_le(p, 8);
	r->val = ld_le(p + 8, 8);
	r->dur = (uint32_t)ld_le(p + 16, 4);
	r->pid = (uint32_t)ld_le(p + 20, 4);
	r->func = (uint32_t)ld_le(p + 24, 4);
	r->cpu = (uint16_t)ld_le(p + 28, 2);
	r->type = p[30];
	r->depth = p[31];
}
