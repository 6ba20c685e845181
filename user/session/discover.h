/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finds untraced functions that sit between two traced ones. Every entry
 * record carries the traced function's return address; when that address
 * is not inside the function recorded one level up for the same task,
 * something untraced called it (an indirect call's target, a compiler
 * clone without BTF, a callee deeper than static discovery went). This
 * names it through kallsyms so that it can be attached while tracing, or
 * reported.
 */
#ifndef BG_DISCOVER_H
#define BG_DISCOVER_H

#include <stdint.h>

#include "bpfgraph.h"
#include "functab.h"
#include "ksyms.h"

struct discover;

struct discover_stats {
	uint64_t checked; /* entries below depth 0 with a return address */
	uint64_t direct; /* ... whose caller was the traced parent */
	uint64_t between; /* ... with an untraced function in between */
	uint64_t unknown; /* ... whose return address is not kernel text */
	uint64_t stacks; /* kernel stacks read at an untraced caller (BG_REC_STACK) */
	uint64_t stacked; /* ... untraced callers above it found there */
};

struct discover *discover__new(struct functab *funcs, const struct ksyms *ks);
void discover__free(struct discover *d);
/*
 * Looks at one record. Returns 1 and sets *caller the first time an
 * untraced function is seen between two traced ones, 0 otherwise. With
 * want 0 (the caller has no room for it now) nothing is reported and the
 * function will be reported on a later call. A leaf in one record
 * (BG_REC_LEAF) carries no return address: the BPF side's kernel stack
 * (BG_REC_STACK, discover__stack()) names its untraced callers.
 */
int discover__feed(struct discover *d, const struct bg_rec *r, const struct ksym **caller,
		   int want);
/*
 * A traced function whose callees were never considered (it sat at the
 * edge of static discovery, or was attached while tracing) and that was
 * just entered: returns its index once, marking it expanded, else -1.
 * Growing the traced set where calls really go keeps it small.
 */
int discover__expand(struct discover *d, const struct bg_rec *r);
/*
 * A kernel stack read where a traced function was entered from an
 * untraced caller (struct bg_stack: hdr, then n return addresses): the
 * functions above that caller up to the traced parent (or another traced
 * function) are untraced too. Puts up to max of them not reported before
 * in out; returns how many. Nothing when the walk leaves kernel text or
 * reaches the stack's bottom without a traced function. The kernel sends
 * each stack once: those left out are found one per call, from return
 * addresses.
 */
size_t discover__stack(struct discover *d, const struct bg_rec *hdr, const uint64_t *ip,
		       size_t n, const struct ksym **out, size_t max);
const struct discover_stats *discover__stats(const struct discover *d);

#endif
