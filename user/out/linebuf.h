/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One output line put together in memory and handed to stdio in one
 * fwrite(). The writers' printf-family call or fputc() per field cost
 * more than the rest of the reader together (tests/bench/reader.c); this
 * costs a copy. What does not fit (deep indentation from a text report,
 * very long names) goes out in pieces; nothing is allocated, nothing
 * fails here that would not fail in stdio.
 */
#ifndef BG_LINEBUF_H
#define BG_LINEBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct linebuf {
	FILE *f;
	size_t n;
	char b[256];
};

/* No initializer for the buffer: zeroing it would cost more than a line. */
static inline void linebuf__init(struct linebuf *l, FILE *f)
{
	l->f = f;
	l->n = 0;
}

void linebuf__flush(struct linebuf *l);
/* linebuf__put() for what does not fit in what is left. */
void linebuf__put_long(struct linebuf *l, const char *s, size_t len);

/* Inline: most pieces are short constants, which then cost a move or two. */
static inline void linebuf__put(struct linebuf *l, const char *s, size_t len)
{
	if (len > sizeof(l->b) - l->n) {
		linebuf__put_long(l, s, len);
		return;
	}
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static inline void linebuf__str(struct linebuf *l, const char *s)
{
	linebuf__put(l, s, strlen(s));
}

static inline void linebuf__char(struct linebuf *l, char c)
{
	if (l->n == sizeof(l->b))
		linebuf__flush(l);
	l->b[l->n++] = c;
}

void linebuf__spaces(struct linebuf *l, int n);

/* Decimal digits of v, right-aligned before end; returns where they start. */
static inline char *linebuf__digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* v right-aligned in width columns (at most 20), padded with pad. */
static inline void linebuf__u64(struct linebuf *l, uint64_t v, int width, char pad)
{
	char tmp[24], *p = linebuf__digits(tmp + sizeof(tmp), v);

	while (tmp + sizeof(tmp) - p < width && p > tmp)
		*--p = pad;
	linebuf__put(l, p, (size_t)(tmp + sizeof(tmp) - p));
}

#endif
