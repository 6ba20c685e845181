/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output put together in memory and handed to stdio in large pieces. The
 * writers' printf-family call or fputc() per field cost more than the
 * rest of the reader together (tests/bench/reader.c), and so did one
 * fwrite() per line: a line is now built where it will stay, in a buffer
 * that outlives it.
 *   - A line buffer (linebuf__init): its own 256 bytes, written out by
 *     linebuf__flush() at the end of each line.
 *   - A stream (linebuf__stream): a caller's buffer that collects lines;
 *     linebuf__line_end() writes it out only once less than
 *     LINEBUF_LINE_ROOM is left (or after each line, for a FILE that is
 *     line buffered: a terminal sees every line as it comes), and
 *     linebuf__flush() before anything else writes to the FILE.
 * What linebuf__put() cannot fit goes out in pieces; nothing is
 * allocated, nothing fails here that would not fail in stdio. A writer
 * that knows a line's greatest length formats it in place instead
 * (linebuf__reserve()).
 */
#ifndef BG_LINEBUF_H
#define BG_LINEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What a stream keeps free for the next line before writing out. */
#define LINEBUF_LINE_ROOM 2048

struct linebuf {
	FILE *f;
	char *b;
	size_t n, cap;
	bool each_line; /* a stream written out at every line's end */
	char small[256];
};

/* No initializer for the buffer: zeroing it would cost more than a line. */
static inline void linebuf__init(struct linebuf *l, FILE *f)
{
	l->f = f;
	l->b = l->small;
	l->n = 0;
	l->cap = sizeof(l->small);
	l->each_line = true;
}

/* A stream over buf (cap > LINEBUF_LINE_ROOM bytes), which l does not own. */
void linebuf__stream(struct linebuf *l, FILE *f, char *buf, size_t cap);

void linebuf__flush(struct linebuf *l);
/* linebuf__put() for what does not fit in what is left. */
void linebuf__put_long(struct linebuf *l, const char *s, size_t len);

/* The end of a line: written out now, or when the stream is nearly full. */
static inline void linebuf__line_end(struct linebuf *l)
{
	if (l->each_line || l->cap - l->n < LINEBUF_LINE_ROOM)
		linebuf__flush(l);
}

/* Inline: most pieces are short constants, which then cost a move or two. */
static inline void linebuf__put(struct linebuf *l, const char *s, size_t len)
{
	if (len > l->cap - l->n) {
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
	if (l->n == l->cap)
		linebuf__flush(l);
	l->b[l->n++] = c;
}

/*
 * Where up to need bytes can be written in place, the buffer written out
 * first if less is left; NULL when it holds less than need in all.
 * linebuf__commit() then says where the bytes written end.
 */
static inline char *linebuf__reserve(struct linebuf *l, size_t need)
{
	if (need > l->cap - l->n) {
		if (need > l->cap)
			return NULL;
		linebuf__flush(l);
	}
	return l->b + l->n;
}

static inline void linebuf__commit(struct linebuf *l, const char *end)
{
	l->n = (size_t)(end - l->b);
}

/* "00" to "99": two digits per division (linebuf.c). */
extern const char linebuf__pairs[200];

/* The two digits of v (< 100) at o. */
static inline void linebuf__pair(char *o, unsigned int v)
{
	memcpy(o, &linebuf__pairs[v * 2], 2);
}

/* Decimal digits of v, right-aligned before end; returns where they start. */
static inline char *linebuf__digits(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		linebuf__pair(end, (unsigned int)(v % 100));
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		linebuf__pair(end, (unsigned int)v);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* Decimal digits of v (1 to 20), without a division. */
static inline int linebuf__ndigits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* log10(2) ~ 1233 / 4096: t is the count or one less (v | 1: 0 has a digit) */
	int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= pow10[t]);
}

/* Decimal digits of v at o (20 bytes of room); returns where they end. */
static inline char *linebuf__dec(char *o, uint64_t v)
{
	o += linebuf__ndigits(v);
	linebuf__digits(o, v);
	return o;
}

/*
 * v right-aligned in width columns (at most 20), padded with pad, before
 * end (24 bytes of room); returns where it starts.
 */
static inline char *linebuf__padded(char *end, uint64_t v, int width, char pad)
{
	char *p = linebuf__digits(end, v);

	while (end - p < width && end - p < 20)
		*--p = pad;
	return p;
}

/* v right-aligned in width columns (at most 20), padded with pad. */
static inline void linebuf__u64(struct linebuf *l, uint64_t v, int width, char pad)
{
	char tmp[24], *p = linebuf__padded(tmp + sizeof(tmp), v, width, pad);

	linebuf__put(l, p, (size_t)(tmp + sizeof(tmp) - p));
}

#endif
