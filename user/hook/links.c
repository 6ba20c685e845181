// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

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

int linkvec__push_entry(struct linkvec *lv, struct bpf_link *l, int fd)
{
	if (lv->n == lv->cap) {
		size_t cap = lv->cap ? lv->cap * 2 : 64;
		struct bpf_link **n = realloc(lv->v, cap * sizeof(*n));
		int *f;

		if (!n)
			return -ENOMEM;
		lv->v = n;
		f = realloc(lv->fds, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		lv->fds = f;
		lv->cap = cap;
	}
	lv->v[lv->n] = l;
	lv->fds[lv->n++] = fd;
	return 0;
}

int linkvec__push(struct linkvec *lv, struct bpf_link *l)
{
	return linkvec__push_entry(lv, l, -1);
}

int linkvec__push_fd(struct linkvec *lv, int fd)
{
	return linkvec__push_entry(lv, NULL, fd);
}

int links__kprobe_multi(int prog_fd, unsigned int attach_type, const uint64_t *addrs,
			const uint64_t *cookies, size_t n)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = (uint32_t)prog_fd;
	attr.link_create.attach_type = attach_type;
	attr.link_create.kprobe_multi.cnt = (uint32_t)n;
	attr.link_create.kprobe_multi.addrs = (uint64_t)(uintptr_t)addrs;
	attr.link_create.kprobe_multi.cookies = (uint64_t)(uintptr_t)cookies;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

void links__close_one(struct bpf_link *l, int fd)
{
	if (l)
		bpf_link__destroy(l);
	else if (fd >= 0)
		close(fd);
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
		links__close_one(c->v ? c->v[i] : NULL, c->fds ? c->fds[i] : -1);
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

	links__close_all(lv->v, lv->fds, lv->n, NULL, NULL);
	lv->n = 0;
	return links__now() - t0;
}

void linkvec__free(struct linkvec *lv)
{
	linkvec__destroy_all(lv);
	free(lv->v);
	free(lv->fds);
	lv->v = NULL;
	lv->fds = NULL;
	lv->cap = 0;
}
