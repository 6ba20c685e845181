// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "globset.h"

enum shape { EXACT, PREFIX, SUFFIX, INFIX, FNMATCH };

struct pat {
	const char *glob;
	enum shape shape;
	char *s; /* the literal part (PREFIX, SUFFIX, INFIX), FNMATCH's literal start */
	size_t len;
	uint64_t pairs[2]; /* INFIX: its literal's pairs of bytes (pair_bits()) */
};

struct globset {
	struct pat *p;
	size_t n;
};

/* No metacharacter of fnmatch() in [s, s + len)? */
static int literal(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (strchr("*?[\\", s[i]))
			return 0;
	return 1;
}

/*
 * The pairs of adjacent bytes in [s, s + len), hashed to 128 bits. A name
 * holds an infix only if it holds each of the infix's pairs, so a pattern
 * whose bits the name lacks is passed by without strstr(): most of them,
 * for lists of short infixes ("*rcu*", "*spin_*") against kernel names.
 */
static void pair_bits(const char *s, size_t len, uint64_t bits[2])
{
	bits[0] = bits[1] = 0;
	for (size_t i = 1; i < len; i++) {
		unsigned int h = ((unsigned char)s[i - 1] * 31u + (unsigned char)s[i]) & 127;

		bits[h >> 6] |= 1ull << (h & 63);
	}
}

static int compile(struct pat *p, const char *glob)
{
	size_t n = strlen(glob);

	p->glob = glob;
	p->shape = FNMATCH;
	if (literal(glob, n)) {
		p->shape = EXACT;
		return 0;
	}
	if (n >= 2 && glob[0] == '*' && glob[n - 1] == '*' && literal(glob + 1, n - 2)) {
		p->shape = INFIX;
		p->len = n - 2;
		p->s = strndup(glob + 1, n - 2);
		pair_bits(glob + 1, n - 2, p->pairs);
	} else if (n >= 1 && glob[n - 1] == '*' && literal(glob, n - 1)) {
		p->shape = PREFIX;
		p->len = n - 1;
		p->s = strndup(glob, n - 1);
	} else if (n >= 1 && glob[0] == '*' && literal(glob + 1, n - 1)) {
		p->shape = SUFFIX;
		p->len = n - 1;
		p->s = strndup(glob + 1, n - 1);
	} else {
		/* FNMATCH: its literal start, which a name must begin with first. */
		p->len = strcspn(glob, "*?[\\");
		p->s = strndup(glob, p->len);
	}
	return p->s ? 0 : -ENOMEM;
}

struct globset *globset__new(const char *const *globs)
{
	struct globset *g = calloc(1, sizeof(*g));
	size_t n = 0;

	if (!g)
		return NULL;
	while (globs && globs[n])
		n++;
	g->p = calloc(n ? n : 1, sizeof(*g->p));
	if (!g->p) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	for (; g->n < n; g->n++) {
		if (compile(&g->p[g->n], globs[g->n])) {
			globset__free(g);
			errno = ENOMEM;
			return NULL;
		}
	}
	return g;
}

void globset__free(struct globset *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->p[i].s);
	free(g->p);
	free(g);
}

const char *globset__match(const struct globset *g, const char *name)
{
	size_t len = (size_t)-1; /* strlen(name), once needed */
	uint64_t pairs[2];
	bool paired = false; /* pairs holds the name's */

	if (!g || !name)
		return NULL;
	for (size_t i = 0; i < g->n; i++) {
		const struct pat *p = &g->p[i];
		int hit;

		switch (p->shape) {
		case EXACT:
			hit = !strcmp(p->glob, name);
			break;
		case PREFIX:
			hit = !strncmp(p->s, name, p->len);
			break;
		case SUFFIX:
			if (len == (size_t)-1)
				len = strlen(name);
			hit = len >= p->len && !memcmp(name + len - p->len, p->s, p->len);
			break;
		case INFIX:
			if (!paired) {
				if (len == (size_t)-1)
					len = strlen(name);
				pair_bits(name, len, pairs);
				paired = true;
			}
			hit = !(p->pairs[0] & ~pairs[0]) && !(p->pairs[1] & ~pairs[1]) &&
			      strstr(name, p->s) != NULL;
			break;
		default:
			hit = !strncmp(p->s, name, p->len) && !fnmatch(p->glob, name, 0);
			break;
		}
		if (hit)
			return p->glob;
	}
	return NULL;
}
