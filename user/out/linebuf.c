// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio_ext.h>
#include <unistd.h>

#include "linebuf.h"

const char linebuf__pairs[200] = "00010203040506070809101112131415161718192021222324"
				 "25262728293031323334353637383940414243444546474849"
				 "50515253545556575859606162636465666768697071727374"
				 "75767778798081828384858687888990919293949596979899";

void linebuf__flush(struct linebuf *l)
{
	if (l->n)
		fwrite(l->b, 1, l->n, l->f);
	l->n = 0;
}

void linebuf__stream(struct linebuf *l, FILE *f, char *buf, size_t cap)
{
	l->f = f;
	l->b = buf;
	l->n = 0;
	l->cap = cap;
	/*
	 * __flbf(): glibc's "line buffered?"; a terminal's FILE says so only
	 * once it was first written to.
	 */
	l->each_line = __flbf(f) || isatty(fileno(f));
}

void linebuf__put_long(struct linebuf *l, const char *s, size_t len)
{
	linebuf__flush(l);
	if (len > l->cap) {
		fwrite(s, 1, len, l->f);
		return;
	}
	memcpy(l->b, s, len);
	l->n = len;
}
