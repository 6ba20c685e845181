/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Before a command's first traced call: the RCU grace periods bpfgraph's
 * own start set going (programs, maps and links freed, ftrace's filters
 * swapped when function_graph starts) are let end first. While one is
 * under way the kernel's grace-period thread (rcu_preempt, rcu_sched)
 * wakes every jiffy or two; on the command's CPU it preempts the first
 * call at its next cond_resched(), and the scheduler's functions are drawn
 * into a graph the same call would not have untraced, or under
 * function_graph started from a shell that then waits.
 */
#ifndef BG_SESSION_SETTLE_H
#define BG_SESSION_SETTLE_H

#include <stdbool.h>
#include <sys/types.h>

struct settle_stats {
	double waited_s; /* from the call to its return */
	unsigned int runs; /* the thread's runs seen meanwhile */
	bool quiet; /* it stayed asleep quiet_ms (else max_ms ran out) */
	bool found; /* there is such a thread (and its schedstat) */
};

/*
 * The grace-period thread's pid: a kernel thread (parent kthreadd, pid 2)
 * named rcu_preempt or rcu_sched. -ENOENT without one (or /proc).
 * proc: where procfs is ("/proc"); a test gives another tree.
 */
pid_t settle__rcu_thread(const char *proc);
/*
 * Waits until that thread has not run for quiet_ms (its schedstat's count
 * of runs unchanged), at most max_ms. Said in st. 0, or -errno (no such
 * thread: nothing waited for).
 */
int settle__rcu(const char *proc, unsigned int quiet_ms, unsigned int max_ms,
		struct settle_stats *st);
/* The count of runs in a schedstat line ("run_ns wait_ns runs"); -1 if malformed. */
long long settle__runs(const char *schedstat);

#endif
