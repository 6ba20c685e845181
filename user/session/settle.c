// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bpfgraph's footprint on the kernel's per-CPU caches, taken back: see settle.h. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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
 * (kernel_clone's first call on 6.12 and 7.3: precision 0.90-0.91).
 * Threads parked at bpfgraph's start, two per CPU and pinned there, end
 * when asked: their stacks go to their CPU's cache. Made at the start,
 * not at the end: a task's pid and task_struct are freed an RCU grace
 * period after it ends, and threads made and ended just before the
 * command went had emptied the pid cache's slab its first clone() then
 * refilled (6.1: allocate_slab() and fifty lines below it).
 */
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_t parked[2 * SETTLE_STACK_CPUS];
static int nparked;

static void *hold(void *arg)
{
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	return arg;
}

/* Two threads pinned to cpu, waiting at the gate. */
static void park_on(int cpu)
{
	pthread_attr_t a;
	cpu_set_t one;

	if (pthread_attr_init(&a))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (!pthread_attr_setaffinity_np(&a, sizeof(one), &one))
		for (int k = 0; k < 2 && !pthread_create(&parked[nparked], &a, hold, NULL); k++)
			nparked++;
	pthread_attr_destroy(&a);
}

void settle__park(void)
{
	sigset_t all, old;
	cpu_set_t set;
	int cpus = 0;

	if (nparked || sched_getaffinity(0, sizeof(set), &set))
		return;
	/* Signals for the process go to the threads that do the work. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&gate);
	for (int c = 0; c < CPU_SETSIZE && cpus < SETTLE_STACK_CPUS; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		park_on(c);
		cpus++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void settle__stacks(void)
{
	if (!nparked)
		return;
	pthread_mutex_unlock(&gate);
	while (nparked > 0)
		pthread_join(parked[--nparked], NULL);
}
