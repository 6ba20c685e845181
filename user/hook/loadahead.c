// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Programs loaded ahead of their linking (attach_int.h): a trampoline
 * per function (6.1's only tier) costs a verified clone of the entry and
 * exit programs and two links; the kernel verifies programs of a
 * privileged loader side by side, while making trampolines (text
 * patching under ftrace's lock) goes one at a time. So threads load the
 * next functions' programs while the caller links the current one's.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "attach_int.h"
#include "stop.h"

#define LA_MAX_THREADS 8
#define LA_MIN_FUNCS 8 /* fewer: not worth a thread */
#define LA_WINDOW 64 /* functions loaded ahead at most: 2 fds each */

struct la_slot {
	int pfd[2];
	int err;
	bool ready;
};

struct loadahead {
	struct attach *a;
	const struct clone_src *src;
	const uint32_t *idx;
	size_t n;
	struct la_slot *slot;
	size_t next; /* the next function a thread loads */
	size_t taken; /* functions the caller took */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t t[LA_MAX_THREADS];
	int nt;
};

static void *loader(void *arg)
{
	struct loadahead *la = arg;
	struct modcache mc = { NULL, 0 };

	pthread_mutex_lock(&la->mu);
	for (;;) {
		size_t j;
		int pfd[2], err;

		while (!la->stop && la->next < la->n && la->next >= la->taken + LA_WINDOW)
			pthread_cond_wait(&la->cv, &la->mu);
		if (la->stop || la->next >= la->n)
			break;
		j = la->next++;
		pthread_mutex_unlock(&la->mu);
		err = stop__signal() ? -EINTR :
				       attach_load_func(la->a, la->idx[j], la->src, &mc, pfd);
		pthread_mutex_lock(&la->mu);
		la->slot[j].err = err;
		la->slot[j].pfd[0] = err ? -1 : pfd[0];
		la->slot[j].pfd[1] = err ? -1 : pfd[1];
		la->slot[j].ready = true;
		pthread_cond_broadcast(&la->cv);
	}
	pthread_mutex_unlock(&la->mu);
	attach_modcache_free(&mc);
	return NULL;
}

struct loadahead *loadahead__start(struct attach *a, const struct clone_src src[3],
				   const uint32_t *idx, size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct loadahead *la;
	sigset_t all, old;
	int want;

	if (n < LA_MIN_FUNCS || cpus < 2)
		return NULL;
	/* One CPU for the caller's linking, the others verify. */
	want = cpus - 1 > LA_MAX_THREADS ? LA_MAX_THREADS : (int)cpus - 1;
	la = calloc(1, sizeof(*la));
	if (!la || !(la->slot = calloc(n, sizeof(*la->slot)))) {
		free(la);
		return NULL;
	}
	la->a = a;
	la->src = src;
	la->idx = idx;
	la->n = n;
	pthread_mutex_init(&la->mu, NULL);
	pthread_cond_init(&la->cv, NULL);
	/*
	 * The threads block every signal (they inherit the mask): signals go
	 * to the caller's threads, and none ends a verification (EAGAIN).
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	while (la->nt < want && !pthread_create(&la->t[la->nt], NULL, loader, la))
		la->nt++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!la->nt) {
		loadahead__stop(la);
		return NULL;
	}
	return la;
}

int loadahead__take(struct loadahead *la, size_t j, int pfd[2])
{
	int err;

	pthread_mutex_lock(&la->mu);
	la->taken = j;
	pthread_cond_broadcast(&la->cv);
	while (!la->slot[j].ready)
		pthread_cond_wait(&la->cv, &la->mu);
	err = la->slot[j].err;
	pfd[0] = la->slot[j].pfd[0];
	pfd[1] = la->slot[j].pfd[1];
	la->slot[j].pfd[0] = la->slot[j].pfd[1] = -1;
	la->taken = j + 1;
	pthread_cond_broadcast(&la->cv);
	pthread_mutex_unlock(&la->mu);
	return err;
}

void loadahead__stop(struct loadahead *la)
{
	if (!la)
		return;
	pthread_mutex_lock(&la->mu);
	la->stop = true;
	pthread_cond_broadcast(&la->cv);
	pthread_mutex_unlock(&la->mu);
	for (int i = 0; i < la->nt; i++)
		pthread_join(la->t[i], NULL);
	for (size_t j = 0; j < la->n; j++)
		for (int k = 0; k < 2; k++)
			if (la->slot[j].ready && la->slot[j].pfd[k] >= 0)
				close(la->slot[j].pfd[k]);
	pthread_cond_destroy(&la->cv);
	pthread_mutex_destroy(&la->mu);
	free(la->slot);
	free(la);
}
