/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wide net's insides, shared by its two parts: wide.c lists, links
 * and closes it; wide_mem.c chooses which functions keep their return
 * hooks where the kernel sets memory aside for them (wide_opts.ret_pools).
 */
#ifndef BG_WIDE_INT_H
#define BG_WIDE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wide.h"

struct wide {
	struct wide_opts o;
	/* Lists what can be hooked while the caller plans and loads. */
	pthread_t lister;
	bool listing;
	int list_err;
	int prog_fd;
	uint32_t gen;
	const struct ksym **sym; /* the table, by address */
	size_t n, cap;
	uint8_t *hot; /* by table index: in the hot link (hot_globs with split_hot, patch_globs) */
	uint8_t *full; /* by table index: its return hooked too (wide_choose_full()) */
	uint64_t *planned; /* functions with links of their own, by address */
	size_t nplanned;
	int link_fd; /* the net, less its hot functions */
	int hot_fd; /* its hot functions (find_hot()) */
	int part_fd; /* its entry-only part (wide_opts.mem_budget) */
	int keep_fd; /* what stays of the net once narrowed (wide__narrow) */
	pid_t closer; /* the child closing the net (wide__detach_async), 0: none */
	double closer_t0; /* when it was started */
	void *closer_stack; /* its stack (clone(CLONE_VM)), unmapped once it is reaped */
	struct wide_stats st;
};

/* The function at table position i goes to the hot link (see find_hot()). */
static inline bool wide_is_hot(const struct wide *w, size_t i)
{
	return w->hot && w->hot[i];
}

/*
 * w->full for every table position (1: its return hooked too), and the
 * part's stats: 0 or -errno (-ENOSPC: not one function's return hooks
 * fit in wide_opts.mem_budget).
 */
int wide_choose_full(struct wide *w, const struct functab *funcs);
/*
 * The entry-only part's code ranges into ranges_fd (bg_wranges): 0 or
 * -errno (-ENOSPC: the map was not sized for them).
 */
int wide_fill_ranges(const struct wide *w, int ranges_fd);

#endif
