/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wide net: one kprobe.session link over every traceable function
 * that has no link of its own, so that the first traced call is complete
 * before anything was learned about it (bg_wide, bpf/guard.bpf.h).
 * Calls outside a graph pay an entry hook and one load; calls inside one
 * are recorded like those of planned functions, under a wide index
 * (BG_FUNC_WIDE | position in the table) that user space turns into a
 * function table index as their records arrive. Where the kernel has no
 * kprobe.session (before 6.10, or without CONFIG_FPROBE) there is none.
 */
#ifndef BG_WIDE_H
#define BG_WIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct btf;
struct functab;
struct ksym;
struct ksyms;
struct ktext;

struct wide_opts {
	const struct ksyms *ks;
	/*
	 * ftrace's records are read from kernel memory through kt, their
	 * layout from btf (NULL: not); where that fails, tracefs lists the
	 * sites, and where tracefs cannot be read, they are found in the text.
	 */
	struct ktext *kt;
	const struct btf *btf;
	/* -x globs: their calls are hidden with their subtrees (BG_CK_NOTRACE). */
	char *const *notrace;
	size_t n_notrace;
	/*
	 * Hook the hot functions by a link of their own (see hot_globs in
	 * wide.c): where fprobe is built on ftrace ops (each link its own
	 * ops). Where it runs on the function graph tracer (6.14+), links
	 * share one filter that each new link updates as a whole: a second
	 * link of all of them cost more than one (docs/kernels.md, "The wide
	 * net"); the second link there holds only what the text patching
	 * runs (patch_globs in wide.c).
	 */
	bool split_hot;
	/*
	 * Leave __rcu_read_lock and __rcu_read_unlock out (--no-callsite-probes):
	 * they cost every caller in the machine a hook, also once the net is
	 * narrowed.
	 */
	bool no_rcu;
	/*
	 * --locks=hooked (or --no-callsite-probes): the lock primitives
	 * (plan__shared_leaf()) are linked with what the net met, not kept
	 * by the keep link until their call sites are probed.
	 */
	bool hook_locks;
	/*
	 * Where fprobe preallocates return hooks per hooked function and CPU
	 * (6.10-6.13: a rethook pool per link, sized 2 x functions x possible
	 * CPUs, whose per-CPU rings each have room for all of them), the net's
	 * return side costs memory that grows with the square of the CPU
	 * count: about 360 MiB for 40 000 functions on 16 CPUs. With
	 * ret_pools, at most mem_budget bytes (0: no limit but the kernel's):
	 * the functions nearest the plan (by direct calls, breadth first) keep
	 * their returns, the others get an entry-only link (no pool) whose
	 * calls are drawn as leaves closed at the task's next event
	 * (BG_CK_LAZY | BG_CK_NETONLY); once met, they are linked like the
	 * rest. ncpus: the kernel's possible CPUs.
	 */
	bool ret_pools;
	uint64_t mem_budget;
	unsigned int ncpus;
};

struct wide_stats {
	size_t funcs; /* in the table */
	size_t denied; /* traceable, left out: on the tracer's own path */
	const char *source; /* where the traceable functions were listed */
	long records; /* ftrace's records read (source: kernel memory), -errno: failed */
	int links; /* the net's links: 2 (cold, hot), 1 without a hot function, +1 entry-only part */
	size_t entry_only; /* of funcs: hooked without a return (wide_opts.mem_budget) */
	size_t decoded; /* functions whose code was read to choose them */
	double choose_s; /* ... and the time that took */
	uint64_t pool_bytes; /* the return hooks' pools as modelled (ret_pools) */
	/* With an entry-only part: what the whole net's pools would take (UINT64_MAX: too many). */
	uint64_t whole_bytes;
	unsigned int ncpus; /* the possible CPUs the pools were modelled for */
	bool ranges; /* the entry-only part's code ranges are in bg_wranges */
	unsigned int retried; /* links the kernel refused once, tried again */
	int refused; /* the first refusal's -errno */
	double build_s, attach_s, detach_s;
	double closer_spawn_s; /* starting the child that closes the net (fork) */
};

struct wide;

/*
 * Starts listing what the net can cover, in a thread of its own (reading
 * the list takes a second under emulation): NULL + errno. o's pointers
 * must stay valid until wide__free().
 */
struct wide *wide__new(const struct wide_opts *o);
/*
 * The net over what was listed, less funcs (functions with links of their
 * own), with prog_fd (bg_wide, loaded as a kprobe.session program) and
 * its cookies of link generation gen (BG_CK_GEN), and entry_fd (bg_mentry)
 * for an entry-only part (wide_opts.mem_budget), whose functions' code
 * ranges go to ranges_fd (bg_wranges; -1: none): 0 or -errno. Its table
 * is fixed from here on (wide__sym()).
 */
int wide__attach(struct wide *w, const struct functab *funcs, int prog_fd, int entry_fd,
		 int ranges_fd, uint32_t gen);
bool wide__attached(const struct wide *w);
/* wide__narrow()'s link is there. */
bool wide__kept(const struct wide *w);
/* wide__narrow()'s link fd, now the caller's to close (-1: none). */
int wide__take_keep(struct wide *w);
/*
 * What fprobe sets aside for the return hooks of a link over n functions
 * on ncpus possible CPUs where it keeps them in a rethook (wide_opts.ret_pools),
 * in bytes as modelled; UINT64_MAX: more than the kernel takes in one link.
 */
uint64_t wide__pool_bytes(size_t n, unsigned int ncpus);
/*
 * May a net of up to BG_WRANGES_MAX functions on ncpus CPUs pass budget
 * (--wide-mem; 0: no bound) with its return hooks, where the kernel sets
 * them aside per function and CPU? Then the net may have an entry-only
 * part, whose calls its first call draws closed at the next event.
 */
bool wide__may_bound(unsigned int ncpus, uint64_t budget);
/*
 * What stays once the net is narrowed: an entry-only
 * kprobe.multi link (program entry_fd, bg_mentry) over __rcu_read_lock and
 * __rcu_read_unlock if the net met them (met[i] >= 0 for position i of the
 * table) or, planned, if the plan's functions call them (a later call may
 * take a path the first did not), recording always (BG_CK_KEEP). They get no return hook: every
 * caller in the machine would pay for it (a traced open cost 3 to 7 times
 * more with a session link on them); a call of theirs is drawn as a leaf
 * closed at the task's next event (BG_CK_LAZY), as they call nothing.
 * It records only once bg_wide_on is cleared (BG_CK_NET), so it may be
 * made while the net still records. 0 or -errno.
 */
int wide__narrow(struct wide *w, const int32_t *met, bool planned, int entry_fd);
/* The function at position i of the table, or NULL. */
const struct ksym *wide__sym(const struct wide *w, uint32_t i);
/*
 * Closes the net's link (the table stays): calls under way in it lose their
 * exits. Waits for a child of wide__detach_async() first.
 */
void wide__detach(struct wide *w);
/*
 * The same in a child process: under a load, closing a link over 40 000
 * functions takes seconds (docs/kernels.md, "The wide net"), all of it in the kernel, where
 * the closing thread hears neither the -d alarm nor Ctrl-C and reads no
 * records. This process closes its copies at once and goes on;
 * wide__detached() says when the hooks are gone. 1: a child closes them,
 * 0: closed here (no child could be made, or nothing was attached).
 */
int wide__detach_async(struct wide *w);
/* No link of the net is left (a child of wide__detach_async is reaped). */
bool wide__detached(struct wide *w);
const struct wide_stats *wide__stats(const struct wide *w);
void wide__free(struct wide *w);

#endif
