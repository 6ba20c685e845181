/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An snprintf-style sink into a caller's buffer: what does not fit is cut,
 * len counts the whole text, fitting or not, and strbuf__finish()
 * terminates and returns it as snprintf() would. The argument text
 * (args.c) and its detail (detail.c) are written with it.
 */
#ifndef BG_STRBUF_H
#define BG_STRBUF_H

#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct strbuf {
	char *buf;
	size_t size;
	size_t len;
};

static inline void strbuf__put(struct strbuf *b, const char *s, size_t n)
{
	if (b->size && b->len < b->size - 1) {
		size_t room = b->size - 1 - b->len;

		memcpy(b->buf + b->len, s, n < room ? n : room);
	}
	b->len += n;
}

static inline void strbuf__str(struct strbuf *b, const char *s)
{
	strbuf__put(b, s, strlen(s));
}

/* The kernel's "0x%lx" (and its "%#lx", which writes 0x even for zero). */
static inline void strbuf__hex(struct strbuf *b, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "0x%" PRIx64, v);

	strbuf__put(b, tmp, (size_t)n);
}

/* The kernel's "%ld" of the whole 64-bit value. */
static inline void strbuf__dec(struct strbuf *b, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, (int64_t)v);

	strbuf__put(b, tmp, (size_t)n);
}

static inline int strbuf__finish(struct strbuf *b)
{
	if (b->size)
		b->buf[b->len < b->size ? b->len : b->size - 1] = '\0';
	return b->len > INT_MAX ? INT_MAX : (int)b->len;
}

#endif
