/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The plan: which functions to attach, and why. Entry globs are resolved
 * against kallsyms, callees are discovered in live kernel text, the deny
 * list and the user's allow/notrace globs are applied, and every candidate
 * keeps the reason it was kept or skipped (--dry-run prints them).
 * Nothing here touches BPF.
 */
#ifndef BG_PLAN_H
#define BG_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "functab.h"
#include "kbtf.h"
#include "kops.h"
#include "ksyms.h"
#include "ktext.h"

enum plan_why {
	PW_ENTRY, /* matches a -G glob */
	PW_CALLEE, /* called by parent, depth levels below an entry */
	PW_ALLOW, /* matches a -a glob */
	PW_IRQ, /* interrupt entry point (funcgraph-irqs) */
	PW_CALLSITE, /* fentry refused: probed where traced functions call it */
};

enum plan_skip {
	PS_NONE = 0, /* attached */
	PS_DENIED, /* on the tracer's own path */
	PS_NO_BTF, /* no BTF FUNC: fentry cannot attach (compiler clones...) */
	PS_NOT_TRACEABLE, /* no fentry site (notrace, noinstr) */
	PS_DUPLICATE, /* another function in its scope has the same name */
	PS_BTF_AMBIGUOUS, /* BTF FUNCs of that name with different prototypes */
	PS_LIMIT, /* over --max-funcs */
};

struct plan_cand {
	const struct ksym *sym;
	enum plan_why why;
	enum plan_skip skip;
	int depth; /* callee depth (0 for entries and allowed) */
	const char *parent; /* PW_CALLEE: a caller's name */
	int table; /* PW_CALLEE: called through an operation table (kops.h) */
	const char *glob; /* PW_ENTRY/PW_ALLOW: the glob */
	const char *deny; /* PS_DENIED: the deny-list pattern */
	int notrace; /* matched a -x glob */
	int kprobe; /* attached by kprobe/kretprobe: fentry cannot (no BTF...) */
	enum plan_skip kprobe_why; /* kprobe && !kprobes_only: why not fentry */
	int func; /* functab index when attached, else -1 */
};

struct plan_opts {
	char **graph;
	int n_graph;
	char **allow;
	int n_allow;
	char **notrace;
	int n_notrace;
	int callee_depth;
	int max_funcs;
	int irqs; /* funcgraph-irqs: also trace what interrupts run */
	int kprobes; /* attach what fentry cannot by kprobe */
	int kprobes_only; /* --kprobes: every function by kprobe, entries too */
	/* with kprobes_only: how, for --dry-run ("kprobe.multi"); NULL: "kprobe (--kprobes)" */
	const char *kprobes_how;
	int callsites; /* kprobe-only functions: at their call sites (icall.h) */
	int hook_locks; /* --locks=hooked: shared_leaves as other callees, not at call sites */
	struct ksyms *ks;
	struct kbtf *kb;
	struct ktext *kt; /* NULL: no callee discovery, no traceability check */
	/* Pointer targets of code no probe may enter (kops.h); NULL: none. */
	struct kops *ops;
	FILE *err; /* where errors are printed */
};

/*
 * A set of symbols by pointer (kallsyms has one struct ksym per symbol):
 * open addressing, grown by symset__add(); free(slot) frees it.
 */
struct symset {
	const struct ksym **slot;
	size_t cap, n;
};

/* 1: added, 0: there already, -ENOMEM. */
int symset__add(struct symset *s, const struct ksym *k);

struct plan {
	struct functab funcs; /* what to attach; cookie = index */
	struct symset *seen; /* symbols already considered */
	struct plan_cand *cands;
	size_t ncands, cap;
	size_t nattach, nskipped;
	bool over_limit; /* a function was left out for --max-funcs (PS_LIMIT) */
	int kprobes_only; /* built with plan_opts.kprobes_only */
	const char *kprobes_how; /* plan_opts.kprobes_how */
};

/* 0, or -errno after printing one line per problem to opts->err. */
int plan__build(struct plan *p, const struct plan_opts *o);
/*
 * A function met while tracing (discover.h): classified like a callee
 * found statically. Returns its functab index when it can be attached,
 * -EEXIST if it was considered before, or -(plan_skip) ... as -EPERM
 * with *why set to the reason it cannot.
 */
int plan__add_live(struct plan *p, const struct plan_opts *o, const struct ksym *s,
		   enum plan_skip *why);
/*
 * s, in the function table at idx already by name only (what the ftrace
 * net met while its records came), planned as plan__add_live() plans:
 * idx, -EEXIST when s was considered before, -EPERM when it cannot be
 * hooked (*why), -ENOMEM.
 */
int plan__adopt(struct plan *p, const struct plan_opts *o, const struct ksym *s, int idx,
		enum plan_skip *why);
/*
 * A function the wide net met (user/hook/wide.h), known traceable: into the
 * function table without reading its code, as one attached by address.
 * Returns its functab index (the existing one when it was there), or
 * -EEXIST when it was considered before and is not in the table, or
 * -errno.
 */
int plan__add_wide(struct plan *p, const struct plan_opts *o, const struct ksym *s);
/* Direct callees of s in kernel text (up to max); their count or -errno. */
int plan__callees(const struct plan_opts *o, const struct ksym *s, const struct ksym **out,
		  size_t max);
/* Whether a planned function calls vmlinux's function name directly (found in its code). */
bool plan__calls(const struct plan *p, const char *name);
void plan__print(const struct plan *p, FILE *out);
/* Why a candidate was skipped, in words. */
const char *plan__skip_text(enum plan_skip s);
void plan__free(struct plan *p);
/* The built-in deny pattern matching name, or NULL. */
const char *plan__denied(const char *name);
/*
 * Denied only because a trampoline would call it from inside itself
 * (__rcu_read_lock..., the clocksource's read function): 1 or 0.
 */
int plan__hook_only(const char *name);
/*
 * A lock primitive (spin locks, mutex_unlock) that, reached as a callee,
 * is traced at its call sites (plan.c's shared_leaves).
 */
bool plan__shared_leaf(const char *name);
/*
 * The current clocksource's name (sysfs current_clocksource): its read
 * function, which our programs call for every timestamp, is traced at
 * its call sites only, like __rcu_read_lock. Returns that function's
 * name, or NULL for a clocksource not known here.
 */
const char *plan__set_clocksource(const char *clocksource);

#endif
