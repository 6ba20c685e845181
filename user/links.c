// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "links.h"

double links__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int linkvec__push(struct linkvec *lv, struct bpf_link *l)
{
	if (lv->n == lv->cap) {
		size_t cap = lv->cap ? lv->cap * 2 : 64;
		struct bpf_link **n = realloc(lv->v, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		lv->v = n;
		lv->cap = cap;
	}
	lv->v[lv->n++] = l;
	return 0;
}

double linkvec__destroy_all(struct linkvec *lv)
{
	double t0 = links__now();

	for (size_t i = 0; i < lv->n; i++)
		bpf_link__destroy(lv->v[i]);
	lv->n = 0;
	return links__now() - t0;
}

void linkvec__free(struct linkvec *lv)
{
	linkvec__destroy_all(lv);
	free(lv->v);
	lv->v = NULL;
	lv->cap = 0;
}
