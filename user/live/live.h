/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Live discovery: what the plan could not know is found while tracing
 * and attached at once. The session hands in what it finds (a caller
 * between two traced functions, an indirect call's target, a traced
 * function at the edge of the plan entered, a function the wide net met)
 * and live plans it (plan__add_live) and asks for its hooks: a trampoline
 * (attach.h), a kprobe or kprobe.multi link (kprobe.h), call-site probes
 * (icall.h). It also owns the hooks that are not per planned function:
 * the kprobe links of the plan, the indirect-call probes and the wide net
 * (wide.h), with its narrowing after the first traced call.
 */
#ifndef BG_LIVE_H
#define BG_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"
#include "plan.h"
#include "tier.h"

struct attach;
struct discover_stats;
struct bpfobj;
struct kprobe_stats;
struct session;
struct wide;

struct live_opts {
	struct plan *plan;
	struct plan_opts po; /* as the plan was made: additions are planned alike */
	struct attach *attach; /* trampolines (fentry tier) */
	struct bpfobj *obj; /* loaded (attach__all) */
	struct tier tier; /* the tier chosen (tier.h): kprobes or kprobe.multi for the rest */
	bool fprobe_fgraph; /* caps.h: kprobe.multi links cost next to nothing each */
	struct wide *wide; /* the wide net's list, taken over; NULL: no net */
	bool wide_always; /* --wide=always: never narrowed */
	double wide_wait_s; /* --wide-wait: without a command, closed if no call came; 0: never */
	bool progress; /* progress lines on stderr */
	int verbose;
};

/* Functions attached while tracing that bg_franges has room for. */
#define LIVE_FRANGES 4096

struct live;

/* NULL (errno set) on failure; o->wide is freed then too. */
struct live *live__new(const struct live_opts *o);
/*
 * Links for the plan's functions fentry does not take (every function on
 * the kprobe tiers). -ENOENT when no -G function could be hooked, -EINTR
 * when a signal asked to stop (stop.h).
 */
int live__attach_kprobes(struct live *l);
/* The wide net over what has no link yet: 0 or -errno (then there is none). */
int live__attach_wide(struct live *l);
/*
 * Kprobes on the call sites of what is traced: indirect calls (when
 * indirect) and calls to functions no trampoline may hook. Cut short when
 * a signal asks to stop.
 */
void live__probe_calls(struct live *l, const struct ksyms *ks, struct ktext *kt,
		       bool indirect);
struct ftnet_opts;
/*
 * The ftrace net (user/hook/ftnet.h) in place of the wide net, for a
 * command to pause: link_plan(ctx) makes the plan's hooks once the first
 * traced call is over, then what it met and their direct callees are
 * hooked and the command resumes. 0, or -errno with the reason in why
 * (there is none then).
 */
int live__open_ftnet(struct live *l, const struct ftnet_opts *o, int (*link_plan)(void *ctx),
		     void *ctx, char *why, size_t cap);
/* function_graph on, just before the command starts: 0 or -errno. */
int live__start_ftnet(struct live *l);
/* The trace began under the ftrace net. */
bool live__ftnet_used(const struct live *l);
/* Where the planned functions' calls return to (bg_franges). */
void live__set_franges(struct live *l);
/*
 * Hand what session s finds to live: discover (callers, targets,
 * expansion) and the wide net's records and narrowing. Call once, before
 * the session runs.
 */
void live__bind(struct live *l, struct session *s, bool discover);
/* Functions hooked by live's links (kprobes and the wide net). */
unsigned int live__traced(const struct live *l);
/* Seconds the wide net took to attach; 0 without one. */
double live__wide_attach_s(const struct live *l);
/* Stats of the kprobe links, NULL when there are none. */
const struct kprobe_stats *live__kprobe_stats(const struct live *l);
/*
 * The trace is over: nothing more is placed (the rcu pair's thread ends),
 * and the kprobe optimizer's setting is the machine's again, before the
 * hooks may be left to another process to release. NULL: nothing to do.
 */
void live__settle(struct live *l);
/* Closes every hook live made (call-site probes, the net, kprobe links). */
void live__detach(struct live *l);
/*
 * What discovery did and what live's hooks cost (d NULL: no discovery);
 * released_here: the hooks were released by this process (their times known).
 */
void live__print(const struct live *l, const struct discover_stats *d, bool released_here);
void live__free(struct live *l);

#endif
