/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * bpfgraph's own footprint on the kernel's per-CPU caches, taken back
 * before the traced command's calls meet it: a traced call that finds a
 * cache as bpfgraph left it, not as the untraced run would, takes another
 * path and draws lines the kernel's function_graph does not.
 */
#ifndef BG_SETTLE_H
#define BG_SETTLE_H

/*
 * Empties this CPU's batch of pages on their way to the LRU lists, which
 * bpfgraph's own writes and reads fill and a traced call would drain.
 */
void settle__lru(void);

/*
 * The kernel's per-CPU caches of freed task stacks, which bpfgraph's own
 * threads and processes empty: settle__park() at the start makes two
 * threads on each CPU this process may run on (at most SETTLE_STACK_CPUS
 * of them), which wait; settle__stacks() ends them, and their stacks fill
 * those caches. Without settle__park() first, it does nothing.
 */
#define SETTLE_STACK_CPUS 64
void settle__park(void);
void settle__stacks(void);

#endif
