// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: two sequences of call lines compared, by the length of
 * their longest common subsequence (to score candidate pairs) and by an
 * alignment on one (to tell matched calls from the others).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"

/* DP cells aligned in one go (1 byte each); bigger problems are split. */
#ifndef DP_MAX_CELLS
#define DP_MAX_CELLS (1U << 20)
#endif

/* --- LCS ----------------------------------------------------------------------- */

/* First index of sym in the sorted syms of v, or v->n. */
static size_t lower_bound(const struct inv *v, uint32_t sym)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->bsym[mid] < sym)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Size of the multiset intersection: an upper bound of the LCS. */
size_t diff_lcs_bound(const struct inv *a, const struct inv *b)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n && j < b->n) {
		if (a->bsym[i] < b->bsym[j]) {
			i++;
		} else if (a->bsym[i] > b->bsym[j]) {
			j++;
		} else {
			n++;
			i++;
			j++;
		}
	}
	return n;
}

/*
 * LCS length, bit-parallel (Hyyrö 2004): bit j of V is 0 where the LCS
 * of a's prefix grows at b[j]; each row is V = (V + U) | (V - U) with
 * U = V & M, M the positions of a[i] in b. n * m / 64 word operations.
 */
size_t diff_lcs_len(const struct inv *a, const struct inv *b, uint64_t *V, uint64_t *M)
{
	size_t words = (b->n + 63) / 64, zeros = 0;

	for (size_t w = 0; w < words; w++)
		V[w] = ~0ULL;
	for (size_t i = 0; i < a->n; i++) {
		size_t k = lower_bound(b, a->sym[i]), k0 = k;
		uint64_t carry = 0, borrow = 0;

		if (k == b->n || b->bsym[k] != a->sym[i])
			continue;
		for (; k < b->n && b->bsym[k] == a->sym[i]; k++)
			M[b->bpos[k] / 64] |= 1ULL << (b->bpos[k] % 64);
		for (size_t w = 0; w < words; w++) {
			uint64_t v = V[w], u = v & M[w], s = v + u, t = v - u;
			uint64_t c1 = s < v, b1 = v < u;

			s += carry;
			carry = c1 | (s < carry);
			b1 |= t < borrow;
			t -= borrow;
			borrow = b1;
			V[w] = s | t;
		}
		for (k = k0; k < b->n && b->bsym[k] == a->sym[i]; k++)
			M[b->bpos[k] / 64] = 0;
	}
	for (size_t j = 0; j < b->n; j++)
		zeros += !(V[j / 64] >> (j % 64) & 1);
	return zeros;
}

/* --- alignment ------------------------------------------------------------ */

/* Classic DP with a direction byte per cell; fills ma/mb for matches. */
static int dp_align(const uint32_t *a, size_t n, const uint32_t *b, size_t m, uint32_t *ma,
		    uint32_t *mb, size_t ao, size_t bo)
{
	uint8_t *dir = malloc(n && m ? n * m : 1);
	uint32_t *prev = calloc(m + 1, sizeof(*prev)), *cur = calloc(m + 1, sizeof(*cur));
	size_t i, j;

	if (!dir || !prev || !cur) {
		free(dir);
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	for (i = 1; i <= n; i++) {
		for (j = 1; j <= m; j++) {
			uint8_t *dp = &dir[(i - 1) * m + j - 1];

			if (a[i - 1] == b[j - 1]) {
				cur[j] = prev[j - 1] + 1;
				*dp = 0;
			} else if (prev[j] >= cur[j - 1]) {
				cur[j] = prev[j];
				*dp = 1;
			} else {
				cur[j] = cur[j - 1];
				*dp = 2;
			}
		}
		memcpy(prev, cur, (m + 1) * sizeof(*cur));
	}
	for (i = n, j = m; i && j;) {
		uint8_t dv = dir[(i - 1) * m + j - 1];

		if (dv == 0) {
			ma[ao + i - 1] = (uint32_t)(bo + j - 1);
			mb[bo + j - 1] = (uint32_t)(ao + i - 1);
			i--, j--;
		} else if (dv == 1) {
			i--;
		} else {
			j--;
		}
	}
	free(dir);
	free(prev);
	free(cur);
	return 0;
}

/* Two sequences being aligned and where their matches go. */
struct seqs {
	const uint32_t *a, *b;
	uint32_t *ma, *mb;
};

static void match(const struct seqs *s, size_t i, size_t j)
{
	s->ma[i] = (uint32_t)j;
	s->mb[j] = (uint32_t)i;
}

/* One diagonal step of the forward (rev false) or reverse search. */
static int64_t snake(const struct seqs *s, size_t a0, size_t n, size_t b0, size_t m,
		     int64_t x, int64_t k, bool rev)
{
	int64_t y = x - k;

	while (x < (int64_t)n && y < (int64_t)m &&
	       (rev ? s->a[a0 + n - 1 - x] == s->b[b0 + m - 1 - y] :
		      s->a[a0 + x] == s->b[b0 + y]))
		x++, y++;
	return x;
}

static int64_t furthest(const int64_t *v, int64_t off, int64_t k, int64_t d)
{
	if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
		return v[off + k + 1];
	return v[off + k - 1] + 1;
}

/*
 * Myers' middle snake (An O(ND) Difference Algorithm, 1986, as in
 * diff-match-patch's bisect): searches from both ends at once until the
 * paths meet; the meeting point splits the problem on an optimal path.
 * O((n + m) * D) time, O(n + m) space. Returns false if nothing matches.
 */
static bool bisect(const struct seqs *s, size_t a0, size_t n, size_t b0, size_t m,
		   int64_t *v1, int64_t *v2, size_t *sx, size_t *sy)
{
	int64_t max_d = ((int64_t)n + (int64_t)m + 1) / 2, off = max_d, len = 2 * max_d + 2;
	int64_t delta = (int64_t)n - (int64_t)m, ks[4] = { 0, 0, 0, 0 };
	bool front = delta & 1;

	for (int64_t i = 0; i < len; i++)
		v1[i] = v2[i] = -1;
	v1[off + 1] = v2[off + 1] = 0;
	for (int64_t d = 0; d < max_d; d++) {
		for (int r = 0; r < 2; r++) {
			int64_t *v = r ? v2 : v1, *w = r ? v1 : v2;

			for (int64_t k = -d + ks[2 * r]; k <= d - ks[2 * r + 1]; k += 2) {
				int64_t x = snake(s, a0, n, b0, m, furthest(v, off, k, d), k, r);
				int64_t y = x - k, ko = off + delta - k;

				v[off + k] = x;
				if (x > (int64_t)n) {
					ks[2 * r + 1] += 2;
				} else if (y > (int64_t)m) {
					ks[2 * r] += 2;
				} else if (front != r && ko >= 0 && ko < len && w[ko] != -1) {
					int64_t fx = r ? w[ko] : x, rx = r ? x : w[ko];

					if (fx >= (int64_t)n - rx) {
						*sx = (size_t)fx;
						*sy = (size_t)(fx - (r ? delta - k : k));
						return true;
					}
				}
			}
		}
	}
	return false;
}

/*
 * Aligns a[a0..a1) with b[b0..b1): common ends first (near-identical
 * graphs cost nothing more), the DP when the rest is small, else split
 * on the middle snake.
 */
static int align_range(const struct seqs *s, size_t a0, size_t a1, size_t b0, size_t b1)
{
	size_t n, m, x, y;
	int64_t *v;
	bool found;
	int err;

	for (; a0 < a1 && b0 < b1 && s->a[a0] == s->b[b0]; a0++, b0++)
		match(s, a0, b0);
	for (; a0 < a1 && b0 < b1 && s->a[a1 - 1] == s->b[b1 - 1]; a1--, b1--)
		match(s, a1 - 1, b1 - 1);
	n = a1 - a0;
	m = b1 - b0;
	if (!n || !m)
		return 0;
	if (n * m <= DP_MAX_CELLS)
		return dp_align(s->a + a0, n, s->b + b0, m, s->ma, s->mb, a0, b0);
	v = malloc(2 * (n + m + 4) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	found = bisect(s, a0, n, b0, m, v, v + n + m + 4, &x, &y);
	free(v);
	if (!found)
		return 0;
	err = align_range(s, a0, a0 + x, b0, b0 + y);
	return err ? err : align_range(s, a0 + x, a1, b0 + y, b1);
}

int diff_align(const struct inv *a, const struct inv *b, uint32_t *ma, uint32_t *mb)
{
	struct seqs s = { .a = a->sym, .b = b->sym, .ma = ma, .mb = mb };

	for (size_t i = 0; i < a->n; i++)
		ma[i] = NONE;
	for (size_t j = 0; j < b->n; j++)
		mb[j] = NONE;
	return align_range(&s, 0, a->n, 0, b->n);
}
