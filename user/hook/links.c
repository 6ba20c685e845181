// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "links.h"

double links__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool links__progress_due(double t0, double *last, bool final)
{
	double t = links__now();

	if (t - t0 < 1.0 || (!final && t - *last < 0.5))
		return false;
	*last = t;
	return true;
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

/* Threads closing links at once; more brought no further gain in the bench. */
#define CLOSERS 16

struct closer {
	struct bpf_link **v;
	int *fds;
	size_t n;
	size_t next; /* next index to close (atomic) */
	size_t done; /* closed so far (atomic) */
};

static void *close_some(void *arg)
{
	struct closer *c = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->n) {
		if (c->v)
			bpf_link__destroy(c->v[i]);
		else if (c->fds[i] >= 0)
			close(c->fds[i]);
		__atomic_fetch_add(&c->done, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

void links__close_all(struct bpf_link **v, int *fds, size_t n,
		      void (*progress)(size_t done, size_t n, void *ctx), void *ctx)
{
	struct closer c = { .v = v, .fds = fds, .n = n };
	pthread_t t[CLOSERS];
	size_t nt = 0, want = n / 4 < CLOSERS ? n / 4 : CLOSERS;

	/* A thread that cannot be made leaves its share to the others. */
	while (nt < want && !pthread_create(&t[nt], NULL, close_some, &c))
		nt++;
	/* Without threads, this one does the work (below). */
	while (progress && nt && __atomic_load_n(&c.done, __ATOMIC_RELAXED) < n &&
	       __atomic_load_n(&c.next, __ATOMIC_RELAXED) < n) {
		progress(__atomic_load_n(&c.done, __ATOMIC_RELAXED), n, ctx);
		usleep(100 * 1000);
	}
	close_some(&c);
	for (size_t i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	if (progress)
		progress(n, n, ctx);
}

double linkvec__destroy_all(struct linkvec *lv)
{
	double t0 = links__now();

	links__close_all(lv->v, NULL, lv->n, NULL, NULL);
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
