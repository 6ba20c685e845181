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
	size_t words; /* 64-bit words of a pattern mask */
	/*
	 * By a name's first byte, a mask of the patterns it may match (bit i:
	 * pattern i): a pattern with a literal start only under that start's
	 * byte, the others under every byte. 256 masks of words each.
	 */
	uint64_t *by_first;
};

#define GLOB_META "*?[\\"

size_t globset__literal_len(const char *glob)
{
	return strcspn(glob, GLOB_META);
}

/* No metacharacter of fnmatch() in [s, s + len)? */
static int literal(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (strchr(GLOB_META, s[i]))
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
		p->len = globset__literal_len(glob);
		p->s = strndup(glob, p->len);
	}
	return p->s ? 0 : -ENOMEM;
}

/* The byte a name must begin with to match p, or -1 when any may. */
static int first_byte(const struct pat *p)
{
	if (p->shape == EXACT)
		return (unsigned char)p->glob[0];
	if ((p->shape == PREFIX || p->shape == FNMATCH) && p->len)
		return (unsigned char)p->s[0];
	return -1;
}

static int index_first(struct globset *g)
{
	g->words = (g->n + 63) / 64;
	g->by_first = calloc(256 * (g->words ? g->words : 1), sizeof(*g->by_first));
	if (!g->by_first)
		return -ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		int b = first_byte(&g->p[i]);

		for (int c = b < 0 ? 0 : b; c < (b < 0 ? 256 : b + 1); c++)
			g->by_first[(size_t)c * g->words + i / 64] |= 1ull << (i % 64);
	}
	return 0;
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
	if (index_first(g)) {
		globset__free(g);
		errno = ENOMEM;
		return NULL;
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
	free(g->by_first);
	free(g);
}

/* What a name's tests share: its length and pairs of bytes, found once needed. */
struct name_info {
	const char *name;
	size_t len; /* (size_t)-1 until needed */
	bool paired; /* pairs holds the name's */
	uint64_t pairs[2];
};

static bool pat_match(const struct pat *p, struct name_info *ni)
{
	const char *name = ni->name;

	switch (p->shape) {
	/* The first (or last) byte compared inline: most patterns fail there. */
	case EXACT:
		return p->glob[0] == name[0] && !strcmp(p->glob, name);
	case PREFIX:
		return (!p->len || p->s[0] == name[0]) && !strncmp(p->s, name, p->len);
	case SUFFIX:
		if (ni->len == (size_t)-1)
			ni->len = strlen(name);
		return ni->len >= p->len && name[ni->len - 1] == p->s[p->len - 1] &&
		       !memcmp(name + ni->len - p->len, p->s, p->len);
	case INFIX:
		if (!ni->paired) {
			if (ni->len == (size_t)-1)
				ni->len = strlen(name);
			pair_bits(name, ni->len, ni->pairs);
			ni->paired = true;
		}
		return !(p->pairs[0] & ~ni->pairs[0]) && !(p->pairs[1] & ~ni->pairs[1]) &&
		       strstr(name, p->s) != NULL;
	default:
		return !strncmp(p->s, name, p->len) && !fnmatch(p->glob, name, 0);
	}
}

const char *globset__match(const struct globset *g, const char *name)
{
	struct name_info ni = { .name = name, .len = (size_t)-1 };
	const uint64_t *m;

	if (!g || !name)
		return NULL;
	/* Only the patterns a name with this first byte may match, in list order. */
	m = g->by_first + (size_t)(unsigned char)name[0] * g->words;
	for (size_t w = 0; w < g->words; w++)
		for (uint64_t bits = m[w]; bits; bits &= bits - 1) {
			const struct pat *p = &g->p[w * 64 + (size_t)__builtin_ctzll(bits)];

			if (pat_match(p, &ni))
				return p->glob;
		}
	return NULL;
}
