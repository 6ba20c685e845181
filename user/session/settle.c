// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bpfgraph's footprint on the kernel's per-CPU caches, taken back: see settle.h. */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "settle.h"

/*
 * The pages this CPU is about to put on its LRU lists wait in a per-CPU
 * batch, which lru_add_drain() empties: the page cache holding the text
 * just written, the memory a read just filled. Left there, a traced call
 * that drains the batch (munmap, madvise, a page fault's allocation ...)
 * moves bpfgraph's pages too, on a CPU the two share, and draws lines its
 * untraced run has not (6.12, madvise(MADV_DONTNEED) of one page: two to
 * fourteen lru_add calls a drain instead of the kernel's one).
 * madvise(MADV_DONTNEED) of a page never touched drains this CPU's batch
 * and unmaps nothing.
 */
static void *settle_page = MAP_FAILED;
static long settle_size;

static void settle_map(void)
{
	settle_size = sysconf(_SC_PAGESIZE);
	if (settle_size > 0)
		settle_page = mmap(NULL, (size_t)settle_size, PROT_READ,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

void settle__lru(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, settle_map);
	if (settle_page != MAP_FAILED)
		madvise(settle_page, (size_t)settle_size, MADV_DONTNEED);
}

/*
 * A new task's kernel stack comes from its CPU's cache of the last two
 * stacks freed there (kernel/fork.c, cached_stacks[], with vmapped
 * stacks), else from vmalloc. bpfgraph's reading thread, its guard and the
 * command's fork take them: the command's first fork or thread then
 * allocates one, drawing __vmalloc_node_range() and fifty lines below it
 * where the kernel's own run of the same command took a cached stack
 * (kernel_clone's first call on 6.12 and 7.3: precision 0.90-0.91). Two
 * threads alive at once, pinned to a CPU, give the two stacks they took
 * (from the cache of the CPU that made them, or vmalloc) to that CPU's
 * cache when they end; the CPU bpfgraph runs on goes last, so that what
 * the others took from it is given back.
 */
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *hold(void *arg)
{
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	return arg;
}

static void fill_cpu(int cpu)
{
	pthread_t t[2];
	pthread_attr_t a;
	cpu_set_t one;
	int n = 0;

	if (pthread_attr_init(&a))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (!pthread_attr_setaffinity_np(&a, sizeof(one), &one)) {
		/* Neither ends before both exist: the gate is closed until then. */
		pthread_mutex_lock(&gate);
		while (n < 2 && !pthread_create(&t[n], &a, hold, NULL))
			n++;
		pthread_mutex_unlock(&gate);
		while (n > 0)
			pthread_join(t[--n], NULL);
	}
	pthread_attr_destroy(&a);
}

void settle__stacks(void)
{
	int self = sched_getcpu(), done = 0;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && done < SETTLE_STACK_CPUS - 1; c++) {
		if (c == self || !CPU_ISSET(c, &set))
			continue;
		fill_cpu(c);
		done++;
	}
	if (self >= 0 && CPU_ISSET(self, &set))
		fill_cpu(self);
}
