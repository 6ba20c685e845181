/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trampoline tiers. fentry: the object's three templates (entry, the
 * entry of -G functions, exit) are loaded once, verified against the
 * plan's first function; their final instructions are cloned for every
 * other function with that function's BTF id, and each clone is linked
 * with a cookie carrying the function's index and flags (program fds are
 * closed once linked). fentry-multi: one entry and one exit program for
 * every function, linked in batches by tracing_multi links.
 */
#ifndef BG_ATTACH_H
#define BG_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"

struct bpfobj;

struct attach_stats {
	uint32_t attached; /* functions with both links */
	uint32_t failed; /* functions whose load or link failed */
	uint32_t handed_over; /* ... of which kprobes trace instead (attach__disown) */
	uint32_t no_fds; /* ... of which for want of file descriptors (EMFILE) */
	double attach_s, detach_s;
	double load_s; /* loading (verifying) the BPF object's programs */
	uint64_t recursion_misses;
};

struct attach_opts {
	/* Opened and configured by the caller (bpfobj.h); the attach object owns it. */
	struct bpfobj *obj;
	struct functab *funcs;
	int verbose;
	bool progress; /* show progress on stderr */
	bool no_fentry; /* kprobe tiers: the fentry/fexit templates are not even loaded */
	/*
	 * The tracing_multi tier: one fentry.multi and one fexit.multi
	 * program for all functions, linked in batches (one link per batch
	 * and direction); attach__one() queues, attach__flush() links.
	 */
	bool multi;
	FILE *err;
};

struct attach;

/* NULL (errno set; o->obj destroyed) on failure. */
struct attach *attach__new(const struct attach_opts *o);

/*
 * Load the BPF object (the fentry templates verified); nothing is hooked
 * yet. Once only: 0 or -errno.
 */
int attach__load(struct attach *a);
/*
 * Load the BPF object if not done, and attach every function the table
 * had at the load (the plan). -EINTR when a signal asked to stop (stop.h)
 * before all were.
 */
int attach__all(struct attach *a);
/*
 * Attach function idx of a->funcs while tracing (it was added to the
 * table after attach__all). 0 or -errno; a failure leaves nothing behind.
 */
int attach__one(struct attach *a, uint32_t idx);
/*
 * Multi: links what attach__one() queued, one link pair for all of it.
 * refused(ctx, idx) is called for each function the kernel would not
 * take (after splitting the batch until it stands alone). Returns how
 * many were refused.
 */
unsigned int attach__flush(struct attach *a, void (*refused)(void *ctx, uint32_t idx), void *ctx);
/*
 * Does this kernel have tracing_multi links (fentry.multi)? 1 yes, 0 no,
 * -errno when even the probe could not be made. Touches no function.
 */
int attach__multi_supported(void);
/*
 * "attaching DONE/N functions..." on a->err when a->progress, from one
 * second after t0, every half second (*last: when it last did, 0 first).
 */
void attach__progress(const struct attach *a, uint32_t done, double t0, double *last);
/*
 * Loaded, and each function gets a trampoline pair of its own cloned from
 * the templates (not fentry.multi): what is marked BG_FN_LINK then joins
 * attach__all()'s batch.
 */
bool attach__clones(const struct attach *a);
/* Both links of function idx are in place. */
bool attach__attached(const struct attach *a, uint32_t idx);
/* Function idx failed here and is traced by kprobe instead. */
void attach__disown(struct attach *a, uint32_t idx);
/* Sums recursion_misses of every attached program (before detach). */
void attach__count_misses(struct attach *a);
/*
 * -vv: program runs and their time per kind of hook, and the top
 * functions by time (the kernel counts them while bpf_stats is enabled).
 */
void attach__print_runs(struct attach *a, int top);
/*
 * Close every link: the programs stop running; the maps stay (the records
 * left in them are still to be read).
 */
void attach__unlink(struct attach *a);
/* attach__unlink, then free the programs and maps. */
void attach__detach(struct attach *a);
/* attach__detach (if not done), then the object itself. */
void attach__free(struct attach *a);
const struct attach_stats *attach__stats(const struct attach *a);
/* One-line explanation for a load failure of the template programs. */
void attach__explain_load_error(FILE *err, int errnum);

#endif
