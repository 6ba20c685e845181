/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The trampoline tiers' shared state: attach.c (fentry) and tmulti.c (fentry-multi). */
#ifndef BG_ATTACH_INT_H
#define BG_ATTACH_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <bpf/bpf.h>

#include "attach.h"
#include "bpfobj.h"
#include "bpfgraph.h"
#include "functab.h"

/*
 * Where attach and detach time goes, for -v: program loads (verifier and
 * JIT) against link creation (trampoline rebuild and text patching), and
 * the link closes (links__close_all(): several threads at once).
 */
struct attach_cost {
	double skel_s, load_s, link_s, close_s;
	uint32_t loads, links, closes;
	uint64_t walked; /* instructions the verifier walked in the loaded clones */
	uint32_t dropped[2]; /* instructions of unused functions not in the entry, exit copies */
	uint32_t dead[2]; /* dead instructions not in them (dce.h) */
	double dce_s; /* loading the copies that told which (one per template) */
	uint32_t dce_full; /* copies loaded whole after the kernel refused them without */
};
extern struct attach_cost attach_cost;

#define BG_TMULTI_LANES_MAX 64

struct attach {
	struct bpfobj *obj;
	struct prog_src tsrc[3]; /* the clones' templates: entry, exit, graph entry */
	struct functab *funcs;
	int *links; /* 2 per function (entry, exit); -1 when absent */
	size_t links_cap; /* entries allocated in links */
	struct attach_stats st;
	int verbose;
	bool progress; /* show progress on stderr */
	bool no_fentry; /* kprobe tiers: the fentry/fexit templates are not even loaded */
	bool templates; /* set by attach__load: the fentry templates are loaded */
	bool loaded; /* attach__load done */
	uint32_t nplan; /* functions when loaded: those attach__all links */
	double t_load; /* when attach__load began */
	FILE *err;
	double detach_t0; /* when attach__unlink began, 0: not yet */
	/* The tracing_multi tier (attach_opts.multi). */
	bool multi;
	/*
	 * Its entry and exit programs, -1: not loaded. Several copies
	 * (lanes), function idx on lane idx % nlanes: a trampoline skips a
	 * program already running on its CPU (prog->active), and a run
	 * preempted or interrupted on one lane then blocks only that lane's
	 * functions (docs/kernels.md, "tracing_multi").
	 */
	int mprog[BG_TMULTI_LANES_MAX][2];
	unsigned int nlanes; /* loaded; 0: none */
	int *mlinks; /* one per batch and direction */
	size_t nmlinks, mlinks_cap;
	uint8_t *mon; /* per function: linked by a batch */
	size_t mon_cap;
	uint32_t *queue; /* functions for the next attach__flush() */
	size_t nqueue, queue_cap;
};

/* With the argument registers the entry program skips to the return address. */
static inline uint64_t cookie_of(const struct bg_func *f, uint32_t idx)
{
	return functab__cookie(f, idx) | (uint64_t)f->nr_regs << BG_CK_NREGS_SHIFT;
}

/* A template's final instructions, for cloning: entry, exit, graph entry. */
struct clone_src {
	const struct prog_src *prog; /* the template's instructions and BTF records */
	enum bpf_attach_type type;
	const char *name;
};
/* A program loaded from prog's instructions: its fd, or -errno. */
int attach_load_copy(const struct prog_src *prog, enum bpf_attach_type type, const char *name,
		     uint32_t btf_id, int btf_obj_fd);

/* The BTF object of the previous function's module (attach_btf_obj_fd). */
struct modcache {
	char *module;
	int fd;
};

/* A clone of src for f: its fd, or -errno. Safe from several threads. */
int attach_load_clone(const struct clone_src *src, const struct bg_func *f, int btf_obj_fd);
/* attach_btf_obj_fd's fd for module's BTF (0: vmlinux), cached in mc; or -errno. */
int attach_btf_obj_fd(struct modcache *mc, const char *module);
void attach_modcache_free(struct modcache *mc);
/*
 * Function i's entry and exit programs loaded (pfd[0], pfd[1]; -1 for
 * function 0, whose are the templates): 0 or -errno, nothing left open.
 * Safe from several threads, each with its own mc.
 */
int attach_load_func(struct attach *a, uint32_t i, const struct clone_src src[3],
		     struct modcache *mc, int pfd[2]);

/*
 * loadahead.c: the programs of functions idx[0..n) loaded by threads of
 * their own, ahead of the caller linking them one by one: the verifier
 * runs on other CPUs while the trampolines are made. NULL: none (one
 * CPU, too few functions, no thread): the caller loads them itself.
 */
struct loadahead;
struct loadahead *loadahead__start(struct attach *a, const struct clone_src src[3],
				   const uint32_t *idx, size_t n);
/* The j-th function's programs (j in order, from 0): 0 or its load's -errno. */
int loadahead__take(struct loadahead *la, size_t j, int pfd[2]);
/* The threads ended, what they loaded and nobody took closed. NULL is fine. */
void loadahead__stop(struct loadahead *la);

/* tmulti.c: attach__all() of the tracing_multi tier, once the object is loaded. */
int tmulti__all(struct attach *a, double t0);
/* Whether a fentry.multi link may take f (else a kprobe does). */
bool tmulti__takes(const struct bg_func *f);
/* Function idx waits for the next attach__flush(). */
int tmulti__queue(struct attach *a, uint32_t idx);

#endif
