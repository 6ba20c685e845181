/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tables indexed by a function's index, grown on first use of an index:
 * the writers' per-function caches and counters.
 */
#ifndef BG_GROW_H
#define BG_GROW_H

#include <stdlib.h>
#include <string.h>

/*
 * Grows arr, *n elements of elem bytes, so that index i fits: to min
 * elements at least, doubled until i fits; the new elements are zeroed.
 * Returns the table (arr itself when i already fits), with *n its new
 * size; NULL when out of memory, arr and *n then unchanged (arr is still
 * the caller's to free).
 */
static inline void *grow_zeroed(void *arr, size_t *n, size_t elem, size_t i, size_t min)
{
	size_t want = *n > min ? *n : min;
	unsigned char *v;

	if (i < *n)
		return arr;
	if (!want)
		want = 1;
	while (want <= i)
		want *= 2;
	v = realloc(arr, want * elem);
	if (!v)
		return NULL;
	memset(v + *n * elem, 0, (want - *n) * elem);
	*n = want;
	return v;
}

#endif
